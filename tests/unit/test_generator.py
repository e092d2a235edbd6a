"""The seeded generator: determinism, and statistics that make shopping realistically hard."""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from arena.catalog import Catalog, Product
from arena.catalog.build import build_catalog
from arena.catalog.generator import MAX_SIZE, catalog_digest, iter_products, leaves, validate_seed_size
from arena.catalog.models import MAX_SKU_OPTIONS, SERVICES
from arena.catalog.webcorpus import generate_web_pages
from arena.catalog.world import MODELS_PER_KEY, World, check_model_keys
from arena.tasks.shopping.tools import default_registry
from arena.tools import ToolContext

SIZE = 6000


@pytest.fixture(scope="module")
def products():
    return list(iter_products(3, SIZE))


def test_same_seed_and_size_same_digest_different_seed_differs():
    a = catalog_digest(iter_products(11, 1500), generate_web_pages(11, 1500))
    b = catalog_digest(iter_products(11, 1500), generate_web_pages(11, 1500))
    c = catalog_digest(iter_products(12, 1500), generate_web_pages(12, 1500))
    d = catalog_digest(iter_products(11, 1501), generate_web_pages(11, 1501))
    assert a == b
    assert len({a, c, d}) == 3


#: Digests of generated catalogs, pinned: a change to the generator (or to the order of its draws) that alters a
#: single product or web page fails here, before it reaches the catalogs packs and validators were built on.
PINNED = {
    (7, 5000): "sha256:9250687a59fdbb39129e11cfb0f9eddb6ccadc3c690443081f7b44fbaf7166d0",
    (123456789, 3000): "sha256:9ad98c3c2d76a15fede618f9886c2ea0251648e8703f31277fc229f9c9217284",
    (1, 12000): "sha256:8a3598473c65e1a96a5741d7da126ce983c5766a5c815524b3d3212748555db5",
}


@pytest.mark.parametrize(("seed", "size"), list(PINNED))
def test_a_generated_catalog_keeps_its_digest(seed, size):
    assert catalog_digest(iter_products(seed, size), generate_web_pages(seed, size)) == PINNED[seed, size]


@pytest.mark.slow  # forks generator workers
def test_a_built_catalog_keeps_its_digest(tmp_path):
    """The build's own path (generator workers forked with the garbage collector paused, rows indexed, digested
    and counted by the builder) gives the pinned digest, and the collector is back on after it."""
    report = build_catalog(7, 5000, tmp_path / "c", workers=2)
    assert report.digest == PINNED[7, 5000] == Catalog.open(tmp_path / "c").digest
    assert gc.isenabled()


