"""Gold rebuild: a catalog in which imported ShoppingBench problems can be solved, and failed, honestly.

The real problems' 2.5M products are not available offline. The rebuild makes one product per gold id that meets
every constraint of every problem naming it (ShoppingBench's test files name 25 gold ids in more than one problem):

- attributes and services: the union of what the problems require; SKU options: one option per distinct
  requirement, so each problem finds its own in a single option, as the checker looks for it;
- price: inside every price rule of every problem naming it; voucher baskets are then solved around the prices that
  are already fixed (a product shared by two baskets is priced inside both baskets' windows first), so that each
  basket's total fits its budget with the voucher (ShoppingBench's recipe: the total the record's
  ``price_after_voucher`` implies, when it fits);
- shop: every basket of a shop task or a shop voucher shares one shop (products linked through shared golds share it
  across problems); web golds keep their own document (the record carries it whole).

A set of problems that truly cannot be satisfied together (two price rules for one product that admit no common
price; a basket whose fixed products already overflow its budget window) is never dropped silently: the later problem
is left out and reported in one line naming both problems, the product and the constraint that clashes.

Near misses are laid out as a marketplace holds them around each problem: other listings of the gold's product line
(``NEAR_MISSES_PRODUCT`` per product problem, ``NEAR_MISSES_BASKET`` per basket item), each in another shop (every
other one in the basket's shop for a one-shop basket), each breaking exactly one constraint of the problem, the
constraints taken in turn: another value of a required attribute or SKU pair (another value of the key from the
taxonomy or the other golds, one no problem asks for when there is one), a price just outside a rule (by growing
steps), a required service missing; priced near the gold inside its rules otherwise. Plus another shop (shop tasks)
and an over-budget basket (voucher tasks); for web problems the answer removed, or replaced by a near-miss value. A
copy of a gold also fails every other problem that names the gold, or whose every pair the gold has (one more of
that problem's constraints broken, one its own problem does not ask for), so a basket's near misses are not another
problem's answers. The gold and its copies carry the same searched words (`_balance`: the values a copy swapped
are kept as ``tags``, under a key no problem asks for), so any query ranks them equally and ties go by the seeded
shuffled order products are written in: searching alone finds the gold about once in the cluster's size.

Web knowledge is laid out as the live web holds it (`arena.problems.webknowledge`): the fact in prose on a page about
the entity, among pages about related entities with other values. Everything is mixed, shuffled, into a generated
background catalog. Each problem records its distractor answers in
``meta["distractors"]`` so that ``arena problems selfcheck`` can prove golds pass and distractors fail.
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.catalog import generator as gen
from arena.catalog import taxonomy
from arena.catalog.build import StatsCollector
from arena.catalog.models import Product, search_contents
from arena.catalog.rng import Rng
from arena.catalog.webcorpus import generate_web_pages
from arena.catalog.writer import CatalogWriter
from arena.problem import PriceRule, Problem, ProductReward, Voucher
from arena.problems.webknowledge import fact_pages, knowledge_question
from arena.tools.shopping import Voucher as ToolVoucher
from arena.tools.shopping import apply_voucher

IMPORTED_CATEGORY = "Imported > ShoppingBench > Products"
#: near-miss pages (and products) per web problem
WEB_NEAR_MISSES = 5
#: near-miss products per gold of a one-product problem, and per gold of a basket (shop, voucher): other listings of
#: the product line that each break one constraint and match every query exactly as well as the gold
NEAR_MISSES_PRODUCT = 15
NEAR_MISSES_BASKET = 6
#: the attribute under which listings carry their tags (`_balance`), unless a problem asks for a key of this name
TAGS_KEY = "tags"
#: made-up values of a required pair, when the golds give too few others of its key
VARIANT_WORDS = ["Lite", "Plus", "Mini", "Max", "Pro", "II", "Classic", "Eco", "Neo", "Go"]
#: how far (a share of the bound, at least 1) price near misses fall outside a rule, in turn
PRICE_STEPS = [0.02, 0.1, 0.05, 0.25, 0.15, 0.4, 0.08, 0.6, 0.3, 0.2, 0.5, 0.12]
#: the cheapest price a rebuilt product gets when its rules allow it
MIN_PRICE = 1.0
#: kept between a basket total and the edges of its budget window, so cent rounding never crosses one
MARGIN = 0.02

Interval = tuple[float, float]
#: how every unsatisfiable line ends: what happened and what to do
LEFT_OUT = "left out (edit one of the records named to keep it)"


@dataclass
class RebuildReport:
    problems: list[Problem]
    digest: str
    products: int
    golds: int
    distractors: int
    #: one line per problem left out: "problem_id (source): what clashes"
    skipped: list[str] = field(default_factory=list)
    web_pages: int = 0


# ------------------------------------------------------------------------------------------------ price arithmetic


def price_interval(rules: Sequence[PriceRule]) -> tuple[float, float]:
    """The prices every rule admits, as [lo, hi] (hi may be inf). Raises ValueError when none fits."""
    lo, hi = 0.0, math.inf
    for rule in rules:
        if rule.lo is not None:
            lo = max(lo, rule.lo)
        if rule.hi is not None:
            hi = min(hi, rule.hi)
    if lo > hi:
        raise ValueError(f"price rules admit no price (need >= {lo:g} and <= {hi:g})")
    return lo, hi


def _describe(iv: Interval) -> str:
    lo, hi = iv
    if math.isinf(hi):
        return f">= {lo:g}"
    return f"<= {hi:g}" if lo <= 0 else f"between {lo:g} and {hi:g}"


def _intersect(a: Sequence[Interval], b: Sequence[Interval]) -> list[Interval]:
    out = []
    for lo1, hi1 in a:
        for lo2, hi2 in b:
            lo, hi = max(lo1, lo2), min(hi1, hi2)
            if lo <= hi:
                out.append((lo, hi))
    return sorted(out)


def after_voucher(total: float, single_shop: bool, voucher: Voucher) -> float:
    tool = ToolVoucher(voucher_type=voucher.voucher_type, threshold=voucher.threshold,
                       discount_type=voucher.discount_type, face_value=voucher.face_value, discount=voucher.discount,
                       cap=voucher.cap)
    discount, _, _ = apply_voucher(total, single_shop, tool)
    return total - discount


def fits_budget(total: float, voucher: Voucher) -> bool:
    """ShoppingBench's budget check for a basket whose voucher applies (one shop, or a platform voucher): the raw
    total within budget, or at the threshold and within budget after the voucher."""
    if total <= voucher.budget:
        return True
    if total < voucher.threshold:
        return False
    if voucher.discount_type == "fixed":
        return total - (voucher.face_value or 0) <= voucher.budget
    after = total * (1 - (voucher.discount or 0))
    if voucher.cap is not None:
        after = max(after, total - voucher.cap)
    return after <= voucher.budget


def budget_window(voucher: Voucher) -> list[Interval]:
    """Basket totals that fit the budget (the voucher applying): [0, budget] and [threshold, the largest total the
    voucher brings within budget], each kept ``MARGIN`` inside its edges."""
    windows = [(MARGIN, voucher.budget - MARGIN)]
    if voucher.discount_type == "fixed":
        top = voucher.budget + (voucher.face_value or 0)
    else:
        d = voucher.discount or 0
        top = voucher.budget / (1 - d)
        if voucher.cap is not None:
            top = min(top, voucher.budget + voucher.cap)
    windows.append((voucher.threshold + MARGIN, top - MARGIN))
    merged: list[Interval] = []
    for lo, hi in sorted(w for w in windows if w[0] <= w[1]):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def basket_total(voucher: Voucher) -> float:
    """The basket total ShoppingBench's recipe implies: inverted from ``price_after_voucher`` when the record has it
    and it fits, else the largest total the voucher brings within budget (so the voucher is needed), else a total
    within budget without it."""
    pav = voucher.price_after_voucher
    candidates: list[float] = []
    if pav is not None and pav > 0:
        if voucher.discount_type == "fixed":
            candidates.append(pav + (voucher.face_value or 0))
        else:
            d = voucher.discount or 0
            full = pav / (1 - d)
            candidates.append(full if voucher.cap is None or full * d <= voucher.cap else pav + voucher.cap)
    windows = budget_window(voucher)
    candidates.append(windows[-1][1] - 0.1 * (windows[-1][1] - windows[-1][0]))
    candidates.append(voucher.budget * 0.95)
    for total in candidates:
        total = round(total, 2)
        if any(lo <= total <= hi for lo, hi in windows) and fits_budget(total, voucher):
            return total
    raise ValueError("no basket total fits the budget")


def _pick_in(intervals: Sequence[Interval], prefer: float | None, rng: Rng) -> float:
    """A cent price inside ``intervals``: ``prefer`` when it is inside, else a point well inside the widest one."""
    if prefer is not None:
        for lo, hi in intervals:
            if lo <= prefer <= hi and lo <= round(prefer, 2) <= hi:
                return round(prefer, 2)
    lo, hi = max(intervals, key=lambda iv: (min(iv[1], iv[0] + 1e9) - iv[0], -iv[0]))
    if math.isinf(hi):
        return round(max(lo, MIN_PRICE) * (1.1 + 0.5 * rng.u()), 2)
    value = round(lo + (hi - lo) * (0.25 + 0.5 * rng.u()), 2)
    if not lo <= value <= hi:
        value = math.ceil(lo * 100) / 100
    return value if value <= hi else lo


def _floor(lo: float, hi: float) -> float:
    """The lowest price a product is given: ``MIN_PRICE`` when its interval allows, else its own lower bound."""
    if lo >= MIN_PRICE:
        return lo
    return MIN_PRICE if hi >= 2 * MIN_PRICE else max(lo, 0.01)


# ----------------------------------------------------------------------------------------------------- the plan


@dataclass
class _Gold:
    """What one gold product must be, merged over every problem naming it."""

    product_id: str
    interval: Interval = (0.0, math.inf)
    by: list[tuple[str, Interval]] = field(default_factory=list)  # (problem_id, its price interval)
    rewards: list[ProductReward] = field(default_factory=list)
    document: dict[str, Any] | None = None  # web golds: the record's document
    price: float | None = None
    shop_id: str | None = None


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def _where(problem: Problem) -> str:
    return f"{problem.problem_id} ({problem.source})" if problem.source else problem.problem_id


def _one_shop(problem: Problem) -> bool:
    return problem.task == "shop" or (problem.voucher is not None and problem.voucher.voucher_type == "shop")


class _Planner:
    """Merges the problems' demands per gold id and solves prices and shops; collects the problems left out."""

    def __init__(self, problems: Sequence[Problem], rng: Rng) -> None:
        self.rng = rng
        self.golds: dict[str, _Gold] = {}
        self.accepted: list[Problem] = []
        self.skipped: list[str] = []
        self._shops: set[str] = set()
        self._shop_rng = Rng("rebuild-shops", rng.u())
        for problem in problems:
            self._admit(problem)

    def new_shop(self) -> str:
        """A shop id of its own, drawn at random (a gold's shop is not told apart from its near misses' by order)."""
        while True:
            shop = f"99{self._shop_rng.below(10**6):06d}"
            if shop not in self._shops:
                self._shops.add(shop)
                return shop

    def _admit(self, problem: Problem) -> None:
        own: dict[str, Interval] = {}
        for reward in problem.reward:
            try:
                lo, hi = price_interval(reward.price)
            except ValueError as exc:
                self.skipped.append(f"{_where(problem)}: product {reward.product_id}: {exc}")
                return
            prev = own.get(reward.product_id, (0.0, math.inf))
            own[reward.product_id] = (max(prev[0], lo), min(prev[1], hi))
        for pid, iv in own.items():
            if iv[0] > iv[1]:
                self.skipped.append(f"{_where(problem)}: product {pid} is asked twice with price rules that admit "
                                    f"no common price; {LEFT_OUT}")
                return
            gold = self.golds.get(pid)
            if gold is None:
                continue
            lo, hi = max(gold.interval[0], iv[0]), min(gold.interval[1], iv[1])
            if lo > hi:
                clash = [p for p, other in gold.by if max(other[0], iv[0]) > min(other[1], iv[1])] or \
                    [p for p, _ in gold.by]
                needs = "; ".join(f"{p} needs {_describe(other)}" for p, other in gold.by if p in clash)
                self.skipped.append(f"{_where(problem)}: gold product {pid} is shared with {', '.join(clash)} and "
                                    f"their price rules clash ({problem.problem_id} needs {_describe(iv)}; {needs});"
                                    f" {LEFT_OUT}")
                return
        for reward in problem.reward:
            gold = self.golds.setdefault(reward.product_id, _Gold(reward.product_id))
            iv = own[reward.product_id]
            gold.interval = (max(gold.interval[0], iv[0]), min(gold.interval[1], iv[1]))
            if reward.price:
                gold.by.append((problem.problem_id, iv))
            if problem.task == "web":
                assert problem.gold_document is not None
                if gold.document is None:
                    gold.document = problem.gold_document.model_dump()
            else:
                gold.rewards.append(reward)
        self.accepted.append(problem)

    # ------------------------------------------------------------------------------------------------- shops
    def assign_shops(self) -> None:
        self._shops.update(str(g.document["shop_id"]) for g in self.golds.values() if g.document is not None)
        uf = _UnionFind()
        for pid in self.golds:
            uf.find(pid)
        for problem in self.accepted:
            if _one_shop(problem):
                ids = problem.gold_ids
                for other in ids[1:]:
                    uf.union(ids[0], other)
        groups: dict[str, list[str]] = {}
        for pid in self.golds:
            groups.setdefault(uf.find(pid), []).append(pid)
        for members in groups.values():
            documents = [self.golds[m].document for m in members if self.golds[m].document is not None]
            shop = str(documents[0]["shop_id"]) if documents else self.new_shop()
            for m in members:
                self.golds[m].shop_id = shop

    # ------------------------------------------------------------------------------------------------ prices
    def _bounds(self, pid: str) -> Interval:
        lo, hi = self.golds[pid].interval
        return _floor(lo, hi), hi

    def _basket_terms(self, problem: Problem, skip: str | None = None) -> tuple[float, float, float, list[str]]:
        """(fixed sum, free lower sum, free upper sum, free ids) of a basket, leaving ``skip`` out."""
        fixed = low = high = 0.0
        free: list[str] = []
        for pid in problem.gold_ids:
            if pid == skip:
                continue
            gold = self.golds[pid]
            if gold.price is not None:
                fixed += gold.price
            else:
                lo, hi = self._bounds(pid)
                low += lo
                high += hi
                free.append(pid)
        return fixed, low, high, free

    def solve_prices(self) -> None:
        baskets = [p for p in self.accepted if p.task == "voucher"]
        in_baskets: dict[str, list[Problem]] = {}
        for problem in baskets:
            for pid in dict.fromkeys(problem.gold_ids):
                in_baskets.setdefault(pid, []).append(problem)
        rejected: set[str] = set()
        # 1. products in two or more baskets: a price inside every basket's window, basket by basket
        for pid, members in in_baskets.items():
            if len(members) < 2:
                continue
            allowed: list[Interval] = [self._bounds(pid)]
            chosen_by: list[str] = []
            for problem in members:
                if problem.problem_id in rejected:
                    continue
                assert problem.voucher is not None
                count = problem.gold_ids.count(pid)
                fixed, low, high, _ = self._basket_terms(problem, skip=pid)
                window = [((lo - fixed - high) / count, (hi - fixed - low) / count)
                          for lo, hi in budget_window(problem.voucher)]
                narrowed = _intersect(allowed, window)
                if not narrowed:
                    rejected.add(problem.problem_id)
                    others = f"the baskets of {', '.join(chosen_by)} fit theirs" if chosen_by else \
                        "it keeps to its price rules"
                    self.skipped.append(
                        f"{_where(problem)}: gold product {pid} (price {_describe(self._bounds(pid))}) is shared "
                        f"with other problems, and no price of it lets this basket fit its budget of "
                        f"{problem.voucher.budget:g} (voucher from {problem.voucher.threshold:g}) while {others};"
                        f" {LEFT_OUT}")
                    continue
                allowed = narrowed
                chosen_by.append(problem.problem_id)
            self.golds[pid].price = _pick_in(allowed, None, self.rng)
        # 2. every basket: its remaining products priced so that the total fits the budget window
        for problem in baskets:
            if problem.problem_id in rejected:
                continue
            reason = self._solve_basket(problem)
            if reason:
                rejected.add(problem.problem_id)
                self.skipped.append(f"{_where(problem)}: {reason}; {LEFT_OUT}")
        self.accepted = [p for p in self.accepted if p.problem_id not in rejected]
        # 3. every other product: a price inside its rules (a web gold keeps its own when it fits)
        for gold in self.golds.values():
            if gold.price is None:
                lo, hi = gold.interval
                prefer = float(gold.document["price"]) if gold.document is not None else None
                gold.price = _pick_in([(_floor(lo, hi), hi)], prefer, self.rng)

    def _solve_basket(self, problem: Problem) -> str | None:
        voucher = problem.voucher
        assert voucher is not None
        fixed, low, high, free = self._basket_terms(problem)
        windows = _intersect(budget_window(voucher), [(fixed + low, fixed + high)])
        if not windows:
            bound = [f"{pid} is priced {self.golds[pid].price:g} for other problems" for pid in
                     dict.fromkeys(problem.gold_ids) if pid not in free]
            bound += [f"{pid} must cost {_describe(self.golds[pid].interval)} for other problems" for pid in
                      dict.fromkeys(free) if self.golds[pid].by]
            return (f"no basket total fits the budget of {voucher.budget:g} with the voucher (from "
                    f"{voucher.threshold:g}): {'; '.join(bound) or 'its products cannot be priced low enough'}")
        try:
            prefer: float | None = basket_total(voucher)
        except ValueError:
            prefer = None
        total = _pick_in(windows, prefer, self.rng)
        counts = {pid: problem.gold_ids.count(pid) for pid in free}
        unique = list(dict.fromkeys(free))
        prices = {pid: self._bounds(pid)[0] for pid in unique}
        remaining = total - fixed - sum(prices[p] * counts[p] for p in unique)
        weights = {pid: 0.5 + self.rng.u() for pid in unique}
        for _ in range(len(unique) + 1):  # fill by weight, up to each product's upper bound
            open_ = [p for p in unique if prices[p] < self._bounds(p)[1]]
            if remaining <= 1e-9 or not open_:
                break
            scale = sum(weights[p] * counts[p] for p in open_)
            spent = 0.0
            for p in open_:
                add = min(remaining * weights[p] / scale, self._bounds(p)[1] - prices[p])
                prices[p] += add
                spent += add * counts[p]
            remaining -= spent
        for p in unique:
            lo, hi = self._bounds(p)
            value = round(prices[p], 2)
            prices[p] = value if lo <= value <= hi else prices[p]
        for p in unique:
            self.golds[p].price = prices[p]
        actual = sum(self.golds[p].price or 0.0 for p in problem.gold_ids)
        if not fits_budget(actual, voucher) and unique:  # cent rounding: move the difference onto one product
            p = unique[-1]
            lo, hi = self._bounds(p)
            shifted = round(prices[p] + (total - actual) / counts[p], 2)
            if lo <= shifted <= hi:
                self.golds[p].price = shifted
                actual = sum(self.golds[q].price or 0.0 for q in problem.gold_ids)
        if not fits_budget(actual, voucher):
            for p in unique:
                self.golds[p].price = None
            return f"no prices of its products give a total that fits the budget of {voucher.budget:g}"
        return None


