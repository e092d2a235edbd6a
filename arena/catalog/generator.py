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
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import orjson

from arena.catalog import taxonomy as tx
from arena.catalog import vocab
from arena.catalog.rng import Rng, cumulative

CHUNK = 1024
MAX_SIZE = 5_000_000
MAX_SEED = 2**63 - 1


# ---------------------------------------------------------------------------------------------------------- world

#: ShoppingBench-like service rates: COD is common, free shipping per shop, LazMall (official) for a minority of
#: shops, flash sales for a few listings.
_RATE_COD = 0.62
_RATE_FLASH = 0.12


@dataclass(frozen=True)
class Leaf:
    index: int
    top: str
    mid: str
    name: str
    path: str
    family: str
    nouns: tuple[str, ...]
    schema: dict[str, tuple[str, ...]]
    key_attrs: tuple[str, ...]
    sku_keys: tuple[str, ...]
    price_median: float
    price_sigma: float


@dataclass(frozen=True)
class Shop:
    ordinal: int
    shop_id: str
    name: str
    official: bool
    free_shipping: float
    tops: tuple[str, ...]


@dataclass(frozen=True)
class Model:
    """A product type as a manufacturer makes it; shops list it many times with their own wording and prices."""

    brand: str
    series: str
    noun: str
    attrs: dict[str, tuple[str, ...]]
    base_price: float


def leaves() -> list[Leaf]:
    """The fixed category tree, flattened, with each leaf's attribute schema (independent of any seed)."""
    return list(_leaves())


@lru_cache(maxsize=1)
def _leaves() -> tuple[Leaf, ...]:
    out: list[Leaf] = []
    for top, mids in tx.TAXONOMY.items():
        for mid, spec in mids.items():
            family = tx.FAMILIES[spec["family"]]
            for name, leaf in spec["leaves"].items():
                path = f"{top} > {mid} > {name}"
                rng = Rng("taxonomy", path)
                leaf_attrs = {k: tuple(v) for k, v in leaf.get("attrs", {}).items()}
                sku_keys = tuple(leaf.get("sku", ()))
                family_keys = [k for k in family if k not in leaf_attrs]
                keep = set(rng.sample(family_keys, 3 + rng.below(3)))
                keep.update(k for k in sku_keys if k in family)
                if "color_family" in family:
                    keep.add("color_family")
                schema = dict(leaf_attrs)
                for key in family:  # family order, not set order: deterministic
                    if key in keep and key not in schema:
                        schema[key] = tuple(family[key])
                # key attributes: fixed by the model (always the leaf's own keys, plus one family key)
                extra = [k for k in schema if k not in leaf_attrs and k not in sku_keys]
                key_attrs = tuple(k for k in leaf_attrs if k not in sku_keys) + tuple(extra[:1])
                median, sigma = leaf.get("price", spec["price"])
                out.append(
                    Leaf(len(out), top, mid, name, path, spec["family"], tuple(leaf["nouns"]), schema, key_attrs,
                         sku_keys, float(median), float(sigma))
                )
    return tuple(out)


def _brand_name(rng: Rng) -> str:
    word = rng.pick(vocab.SYLLABLES_A) + rng.pick(vocab.SYLLABLES_B)
    if rng.chance(0.35):
        word += rng.pick(vocab.SYLLABLES_A)
    style = rng.u()
    name = word.upper() if style < 0.15 else word.capitalize()
    return name + rng.pick(vocab.BRAND_SUFFIX)


