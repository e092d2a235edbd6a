"""The plan: the problems' demands merged per gold id (attributes, services, SKU options, price rules), shops
(every basket of a shop task or a shop voucher shares one, linked through shared golds across problems), prices
(voucher baskets solved around the prices already fixed), and each gold's document. The problems that cannot be
satisfied together are left out, each with one line naming the problems, the product and the clash."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.catalog.models import Product
from arena.catalog.rng import Rng
from arena.tasks.shopping.consistency import contradictions, promises
from arena.tasks.shopping.problem import Problem, ProductReward
from arena.tasks.shopping.rebuild.prices import (
    Interval,
    basket_total,
    budget_window,
    describe,
    fits_budget,
    floor_price,
    intersect,
    pick_in,
    price_interval,
)

IMPORTED_CATEGORY = "Imported > ShoppingBench > Products"
#: how every unsatisfiable line ends: what happened and what to do
LEFT_OUT = "left out (edit one of the records named to keep it)"


@dataclass
class Gold:
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


def one_shop(problem: Problem) -> bool:
    return problem.task == "shop" or (problem.voucher is not None and problem.voucher.voucher_type == "shop")


class Planner:
    """Merges the problems' demands per gold id and solves prices and shops; collects the problems left out."""

    def __init__(self, problems: Sequence[Problem], rng: Rng) -> None:
        self.rng = rng
        self.golds: dict[str, Gold] = {}
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
                self.skipped.append(
                    f"{_where(problem)}: product {pid} is asked twice with price rules that admit "
                    f"no common price; {LEFT_OUT}"
                )
                return
            gold = self.golds.get(pid)
            if gold is None:
                continue
            lo, hi = max(gold.interval[0], iv[0]), min(gold.interval[1], iv[1])
            if lo > hi:
                clash = [p for p, other in gold.by if max(other[0], iv[0]) > min(other[1], iv[1])] or [
                    p for p, _ in gold.by
                ]
                needs = "; ".join(f"{p} needs {describe(other)}" for p, other in gold.by if p in clash)
                self.skipped.append(
                    f"{_where(problem)}: gold product {pid} is shared with {', '.join(clash)} and "
                    f"their price rules clash ({problem.problem_id} needs {describe(iv)}; {needs});"
                    f" {LEFT_OUT}"
                )
                return
        for reward in problem.reward:
            gold = self.golds.setdefault(reward.product_id, Gold(reward.product_id))
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

    def leave_out_inconsistent(self, docs: dict[str, dict[str, Any]]) -> None:
        """Leave out every problem naming a gold whose document contradicts itself (a record's own document that
        states a value its attributes do not hold: no rebuild may rewrite what the record says), one line each;
        ``docs`` keeps only the golds an accepted problem still names."""
        bad = {pid: found[0] for pid, doc in docs.items() if (found := contradictions(doc))}
        if not bad:
            return
        kept: list[Problem] = []
        for problem in self.accepted:
            clash = next((pid for pid in problem.gold_ids if pid in bad), None)
            if clash is None:
                kept.append(problem)
                continue
            c = bad[clash]
            self.skipped.append(
                f"{_where(problem)}: gold product {clash} contradicts itself: its {c.field} {c.what}; {LEFT_OUT}"
            )
        self.accepted = kept
        named = {pid for problem in kept for pid in problem.gold_ids}
        for pid in list(docs):
            if pid not in named:
                del docs[pid]

    # ------------------------------------------------------------------------------------------------- shops
    def assign_shops(self) -> None:
        self._shops.update(str(g.document["shop_id"]) for g in self.golds.values() if g.document is not None)
        uf = _UnionFind()
        for pid in self.golds:
            uf.find(pid)
        for problem in self.accepted:
            if one_shop(problem):
                ids = problem.gold_ids
                for other in ids[1:]:
                    uf.union(ids[0], other)
        groups: dict[str, list[str]] = {}
        for pid in self.golds:
            groups.setdefault(uf.find(pid), []).append(pid)
        for members in groups.values():
            documents = [doc for m in members if (doc := self.golds[m].document) is not None]
            shop = str(documents[0]["shop_id"]) if documents else self.new_shop()
            for m in members:
                self.golds[m].shop_id = shop

    # ------------------------------------------------------------------------------------------------ prices
    def _bounds(self, pid: str) -> Interval:
        lo, hi = self.golds[pid].interval
        return floor_price(lo, hi), hi

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
                window = [
                    ((lo - fixed - high) / count, (hi - fixed - low) / count)
                    for lo, hi in budget_window(problem.voucher)
                ]
                narrowed = intersect(allowed, window)
                if not narrowed:
                    rejected.add(problem.problem_id)
                    others = (
                        f"the baskets of {', '.join(chosen_by)} fit theirs"
                        if chosen_by
                        else "it keeps to its price rules"
                    )
                    self.skipped.append(
                        f"{_where(problem)}: gold product {pid} (price {describe(self._bounds(pid))}) is shared "
                        f"with other problems, and no price of it lets this basket fit its budget of "
                        f"{problem.voucher.budget:g} (voucher from {problem.voucher.threshold:g}) while {others};"
                        f" {LEFT_OUT}"
                    )
                    continue
                allowed = narrowed
                chosen_by.append(problem.problem_id)
            self.golds[pid].price = pick_in(allowed, None, self.rng)
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
                gold.price = pick_in([(floor_price(lo, hi), hi)], prefer, self.rng)

    def _solve_basket(self, problem: Problem) -> str | None:
        voucher = problem.voucher
        assert voucher is not None
        fixed, low, high, free = self._basket_terms(problem)
        windows = intersect(budget_window(voucher), [(fixed + low, fixed + high)])
        if not windows:
            bound = [
                f"{pid} is priced {self.golds[pid].price:g} for other problems"
                for pid in dict.fromkeys(problem.gold_ids)
                if pid not in free
            ]
            bound += [
                f"{pid} must cost {describe(self.golds[pid].interval)} for other problems"
                for pid in dict.fromkeys(free)
                if self.golds[pid].by
            ]
            return (
                f"no basket total fits the budget of {voucher.budget:g} with the voucher (from "
                f"{voucher.threshold:g}): {'; '.join(bound) or 'its products cannot be priced low enough'}"
            )
        try:
            prefer: float | None = basket_total(voucher)
        except ValueError:
            prefer = None
        total = pick_in(windows, prefer, self.rng)
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