# ---------------------------------------------------------------------------------------------- gold documents


def _reward_option(reward: ProductReward) -> dict[str, str]:
    option: dict[str, str] = {}
    for sku in reward.sku_options:
        option.update(sku)
    return option


def _gold_document(gold: _Gold, rng: Rng) -> dict[str, Any]:
    base = gold.document
    attributes: dict[str, list[str]] = {k: list(v) for k, v in (base or {}).get("attributes", {}).items()}
    options: list[dict[str, str]] = [dict(o) for o in (base or {}).get("sku_options", {}).values()]
    services: list[str] = list((base or {}).get("service", []))
    for reward in gold.rewards:
        for attr in reward.attributes:
            for key, values in attr.items():
                bucket = attributes.setdefault(key, [])
                bucket.extend(v for v in values if v not in bucket)
        option = _reward_option(reward)
        if option and option not in options:
            options.append(option)
        services.extend(s for s in reward.service if s not in services)
    sku_options = {str(i + 1): o for i, o in enumerate(options)}
    if base is not None:
        return dict(base, attributes=attributes, sku_options=sku_options, service=services, price=gold.price,
                    shop_id=gold.shop_id)
    title = gold.rewards[0].title[0]
    details = "; ".join(f"{k.replace('_', ' ')}: {', '.join(v)}" for k, v in attributes.items())
    return Product(
        product_id=gold.product_id, shop_id=gold.shop_id or "", brand=(attributes.get("brand") or ["No Brand"])[0]
        .title(), category=IMPORTED_CATEGORY, title=title, short_description=f"{title};Brand new and authentic;",
        description=f"{title}. {details}." if details else f"{title}.",
        specification=";".join(f"{k.replace('_', ' ')}:{v[0]}" for k, v in attributes.items() if v),
        price=gold.price or 0.0, sold_count=rng.below(500), sku_options=sku_options, attributes=attributes,
        service=services, main_image_url=f"https://img.shoparena.example/sb/{gold.product_id}.jpg",
        product_url=f"https://shoparena.example/products/-i{gold.product_id}.html",
    ).model_dump()


