"""Generating problems from a catalog: ground truth first, words last.

ShoppingBench's synthesis recipe (``src/agent/run_synthesize.py``): sample the gold product(s); keep each constraint
type with probability 1/2 (the title always, at most one SKU option, one price mode whose bounds contain the gold
price); shop tasks take 2-4 products of one shop; voucher parameters from the basket total T: threshold in
[0.1T, 0.9T], a fixed face value in [0.1, 0.5] of the threshold, or a percentage of 10-50% with a cap in
[threshold * d, threshold]; the budget is the price after the voucher plus up to 10%. Web tasks tie a fact of the
web corpus to a product that carries its value. Only then is the query rendered (`arena.tasks.shopping.render`).

Every problem is checked solvable (its gold answer passes the strict checks) and labelled by difficulty from its
number of constraints and how many products the query retrieves that fail a constraint (confusers).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.catalog import Catalog
from arena.catalog.rng import Rng
from arena.tasks.shopping import render
from arena.tasks.shopping.item_text import product_noun
from arena.tasks.shopping.problem import TASKS, PriceRule, Problem, ProductReward, Voucher
from arena.tasks.shoppingbench.strict import score_run

GENERATOR_VERSION = "shoparena-gen/1"
MAX_TRIES = 30


class Unsolvable(Exception):
    """A drawn ground truth that cannot make a fair problem (reported and skipped)."""


@dataclass
class GenerateReport:
    problems: list[Problem] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    by_task: dict[str, int] = field(default_factory=dict)


def _price_rule(price: float, rng: Rng) -> PriceRule:
    mode = rng.pick(["between", "less than", "greater than"])
    if mode == "between":
        return PriceRule(
            mode="between", lo=math.floor(price * (0.5 + 0.45 * rng.u())), hi=math.ceil(price * (1.05 + rng.u()))
        )
    if mode == "less than":
        return PriceRule(mode="less than", hi=math.ceil(price * (1.05 + rng.u())))
    return PriceRule(mode="greater than", lo=math.floor(price * (0.3 + 0.65 * rng.u())))


def constraints_for(
    product: dict[str, Any], rng: Rng, *, allow_price: bool = True
) -> tuple[ProductReward, render.ItemSpec]:
    """Keep each constraint type with probability 1/2 (the title always); the reward and its rendering spec."""
    sku: list[dict[str, str]] = []
    attributes: list[dict[str, list[str]]] = []
    services: list[str] = []
    price: list[PriceRule] = []
    brand = None
    options = list(product["sku_options"].values())
    if options and rng.chance(0.5):
        option = rng.pick(options)
        key = rng.pick(sorted(option))
        sku = [{key: option[key]}]
    attr_keys = [k for k in product["attributes"] if product["attributes"][k] and k != "brand"]
    if attr_keys and rng.chance(0.5):
        for key in rng.sample(attr_keys, 1 + rng.below(min(3, len(attr_keys)))):
            attributes.append({key: [rng.pick(product["attributes"][key])]})
    if "brand" in product["attributes"] and rng.chance(0.15):
        brand = product["attributes"]["brand"][0]
        attributes.append({"brand": [brand]})
    if product["service"] and rng.chance(0.5):
        services = rng.sample(product["service"], 1 + rng.below(min(2, len(product["service"]))))
    if allow_price and rng.chance(0.5):
        price = [_price_rule(float(product["price"]), rng)]
    reward = ProductReward(
        product_id=product["product_id"],
        title=[product["title"]],
        sku_options=sku,
        attributes=attributes,
        service=services,
        price=price,
    )
    spec = render.ItemSpec(
        noun=product_noun(product),
        category=product["category"],
        brand=brand,
        attributes=tuple((k, v[0]) for a in attributes for k, v in a.items() if k != "brand"),
        sku=tuple((k, v) for o in sku for k, v in o.items()),
        services=tuple(services),
        price=(price[0].mode, price[0].lo, price[0].hi) if price else None,
    )
    return reward, spec


def voucher_for(total: float, voucher_type: str, rng: Rng) -> Voucher:
    """ShoppingBench's voucher recipe for a basket of total ``total``."""
    threshold = math.floor(total * (0.1 + 0.8 * rng.u()))
    if rng.chance(0.5):
        face = max(1, math.floor(threshold * (0.1 + 0.4 * rng.u())))
        after = total - face if total >= threshold else total
        voucher = {"discount_type": "fixed", "face_value": face}
    else:
        d = round(0.10 + 0.40 * rng.u(), 2)
        cap = max(1, math.floor(threshold * d + (threshold - threshold * d) * rng.u()))
        after = max(total * (1 - d), total - cap) if total >= threshold else total
        voucher = {"discount_type": "percentage", "discount": d, "cap": cap}
    after = round(after, 2)
    budget = math.ceil(after) + rng.below(math.ceil(0.1 * after) + 1)
    return Voucher(voucher_type=voucher_type, threshold=threshold, price_after_voucher=after, budget=budget, **voucher)


