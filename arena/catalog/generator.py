"""Seeded synthetic catalog: the same ``(seed, size)`` gives the same products and web pages on every machine.

Determinism: every random draw comes from ``random.Random(...).random()`` (whose sequence Python guarantees across
versions and platforms) seeded from a SHA-256 of ``(seed, size, label, index)``; choices, weights and log-normals are
computed from those floats here, never with ``hash()``, set order or numpy's version-dependent samplers. Products
are generated in fixed chunks of `CHUNK` from their own seeds, so the result does not depend on how many worker
processes build it.

Realism (what makes shopping hard): a fixed category tree (`arena.catalog.taxonomy`) with an attribute schema per
leaf; per category brand pools; shops with Zipf-sized catalogues selling across several top-level categories;
*product models* (brand + series + key attributes) listed many times across shops as near-duplicate titles with
different prices, services, SKU options and wording; log-normal prices per category; heavy-tailed sold counts.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from arena.catalog import vocab
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
    validate_seed_size,
)

#: ShoppingBench-like service rates: COD is common, free shipping per shop, LazMall (official) for a minority of
#: shops, flash sales for a few listings.
_RATE_COD = 0.62
_RATE_FLASH = 0.12


# -------------------------------------------------------------------------------------------------------- listing


_TITLE_CASE: dict[str, str] = {}
_KEY_NAMES: dict[str, str] = {}


def _title_case(value: str) -> str:
    cased = _TITLE_CASE.get(value)
    if cased is None:
        cased = _TITLE_CASE[value] = " ".join(w[:1].upper() + w[1:] for w in value.split(" "))
    return cased


def _key_name(key: str) -> str:
    name = _KEY_NAMES.get(key)
    if name is None:
        name = _KEY_NAMES[key] = key.replace("_", " ")
    return name


def _round_price(p: float, rng: Rng) -> float:
    if p < 100:
        return round(max(p, 5.0), 2) if rng.chance(0.3) else float(max(5, round(p)))
    if rng.chance(0.45):  # charm pricing: 199, 1,499
        step = 10 if p < 1000 else 100
        return float(max(step, round(p / step)) * step - 1)
    return float(round(p))


def _listing(world: World, i: int, rng: Rng) -> tuple[dict[str, Any], int]:
    """Product ``i``: its leaf, model and shop drawn, then its attributes, SKU options, title, price, services,
    sales and texts, in that order (the order of the draws is the catalog)."""
    leaf = world.leaves[rng.weighted(world.leaf_cum)]
    n_models = world.models_per_leaf[leaf.index]
    model_index = min(int(n_models * rng.u() ** 2.2), n_models - 1)
    model = world.model(leaf, model_index)
    members, cum = world.shops_by_top[leaf.top]
    shop = world.shops[members[rng.weighted(cum)]]
    product_id = world.product_id(i)
    attributes = _attributes(leaf, model, rng)
    sku_options = _sku_options(leaf, rng)
    title = _title(model, sku_options, rng)
    price = _round_price(model.base_price * math.exp(0.2 * rng.normal()), rng)
    services = _services(shop, rng)
    if "COD" not in services and ("【COD】" in title or "Cash on Delivery" in title):
        # a listing whose title promises cash on delivery offers it (no draw changes: the catalog stays the same)
        services.insert(len(services) - ("flashsale" in services), "COD")
    u = rng.u()
    sold_count = 0 if u < 0.28 else int(math.exp(rng.u() ** 0.8 * 9.5 * (1.0 if shop.official else 0.8)))
    short = ";".join([title, *rng.sample(vocab.HIGHLIGHTS, 2 + rng.below(3))]) + ";"
    description = _description(title, model, attributes, sku_options, rng)
    spec_pairs = [f"{_key_name(k)}:{v[0]}" for k, v in attributes.items()]
    spec_pairs.append(f"model:{title[:80]}")
    image = f"{(int(product_id) * 11400714819323198485) % 2**64:016x}"
    product = {
        "product_id": product_id,
        "shop_id": shop.shop_id,
        "brand": model.brand,
        "category": leaf.path,
        "title": title,
        "short_description": short[:2000],
        "description": description[:2000],
        "specification": ";".join(spec_pairs)[:2000],
        "price": price,
        "sold_count": sold_count,
        "sku_options": sku_options,
        "attributes": attributes,
        "main_image_url": f"https://img.shoparena.example/p/{image}.jpg",
        "product_url": f"https://shoparena.example/products/-i{product_id}.html",
        "service": services,
    }
    return product, leaf.index * 1_000_000 + model_index


def _attributes(leaf: Leaf, model: Model, rng: Rng) -> dict[str, list[str]]:
    """The model's key attributes, plus this listing's own values for the rest of the schema (not its SKU keys)."""
    attributes: dict[str, list[str]] = {}
    for key, values in leaf.schema.items():
        if key in model.attrs:
            attributes[key] = list(model.attrs[key])
        elif key in leaf.sku_keys:
            continue
        elif rng.chance(0.6):
            attributes[key] = [rng.pick(values)]
    if model.brand != "No Brand":
        attributes["brand"] = [model.brand.lower()]
    return attributes


def _sku_options(leaf: Leaf, rng: Rng) -> dict[str, dict[str, str]]:
    """0-9 distinct combinations of the leaf's SKU keys, numbered from "1"."""
    sku_options: dict[str, dict[str, str]] = {}
    if leaf.sku_keys and rng.chance(0.75):
        wanted = 1 + min(8, int(9 * rng.u() ** 1.8))
        seen: set[tuple[str, ...]] = set()
        for _ in range(wanted * 3):
            if len(sku_options) >= wanted:
                break
            combo = tuple(rng.pick(leaf.schema[k]) for k in leaf.sku_keys)
            if combo in seen:
                continue
            seen.add(combo)
            sku_options[str(len(sku_options) + 1)] = dict(zip(leaf.sku_keys, combo, strict=True))
    return sku_options


