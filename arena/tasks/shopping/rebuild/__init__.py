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

Nothing a tool shows of a product contradicts its attributes (`arena.tasks.shopping.consistency`): a copy that swaps
a value swaps it in its title and texts too, a copy that loses a service no longer promises it, and the sentences
written from attribute values (``"pack type: bag; flavor: chili powder."``) are written from each product's own
values once every swap is made. A record whose own document contradicts itself is left out in one line.

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
problem's answers. The gold and its copies carry the same searched words (`balance`: the values a copy swapped
are kept as ``tags``, under a key no problem asks for), so any query ranks them equally and ties go by the seeded
shuffled order products are written in: searching alone finds the gold about once in the cluster's size.

Web knowledge is laid out as the live web holds it (`arena.tasks.shopping.webknowledge`): the fact in prose on a
page about the entity, among pages about related entities with other values. Everything is mixed, shuffled, into a
generated background catalog. Each problem records its distractor answers in
``meta["distractors"]`` so that ``arena problems selfcheck`` can prove golds pass and distractors fail.

The pieces, in the order `rebuild_catalog` uses them: `prices` (price and budget arithmetic), `plan` (demands merged
per gold, shops, prices, gold documents), `nearmiss` (copies breaking one constraint each), `distractors` (each
problem's distractor answers, and the balance of searched words).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.catalog import generator as gen
from arena.catalog.build import StatsCollector
from arena.catalog.models import search_contents
from arena.catalog.rng import Rng
from arena.catalog.webcorpus import generate_web_pages
from arena.catalog.writer import CatalogWriter
from arena.tasks.shopping.problem import Problem
from arena.tasks.shopping.rebuild.distractors import (
    NEAR_MISSES_BASKET,
    NEAR_MISSES_PRODUCT,
    TAGS_KEY,
    Ids,
    balance,
    distractors_of,
    rewards_met,
    tags_key,
)
from arena.tasks.shopping.rebuild.nearmiss import PRICE_STEPS, VARIANT_WORDS, Copy, Values
from arena.tasks.shopping.rebuild.plan import IMPORTED_CATEGORY, LEFT_OUT, Planner, gold_document, write_texts
from arena.tasks.shopping.rebuild.prices import (
    MARGIN,
    MIN_PRICE,
    after_voucher,
    basket_total,
    budget_window,
    fits_budget,
    price_interval,
)
from arena.tasks.shopping.webknowledge import fact_pages, knowledge_question

__all__ = [
    "IMPORTED_CATEGORY",
    "LEFT_OUT",
    "MARGIN",
    "MIN_PRICE",
    "NEAR_MISSES_BASKET",
    "NEAR_MISSES_PRODUCT",
    "PRICE_STEPS",
    "TAGS_KEY",
    "VARIANT_WORDS",
    "WEB_NEAR_MISSES",
    "RebuildReport",
    "after_voucher",
    "basket_total",
    "budget_window",
    "fits_budget",
    "price_interval",
    "rebuild_catalog",
]

#: near-miss pages (and products) per web problem
WEB_NEAR_MISSES = 5


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
    plan = Planner(problems, rng)
    plan.assign_shops()
    plan.solve_prices()
    docs = {pid: gold_document(gold, rng) for pid, gold in plan.golds.items()}
    plan.leave_out_inconsistent(docs)
    ids = Ids(set(plan.golds), background_seed)
    pages, near_values = _web_knowledge([p for p in plan.accepted if p.task == "web"], background_seed)
    updated, copies = _with_distractors(plan, docs, ids, near_values, background_seed)
    for copy in copies:  # what a copy says is written from its own values, after every swap
        copy.product = write_texts(copy.product)
    balance(docs, copies, tags_key(plan.accepted))
    injected: list[dict[str, Any]] = list(docs.values()) + [copy.product for copy in copies]
    # insertion order breaks search ties: shuffled, so a gold is not found first for being written first
    rng.shuffle(injected)
    with CatalogWriter(out, overwrite=force) as writer:
        digest, stats = _write(
            writer,
            injected,
            pages,
            rng,
            background_seed,
            background_size,
            progress,
            sum(len(p.reward) for p in problems),
        )
        writer.commit(
            {
                "source": {
                    "kind": "rebuilt",
                    "problems": len(updated),
                    "background_seed": background_seed,
                    "background_size": background_size,
                },
                "digest": digest.hexdigest(),
                "stats": stats.result(),
            },
            overwrite=force,
        )
        total = writer.products
    for problem in updated:
        problem.meta["catalog_digest"] = digest.hexdigest()
    n_distractors = sum(len(p.meta["distractors"]) for p in updated)
    return RebuildReport(updated, digest.hexdigest(), total, len(docs), n_distractors, plan.skipped, len(pages))


def _web_knowledge(web: Sequence[Problem], seed: int) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """(the fact pages of the web problems, their near-miss values by problem id)."""
    value_pool = list(dict.fromkeys(p.knowledge_attribute or "" for p in web))
    questions = [knowledge_question(p.query) for p in web]
    proper_pool, asked = _proper_nouns(questions), set(questions)
    pages: list[dict[str, Any]] = []
    near_values: dict[str, list[str]] = {}
    for problem in web:
        page_rng = Rng("rebuild-web", seed, problem.problem_id)
        made, values = fact_pages(
            problem.problem_id,
            problem.query,
            problem.knowledge_attribute or "",
            value_pool,
            proper_pool,
            page_rng,
            WEB_NEAR_MISSES,
            asked,
        )
        pages.extend(made)
        near_values[problem.problem_id] = values
    return pages, near_values


def _proper_nouns(questions: Sequence[str]) -> list[str]:
    found: dict[str, None] = {}
    for q in questions:
        for m in re.finditer(r"(?<=[\w,;] )[A-Z][a-zA-Z'-]{2,}\b", q):
            found[m.group(0)] = None
    return list(found)


def _with_distractors(
    plan: Planner, docs: dict[str, dict[str, Any]], ids: Ids, near_values: dict[str, list[str]], seed: int
) -> tuple[list[Problem], list[Copy]]:
    """(the accepted problems with their distractor answers in ``meta["distractors"]``, the products they add)."""
    ceilings = {pid: gold.interval[1] for pid, gold in plan.golds.items()}
    pool = Values(docs, plan.accepted)
    naming = rewards_met(docs, plan.accepted)
    updated: list[Problem] = []
    copies: list[Copy] = []
    for problem in plan.accepted:
        answers = []
        near_rng = Rng("rebuild-near", seed, problem.problem_id)
        for breaks, answer, extra in distractors_of(
            problem, docs, ids, plan.new_shop, near_values.get(problem.problem_id, []), ceilings, pool, naming, near_rng
        ):
            copies.extend(extra)
            answers.append({"breaks": breaks, "answer": answer})
        updated.append(problem.model_copy(update={"meta": {**problem.meta, "distractors": answers}}))
    return updated, copies


def _write(
    writer: CatalogWriter,
    injected: list[dict[str, Any]],
    pages: list[dict[str, Any]],
    rng: Rng,
    seed: int,
    size: int,
    progress: Callable[[int], None] | None,
    steps: int,
) -> tuple[gen.Digest, StatsCollector]:
    """Write the rebuilt products, then the background catalog's (``size`` of them, from ``seed``), then every web
    page, shuffled; (their digest, their stats). ``steps``: the progress the rebuilt products count for."""
    digest = gen.Digest()
    stats = StatsCollector()
    for doc in injected:
        payload = gen.canonical_json(doc)
        writer.add_product(
            doc, contents=search_contents(doc["title"], doc["sku_options"], doc["attributes"]), doc_json=payload
        )
        digest.update(payload)
        stats.add(doc)
    if progress:  # the import command counts one step per reward
        progress(steps)
    if size:
        for product in gen.iter_products(seed, size):
            if writer.has_product(product["product_id"]):
                continue
            payload = gen.canonical_json(product)
            writer.add_product(
                product,
                contents=search_contents(product["title"], product["sku_options"], product["attributes"]),
                doc_json=payload,
            )
            digest.update(payload)
            stats.add(product)
            if progress and writer.products % 1024 == 0:
                progress(1024)
    digest.update(b"--web--")
    background_pages = generate_web_pages(seed, size) if size else []
    all_pages = pages + background_pages
    rng.shuffle(all_pages)
    for page in all_pages:
        writer.add_web_page(page)
        digest.update(gen.canonical_json(page))
    return digest, stats