class _Sampler:
    def __init__(self, catalog: Catalog, rng: Rng) -> None:
        self.catalog = catalog
        self.rng = rng
        self.n = catalog.num_products

    def product(self) -> dict[str, Any]:
        doc = self.catalog.product_at(self.rng.below(self.n))
        if doc is None:
            raise Unsolvable("catalog row vanished")
        return doc

    def shop_basket(self, k: int) -> list[dict[str, Any]]:
        for _ in range(MAX_TRIES):
            anchor = self.product()
            mates = [
                p
                for p in self.catalog.products_of_shop(anchor["shop_id"], 200)
                if p["product_id"] != anchor["product_id"]
            ]
            by_leaf: dict[str, dict[str, Any]] = {}
            for p in mates:
                if p["category"] != anchor["category"]:
                    by_leaf.setdefault(p["category"], p)
            if len(by_leaf) >= k - 1:
                picked = self.rng.sample(sorted(by_leaf), k - 1)
                return [anchor] + [by_leaf[c] for c in picked]
        raise Unsolvable(f"no shop with {k} products in different categories")


def _problem_id(task: str, seed: int, digest: str, index: int) -> str:
    return f"gen-{task}-" + hashlib.sha256(f"{seed}:{digest}:{index}".encode()).hexdigest()[:12]


def _make(task: str, catalog: Catalog, rng: Rng, facts: Sequence[dict[str, Any]]) -> Problem:
    sampler = _Sampler(catalog, rng)
    if task == "product":
        gold = sampler.product()
        reward, spec = constraints_for(gold, rng)
        return Problem(problem_id="x", task="product", query=render.render_product_query(spec, rng), reward=[reward])
    if task == "shop":
        basket = sampler.shop_basket(2 + rng.below(3))
        pairs = [constraints_for(p, rng) for p in basket]
        return Problem(
            problem_id="x",
            task="shop",
            query=render.render_shop_query([s for _, s in pairs], rng),
            reward=[r for r, _ in pairs],
        )
    if task == "voucher":
        return _make_voucher(sampler, rng)
    return _make_web(catalog, rng, facts)


def _make_voucher(sampler: _Sampler, rng: Rng) -> Problem:
    """A voucher problem: a basket of at least 100 (from one shop for a shop voucher), the voucher and a budget."""
    voucher_type = "shop" if rng.chance(0.5) else "platform"
    k = 1 + rng.below(4)
    for _ in range(MAX_TRIES):
        if voucher_type == "shop" and k > 1:
            basket = sampler.shop_basket(k)
        else:
            basket = [sampler.product() for _ in range(k)]
        total = round(sum(float(p["price"]) for p in basket), 2)
        if total >= 100 and len({p["product_id"] for p in basket}) == k:
            break
    else:
        raise Unsolvable("no basket of at least 100 found")
    pairs = [constraints_for(p, rng, allow_price=False) for p in basket]  # budget replaces price
    voucher = voucher_for(total, voucher_type, rng)
    voucher_spec = render.VoucherSpec(
        voucher.voucher_type,
        voucher.threshold,
        voucher.discount_type,
        voucher.face_value,
        voucher.discount,
        voucher.cap,
        voucher.budget,
    )
    return Problem(
        problem_id="x",
        task="voucher",
        query=render.render_voucher_query([s for _, s in pairs], voucher_spec, rng),
        reward=[r for r, _ in pairs],
        voucher=voucher,
    )