@dataclass
class World:
    """Everything about a catalog that is not one product: brands, shops, who sells what. Cheap to build."""

    seed: int
    size: int
    leaves: tuple[Leaf, ...]
    leaf_cum: list[float]
    brands: dict[str, list[str]]
    shops: list[Shop]
    shops_by_top: dict[str, tuple[list[int], list[float]]]
    models_per_leaf: list[int]
    id_mult: int
    id_offset: int
    _models: dict[tuple[int, int], Model] = field(default_factory=dict)

    @classmethod
    def build(cls, seed: int, size: int) -> World:
        validate_seed_size(seed, size)
        all_leaves = _leaves()
        rng = Rng("world", seed, size)
        # leaf popularity: Zipf over a seeded permutation, so each seed has its own best-selling categories
        order = list(range(len(all_leaves)))
        rng.shuffle(order)
        weights = [0.0] * len(all_leaves)
        for rank, leaf_index in enumerate(order):
            weights[leaf_index] = 1.0 / (rank + 8) ** 0.9
        leaf_cum = cumulative(weights)
        total_w = leaf_cum[-1]
        # brands: a pool per mid category; some brands span a whole top-level category
        brands: dict[str, list[str]] = {}
        per_mid = max(6, min(80, size // 3000 + 6))
        for top, mids in tx.TAXONOMY.items():
            house = [_brand_name(rng) for _ in range(3)]
            for mid in mids:
                brands[f"{top} > {mid}"] = house + [_brand_name(rng) for _ in range(per_mid)]
        # shops: Zipf-sized, each selling in several top-level categories (more for bigger shops)
        tops = list(tx.TAXONOMY)
        n_shops = max(12, min(80_000, size // 35))
        shops: list[Shop] = []
        shop_weights: list[float] = []
        used_ids: set[int] = set()
        for k in range(n_shops):
            sr = Rng("shop", seed, size, k)
            weight = 1.0 / (k + 5) ** 1.1
            breadth = 1 + min(len(tops) - 1, int(2 + 14 * weight ** 0.25 * sr.u() + 3 * sr.u()))
            shop_tops = tuple(sr.sample(tops, breadth))
            number = 100_000 + sr.below(9_900_000)
            while number in used_ids:
                number = 100_000 + sr.below(9_900_000)
            used_ids.add(number)
            official = sr.chance(0.45 if k < n_shops // 20 else 0.08)
            name = f"{sr.pick(vocab.SHOP_PREFIX)} {_brand_name(sr).split(' ')[0]} {sr.pick(vocab.SHOP_WORDS)}"
            shops.append(Shop(k, str(number), name, official, 0.2 + 0.6 * sr.u(), shop_tops))
            shop_weights.append(weight)
        shops_by_top: dict[str, tuple[list[int], list[float]]] = {}
        for top in tops:
            members = [s.ordinal for s in shops if top in s.tops]
            if not members:  # every category has a seller
                members = [k % n_shops for k in range(3)]
            shops_by_top[top] = (members, cumulative([shop_weights[m] for m in members]))
        # how many distinct models each leaf has: about 3.5 listings per model on average
        models_per_leaf = [max(2, round(size * (w / total_w) / 3.5)) for w in weights]
        id_mult = 1 + 2 * rng.below(499_999_999)
        while math.gcd(id_mult, 10**9) != 1:
            id_mult += 2
        return cls(seed, size, all_leaves, leaf_cum, brands, shops, shops_by_top, models_per_leaf, id_mult,
                   rng.below(10**9))

    def product_id(self, i: int) -> str:
        # a bijection of [0, 1e9): unique 10-digit ids that look like marketplace ids
        return str(1_000_000_000 + (i * self.id_mult + self.id_offset) % 1_000_000_000)

    def model(self, leaf: Leaf, model_index: int) -> Model:
        key = (leaf.index, model_index)
        cached = self._models.get(key)
        if cached is not None:
            return cached
        rng = Rng("model", self.seed, self.size, leaf.index, model_index)
        pool = self.brands[f"{leaf.top} > {leaf.mid}"]
        brand = "No Brand" if rng.chance(0.08) else pool[min(int(len(pool) * rng.u() ** 1.6), len(pool) - 1)]
        series = ""
        if rng.chance(0.55):
            if rng.chance(0.5):
                series = rng.pick(vocab.SERIES)
            else:
                series = f"{rng.pick('ABCDEFGHJKLMNPRSTVXZ')}{rng.below(90) + 10}"
            if rng.chance(0.3):
                series = f"{series} {rng.pick(vocab.SERIES)}"
        attrs: dict[str, tuple[str, ...]] = {}
        for k in leaf.key_attrs:
            values = leaf.schema[k]
            if rng.chance(0.15) and len(values) > 2:
                attrs[k] = tuple(rng.sample(values, 2))
            else:
                attrs[k] = (rng.pick(values),)
        z = max(-2.5, min(2.5, rng.normal()))  # no 1-in-a-million outliers: +-2.5 sigma around the median
        base = leaf.price_median * math.exp(leaf.price_sigma * z)
        model = Model(brand, series, rng.pick(leaf.nouns), attrs, max(15.0, base))
        if len(self._models) > 200_000:
            self._models.clear()
        self._models[key] = model
        return model


def validate_seed_size(seed: int, size: int) -> None:
    """Raise ValueError with a one-line reason for an impossible seed or size."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be an integer from 0 to {MAX_SEED}, got {seed!r}")
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_SIZE:
        raise ValueError(f"size must be an integer from 1 to {MAX_SIZE:,}, got {size!r}")


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
    leaf = world.leaves[rng.weighted(world.leaf_cum)]
    n_models = world.models_per_leaf[leaf.index]
    model_index = min(int(n_models * rng.u() ** 2.2), n_models - 1)
    model = world.model(leaf, model_index)
    members, cum = world.shops_by_top[leaf.top]
    shop = world.shops[members[rng.weighted(cum)]]
    product_id = world.product_id(i)

    # attributes: the model's key attributes, plus this listing's own values for the rest of the schema
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

    # SKU options: 0-9 distinct combinations of the leaf's SKU keys
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

    # title: the way marketplace sellers write them
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
    title = " ".join(p for p in parts if p)

    price = _round_price(model.base_price * math.exp(0.2 * rng.normal()), rng)
    services: list[str] = []
    if shop.official:
        services.append("official")
    if rng.chance(shop.free_shipping):
        services.append("freeShipping")
    if rng.chance(_RATE_COD):
        services.append("COD")
    if rng.chance(_RATE_FLASH):
        services.append("flashsale")
    u = rng.u()
    sold_count = 0 if u < 0.28 else int(math.exp(rng.u() ** 0.8 * 9.5 * (1.0 if shop.official else 0.8)))

    short = ";".join([title, *rng.sample(vocab.HIGHLIGHTS, 2 + rng.below(3))]) + ";"
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
    description = " ".join(desc_lines)
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

