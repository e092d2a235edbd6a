"""Baskets of several items. Shop tasks (and shop vouchers) keep to one shop: ``find_products_in_same_shop`` with the
items' search words proposes shops, each scored by its best candidate per item (an in-shop ``find_product`` refines
the leading shops). Voucher tasks take the best basket whose total fits the budget after the voucher (computed here
by the voucher's rules, then confirmed with ``calculate_voucher``), preferring a total just under the budget (the
budget is the price after the voucher plus a little); cheaper matches are searched (``sort=priceasc``) when it does
not fit."""

from __future__ import annotations

import itertools
from typing import Any

from baseline.query import Item, parse_item, parse_voucher, split_voucher_items
from baseline.rank import Ranked
from baseline.search import Session
from baseline.text import fmt

#: Score of an item a shop does not seem to sell (until an in-shop search finds it).
MISSING_PENALTY = -6.0
#: Leading candidates per item a voucher basket is chosen among, and how many equal matches' prices beside them
#: (four items or more: the first OPTION_WIDTH options only).
LEADING = 10
OPTION_WIDTH = 6
#: How far below the best an item's candidate may score and still be an equal match.
TIE = 2.5
#: Leading picks per item a shop's voucher basket is chosen among (the budget decides between them).
SHOP_COMBO_WIDTH = 3
#: Score for a voucher basket whose total after the voucher is where the budget suggests.
WINDOW_WEIGHT = 3.0

#: (score, the pick per item ("" for none), unmet constraints per item, shop id)
Plan = tuple[float, list[str], list[int], str]

# --- the voucher's arithmetic


def voucher_total(prices: list[float], one_shop: bool, voucher: dict[str, Any]) -> float:
    """The basket's total after the voucher, by ShoppingBench's rule (applies from total >= threshold)."""
    total = sum(prices)
    if voucher.get("voucher_type") == "shop" and not one_shop:
        return total
    if total < float(voucher.get("threshold") or 0):
        return total
    if voucher.get("discount_type") == "fixed":
        return total - min(total, float(voucher.get("face_value") or 0))
    after = total * (1 - float(voucher.get("discount") or 0))
    if voucher.get("cap") is not None:
        after = max(after, total - float(voucher["cap"]))
    return after


def voucher_window(voucher: dict[str, Any], one_item: bool) -> tuple[float, float] | None:
    """Where the basket's total after the voucher most likely lies (the budget is that plus up to 10%), or, for one
    item, where its price lies (inverting the voucher)."""
    budget = voucher.get("budget")
    if budget is None:
        return None
    lo, hi = (float(budget) - 2) / 1.1, float(budget)
    if not one_item:
        return lo, hi

    def before(after: float) -> float:
        if voucher.get("discount_type") == "fixed":
            return after + float(voucher.get("face_value") or 0)
        d = float(voucher.get("discount") or 0)
        full = after / (1 - d) if d < 1 else after
        return min(full, after + float(voucher["cap"])) if voucher.get("cap") is not None else full

    return before(lo), before(hi)


def fits_budget(prices: list[float], one_shop: bool, voucher: dict[str, Any]) -> bool:
    budget = voucher.get("budget")
    if budget is None:
        return True
    total = round(sum(prices), 2)
    return total <= budget + 1e-9 or round(voucher_total(prices, one_shop, voucher), 2) <= budget + 1e-9


def window_bonus(prices: list[float], one_shop: bool, voucher: dict[str, Any]) -> float:
    window = voucher_window(voucher, one_item=False)
    if window is None:
        return 0.0
    after = voucher_total(prices, one_shop, voucher)
    return WINDOW_WEIGHT if window[0] - 0.5 <= after <= window[1] + 0.5 else 0.0


def fits(s: Session, basket: list[str], voucher: dict[str, Any]) -> bool:
    shops = {s.summaries.get(p, {}).get("shop_id") for p in basket}
    return fits_budget([s.price_of(p) for p in basket], len(shops) == 1, voucher)


def confirm(s: Session, basket: list[str], voucher: dict[str, Any]) -> bool:
    """Whether the basket fits the budget, by calculate_voucher (by the local rule when the tool fails)."""
    args = {k: v for k, v in voucher.items() if v is not None}
    got = s.tool("calculate_voucher", product_ids=",".join(basket), voucher=args) if s.can_search() else None
    if isinstance(got, dict) and got.get("within_budget") is not None:
        return bool(got["within_budget"])
    prices = [float(s.summaries.get(p, {}).get("price") or 0) for p in basket]
    shops = {s.summaries.get(p, {}).get("shop_id") for p in basket}
    return fits_budget(prices, len(shops) == 1, voucher)


