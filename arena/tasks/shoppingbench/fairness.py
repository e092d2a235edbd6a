"""Whether a pack's problems are fair to an agent that reads: the catalog never contradicts itself
(`arena.tasks.shopping.consistency`, counted per field), and an oracle that sees only what the tools return solves
every problem while no recorded distractor passes it.

The oracle is an agent with the answer key's constraints but not its ids. Per slot it searches the catalog with
``find_product`` three times (the reward's title; the title with the values asked for; the query: a large catalog
holds many listings titled alike; then price band by price band when none of those hits meets the constraints), with
the price rules and services as the tool's filters (a one-shop basket's slots again within each shop found), views the
hits with ``view_product_information``, and checks each hit as the strict check does (`score_product`) against a
product made only of the fields those two tools returned. It answers with the hits that meet every constraint (in one
shop for a one-shop basket; under a voucher, a basket whose total the voucher admits as the reference reads it, the
cheapest listings tried first: within budget, or at or above the threshold and within budget after the discount,
however many cheaper listings of a slot fall short of the threshold), and the answer is then scored by the pack's
ruleset on the real catalog. A web problem's answer key holds the value the question asks for; the oracle does not
read it: it reads the value from the pages ``web_search`` returns (`arena.tasks.shoppingbench.webreading`) and fails
when they state none or several (a near-miss page that reads as the true one), then checks the hits against the value
it read. Each recorded distractor is checked the same way, from its products' tool-visible fields: none may pass.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.tasks.shopping.consistency import FIELDS, Contradiction, contradictions
from arena.tasks.shopping.problem import Problem, ProductReward
from arena.tasks.shopping.rebuild.prices import price_interval
from arena.tasks.shopping.webknowledge import knowledge_question
from arena.tasks.shoppingbench.strict import budget_check, score_product, score_run
from arena.tasks.shoppingbench.webreading import read_values

#: how many search pages the oracle reads per slot (find_product's most)
PAGES = 5
#: at most this many partial baskets the oracle walks under a voucher (a bound: the stand-in needs under 300)
BASKET_NODES = 200_000
#: the price bands the oracle searches one by one when a slot's listings crowd its answer out of every search
PRICE_BANDS = [(0.0, 1.0)] + [(2.0**k, 2.0 ** (k + 1)) for k in range(20)]


@dataclass
class ConsistencyReport:
    """Products checked, and per field how many products contradict themselves there."""

    products: int = 0
    by_field: Counter[str] = field(default_factory=Counter)
    contradicting: int = 0  # products with a contradiction in any field
    #: "product_id: field: what" for the first contradictions found
    examples: list[str] = field(default_factory=list)

    def add(self, product_id: str, found: Sequence[Contradiction], keep: int = 20) -> None:
        if not found:
            return
        self.contradicting += 1
        self.by_field.update({c.field for c in found})
        for c in found:
            if len(self.examples) < keep:
                self.examples.append(f"{product_id}: {c.field}: {c.what}")

    def figures(self) -> dict[str, Any]:
        return {
            "products": self.products,
            "contradicting_products": self.contradicting,
            "by_field": {f: self.by_field.get(f, 0) for f in FIELDS},
            "examples": self.examples,
        }


def consistency(problems: Sequence[Problem], catalog: Any, tags_key: str | None = None) -> ConsistencyReport:
    """Every product of ``catalog`` checked on its own, and every distractor product against the gold of its slot
    too (the gold's values, services and price it must no longer claim); ``tags_key``: the listing tags' key."""
    found: dict[str, dict[Contradiction, None]] = {}
    report = ConsistencyReport()
    for product in catalog.iter_products():
        report.products += 1
        for c in contradictions(product):
            found.setdefault(product["product_id"], {})[c] = None
    ignore = [tags_key] if tags_key else []
    seen: set[tuple[str, str]] = set()
    for problem in problems:
        for distractor in problem.meta.get("distractors", []):
            for gold_id, answer_id in zip(problem.gold_ids, distractor["answer"], strict=False):
                if gold_id == answer_id or (gold_id, answer_id) in seen:
                    continue
                seen.add((gold_id, answer_id))
                gold, copy = catalog.get(gold_id), catalog.get(answer_id)
                if gold is not None and copy is not None:
                    for c in contradictions(copy, gold, ignore=ignore):
                        found.setdefault(answer_id, {})[c] = None
    for product_id, cs in found.items():
        report.add(product_id, list(cs))
    return report


# ------------------------------------------------------------------------------------------------------ the oracle


class ToolView:
    """What an agent has seen of each product through the tools: the search summary (title, price, shop,
    services) and the detail view (short description, description, SKU options, attributes), merged."""

    def __init__(self, catalog: Any) -> None:
        from arena.tasks.shopping.tools import default_registry
        from arena.tools import ToolContext

        self.registry = default_registry()
        self.ctx = ToolContext(catalog=catalog)
        self.seen: dict[str, dict[str, Any]] = {}
        self.read: Problem | None = None  # a web problem as its pages read (the value they state)

    def web(self, query: str) -> list[dict[str, Any]]:
        """The pages ``web_search`` returns for a web problem's question, and for its whole query."""
        pages = self.registry.call("web_search", {"q": knowledge_question(query), "max_results": 20}, self.ctx)
        more = self.registry.call("web_search", {"q": query, "max_results": 20}, self.ctx)
        return list({p["url"]: p for p in [*pages, *more]}.values())

    def search(self, q: str, **filters: Any) -> list[dict[str, Any]]:
        hits: list[dict[str, Any]] = []
        for page in range(1, PAGES + 1):
            got = self.registry.call("find_product", {"q": q, "page": page, **filters}, self.ctx)
            hits.extend(got)
            if len(got) < 10:
                break
        new = [h["product_id"] for h in hits if "description" not in self.seen.get(h["product_id"], {})]
        for h in hits:
            self.seen.setdefault(h["product_id"], {}).update(h)
        for start in range(0, len(new), 20):
            ids = ",".join(new[start : start + 20])
            for detail in self.registry.call("view_product_information", {"product_ids": ids}, self.ctx):
                if "error" not in detail:
                    self.seen[detail["product_id"]].update(detail)
        return [self.seen[h["product_id"]] for h in hits]

    def lookup(self, product_id: str) -> dict[str, Any] | None:
        return self.seen.get(product_id)


def _filters(reward: ProductReward) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if reward.price:
        lo, hi = price_interval(reward.price)
        out["price"] = f"{'' if lo <= 0 else f'{lo:g}'}-{'' if hi == float('inf') else f'{hi:g}'}"
    if reward.service:
        out["service"] = ",".join(dict.fromkeys(reward.service))
    return out


def _passing(view: ToolView, slot: int, reward: ProductReward, hits: Sequence[dict[str, Any]], **kw: Any) -> list[str]:
    """The hits that meet every constraint of the slot's reward, as the strict check reads them."""
    vectors = kw.get("gold_vectors")
    vector = vectors[slot] if vectors else None
    ruleset = kw.get("ruleset")
    return [
        h["product_id"]
        for h in hits
        if score_product(slot, reward, h["product_id"], view.lookup, None, vector, ruleset).rule >= 1
    ]


def oracle_answer(problem: Problem, view: ToolView, **kw: Any) -> str:
    """The oracle's answer to one problem (see the module docstring), as the raw ``product_ids`` it would send."""
    if problem.task == "web":
        return _web_answer(problem, view, **kw)
    slots = [_found(problem, view, i, r, **kw) for i, r in enumerate(problem.reward)]
    one_shop = problem.task == "shop" or (problem.voucher is not None and problem.voucher.voucher_type == "shop")
    for choices in _in_one_shop(problem, view, slots, **kw) if one_shop else iter([slots]):
        combos = (
            _within_budget(problem, view, choices)
            if problem.voucher is not None
            else itertools.product(*[c[:8] for c in choices])
        )
        for combo in itertools.islice(combos, 4096):
            answer = ",".join(combo)
            if score_run(problem, answer, view.lookup, **kw).success:
                return answer
    return ",".join(s[0] if s else "" for s in slots)


def _within_budget(problem: Problem, view: ToolView, choices: list[list[str]]) -> Iterator[tuple[str, ...]]:
    """Every basket of one passing hit per slot whose total the voucher admits (`strict.budget_check`: within
    budget as it is, or at or above the threshold and within budget after the discount), cheapest first; one hit
    per price per slot, and no branch whose reachable totals the voucher cannot admit. A basket that needs a dearer
    item to reach the threshold is found however many cheaper listings pass the slot."""
    voucher = problem.voucher
    assert voucher is not None
    priced = []
    for found in choices:
        by_price: dict[float, str] = {}
        for pid in found:
            by_price.setdefault(float(view.seen[pid]["price"]), pid)
        priced.append(sorted(by_price.items()))
    if not all(priced):
        return
    least = [sum(p[0][0] for p in priced[i:]) for i in range(len(priced) + 1)]
    most = [sum(p[-1][0] for p in priced[i:]) for i in range(len(priced) + 1)]
    ceiling = _voucher_ceiling(voucher)
    slack = 1e-6 * max(1.0, float(voucher.budget))  # pruning only: each basket is then checked exactly

    def admits(lo: float, hi: float) -> bool:
        return lo <= voucher.budget + slack or (hi >= voucher.threshold - slack and lo <= ceiling + slack)

    visited = [0]

    def walk(i: int, total: float, picked: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        visited[0] += 1
        if visited[0] > BASKET_NODES:
            return
        if i == len(priced):
            if budget_check(problem, [view.seen[pid] for pid in picked])[0] >= 1:
                yield picked
            return
        for price, pid in priced[i]:
            lo, hi = total + price + least[i + 1], total + price + most[i + 1]
            if lo > max(float(voucher.budget), ceiling) + slack:
                break  # dearer hits only raise the total
            if admits(lo, hi):
                yield from walk(i + 1, total + price, (*picked, pid))

    yield from walk(0, 0.0, ())


def _voucher_ceiling(voucher: Any) -> float:
    """The largest total the voucher brings within budget (`strict.discounted_total` is increasing in the
    total): fixed, ``budget + face_value``; percentage, ``budget / (1 - discount)`` and at most ``budget + cap``."""
    budget = float(voucher.budget)
    if voucher.discount_type == "fixed":
        return budget + float(voucher.face_value)
    rate = 1 - float(voucher.discount)
    ceiling = budget / rate if rate > 0 else float("inf")
    return ceiling if voucher.cap is None else min(ceiling, budget + float(voucher.cap))


def _web_answer(problem: Problem, view: ToolView, **kw: Any) -> str:
    """A web problem: the value the pages ``web_search`` returns state as the question's answer (none when the
    pages state several, or none), then the first hit carrying it, checked as the reference does with that value."""
    pages = view.web(problem.query)
    values = read_values(problem.query, pages)
    if len(values) != 1:
        return ""
    read = problem.model_copy(update={"knowledge_attribute": values[0]})
    words = _words(read, read.reward[0])
    searches: list[tuple[str, dict[str, str]]] = [(q, {}) for q in words] + [
        (words[0], {"price": f"{lo:.0f}-{hi:.0f}"}) for lo, hi in PRICE_BANDS
    ]
    for q, filters in searches:
        for h in view.search(q, **filters):
            if score_run(read, h["product_id"], view.lookup, **kw).success:
                view.read = read
                return str(h["product_id"])
    return ""


def _words(problem: Problem, reward: ProductReward) -> list[str]:
    """What the oracle searches for, in turn: the title, the title with the values asked for (the knowledge
    attribute for a web problem), the query."""
    title = reward.title[0] if reward.title else ""
    values = [v for _, v in reward.required_pairs()] + (
        [problem.knowledge_attribute or ""] if problem.task == "web" else []
    )
    return [q for q in dict.fromkeys([title, " ".join([title, *values]), problem.query]) if q.strip()]


def _found(problem: Problem, view: ToolView, slot: int, reward: ProductReward, **kw: Any) -> list[str]:
    """The hits of every search of the slot (`_words`, with the reward's filters) that meet its constraints."""
    found: dict[str, None] = {}
    filters = {**_filters(reward), **({"shop_id": kw.pop("shop_id")} if "shop_id" in kw else {})}
    for q in _words(problem, reward):
        found.update(dict.fromkeys(_passing(view, slot, reward, view.search(q, **filters), **kw)))
    if not found and "price" not in filters:  # crowded out of the 50 kept hits: the title again, band by band
        for lo, hi in PRICE_BANDS:
            hits = view.search(_words(problem, reward)[0], **filters, price=f"{lo:.0f}-{hi:.0f}")
            found.update(dict.fromkeys(_passing(view, slot, reward, hits, **kw)))
    return list(found)


def _in_one_shop(problem: Problem, view: ToolView, slots: list[list[str]], **kw: Any) -> Iterator[list[list[str]]]:
    """For each shop of the first slot's passing hits, every slot's passing hits searched within that shop."""
    shops = dict.fromkeys(view.seen[first]["shop_id"] for first in slots[0])
    for shop in shops:
        kept = []
        for i, reward in enumerate(problem.reward):
            kept.append(_found(problem, view, i, reward, shop_id=shop, **kw))
            if not kept[-1]:
                break
        else:
            yield kept


@dataclass
class OracleRow:
    problems: int = 0
    solved: int = 0
    distractors: int = 0
    distractors_passed: int = 0


def oracle(
    problems: Sequence[Problem],
    catalog: Any,
    *,
    vectors: Callable[[str], Any] | None = None,
    ruleset: str | None = None,
) -> tuple[dict[str, OracleRow], list[str]]:
    """The oracle per task, and one line per problem it fails or per distractor that passes it."""
    by_task: dict[str, OracleRow] = {}
    failures: list[str] = []
    for problem in problems:
        row = by_task.setdefault(problem.task, OracleRow())
        row.problems += 1
        kw: dict[str, Any] = {"gold_vectors": vectors(problem.problem_id) if vectors else None, "ruleset": ruleset}
        view = ToolView(catalog)
        answer = oracle_answer(problem, view, **kw)
        if answer and score_run(problem, answer, catalog.get, **kw).success:
            row.solved += 1
        else:
            failures.append(f"{problem.problem_id}: the tool-visible oracle finds no answer that passes ({answer!r})")
        for distractor in problem.meta.get("distractors", []):
            row.distractors += 1
            for pid in distractor["answer"]:
                if pid not in view.seen:
                    found = catalog.get(pid)
                    if found is not None:
                        view.search(found["title"], shop_id=found["shop_id"])
            if score_run(view.read or problem, distractor["answer"], view.lookup, **kw).success:
                row.distractors_passed += 1
                failures.append(
                    f"{problem.problem_id}: distractor breaking {distractor['breaks']} passes the tool-visible oracle"
                )
    return dict(sorted(by_task.items())), failures