# -------------------------------------------------------------------------------------------------- distractors


@dataclass
class _Copy:
    """A product copied from gold ``gold_id``, with the values it swapped in its searched words (``contents``):
    ``removed`` taken out of the gold's, ``added`` put in their place."""

    gold_id: str
    product: dict[str, Any]
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)


class _Values:
    """Other values of an attribute or SKU key, for near misses (another colour of the line, another size, another
    brand): the synthetic taxonomy's lists holding the value (all its lists of that key when none does) and every
    value the gold products take for the key; values no problem asks for first, so that a near miss is rarely
    another problem's answer; then values other problems ask for; then made-up variants."""

    def __init__(self, docs: dict[str, dict[str, Any]], problems: Sequence[Problem]) -> None:
        seen: dict[str, dict[str, None]] = {}
        for pid in sorted(docs):
            doc = docs[pid]
            for key, values in doc["attributes"].items():
                for value in values:
                    seen.setdefault(key, {})[value] = None
            for option in doc["sku_options"].values():
                for key, value in option.items():
                    seen.setdefault(key, {})[value] = None
        self.golds = {key: sorted(values) for key, values in seen.items()}
        self.asked: dict[str, set[str]] = {}
        for problem in problems:
            for reward in problem.reward:
                for key, value in reward.required_pairs():
                    self.asked.setdefault(key, set()).add(value.casefold())

    def pick(self, key: str, value: str, rng: Rng, n: int) -> list[str]:
        """``n`` distinct values of ``key`` other than ``value``."""
        lists = _taxonomy_lists().get(key, [])
        holding = [vs for vs in lists if value.casefold() in vs] or lists
        candidates = list(dict.fromkeys([v for vs in holding for v in vs] + self.golds.get(key, [])))
        asked = self.asked.get(key, set())
        taken = {value.casefold()}
        out: list[str] = []
        for tier in ([v for v in candidates if v.casefold() not in asked], [v for v in candidates if v.casefold() in
                                                                             asked]):
            fresh = [v for v in tier if v.casefold() not in taken]
            for v in rng.sample(fresh, n - len(out)):
                out.append(v)
                taken.add(v.casefold())
        for suffix in VARIANT_WORDS:
            if len(out) >= n:
                break
            made = f"{value} {suffix}"
            if made.casefold() not in taken:
                out.append(made)
                taken.add(made.casefold())
        while len(out) < n:  # only for very many near misses of one pair
            out.append(f"{value} {len(out) + 1}")
        return out


