"""A search filtered by price or services, answered from the unfiltered search's best candidates
(`arena.catalog.pruned`), gives the full filtered search's products in the full search's order: over many generated
queries on a generated catalog, and where many products tie."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest

from arena.catalog import Catalog, SearchFilters
from arena.catalog import index as catalog_index
from arena.catalog import pruned as pruned_module
from arena.catalog.build import build_catalog
from arena.catalog.models import SERVICES
from arena.catalog.writer import CatalogWriter
from tests.conftest import make_product


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    out = tmp_path_factory.mktemp("pruned") / "cat"
    build_catalog(11, 10_000, out, workers=1)
    return Catalog.open(out)


def full(catalog: Catalog, q: str, filters: SearchFilters, limit: int) -> list[tuple[float, int, int]]:
    """The full filtered search: every matching product scored, as it was before the pruned path."""
    query = catalog.product_query(q, filters)
    if query is None:  # only stop words
        return []
    return [(score, a.segment_ord, a.doc) for score, a in catalog._full(query, limit)]


def answered(catalog: Catalog, q: str, filters: SearchFilters, limit: int) -> list[tuple[float, int, int]]:
    return [(h.score, h.address.segment_ord, h.address.doc) for h in catalog.search(q, filters, limit)]


def pruned(catalog: Catalog, q: str, filters: SearchFilters, limit: int) -> list[tuple[float, int, int]] | None:
    """The pruned path's own answer, or None where it leaves the search to the full one."""
    hits = catalog._pruned(q, filters, limit)
    return None if hits is None else [(score, a.segment_ord, a.doc) for score, a in hits]


def queries(catalog: Catalog, n: int, seed: int) -> list[tuple[str, SearchFilters, int]]:
    """Words from the catalog's own titles (1 to 6), with price ranges (around the product's price, one-sided,
    narrow, wide) and 1 to 3 required services; the limits find_product (50) and find_products_in_same_shop (300)
    use, and a small one."""
    rng = random.Random(seed)
    pool = [p for i, p in enumerate(catalog.iter_products()) if i % 5 == 0]
    out = []
    for _ in range(n):
        p = rng.choice(pool)
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9-]+", p["title"]) if len(w) > 2] or ["item"]
        q = " ".join(rng.sample(words, min(len(words), rng.randint(1, 6))))
        price = float(p["price"])
        lo: float | None = None
        hi: float | None = None
        shape = rng.random()
        if shape < 0.3:
            lo, hi = round(price * rng.uniform(0.3, 0.95)), round(price * rng.uniform(1.05, 3.0)) + 1
        elif shape < 0.45:
            lo = round(price * rng.uniform(0.2, 1.0))
        elif shape < 0.6:
            hi = round(price * rng.uniform(1.0, 4.0))
        elif shape < 0.7:
            lo, hi = price, price  # one exact price: a narrow filter, mostly the full search
        services: tuple[str, ...] = ()
        if shape >= 0.5 or rng.random() < 0.4:
            services = tuple(rng.sample(SERVICES, rng.choice([1, 1, 2, 3])))
        if lo is None and hi is None and not services:
            services = (rng.choice(SERVICES),)
        out.append((q, SearchFilters(None, lo, hi, services), rng.choice([10, 50, 50, 50, 300])))
    return out


def test_pruned_answers_are_the_full_searchs_over_generated_queries(generated: Catalog):
    outcomes: Counter[str] = Counter()
    for q, filters, limit in queries(generated, 600, seed=3):
        expected = full(generated, q, filters, limit)
        assert answered(generated, q, filters, limit) == expected, (q, filters, limit)
        own = pruned(generated, q, filters, limit)
        assert own is None or own == expected, (q, filters, limit)
        outcomes["full" if own is None else "pruned"] += 1
        outcomes["pruned 3+ words"] += own is not None and len(catalog_index.analyze(q)) > 2
    # the comparison means something only if the pruned path answered most of them, 3+ words among them
    assert outcomes["pruned"] >= 0.6 * (outcomes["pruned"] + outcomes["full"]), outcomes
    assert outcomes["pruned 3+ words"] >= 100, outcomes


