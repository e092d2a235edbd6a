"""What the products index holds for each product, whichever way it came in: a generated build's chunks, handed over
by its generator workers column by column (`arena.catalog.writer.Rows`), or a loaded file's products one by one
(`CatalogWriter.add_product`). Each product's stored JSON, fast fields, filter terms and row are its own, and shops
are numbered in the order they are first seen (the manifest's ``shops``, which the shop search's ties follow)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tantivy

from arena.catalog import Catalog, SearchFilters
from arena.catalog import generator as gen
from arena.catalog.build import build_catalog, load_catalog
from arena.catalog.generator import iter_products
from arena.catalog.index import SERVICE_BITS
from arena.catalog.writer import CatalogWriter, Rows, service_mask

SAMPLE = Path(__file__).parent.parent / "fixtures" / "documents_sample.jsonl"
FAST = ("row", "price", "sold_count", "services")


def _indexed(catalog: Catalog) -> list[tuple[dict[str, Any], dict[str, int | float]]]:
    """Every product of the index in row order: its stored JSON and its fast fields."""
    searcher = catalog._searcher
    hits = searcher.search(tantivy.Query.all_query(), catalog.num_products, order_by_field="row").hits
    addresses = [address for _, address in hits]
    columns = {name: searcher.fast_field_values(name, addresses) for name in FAST}
    columns["shop_ord"] = catalog.shop_ords(addresses)  # the index's numbers as the manifest's shops number them
    rows = [dict(zip(columns, values, strict=True)) for values in zip(*columns.values(), strict=True)]
    indexed = list(zip(catalog.documents(addresses), rows, strict=True))
    return sorted(indexed, key=lambda pair: pair[1]["row"])


def _check(catalog: Catalog, products: list[dict[str, Any]]) -> None:
    indexed = _indexed(catalog)
    assert [stored for stored, _ in indexed] == products  # every product, in order, stored as it was given
    first_seen: dict[str, int] = {}
    for row, (product, fast) in enumerate(indexed):
        first_seen.setdefault(product["shop_id"], len(first_seen))
        assert fast == {
            "row": row,
            "price": product["price"],
            "sold_count": product["sold_count"],
            "services": sum(SERVICE_BITS[s] for s in product["service"]),
            "shop_ord": first_seen[product["shop_id"]],
        }
    assert catalog.manifest["shops"] == list(first_seen)
    for product in products[:: max(1, len(products) // 50)]:  # the terms: the id, the shop and each service
        assert catalog.get(product["product_id"]) == product
        shop = [
            catalog.documents([h.address])[0]
            for h in catalog.search(product["title"], SearchFilters(shop_id=product["shop_id"]), 500)
        ]
        assert product in shop and {p["shop_id"] for p in shop} == {product["shop_id"]}
        for service in product["service"]:
            found = catalog.search(product["title"], SearchFilters(services=(service,)), 500, with_shop=True)
            assert all(service in catalog.documents([h.address])[0]["service"] for h in found)
            assert all(
                catalog.shop_id_of_ord(h.shop_ord) == catalog.documents([h.address])[0]["shop_id"] for h in found
            )


@pytest.mark.parametrize("workers", [1, 2])
def test_a_generated_build_indexes_each_product_as_generated(tmp_path: Path, workers: int) -> None:
    """With 2 workers the chunks come through the hand-over files; with 1 the builder makes them itself."""
    build_catalog(4, 3500, tmp_path / "c", workers=workers)
    _check(Catalog.open(tmp_path / "c"), list(iter_products(4, 3500)))


def test_a_loaded_catalog_indexes_each_product_as_given(tmp_path: Path) -> None:
    load_catalog(SAMPLE, tmp_path / "c")
    catalog = Catalog.open(tmp_path / "c")
    assert catalog.num_products > 3
    _check(catalog, list(catalog.iter_products()))


def test_rows_out_of_order_or_of_uneven_columns_are_refused(tmp_path: Path) -> None:
    product = next(iter_products(4, 3500))
    with CatalogWriter(tmp_path / "c") as writer:
        one = Rows(0, b"{}", ["1"], ["text"], ["s"], [[]], [0], [1.0], [0])
        with pytest.raises(ValueError, match="from row 5 given where row 0 is next"):
            writer.add_rows(one._replace(row=5))
        with pytest.raises(ValueError, match=r"columns of \[1, 1, 1, 1, 1, 1, 1\] products given for 2 stored"):
            writer.add_rows(one._replace(canonical=b"{}\n{}"))  # a newline in a stored document: nothing added
        writer.add_rows(Rows(0, b"", [], [], [], [], [], [], []))  # no products: nothing added, nothing refused
        with pytest.raises(ValueError, match=r"columns of \[1, 1, 1, 1, 1, 1, 1\] products given for 2 stored"):
            writer.add_product(product, doc_json=b"{}\n{}")
        assert writer.products == 0 and not writer.has_product(product["product_id"])  # refused: not remembered
        writer.add_product(product)
        assert writer.has_product(product["product_id"])
        writer.commit({"source": {"kind": "test"}, "digest": "sha256:test", "stats": {}})
    catalog = Catalog.open(tmp_path / "c")
    assert catalog.num_products == 1 and catalog.product_at(0) == product


def test_a_chunks_columns_are_its_listings_column_by_column() -> None:
    """`chunk_columns` (what a build's worker hands over, its listings made and freed one at a time) holds exactly
    what `generate_rows` makes, field by field, the canonical JSON joined by newlines."""
    world = gen.World.build(3, 2500)
    world.model_cache = 50  # the cache turns over within a chunk
    for chunk in range(3):
        listings = gen.generate_rows(world, chunk)
        products = [product for product, _, _ in listings]
        assert gen.chunk_columns(world, chunk, SERVICE_BITS) == (
            b"\n".join(gen.canonical_json(product) for product in products),
            [product["product_id"] for product in products],
            [text for _, _, text in listings],
            [product["shop_id"] for product in products],
            [product["service"] for product in products],
            [service_mask(product["service"]) for product in products],
            [product["price"] for product in products],
            [product["sold_count"] for product in products],
            [product["category"] for product in products],
            [len(product["sku_options"]) for product in products],
            [key for _, key, _ in listings],
        )