@functools.cache
def _taxonomy_lists() -> dict[str, list[list[str]]]:
    """Every value list of each attribute key in the synthetic catalog's taxonomy (families and leaves)."""
    lists: dict[str, list[list[str]]] = {}
    for family in taxonomy.FAMILIES.values():
        for key, values in family.items():
            lists.setdefault(key, []).append(values)
    for mids in taxonomy.TAXONOMY.values():
        for spec in mids.values():
            for leaf in spec.get("leaves", {}).values():
                for key, values in leaf.get("attrs", {}).items():
                    lists.setdefault(key, []).append(values)
    return lists


def _break_pair(gold: dict[str, Any], key: str, value: str, other: str) -> tuple[dict[str, Any], int]:
    """A copy of ``gold`` where (key, value) is in no SKU option and in no attribute: each occurrence is swapped for
    ``other``, so the product still has the key; and how many occurrences were swapped."""
    swapped = 0
    options: dict[str, dict[str, str]] = {}
    for name, option in gold["sku_options"].items():
        if option.get(key) == value:
            option = {**option, key: other}
            swapped += 1
        options[name] = option
    attributes: dict[str, list[str]] = {}
    for k, values in gold["attributes"].items():
        if k == key:
            swapped += sum(v == value for v in values)
            values = [other if v == value else v for v in values]
        attributes[k] = list(values)
    return dict(gold, sku_options=options, attributes=attributes), swapped