@pytest.mark.slow  # builds in subprocesses of their own hash seeds
def test_digest_is_independent_of_process_hash_seed_and_workers(tmp_path):
    # A fresh interpreter with another PYTHONHASHSEED must compute the same digest (no hash() or set order leaks).
    code = (
        "from arena.catalog.generator import *; from arena.catalog.webcorpus import generate_web_pages; "
        "print(catalog_digest(iter_products(5, 2500), generate_web_pages(5, 2500)))"
    )
    digests = set()
    for hash_seed in ("1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        digests.add(
            subprocess.run(
                [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
            ).stdout.strip()
        )
    one = build_catalog(5, 2500, tmp_path / "one", workers=1)
    two = build_catalog(5, 2500, tmp_path / "two", workers=2)
    assert digests == {one.digest} == {two.digest}
    assert Catalog.open(tmp_path / "two").digest == one.digest


def test_every_product_is_a_valid_shoppingbench_document(products):
    for product in products[:2000]:
        parsed = Product.model_validate(product)
        assert parsed.model_dump() == product
    assert len({p["product_id"] for p in products}) == len(products)
    assert all(re.fullmatch(r"\d{10}", p["product_id"]) for p in products)


def test_category_tree_and_leaf_schemas():
    tree = leaves()
    tops = {leaf.top for leaf in tree}
    assert len(tops) >= 15
    assert len(tree) >= 300
    assert len({leaf.path for leaf in tree}) == len(tree)
    assert all(leaf.path.count(" > ") == 2 for leaf in tree)
    # every leaf has its own schema (keys and value sets), not just its mid category's
    schemas = {(leaf.path, frozenset(leaf.schema)) for leaf in tree}
    by_mid = defaultdict(set)
    for path, keys in schemas:
        by_mid[path.rsplit(" > ", 1)[0]].add(keys)
    mids_with_distinct = sum(1 for mid, keysets in by_mid.items() if len(keysets) > 1)
    assert mids_with_distinct >= 0.9 * len(by_mid)
    all_keys = {k for leaf in tree for k in leaf.schema}
    for key in ("material", "color_family", "size", "pattern", "capacity"):
        assert key in all_keys


def test_categories_and_prices_are_spread(products):
    tops = Counter(p["category"].split(" > ")[0] for p in products)
    leaves_used = {p["category"] for p in products}
    assert len(tops) >= 15
    assert len(leaves_used) >= 250
    # log-normal prices per category: wide spread overall, categories differ in level
    prices = sorted(p["price"] for p in products)
    assert prices[len(prices) // 10] * 5 < prices[9 * len(prices) // 10]
    medians = {}
    for top in tops:
        ps = sorted(p["price"] for p in products if p["category"].startswith(top))
        medians[top] = ps[len(ps) // 2]
    assert max(medians.values()) > 10 * min(medians.values())


def test_shops_are_heavy_tailed_and_sell_across_categories(products):
    per_shop = Counter(p["shop_id"] for p in products)
    tops_of = defaultdict(set)
    for p in products:
        tops_of[p["shop_id"]].add(p["category"].split(" > ")[0])
    sizes = sorted(per_shop.values(), reverse=True)
    assert sizes[0] >= 20 * sizes[len(sizes) // 2]  # a few big shops, many small ones
    top_share = sum(sizes[: max(1, len(sizes) // 10)]) / len(products)
    assert top_share > 0.35
    big = [s for s, n in per_shop.items() if n >= 20]
    multi = [s for s in big if len(tops_of[s]) >= 3]
    assert len(multi) >= 0.5 * len(big) and len(multi) >= 10


def _tokens(title: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", title.lower()))


def test_near_duplicate_listings_across_shops(products):
    # listings of one product type (same brand, leaf, noun) appear in several shops with other prices and wording
    groups = defaultdict(list)
    for p in products:
        groups[(p["brand"], p["category"])].append(p)
    near_dup = 0
    for group in groups.values():
        for i, a in enumerate(group[:30]):
            for b in group[i + 1 : 30]:
                if a["shop_id"] == b["shop_id"]:
                    continue
                ta, tb = _tokens(a["title"]), _tokens(b["title"])
                if len(ta & tb) / len(ta | tb) >= 0.5 and a["title"] != b["title"]:
                    near_dup += 1
                    break
    assert near_dup >= 0.15 * len(products)
    # and the same product type is priced differently across those shops
    spreads = [max(x["price"] for x in g) / min(x["price"] for x in g) for g in groups.values() if len(g) >= 5]
    assert sorted(spreads)[len(spreads) // 2] > 1.3


def test_skus_services_and_sales(products):
    n = len(products)
    sku_counts = Counter(len(p["sku_options"]) for p in products)
    assert max(sku_counts) <= MAX_SKU_OPTIONS and sku_counts[MAX_SKU_OPTIONS] > 0
    assert 0.2 < sku_counts[0] / n < 0.8
    rates = {s: sum(s in p["service"] for p in products) / n for s in SERVICES}
    assert 0.03 < rates["official"] < 0.35
    assert 0.2 < rates["freeShipping"] < 0.8
    assert 0.4 < rates["COD"] < 0.8
    assert 0.05 < rates["flashsale"] < 0.25
    sold = sorted((p["sold_count"] for p in products), reverse=True)
    assert sum(sold[: n // 100]) > 0.15 * sum(sold)  # top 1% of listings sell a large share
    assert sold[n // 2] < sold[n // 100] / 10
    for p in products[:500]:
        assert p["short_description"] and p["description"] and p["specification"]
        assert len(p["description"]) <= 2000
        for option in p["sku_options"].values():
            assert option and all(isinstance(v, str) and v == v.lower() for v in option.values())
        for key, values in p["attributes"].items():
            assert key == key.lower() and values and all(v == v.lower() for v in values)


def test_web_corpus_ties_facts_to_catalog_values(products):
    pages = generate_web_pages(3, SIZE)
    facts = [p["fact"] for p in pages if p["fact"]]
    assert len(facts) >= 30 and len(pages) > len(facts)
    assert {f["entity_type"] for f in facts} >= {"musician", "athlete", "place", "team"}
    text = "\n".join((p["title"] + " " + p["description"]).lower() for p in products)
    findable = [f for f in facts if f["value"].lower() in text]
    assert len(findable) >= 0.8 * len(facts)
    for page in pages[:50]:
        assert page["url"].startswith("https://") and page["title"] and page["content"]
        if page["fact"]:
            assert page["fact"]["value"] in page["content"] and page["fact"]["entity"] in page["content"]


@pytest.mark.parametrize(
    ("seed", "size", "message"),
    [
        (-1, 10, "seed"),
        (2**64, 10, "seed"),
        (1, 0, "size"),
        (1, MAX_SIZE + 1, "size"),
        ("x", 10, "seed"),
        (1, 2.5, "size"),
        (True, 10, "seed"),
    ],
)
def test_impossible_seeds_and_sizes(seed, size, message):
    with pytest.raises(ValueError, match=message):
        validate_seed_size(seed, size)


def test_every_category_s_models_fit_their_model_keys():
    """A model key is its leaf's index * MODELS_PER_KEY + the model's index: a leaf with as many models would give two
    models one key, so `World.build` refuses it in one line (a larger MAX_SIZE could make one), and MAX_SIZE's
    catalog is far below it."""
    check_model_keys([2, MODELS_PER_KEY - 1])
    with pytest.raises(ValueError, match=r"^a category of this catalog has 1,000,000 product models, more than"):
        check_model_keys([2, MODELS_PER_KEY, 3])
    assert max(World.build(0, MAX_SIZE).models_per_leaf) < MODELS_PER_KEY // 10


def test_built_catalog_round_trip(tmp_path):
    report = build_catalog(9, 3000, tmp_path / "cat")
    catalog = Catalog.open(tmp_path / "cat")
    assert catalog.num_products == 3000 == report.products
    assert catalog.num_web_pages == report.web_pages > 0
    manifest = json.loads((tmp_path / "cat" / "catalog.json").read_text())
    assert manifest["digest"] == report.digest and manifest["source"] == {"kind": "generated", "seed": 9, "size": 3000}
    stats = manifest["stats"]
    assert stats["top_categories"] >= 15 and stats["shops_in_3plus_top_categories"] > 0
    assert stats["near_duplicate_listings"] > 0
    # iter_products yields what was generated, in order
    assert [p["product_id"] for p in catalog.iter_products()] == [p["product_id"] for p in iter_products(9, 3000)]
    # a generated product is found by its own title
    product = next(iter_products(9, 3000))
    hits = default_registry().call("find_product", {"q": product["title"]}, ToolContext(catalog))
    assert product["product_id"] in [h["product_id"] for h in hits]
    # a fact from the web corpus is findable with web_search
    fact_page = next(p for p in generate_web_pages(9, 3000) if p["fact"])
    found = default_registry().call("web_search", {"q": fact_page["fact"]["entity"]}, ToolContext(catalog))
    assert fact_page["url"] in [r["url"] for r in found]
    assert sorted(p.name for p in Path(tmp_path).iterdir()) == ["cat"]