# --- voucher tasks


def solve_voucher(s: Session, query: str) -> None:
    """The best basket under the budget after the voucher (one shop for a shop voucher); cheaper matches, the
    dearest item first, while it does not fit."""
    items_text, voucher = parse_voucher(query)
    n = s.problem.get("n_products")
    items = [parse_item(t) for t in split_voucher_items(items_text, n if isinstance(n, int) else None)]
    if voucher is None:
        voucher = {"voucher_type": "platform", "threshold": 0.0, "discount_type": "fixed", "face_value": 0.0}
    if voucher.get("voucher_type") == "shop" and len(items) > 1:
        basket = one_shop_basket(s, items, voucher)
        if basket:
            s.recommend(basket)
            confirm(s, basket, voucher)
        return
    options: list[Ranked] = []
    if len(items) == 1:  # the budget tells roughly what the product costs
        window = voucher_window(voucher, one_item=True)
        if window is not None and window[1] >= window[0] > 0:
            items[0].likely = window
    for item in items:
        ids = s.candidates(item) if s.can_search(2) else []
        if item.likely is not None and len(items) == 1 and s.can_search(2):
            lo, hi = item.likely
            span = f"{fmt(max(0.0, lo * 0.98))}-{fmt(hi * 1.02)}"
            more = s.search(item.query, 1, span, item.service)
            s.view(more)
            ids += more
        options.append(_options(s, s.rank_item(item, ids)))
    basket = pick_basket(s, options, voucher)
    if not basket:
        return
    s.recommend(basket)
    if confirm(s, basket, voucher) or not all(options):
        return
    _cheaper_until_it_fits(s, items, options, basket, voucher)