def test_the_tool_pages_are_unchanged(generated: Catalog):
    from arena.tasks.shopping.tools import default_registry
    from arena.tools import ToolContext

    registry, ctx = default_registry(), ToolContext(generated)
    for q, filters, _ in queries(generated, 60, seed=4):
        lo, hi = filters.price_min, filters.price_max
        price = None if lo is None and hi is None else f"{'' if lo is None else lo}-{'' if hi is None else hi}"
        query = generated.product_query(q, filters)
        kept = generated.documents(a for _, a in generated._full(query, 50)) if query is not None else []
        for sort, key in (("default", None), ("priceasc", "price"), ("order", "sold_count")):
            args = {"q": q, "sort": sort, "price": price, "service": ",".join(filters.services) or None}
            pages = [registry.call("find_product", {**args, "page": p}, ctx) for p in range(1, 6)]
            expected = kept if key is None else sorted(kept, key=lambda d: d[key] * (1 if sort == "priceasc" else -1))
            assert [r["product_id"] for page in pages for r in page] == [d["product_id"] for d in expected], args


def test_passes_reads_the_fast_fields_of_a_prefix_only_and_misses_no_contender(generated: Catalog):
    """`_passes` stops reading once ``limit`` have passed and the rest score below what `_contenders` keeps: what it
    returns is the start of the hits that pass (judged here from the stored products, not the fast fields), and every
    passing hit it did not read scores below that cut, whatever the step it reads by."""
    searcher, stored = generated._searcher, {}
    checked: Counter[str] = Counter()
    for q, filters, limit in queries(generated, 120, seed=5):
        plain = generated.product_query(q)
        if plain is None:
            continue
        hits = searcher.search(plain, 600, count=False).hits
        docs = []
        for _, address in hits:
            key = (address.segment_ord, address.doc)
            if key not in stored:
                stored[key] = generated.documents([address])[0]
            docs.append(stored[key])
        lo = -float("inf") if filters.price_min is None else filters.price_min
        hi = float("inf") if filters.price_max is None else filters.price_max
        expected = [
            hit
            for hit, doc in zip(hits, docs, strict=True)
            if lo <= doc["price"] <= hi and set(filters.services) <= set(doc["service"])
        ]
        mask = sum(catalog_index.SERVICE_BITS[s] for s in filters.services)
        for step in (1, 7, limit, len(hits) or 1):
            got = pruned_module._passes(
                searcher, hits, filters.price_min, filters.price_max, mask, limit=limit, step=step
            )
            assert got == expected[: len(got)], (q, filters, limit, step)
            if len(got) < len(expected):
                lower = got[limit - 1][0] * (1 - 3 * pruned_module.SLACK)
                assert all(score < lower for score, _ in expected[len(got) :]), (q, filters, limit, step)
                checked["stopped early"] += 1
            checked["read"] += 1
    assert checked["stopped early"] >= 0.2 * checked["read"], checked  # the early stop is what is tested


@pytest.fixture(scope="module")
def lamps(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """1,100 lamps with the same words (so the same score: only their row orders them), 400 with more words, all
    priced 5, every other one with cash on delivery; and 8,500 mats that match no lamp search, priced 100-999."""
    out = tmp_path_factory.mktemp("ties") / "cat"
    with CatalogWriter(out) as writer:
        for i in range(1500):
            title = "Desk lamp" if i % 15 < 11 else "Desk lamp with a long cable and a heavy base"
            writer.add_product(make_product(f"L{i:05d}", title, 5, service=["COD"] if i % 2 else []))
        for i in range(8500):
            writer.add_product(make_product(f"M{i:05d}", "Floor mat", 100 + i % 900, service=["COD"]))
        writer.commit({"source": {"kind": "fixture"}, "digest": "sha256:ties", "stats": {}})
    return Catalog.open(Path(out))


def test_ties_order_by_row_and_past_the_window_the_full_search_answers(lamps: Catalog):
    five = SearchFilters(price_min=4, price_max=6)  # every lamp: 1,100 tie at the top, past the full search's window
    assert answered(lamps, "desk lamp", five, 50) == full(lamps, "desk lamp", five, 50)
    assert pruned(lamps, "desk lamp", five, 50) is None
    cod = SearchFilters(price_min=4, price_max=6, services=("COD",))  # half of them: the pruned path orders by row
    assert (
        pruned(lamps, "desk lamp", cod, 50)
        == answered(lamps, "desk lamp", cod, 50)
        == full(lamps, "desk lamp", cod, 50)
    )
    top = lamps.documents(h.address for h in lamps.search("desk lamp", cod, 50)[:5])
    assert [d["product_id"] for d in top] == ["L00001", "L00003", "L00005", "L00007", "L00009"]


def test_a_nan_price_bound_is_refused_with_what_to_give():
    # the full search took a NaN upper bound as none and the pruned one as excluding everything
    for bounds in ((float("nan"), None), (None, float("nan")), (1.0, float("nan"))):
        with pytest.raises(ValueError, match="price bound is NaN.*give a number"):
            SearchFilters(None, *bounds)
    assert SearchFilters(None, float("inf"), None).price_min == float("inf")  # inf stays a bound (beyond every price)