def _missed_prices(rule: PriceRule, n: int) -> list[float]:
    """Up to ``n`` distinct prices just outside ``rule``, by growing steps, from each bound the rule's mode tests."""
    sides: list[Callable[[float], float | None]] = []
    if rule.hi is not None and rule.mode in ("less than", "between"):
        hi = rule.hi
        sides.append(lambda f: round(hi + max(1.0, f * hi), 2))
    if rule.lo is not None and rule.lo >= 2 and rule.mode in ("greater than", "between"):
        lo = rule.lo
        sides.append(lambda f: round(lo - max(1.0, min(f * lo, lo / 2)), 2))
    out: dict[float, None] = {}
    for step in PRICE_STEPS:
        for side in sides:
            price = side(step)
            if price is not None and price > 0 and not rule.admits(price):
                out.setdefault(price, None)
    return list(out)[:n]


def _price_like(center: float, gold: dict[str, Any], reward: ProductReward, rng: Rng) -> float:
    """A price around ``center`` (itself drawn around the gold's price, so the gold's is not the middle one) that the
    reward's price rules admit: price alone does not tell the near misses from the gold."""
    lo, hi = price_interval(reward.price) if reward.price else (0.0, math.inf)
    price = round(center * (0.85 + 0.3 * rng.u()), 2)
    return price if lo <= price <= hi and price > 0 else float(gold["price"])