def _title(model: Model, sku_options: dict[str, dict[str, str]], rng: Rng) -> str:
    """The title, the way marketplace sellers write them: brand, series, key words around the noun, an option,
    marketing words, sometimes a prefix."""
    parts: list[str] = []
    if model.brand != "No Brand" and rng.chance(0.9):
        parts.append(model.brand)
    if model.series and rng.chance(0.8):
        parts.append(model.series)
    key_words = [_title_case(v) for vs in model.attrs.values() for v in vs]
    rng.shuffle(key_words)
    noun = _title_case(model.noun)
    if rng.chance(0.5):
        parts.extend(key_words[:2])
        parts.append(noun)
        parts.extend(key_words[2:3])
    else:
        parts.append(noun)
        parts.extend(key_words[:3])
    if sku_options and rng.chance(0.5):
        first = next(iter(sku_options.values()))
        parts.append(_title_case(rng.pick(list(first.values()))))
    marketing = rng.sample(vocab.MARKETING, rng.below(4))
    if rng.chance(0.5):
        parts = marketing[:1] + parts + marketing[1:]
    else:
        parts += marketing
    if rng.chance(0.18):
        parts.insert(0, rng.pick(vocab.PREFIXES))
    return " ".join(p for p in parts if p)


def _services(shop: Shop, rng: Rng) -> list[str]:
    services: list[str] = []
    if shop.official:
        services.append("official")
    if rng.chance(shop.free_shipping):
        services.append("freeShipping")
    if rng.chance(_RATE_COD):
        services.append("COD")
    if rng.chance(_RATE_FLASH):
        services.append("flashsale")
    return services


def _description(
    title: str, model: Model, attributes: dict[str, list[str]], sku_options: dict[str, dict[str, str]], rng: Rng
) -> str:
    """An opener, a sentence for some attributes, the options on offer, two closers."""
    desc_lines = [rng.pick(vocab.DESC_OPENERS).format(title=title, noun=model.noun)]
    for key, values in attributes.items():
        if key == "brand":
            continue
        if key == "material":
            desc_lines.append(f"Made with {values[0]} for lasting quality.")
        elif key == "color_family":
            desc_lines.append(f"Comes in {values[0]} to match your style.")
        elif rng.chance(0.6):
            desc_lines.append(f"Its {_key_name(key)} is {', '.join(values)}, just what you need.")
    if sku_options:
        shown = sorted({v for o in sku_options.values() for v in o.values()})[:8]
        desc_lines.append(f"Available options: {', '.join(shown)}.")
    desc_lines.extend(line.replace("{noun}", model.noun) for line in rng.sample(vocab.DESC_CLOSERS, 2))
    return " ".join(desc_lines)


def generate_chunk(world: World, chunk: int) -> list[tuple[dict[str, Any], int]]:
    """Products ``chunk*CHUNK`` .. of the catalog, with each product's model key."""
    rng = Rng("chunk", world.seed, world.size, chunk)
    start = chunk * CHUNK
    stop = min(world.size, start + CHUNK)
    return [_listing(world, i, rng) for i in range(start, stop)]


def iter_products(seed: int, size: int) -> Iterator[dict[str, Any]]:
    """Every product of catalog ``(seed, size)`` in order, single process (tests, small catalogs)."""
    world = World.build(seed, size)
    for chunk in range((size + CHUNK - 1) // CHUNK):
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
