"""Seeded synthetic catalog: the same ``(seed, size)`` gives the same products and web pages on every machine.

Determinism: every random draw comes from ``random.Random(...).random()`` (whose sequence Python guarantees across
versions and platforms) seeded from a SHA-256 of ``(seed, size, label, index)``; choices, weights and log-normals are
computed from those floats (here, in `arena.catalog.world` and `arena.catalog.listing`), never with ``hash()``, set
order or numpy's version-dependent samplers. Products are generated in fixed chunks of `CHUNK` from their own seeds,
so the result does not depend on how many worker processes build it.

Realism (what makes shopping hard): a fixed category tree (`arena.catalog.taxonomy`) with an attribute schema per
leaf; per category brand pools; shops with Zipf-sized catalogues selling across several top-level categories;
*product models* (brand + series + key attributes) listed many times across shops as near-duplicate titles with
different prices, services, SKU options and wording; log-normal prices per category; heavy-tailed sold counts.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, SupportsIndex

import orjson

from arena.catalog.listing import Row, _listing
from arena.catalog.rng import Rng

# the world the listings are made from (importable from here as before)
from arena.catalog.world import (  # noqa: F401
    CHUNK,
    MAX_SEED,
    MAX_SIZE,
    Leaf,
    Model,
    Shop,
    World,
    _brand_name,
    _leaves,
    leaves,
    title_case,
    validate_seed_size,
)


def generate_rows(world: World, chunk: SupportsIndex) -> list[Row]:
    """Products ``chunk*CHUNK`` .. of the catalog, each with its model's key and its search text. `chunk` of any
    integer type (numpy's too, which the compiled build's ``int`` would refuse)."""
    n = operator.index(chunk)
    rng = Rng("chunk", world.seed, world.size, n)
    start = n * CHUNK
    stop = min(world.size, start + CHUNK)
    return [_listing(world, i, rng) for i in range(start, stop)]


#: A chunk's products column by column, as a build hands them over (`arena.catalog.build.Chunk`): their canonical
#: JSON joined by newlines, then per product its id, search text, shop, services, services mask, price, sold count,
#: category, number of SKU options and model key.
ChunkColumns = tuple[
    bytes,
    list[str],
    list[str],
    list[str],
    list[list[str]],
    list[int],
    list[float],
    list[int],
    list[str],
    list[int],
    list[int],
]


def chunk_columns(world: World, chunk: SupportsIndex, service_bits: dict[str, int]) -> ChunkColumns:
    """`generate_rows` as a build's worker hands them over, its loop compiled with the generator (run by the
    interpreter in the build's module it took about 2.4k instructions a product more); `service_bits` is the
    products index's bit per service (`arena.catalog.writer.service_mask`). Each listing is made, read into the
    columns and freed before the next: its memory is reused while it is still in the CPU's caches (a chunk's 1,024
    listings made first, as `generate_rows` returns them, took about 30% more CPU time for about 2% more
    instructions: docs/performance.md). `chunk` of any integer type, as `generate_rows`."""
    n = operator.index(chunk)
    canonical: list[bytes] = []
    product_ids: list[str] = []
    contents: list[str] = []
    shops: list[str] = []
    services: list[list[str]] = []
    masks: list[int] = []
    prices: list[float] = []
    sold: list[int] = []
    categories: list[str] = []
    n_skus: list[int] = []
    model_keys: list[int] = []
    rng = Rng("chunk", world.seed, world.size, n)  # generate_rows's listings, taken one at a time
    start = n * CHUNK
    for i in range(start, min(world.size, start + CHUNK)):
        p, model_key, text = _listing(world, i, rng)
        canonical.append(canonical_json(p))
        product_ids.append(p["product_id"])
        contents.append(text)
        shops.append(p["shop_id"])
        product_services: list[str] = p["service"]
        services.append(product_services)
        mask = 0
        for service in product_services:
            mask |= service_bits[service]
        masks.append(mask)
        prices.append(p["price"])
        sold.append(p["sold_count"])
        categories.append(p["category"])
        n_skus.append(len(p["sku_options"]))
        model_keys.append(model_key)
    joined = b"\n".join(canonical)
    return joined, product_ids, contents, shops, services, masks, prices, sold, categories, n_skus, model_keys


def generate_chunk(world: World, chunk: int) -> list[tuple[dict[str, Any], int]]:
    """Products ``chunk*CHUNK`` .. of the catalog, with each product's model key."""
    return [(product, key) for product, key, _ in generate_rows(world, chunk)]


def iter_products(seed: object, size: object) -> Iterator[dict[str, Any]]:
    """Every product of catalog ``(seed, size)`` in order, single process (tests, small catalogs); a bad seed or size
    raises `validate_seed_size`'s ValueError at the call, not at the first product."""
    world = World.build(seed, size)
    return _products(world)


def _products(world: World) -> Iterator[dict[str, Any]]:
    for chunk in range((world.size + CHUNK - 1) // CHUNK):
        for product, _ in generate_chunk(world, chunk):
            yield product


def canonical_json(obj: Any) -> bytes:
    """Compact UTF-8 JSON, keys in insertion order: the bytes that are stored and digested."""
    return orjson.dumps(obj)


# --------------------------------------------------------------------------------------------------------- digest


class Digest:
    """SHA-256 over the canonical JSON lines of every product, then every web page."""

    def __init__(self) -> None:
        self._h = hashlib.sha256()

    def update(self, canonical: bytes) -> None:
        self._h.update(canonical)
        self._h.update(b"\n")

    def update_many(self, canonicals: Iterable[bytes]) -> None:
        update = self._h.update
        for canonical in canonicals:
            update(canonical)
            update(b"\n")

    def hexdigest(self) -> str:
        return "sha256:" + self._h.hexdigest()


def catalog_digest(products: Iterator[dict[str, Any]], pages: Sequence[dict[str, Any]]) -> str:
    digest = Digest()
    for product in products:
        digest.update(canonical_json(product))
    digest.update(b"--web--")
    for page in pages:
        digest.update(canonical_json(page))
    return digest.hexdigest()