def _near_misses(reward: ProductReward, gold: dict[str, Any], count: int, pool: _Values,
                 rng: Rng) -> list[tuple[str, _Copy]]:
    """``count`` copies of ``gold``, the reward's constraints taken in turn, each breaking exactly one of them (a
    price just outside a rule, a required service missing, another value of a required SKU or attribute pair):
    (what it breaks, the copy). Copies that break something other than the price are priced near the gold, inside
    the reward's rules. None when the reward constrains nothing but the title."""
    kinds: list[list[tuple[str, _Copy]]] = []
    gold_id = gold["product_id"]
    center = float(gold["price"]) * (0.85 + 0.3 * rng.u())
    for rule in reward.price:
        kinds.append([(f"price {rule.mode} ({price:g})", _Copy(gold_id, dict(gold, price=price)))
                      for price in _missed_prices(rule, count)])
    for service in dict.fromkeys(reward.service):
        kept = [s for s in gold["service"] if s != service]
        kinds.append([(f"service {service}", _Copy(gold_id, dict(gold, service=kept, price=_price_like(
            center, gold, reward, rng)))) for _ in range(count)])
    pairs = [("sku", k, v) for k, v in _reward_option(reward).items()]
    pairs += [("attribute", k, v) for attr in reward.attributes for k, values in attr.items()
              for v in dict.fromkeys(values)]
    for what, key, value in pairs:
        variants = []
        for other in pool.pick(key, value, rng, count):
            product, swapped = _break_pair(gold, key, value, other)
            product["price"] = _price_like(center, gold, reward, rng)
            variants.append((f"{what} {key} ({other})", _Copy(gold_id, product, [value] * swapped,
                                                              [other] * swapped)))
        kinds.append(variants)
    rng.shuffle(kinds)
    out: list[tuple[str, _Copy]] = []
    for turn in range(count):  # round robin over the constraints, so every one is broken several times
        for variants in kinds:
            if turn < len(variants) and len(out) < count:
                out.append(variants[turn])
    return out


def _meets(product: dict[str, Any], reward: ProductReward) -> bool:
    """Whether ``product`` meets every price, service and pair constraint of ``reward`` (its title assumed to)."""
    price = float(product["price"])
    if not all(rule.admits(price) for rule in reward.price):
        return False
    if not all(s in product["service"] for s in reward.service):
        return False
    pairs = reward.required_pairs()
    attributes = {(k, v) for k, vs in product["attributes"].items() for v in vs}
    options = [set()] + [set(o.items()) for o in product["sku_options"].values()]
    return any(all(pair in option or pair in attributes for pair in pairs) for option in options)


def _fail_others(copy: _Copy, own: ProductReward | None, others: Sequence[ProductReward], pool: _Values,
                 rng: Rng, *, reprice: bool = True) -> None:
    """Make ``copy`` fail every other problem's reward naming its gold (it would be their substitute: a problem
    sharing a gold with a voucher basket would find the basket's near misses as answers): one more constraint of
    that reward broken, one that ``own`` (the reward the copy is a distractor of) does not ask for. A reward whose
    every constraint ``own`` asks too is left alone (the copy breaks one of them, or is a true substitute). Without
    ``reprice`` the copy's price is kept (it is what the copy breaks: a price rule, a budget)."""
    keep_pairs = set(own.required_pairs()) if own else set()
    keep_services = set(own.service) if own else set()
    for other in others:
        if other is own or not _meets(copy.product, other):
            continue
        pairs = [pair for pair in other.required_pairs() if pair not in keep_pairs]
        services = [s for s in other.service if s not in keep_services]
        if pairs:
            key, value = pairs[0]
            other_value = pool.pick(key, value, rng, 1)[0]
            copy.product, swapped = _break_pair(copy.product, key, value, other_value)
            copy.removed += [value] * swapped
            copy.added += [other_value] * swapped
        elif services:
            copy.product = dict(copy.product, service=[s for s in copy.product["service"] if s != services[0]])
        elif reprice:
            for rule in other.price:
                fits = [p for p in _missed_prices(rule, len(PRICE_STEPS))
                        if own is None or all(r.admits(p) for r in own.price)]
                if fits:
                    copy.product = dict(copy.product, price=fits[0])
                    break


def _replace_text(text: str, phrase: str, by: str) -> str:
    return re.sub(re.escape(phrase), by, text, flags=re.IGNORECASE)


def _with_knowledge(gold: dict[str, Any], knowledge: str, value: str | None) -> dict[str, Any]:
    """A copy of a web gold with its knowledge attribute replaced by ``value`` (removed when None) everywhere."""
    by = value or ""
    bad = dict(gold)
    for key in ("title", "short_description", "description", "specification"):
        text = _replace_text(str(gold.get(key, "")), knowledge, by)
        bad[key] = " ".join(text.split()) if value is None else text
    bad["attributes"] = {k: [_replace_text(v, knowledge, by).strip() or v for v in vs]
                         for k, vs in gold["attributes"].items()}
    return bad


class _Ids:
    """Ids for distractors, drawn like their gold's (as many digits, the same first digit), so an id does not tell
    a near miss from its gold; never equal to, and never containing, any gold id (web gt is a substring test)."""

    def __init__(self, golds: set[str], seed: int) -> None:
        self._golds = golds
        self._used: set[str] = set()
        self._rng = Rng("rebuild-ids", seed)

    def new(self, like: str) -> str:
        if like.isdigit() and 6 <= len(like) <= 19 and like[0] != "0":
            head, size = like[0], len(like)
        else:
            head, size = "1", 10
        while True:
            candidate = head + "".join(str(self._rng.below(10)) for _ in range(size - 1))
            n = len(candidate)  # a gold id inside it is one of its substrings
            if candidate in self._used or any(candidate[i:j] in self._golds for i in range(n)
                                              for j in range(i + 1, n + 1)):
                continue
            self._used.add(candidate)
            return candidate


