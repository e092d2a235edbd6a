"""Gold rebuild: a catalog in which imported ShoppingBench problems can be solved, and failed, honestly.

The real problems' 2.5M products are not available offline. For every reward this builds a gold product that meets
every constraint (its title, attributes, one SKU option, services, a price inside every price rule; voucher tasks: a
basket whose total fits the budget after the voucher; shop tasks: one shop for the whole basket; web tasks: the gold
document itself plus a web page carrying the knowledge fact), and near-miss distractors that each break exactly one
constraint (a wrong attribute or SKU value, a price just outside, a missing service, another shop, an over-budget
basket). Both are mixed into a generated background catalog. Each problem records its distractor answers in
``meta["distractors"]`` so that ``arena problems selfcheck`` can prove golds pass and distractors fail.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.catalog import generator as gen
from arena.catalog.build import StatsCollector
from arena.catalog.models import Product, search_contents
from arena.catalog.rng import Rng
from arena.catalog.webcorpus import generate_web_pages
from arena.catalog.writer import CatalogWriter
from arena.problems.models import PriceRule, Problem, ProductReward, Voucher
from arena.tools.shopping import Voucher as ToolVoucher
from arena.tools.shopping import apply_voucher

IMPORTED_CATEGORY = "Imported > ShoppingBench > Products"


@dataclass
class RebuildReport:
    problems: list[Problem]
    digest: str
    products: int
    golds: int
    distractors: int
    skipped: list[str] = field(default_factory=list)  # "problem_id: reason" for unsatisfiable constraint sets


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


def _price_inside(lo: float, hi: float, rng: Rng) -> float:
    if math.isinf(hi):
        return round(max(lo, 1.0) * (1.1 + 0.5 * rng.u()), 2)
    if hi - lo < 0.02:
        return round(lo, 2) if round(lo, 2) <= hi else lo
    return round(lo + (hi - lo) * (0.25 + 0.5 * rng.u()), 2)


def after_voucher(total: float, single_shop: bool, voucher: Voucher) -> float:
    tool = ToolVoucher(voucher_type=voucher.voucher_type, threshold=voucher.threshold,
                       discount_type=voucher.discount_type, face_value=voucher.face_value, discount=voucher.discount,
                       cap=voucher.cap)
    discount, _, _ = apply_voucher(total, single_shop, tool)
    return total - discount


def basket_total(voucher: Voucher) -> float:
    """A basket total for which the voucher is needed and enough: inverted from ``price_after_voucher`` when the
    record has it (ShoppingBench's recipe), else the largest total the voucher brings within budget."""
    pav = voucher.price_after_voucher
    candidates: list[float] = []
    if pav is not None and pav > 0:
        if voucher.discount_type == "fixed":
            candidates.append(pav + (voucher.face_value or 0))
        else:
            d = voucher.discount or 0
            full = pav / (1 - d)
            candidates.append(full if voucher.cap is None or full * d <= voucher.cap else pav + voucher.cap)
    if voucher.discount_type == "fixed":
        candidates.append(voucher.budget + (voucher.face_value or 0) * 0.9)
    else:
        d = voucher.discount or 0
        full = voucher.budget / (1 - d) * 0.99
        capped = voucher.cap is not None and full * d > voucher.cap
        candidates.append(voucher.budget + (voucher.cap or 0) * 0.9 if capped else full)
    candidates.append(voucher.budget * 0.95)  # always works: within budget without the voucher
    for total in candidates:
        total = round(total, 2)
        if total >= voucher.threshold and after_voucher(total, True, voucher) <= voucher.budget + 1e-9:
            return total
        if total <= voucher.budget:
            return total
    raise ValueError("no basket total fits the budget")


def _split(total: float, n: int, rng: Rng) -> list[float]:
    weights = [0.5 + rng.u() for _ in range(n)]
    scale = total / sum(weights)
    prices = [round(w * scale, 2) for w in weights[:-1]]
    prices.append(round(total - sum(prices), 2))
    if min(prices) <= 0:
        prices = [round(total / n, 2)] * (n - 1) + [round(total - round(total / n, 2) * (n - 1), 2)]
    return prices


def _merged_attributes(reward: ProductReward) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for attr in reward.attributes:
        for key, values in attr.items():
            bucket = out.setdefault(key.lower(), [])
            bucket.extend(v.lower() for v in values if v.lower() not in bucket)
    return out


def _option(reward: ProductReward) -> dict[str, str]:
    option: dict[str, str] = {}
    for sku in reward.sku_options:
        option.update({k.lower(): v.lower() for k, v in sku.items()})
    return option


def _gold(reward: ProductReward, shop_id: str, price: float, rng: Rng) -> dict[str, Any]:
    title = reward.title[0]
    attributes = _merged_attributes(reward)
    option = _option(reward)
    sku_options = {"1": option} if option else {}
    details = "; ".join(f"{k.replace('_', ' ')}: {', '.join(v)}" for k, v in attributes.items())
    return Product(
        product_id=reward.product_id, shop_id=shop_id, brand=(attributes.get("brand") or ["No Brand"])[0].title(),
        category=IMPORTED_CATEGORY, title=title, short_description=f"{title};Brand new and authentic;",
        description=f"{title}. {details}." if details else f"{title}.",
        specification=";".join(f"{k.replace('_', ' ')}:{v[0]}" for k, v in attributes.items()),
        price=price, sold_count=rng.below(500), sku_options=sku_options, attributes=attributes,
        service=list(dict.fromkeys(reward.service)),
        main_image_url=f"https://img.shoparena.example/sb/{reward.product_id}.jpg",
        product_url=f"https://shoparena.example/products/-i{reward.product_id}.html",
    ).model_dump()


def _other_value(value: str) -> str:
    return f"non-{value}" if not value.startswith("non-") else value.removeprefix("non-") + " variant"


def _near_misses(reward: ProductReward, gold: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Copies of ``gold`` that each break exactly one of the reward's constraints: (what it breaks, product)."""
    out: list[tuple[str, dict[str, Any]]] = []
    for rule in reward.price:
        bad = dict(gold)
        if rule.hi is not None:
            bad["price"] = round(rule.hi + max(1.0, 0.02 * rule.hi), 2)
        elif rule.lo is not None and rule.lo >= 2:
            bad["price"] = round(rule.lo - max(1.0, min(0.02 * rule.lo, rule.lo / 2)), 2)
        else:
            continue
        out.append((f"price {rule.mode}", bad))
    for service in dict.fromkeys(reward.service):
        bad = dict(gold, service=[s for s in gold["service"] if s != service])
        out.append((f"service {service}", bad))
    for key, value in _option(reward).items():
        option = dict(gold["sku_options"]["1"], **{key: _other_value(value)})
        attributes = {k: v for k, v in gold["attributes"].items() if not (k == key and value in v)}
        out.append((f"sku {key}", dict(gold, sku_options={"1": option}, attributes=attributes)))
    for key, values in _merged_attributes(reward).items():
        value = values[0]
        attributes = dict(gold["attributes"], **{key: [_other_value(value)] + [v for v in values[1:]]})
        option = {k: v for k, v in (gold["sku_options"].get("1") or {}).items() if not (k == key and v == value)}
        out.append((f"attribute {key}", dict(gold, attributes=attributes, sku_options={"1": option} if option else {})))
    return out


class _Ids:
    """Ids for distractors: never equal to, and never containing, any gold id (web gt is a substring test)."""

    def __init__(self, golds: set[str]) -> None:
        self._golds = golds
        self._next = 8_000_000_000

    def new(self) -> str:
        while True:
            self._next += 1
            candidate = str(self._next)
            if candidate not in self._golds and not any(g in candidate for g in self._golds):
                return candidate


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
    golds_all = {r.product_id for p in problems for r in p.reward}
    ids = _Ids(golds_all)
    shop_no = 0

    def new_shop() -> str:
        nonlocal shop_no
        shop_no += 1
        return f"9{shop_no:06d}"

    placed: dict[str, dict[str, Any]] = {}
    injected: list[dict[str, Any]] = []
    pages: list[dict[str, Any]] = []
    updated: list[Problem] = []
    skipped: list[str] = []
    n_distractors = 0
    for problem in problems:
        try:
            docs, distractors = _problem_products(problem, placed, rng, ids, new_shop)
        except ValueError as exc:
            skipped.append(f"{problem.problem_id}: {exc}")
            continue
        for doc in docs:
            if doc["product_id"] not in placed:
                placed[doc["product_id"]] = doc
                injected.append(doc)
        answers = []
        for breaks, answer, extra in distractors:
            injected.extend(extra)
            answers.append({"breaks": breaks, "answer": answer})
            n_distractors += 1
        if problem.task == "web":
            question = problem.query.split("?")[0].strip() + "?" if "?" in problem.query else problem.query
            pages.append({"url": f"https://wiki.shoparena.example/sb/{problem.problem_id}",
                          "title": question[:120],
                          "content": f"{question} The answer is {problem.knowledge_attribute}.", "fact": None})
        updated.append(problem.model_copy(update={"meta": {**problem.meta, "distractors": answers}}))

    digest = gen.Digest()
    stats = StatsCollector()
    with CatalogWriter(out, overwrite=force) as writer:
        for doc in injected:
            payload = gen.canonical_json(doc)
            writer.add_product(doc, contents=search_contents(doc["title"], doc["sku_options"], doc["attributes"]),
                               doc_json=payload)
            digest.update(payload)
            stats.add(doc)
        if progress:
            progress(len(injected))
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
        for page in pages + background_pages:
            writer.add_web_page(page)
            digest.update(gen.canonical_json(page))
        writer.commit({"source": {"kind": "rebuilt", "problems": len(updated), "background_seed": background_seed,
                                  "background_size": background_size}, "digest": digest.hexdigest(),
                       "stats": stats.result()}, overwrite=force)
        total = writer.products
    for p in range(len(updated)):
        updated[p].meta["catalog_digest"] = digest.hexdigest()
    return RebuildReport(updated, digest.hexdigest(), total, len(placed), n_distractors, skipped)


def _problem_products(problem: Problem, placed: dict[str, dict[str, Any]], rng: Rng, ids: _Ids,
                      new_shop: Callable[[], str]) -> tuple[list[dict[str, Any]], list[tuple[str, list[str], list[
                          dict[str, Any]]]]]:
    """Gold documents and distractor answers (what breaks, the answer ids, the products to add) for one problem."""
    rewards = problem.reward
    for reward in rewards:
        existing = placed.get(reward.product_id)
        if existing is not None and problem.task != "web":
            raise ValueError(f"gold product {reward.product_id} is already the answer of another problem")
    if problem.task == "web":
        assert problem.gold_document is not None
        gold = problem.gold_document.model_dump()
        golds = [gold]
    else:
        shared_shop = new_shop()
        one_shop = problem.task == "shop" or (problem.voucher is not None and problem.voucher.voucher_type == "shop")
        if problem.task == "voucher":
            assert problem.voucher is not None
            prices = _split(basket_total(problem.voucher), len(rewards), rng)
        else:
            prices = []
            for reward in rewards:
                lo, hi = price_interval(reward.price)
                prices.append(_price_inside(lo, hi, rng))
        golds = [_gold(r, shared_shop if one_shop or i == 0 else new_shop(), prices[i], rng)
                 for i, r in enumerate(rewards)]
    answer = [g["product_id"] for g in golds]
    distractors: list[tuple[str, list[str], list[dict[str, Any]]]] = []
    if problem.task == "web":
        attribute = (problem.knowledge_attribute or "").strip()
        bad = dict(golds[0], product_id=ids.new())
        for key in ("title", "description", "short_description"):
            text = bad.get(key, "")
            bad[key] = _remove(text, attribute) if attribute else text
        distractors.append(("knowledge attribute", [bad["product_id"]], [bad]))
        return golds, distractors
    for slot, (reward, gold) in enumerate(zip(rewards, golds, strict=True)):
        for breaks, product in _near_misses(reward, gold):
            product = dict(product, product_id=ids.new())
            swapped = answer[:slot] + [product["product_id"]] + answer[slot + 1:]
            distractors.append((f"slot {slot + 1} {breaks}", swapped, [product]))
    if problem.task == "shop":
        moved = dict(golds[-1], product_id=ids.new(), shop_id=new_shop())
        distractors.append(("another shop", answer[:-1] + [moved["product_id"]], [moved]))
    if problem.task == "voucher":
        assert problem.voucher is not None
        voucher = problem.voucher
        single = len({g["shop_id"] for g in golds}) == 1
        total = sum(g["price"] for g in golds)
        raise_by = max(1.0, voucher.budget - after_voucher(total, single, voucher) + 1.0)
        while after_voucher(total + raise_by, single, voucher) <= voucher.budget:
            raise_by *= 2
        pricey = dict(golds[0], product_id=ids.new(), price=round(golds[0]["price"] + raise_by, 2))
        distractors.append(("over budget", [pricey["product_id"]] + answer[1:], [pricey]))
    return golds, distractors


def _remove(text: str, phrase: str) -> str:
    import re

    return re.sub(re.escape(phrase), "", text, flags=re.IGNORECASE).replace("  ", " ").strip()