# --- gold documents


def reward_option(reward: ProductReward) -> dict[str, str]:
    option: dict[str, str] = {}
    for sku in reward.sku_options:
        option.update(sku)
    return option


def gold_document(gold: Gold, rng: Rng) -> dict[str, Any]:
    base = gold.document
    attributes: dict[str, list[str]] = {k: list(v) for k, v in (base or {}).get("attributes", {}).items()}
    options: list[dict[str, str]] = [dict(o) for o in (base or {}).get("sku_options", {}).values()]
    services: list[str] = list((base or {}).get("service", []))
    for reward in gold.rewards:
        for attr in reward.attributes:
            for key, values in attr.items():
                bucket = attributes.setdefault(key, [])
                bucket.extend(v for v in values if v not in bucket)
        option = reward_option(reward)
        if option and option not in options:
            options.append(option)
        services.extend(s for s in reward.service if s not in services)
    for option in options:  # a SKU option's value of a key the attributes carry is one of theirs
        for key, value in option.items():
            if key in attributes and value not in attributes[key]:
                attributes[key].append(value)
    sku_options = {str(i + 1): o for i, o in enumerate(options)}
    # a service the record's title or document promises ("【COD】") is one the product offers
    texts = " ".join(str((base or {}).get(f, "")) for f in ("short_description", "description"))
    title = gold.rewards[0].title[0] if base is None else str(base.get("title", ""))
    services.extend(s for s in sorted(promises(f"{title} {texts}")) if s not in services)
    if base is not None:
        return dict(
            base,
            attributes=attributes,
            sku_options=sku_options,
            service=services,
            price=gold.price,
            shop_id=gold.shop_id,
        )
    doc = Product(
        product_id=gold.product_id,
        shop_id=gold.shop_id or "",
        brand=(attributes.get("brand") or ["No Brand"])[0].title(),
        category=IMPORTED_CATEGORY,
        title=title,
        short_description="",
        description="",
        specification="",
        price=gold.price or 0.0,
        sold_count=rng.below(500),
        sku_options=sku_options,
        attributes=attributes,
        service=services,
        main_image_url=f"https://img.shoparena.example/sb/{gold.product_id}.jpg",
        product_url=f"https://shoparena.example/products/-i{gold.product_id}.html",
    ).model_dump()
    return write_texts(doc)


def write_texts(doc: dict[str, Any], skip: str | None = None) -> dict[str, Any]:
    """A rebuilt product (`IMPORTED_CATEGORY`) with its short description, description and specification written
    from its own title and attribute values (``skip``: a key left unsaid, the listing tags); another product as
    it is (a web gold keeps its record's texts)."""
    if doc.get("category") != IMPORTED_CATEGORY:
        return doc
    title = doc["title"]
    attributes = {k: v for k, v in doc["attributes"].items() if k != skip and v}
    details = "; ".join(f"{k.replace('_', ' ')}: {', '.join(v)}" for k, v in attributes.items())
    return dict(
        doc,
        short_description=f"{title};As described below;",
        description=f"{title}. {details}." if details else f"{title}.",
        specification=";".join(f"{k.replace('_', ' ')}:{v[0]}" for k, v in attributes.items()),
    )