Distractor = tuple[str, list[str], list[_Copy]]


def _distractors(problem: Problem, docs: dict[str, dict[str, Any]], ids: _Ids, new_shop: Callable[[], str],
                 near_values: Sequence[str], ceilings: dict[str, float], pool: _Values,
                 naming: dict[str, list[ProductReward]], rng: Rng) -> list[Distractor]:
    """Distractor answers of one problem: (what breaks, the answer ids, the products to add). ``naming``: the
    rewards of every non-web problem naming each gold id (a copy must fail those of the other problems too)."""
    answer = problem.gold_ids
    golds = [docs[pid] for pid in answer]
    out: list[Distractor] = []

    def copy_of(slot: int, product: dict[str, Any], reprice: bool = True) -> _Copy:
        copy = _Copy(answer[slot], product)
        _fail_others(copy, None if problem.task == "web" else problem.reward[slot], naming.get(answer[slot], []),
                     pool, rng, reprice=reprice)
        return copy

    if problem.task == "web":
        knowledge = problem.knowledge_attribute or ""
        low = knowledge.lower()
        for breaks, value in [("knowledge attribute", None)] + [(f"knowledge value {v}", v) for v in near_values]:
            bad = dict(_with_knowledge(golds[0], knowledge, value), product_id=ids.new(answer[0]))
            if low and (low in bad["title"].lower() or low in bad["description"].lower()):
                continue
            out.append((breaks, [bad["product_id"]], [copy_of(0, bad)]))
        return out
    count = NEAR_MISSES_PRODUCT if problem.task == "product" else NEAR_MISSES_BASKET
    one_shop = _one_shop(problem)
    for slot, (reward, gold) in enumerate(zip(problem.reward, golds, strict=True)):
        for n, (breaks, copy) in enumerate(_near_misses(reward, gold, count, pool, rng)):
            # another listing of the product line: in another shop (in a one-shop basket, every other one stays in
            # the basket's shop, so the shop search does not single the gold out)
            shop = gold["shop_id"] if one_shop and n % 2 == 0 else new_shop()
            copy.product.update(product_id=ids.new(answer[slot]), shop_id=shop, sold_count=rng.below(500))
            _fail_others(copy, reward, naming.get(answer[slot], []), pool, rng,
                         reprice=not breaks.startswith("price"))
            swapped = answer[:slot] + [copy.product["product_id"]] + answer[slot + 1:]
            out.append((f"slot {slot + 1} {breaks}", swapped, [copy]))
    if problem.task == "shop":
        moved = dict(golds[-1], product_id=ids.new(answer[-1]), shop_id=new_shop())
        out.append(("another shop", answer[:-1] + [moved["product_id"]], [copy_of(len(answer) - 1, moved)]))
    if problem.task == "voucher":
        voucher = problem.voucher
        assert voucher is not None
        single = len({g["shop_id"] for g in golds}) == 1
        total = sum(g["price"] for g in golds)
        raise_by = max(1.0, voucher.budget - after_voucher(total, single, voucher) + 1.0)
        while after_voucher(total + raise_by, single, voucher) <= voucher.budget:
            raise_by *= 2
        # priced above every other problem's ceiling for this product too, so it is no one's substitute
        ceiling = ceilings.get(answer[0], math.inf)
        if not math.isinf(ceiling):
            raise_by = max(raise_by, ceiling - golds[0]["price"] + 1.0)
        pricey = dict(golds[0], product_id=ids.new(answer[0]), price=round(golds[0]["price"] + raise_by, 2))
        out.append(("over budget", [pricey["product_id"]] + answer[1:], [copy_of(0, pricey, reprice=False)]))
    return out


def _rewards_met(docs: dict[str, dict[str, Any]], problems: Sequence[Problem]) -> dict[str, list[ProductReward]]:
    """Per gold id, the non-web rewards its copies must fail unless they are a distractor of it: those naming it,
    then those of other golds whose every SKU and attribute pair the gold has (a product of the same line that
    another problem asks for: its near misses would be that problem's answers)."""
    naming: dict[str, list[ProductReward]] = {}
    by_pair: dict[tuple[str, str], list[ProductReward]] = {}
    for problem in problems:
        if problem.task == "web":
            continue
        for reward in problem.reward:
            naming.setdefault(reward.product_id, []).append(reward)
            pairs = reward.required_pairs()
            if pairs:
                by_pair.setdefault(pairs[0], []).append(reward)
    for pid, doc in docs.items():
        have = {(k, v) for k, vs in doc["attributes"].items() for v in vs}
        have |= {(k, v) for option in doc["sku_options"].values() for k, v in option.items()}
        met = [r for pair in sorted(have) for r in by_pair.get(pair, ()) if r.product_id != pid
               and all(p in have for p in r.required_pairs())]
        if met:
            naming[pid] = naming.get(pid, []) + list({id(r): r for r in met}.values())
    return naming


def _tags_key(problems: Sequence[Problem]) -> str:
    """The attribute that carries listings' tags: a key no problem asks for."""
    asked = {k for p in problems for r in p.reward for k, _ in r.required_pairs()}
    key = TAGS_KEY
    while key in asked:
        key = f"listing_{key}"
    return key


def _with_tags(doc: dict[str, Any], key: str, words: list[str]) -> dict[str, Any]:
    attributes = {k: list(v) for k, v in doc["attributes"].items()}
    attributes[key] = attributes.get(key, []) + words
    return dict(doc, attributes=attributes)


