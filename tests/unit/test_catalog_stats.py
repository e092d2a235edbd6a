"""A generated build counts its statistics chunk by chunk (`StatsCollector.add_columns`); a loaded catalog product by
product (`StatsCollector.add`): both must give the same manifest statistics for the same products."""

from __future__ import annotations

from arena.catalog import generator as gen
from arena.catalog.stats import StatsCollector


def test_statistics_by_columns_are_those_by_product() -> None:
    world = gen.World.build(3, 6000)
    by_product, by_columns = StatsCollector(), StatsCollector()
    by_product._RESERVOIR = by_columns._RESERVOIR = 1000  # so the price sample is filled, then thinned
    for chunk in range(6):
        listed = gen.generate_chunk(world, chunk)
        for product, model_key in listed:
            by_product.add(product, model_key)
        for part in (listed[:300], listed[300:]):  # the sample fills up inside the second part of chunk 0
            products = [product for product, _ in part]
            by_columns.add_columns(
                [p["category"] for p in products],
                [p["shop_id"] for p in products],
                [p["service"] for p in products],
                [p["price"] for p in products],
                [p["sold_count"] for p in products],
                [len(p["sku_options"]) for p in products],
                [model_key for _, model_key in part],
            )
    assert by_product.n == by_columns.n == 6000
    assert by_columns.prices == by_product.prices and by_columns.sold == by_product.sold
    assert by_columns.result() == by_product.result()
    assert by_product.result()["near_duplicate_listings"] > 0
    assert by_product.result()["shops_in_3plus_top_categories"] > 0