def _options(s: Session, ranked: Ranked) -> Ranked:
    """An item's options for the basket: its leading candidates, then a spread of prices among those as good as the
    best (within `TIE`): between equal matches, the budget decides."""
    leading = ranked[:LEADING]
    if not ranked:
        return leading
    top_score, top_unmet = ranked[0][0], ranked[0][1]
    equal = sorted((r for r in ranked if r[0] >= top_score - TIE and r[1] <= top_unmet), key=lambda r: s.price_of(r[2]))
    step = max(1, len(equal) // OPTION_WIDTH)
    return list(dict.fromkeys(leading + equal[::step][:OPTION_WIDTH]))


def _cheaper_until_it_fits(
    s: Session, items: list[Item], options: list[Ranked], basket: list[str], voucher: dict[str, Any]
) -> None:
    """Too dear: add the cheapest good matches of the items, the dearest item first, until a basket fits."""
    for i in sorted(range(len(items)), key=lambda k: -s.price_of(basket[k])):
        if not s.can_search(3):
            break
        cheap = s.search(items[i].query, 1, items[i].price, items[i].service, sort="priceasc")
        s.view(cheap)
        ranked = s.rank_item(items[i], [p for _, _, p in options[i]] + cheap)
        least_bad = min(r[1] for r in ranked)
        cheapest = sorted((r for r in ranked[6:] if r[1] <= least_bad + 1), key=lambda r: s.price_of(r[2]))
        options[i] = ranked[:6] + cheapest[:4]
        again = pick_basket(s, options, voucher)
        if again and again != basket:
            basket = again
            s.recommend(basket)
            if fits(s, basket, voucher):
                break


def pick_basket(s: Session, options: list[Ranked], voucher: dict[str, Any]) -> list[str]:
    """The best-scoring basket (one option per item) that fits the budget; else the best one."""
    options = [o for o in options if o]
    if not options:
        return []
    best: tuple[float, list[str]] | None = None
    fallback: tuple[float, list[str]] | None = None

    def walk(i: int, score: float, picks: list[str]) -> None:
        nonlocal best, fallback
        if i == len(options):
            prices = [float(s.summaries[p].get("price") or 0) for p in picks]
            shops = {s.summaries[p].get("shop_id") for p in picks}
            score += window_bonus(prices, len(shops) == 1, voucher)
            if fits_budget(prices, len(shops) == 1, voucher):
                if best is None or score > best[0]:
                    best = (score, list(picks))
            if fallback is None or score - 0.001 * sum(prices) > fallback[0]:
                fallback = (score - 0.001 * sum(prices), list(picks))
            return
        for option_score, _, pid in options[i][: LEADING + OPTION_WIDTH if len(options) <= 3 else OPTION_WIDTH]:
            picks.append(pid)
            walk(i + 1, score + option_score, picks)
            picks.pop()

    walk(0, 0.0, [])
    if best is not None:
        return best[1]
    return fallback[1] if fallback else []


# --- one shop for every item


def one_shop_basket(s: Session, items: list[Item], voucher: dict[str, Any] | None = None) -> list[str]:
    """The best basket of one product per item, all from one shop (the first four items)."""
    items = items[:4]
    per_item, shops = _shop_offers(s, items)
    ranked_plans = _plans(s, items, per_item, shops, voucher, complete=True)
    if ranked_plans:
        s.recommend(ranked_plans[0][1])
    ranked_plans = _plans(s, items, per_item, shops, voucher, complete=False)
    if not ranked_plans:
        # no shop covers every item: the best candidate of each item on its own
        basket = []
        for item in items:
            ranked = s.best_for(item)
            basket.append(ranked[0][2] if ranked else "")
        return [b for b in basket if b]
    # refine the leading shops with in-shop searches (with each item's own filters) for their weak items
    found_all: list[str] = []
    for _, _, bads, sid in ranked_plans[:3]:
        for i, item in enumerate(items):
            if bads[i] == 0 or not s.can_search(3):
                continue
            found = s.search(item.query, 1, item.price, item.service, shop_id=sid)
            if not found and (item.price or item.service) and s.can_search(3):
                found = s.search(item.query, 1, shop_id=sid)
            per_item[i] += found
            found_all += found
    s.view(found_all)
    ranked_plans = _plans(s, items, per_item, shops, voucher, complete=True)
    return ranked_plans[0][1] if ranked_plans else list(s.answer)


def _shop_offers(s: Session, items: list[Item]) -> tuple[list[list[str]], list[str]]:
    """(per item, the products the proposed shops offer for it; the shops, best first), the leading shops' products
    viewed."""
    common = set(items[0].services)
    for it in items[1:]:
        common &= set(it.services)
    per_item: list[list[str]] = [[] for _ in items]
    shops: list[str] = []
    result = s.tool(
        "find_products_in_same_shop",
        queries=[it.query for it in items],
        service=",".join(sorted(common)) or None,
        max_shops=10,
        per_query=3,
    )
    for shop in result if isinstance(result, list) else []:
        if not isinstance(shop, dict):
            continue
        sid = str(shop.get("shop_id"))
        if sid not in shops:
            shops.append(sid)
        for qi, match in enumerate((shop.get("matches") or [])[: len(items)]):
            for prod in match.get("products") or []:
                if isinstance(prod, dict) and prod.get("product_id"):
                    pid = str(prod["product_id"])
                    s.summaries.setdefault(pid, prod)
                    per_item[qi].append(pid)
    order = {sid: i for i, sid in enumerate(shops)}
    pool = sorted(
        {p for lst in per_item for p in lst}, key=lambda p: (order.get(str(s.summaries[p].get("shop_id")), 99), p)
    )
    s.view(pool[: 5 * s.budget.view_batch])
    return per_item, shops


def _plans(
    s: Session,
    items: list[Item],
    per_item: list[list[str]],
    shops: list[str],
    voucher: dict[str, Any] | None,
    complete: bool,
) -> list[Plan]:
    """Every shop's plan, best first (only those with a pick for every item when ``complete``)."""
    plans = (_shop_plan(s, items, per_item, sid, voucher) for sid in shops)
    return sorted((p for p in plans if all(p[1]) or not complete), key=lambda t: -t[0])


def _shop_plan(
    s: Session, items: list[Item], per_item: list[list[str]], sid: str, voucher: dict[str, Any] | None
) -> Plan:
    """One shop's best pick per item (with a voucher: the best combination of each item's leading picks that fits
    the budget, as a near miss may differ from the gold only in price); a missing item has pick "" and counts as
    weak."""
    total = 0.0
    options: list[Ranked] = []
    for i, item in enumerate(items):
        ranked = s.rank_item(item, [p for p in per_item[i] if str(s.summaries[p].get("shop_id")) == sid])
        options.append(ranked[:SHOP_COMBO_WIDTH])
        if not ranked:
            total += MISSING_PENALTY
    picks = [o[0][2] if o else "" for o in options]
    bads = [o[0][1] if o else 99 for o in options]
    if voucher is None or not all(options):
        return total + sum(o[0][0] for o in options if o), picks, bads, sid
    best: Plan | None = None
    for combo in itertools.product(*options):
        prices = [s.price_of(pid) for _, _, pid in combo]
        score = sum(c[0] for c in combo) + window_bonus(prices, True, voucher)
        if not fits_budget(prices, True, voucher):
            score -= 20.0
        if best is None or score > best[0]:
            best = (score, [c[2] for c in combo], [c[1] for c in combo], sid)
    assert best is not None
    return best