def _balance(docs: dict[str, dict[str, Any]], copies: Sequence[_Copy], key: str) -> None:
    """Give a gold and every copy of it the same searched words, so no query ranks the gold above its near misses.

    A copy that swapped value v for w lacks v and has w where the gold has v. Each gold gets, as tags, every value
    any of its copies swapped in (as often as the copy that has it most); each copy gets the same tags less its
    own swapped-in values, plus the values it swapped out. The tags are under a key no problem asks for, so they
    satisfy no constraint; title, SKU and attribute words then match any query exactly as often in the gold as in
    each copy, and the search engine's ties are broken by the shuffled order products are written in."""
    tags: dict[str, Counter[str]] = {}
    for copy in copies:
        tags.setdefault(copy.gold_id, Counter())
        tags[copy.gold_id] |= Counter(copy.added)
    for pid, words in tags.items():
        if words:
            docs[pid] = _with_tags(docs[pid], key, sorted(words.elements()))
    for copy in copies:
        words = tags[copy.gold_id]
        if words:
            own = words - Counter(copy.added) + Counter(copy.removed)
            copy.product = _with_tags(copy.product, key, sorted(own.elements()))


def _proper_nouns(questions: Sequence[str]) -> list[str]:
    found: dict[str, None] = {}
    for q in questions:
        for m in re.finditer(r"(?<=[\w,;] )[A-Z][a-zA-Z'-]{2,}\b", q):
            found[m.group(0)] = None
    return list(found)


# ------------------------------------------------------------------------------------------------------ rebuild


def rebuild_catalog(
    problems: Sequence[Problem],
    out: str | os.PathLike[str],
    *,
    background_seed: int = 0,
    background_size: int = 100_000,
    force: bool = False,
    progress: Callable[[int], None] | None = None,
) -> RebuildReport:
    """Build the catalog at ``out`` (atomically) and return the problems with their distractors recorded."""
    rng = Rng("rebuild", background_seed, len(problems))
    plan = _Planner(problems, rng)
    plan.assign_shops()
    plan.solve_prices()
    docs = {pid: _gold_document(gold, rng) for pid, gold in plan.golds.items()}
    ids = _Ids(set(plan.golds), background_seed)

    web = [p for p in plan.accepted if p.task == "web"]
    value_pool = list(dict.fromkeys(p.knowledge_attribute or "" for p in web))
    proper_pool = _proper_nouns([knowledge_question(p.query) for p in web])
    pages: list[dict[str, Any]] = []
    near_values: dict[str, list[str]] = {}
    for problem in web:
        page_rng = Rng("rebuild-web", background_seed, problem.problem_id)
        made, values = fact_pages(problem.problem_id, problem.query, problem.knowledge_attribute or "", value_pool,
                                  proper_pool, page_rng, WEB_NEAR_MISSES)
        pages.extend(made)
        near_values[problem.problem_id] = values

    ceilings = {pid: gold.interval[1] for pid, gold in plan.golds.items()}
    pool = _Values(docs, plan.accepted)
    naming = _rewards_met(docs, plan.accepted)
    updated: list[Problem] = []
    copies: list[_Copy] = []
    n_distractors = 0
    for problem in plan.accepted:
        answers = []
        near_rng = Rng("rebuild-near", background_seed, problem.problem_id)
        for breaks, answer, extra in _distractors(problem, docs, ids, plan.new_shop,
                                                  near_values.get(problem.problem_id, []), ceilings, pool, naming,
                                                  near_rng):
            copies.extend(extra)
            answers.append({"breaks": breaks, "answer": answer})
            n_distractors += 1
        updated.append(problem.model_copy(update={"meta": {**problem.meta, "distractors": answers}}))
    _balance(docs, copies, _tags_key(plan.accepted))
    injected: list[dict[str, Any]] = list(docs.values()) + [copy.product for copy in copies]
    # insertion order breaks search ties: shuffled, so a gold is not found first for being written first
    rng.shuffle(injected)

    digest = gen.Digest()
    stats = StatsCollector()
    with CatalogWriter(out, overwrite=force) as writer:
        for doc in injected:
            payload = gen.canonical_json(doc)
            writer.add_product(doc, contents=search_contents(doc["title"], doc["sku_options"], doc["attributes"]),
                               doc_json=payload)
            digest.update(payload)
            stats.add(doc)
        if progress:  # the import command counts one step per reward
            progress(sum(len(p.reward) for p in problems))
        if background_size:
            for product in gen.iter_products(background_seed, background_size):
                if writer.has_product(product["product_id"]):
                    continue
                payload = gen.canonical_json(product)
                writer.add_product(product, contents=search_contents(product["title"], product["sku_options"],
                                                                     product["attributes"]), doc_json=payload)
                digest.update(payload)
                stats.add(product)
                if progress and writer.products % 1024 == 0:
                    progress(1024)
        digest.update(b"--web--")
        background_pages = generate_web_pages(background_seed, background_size) if background_size else []
        all_pages = pages + background_pages
        rng.shuffle(all_pages)
        for page in all_pages:
            writer.add_web_page(page)
            digest.update(gen.canonical_json(page))
        writer.commit({"source": {"kind": "rebuilt", "problems": len(updated), "background_seed": background_seed,
                                  "background_size": background_size}, "digest": digest.hexdigest(),
                       "stats": stats.result()}, overwrite=force)
        total = writer.products
    for problem in updated:
        problem.meta["catalog_digest"] = digest.hexdigest()
    return RebuildReport(updated, digest.hexdigest(), total, len(plan.golds), n_distractors, plan.skipped,
                         len(pages))