def _make_web(catalog: Catalog, rng: Rng, facts: Sequence[dict[str, Any]]) -> Problem:
    """A web problem: a product carrying a fact's value, asked for through a world-knowledge question."""
    if not facts:
        raise Unsolvable("the catalog's web corpus has no fact pages")
    for _ in range(MAX_TRIES):
        fact = rng.pick(facts)["fact"]
        value = fact["value"].lower()
        hits = catalog.search(value, limit=50)
        carriers = [
            d
            for d in catalog.documents(h.address for h in hits)
            if value in (d["title"] + " " + d["description"]).lower()
        ]
        if carriers:
            break
    else:
        raise Unsolvable("no product carries a fact's value")
    gold = rng.pick(carriers)
    reward = ProductReward(product_id=gold["product_id"], title=[gold["title"]])
    spec = render.ItemSpec(noun=product_noun(gold), category=gold["category"])
    question = render.knowledge_question(
        fact["entity"], fact["entity_type"], fact["relation"], fact["attribute_key"], rng
    )
    knowledge = render.KnowledgeSpec(
        question=question, entity=fact["entity"], relation=fact["relation"], attribute_key=fact["attribute_key"]
    )
    from arena.catalog.models import Product

    try:
        query = render.render_web_query(spec, knowledge, rng, answer=fact["value"])
    except ValueError as exc:
        raise Unsolvable(f"web query would give the answer away ({exc})") from None
    return Problem(
        problem_id="x",
        task="web",
        query=query,
        reward=[reward],
        knowledge_attribute=fact["value"],
        gold_document=Product.model_validate(gold),
    )


def difficulty(problem: Problem, catalog: Catalog) -> tuple[str, int]:
    """(label, confusers): confusers are products the query retrieves that fail a constraint of the first slot."""
    constraints = sum(r.constraint_count() for r in problem.reward)
    one = (
        problem.model_copy(update={"task": "product", "reward": problem.reward[:1], "voucher": None})
        if problem.task in ("shop", "voucher")
        else problem
    )
    hits = catalog.search(problem.query, limit=50)
    confusers = 0
    gold_ids = set(problem.gold_ids)
    for doc in catalog.documents(h.address for h in hits):
        if doc["product_id"] in gold_ids:
            continue
        if not score_run(one, [doc["product_id"]], {doc["product_id"]: doc}.get).success:
            confusers += 1
    weight = constraints + confusers / 25 + {"shop": 1, "voucher": 1, "web": 2}.get(problem.task, 0)
    label = "easy" if weight < 3.5 else "medium" if weight < 6.5 else "hard"
    return label, confusers


def generate_problems(
    catalog: Catalog, n: int, tasks: Sequence[str] = TASKS, seed: int = 0, progress: Callable[[int], None] | None = None
) -> GenerateReport:
    """``n`` problems, tasks in turn; deterministic from (catalog digest, seed, n, tasks)."""
    if n < 1:
        raise ValueError(f"--n must be at least 1, got {n}")
    unknown = [t for t in tasks if t not in TASKS]
    if unknown or not tasks:
        raise ValueError(f"unknown task(s) {unknown or tasks}; use {', '.join(TASKS)}")
    facts = [p for p in catalog.web_pages() if p.get("fact")] if "web" in tasks else []
    facts.sort(key=lambda p: p["url"])
    report = GenerateReport()
    seen_gold: set[tuple[str, ...]] = set()
    for index in range(n):
        task = tasks[index % len(tasks)]
        problem = None
        reason = ""
        for attempt in range(5):
            rng = Rng("problem", catalog.digest, seed, index, attempt)
            try:
                candidate = _make(task, catalog, rng, facts)
            except Unsolvable as exc:
                reason = str(exc)
                continue
            golds = tuple(candidate.gold_ids)
            if golds in seen_gold:
                reason = "duplicate gold set"
                continue
            check = score_run(candidate, list(golds), catalog.get)
            if not check.success:
                reason = "gold answer fails its own constraints"
                continue
            label, confusers = difficulty(candidate, catalog)
            problem = candidate.model_copy(
                update={
                    "problem_id": _problem_id(task, seed, catalog.digest, index),
                    "difficulty": label,
                    "source": f"generated:{GENERATOR_VERSION}:seed={seed}",
                    "meta": {
                        "confusers": confusers,
                        "constraints": sum(r.constraint_count() for r in candidate.reward),
                        "catalog_digest": catalog.digest,
                    },
                }
            )
            seen_gold.add(golds)
            break
        if problem is None:
            report.skipped.append(f"problem {index} ({task}): {reason}")
        else:
            report.problems.append(problem)
            report.by_task[task] = report.by_task.get(task, 0) + 1
        if progress:
            progress(1)
    return report
