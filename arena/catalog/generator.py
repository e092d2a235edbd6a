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

import bisect
import hashlib
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import orjson

from arena.catalog import taxonomy as tx

CHUNK = 1024
MAX_SIZE = 5_000_000
MAX_SEED = 2**63 - 1


def _seed_int(*parts: object) -> int:
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big")


class Rng:
    """Deterministic draws built only on ``random.Random.random()``."""

    __slots__ = ("_r", "u")

    def __init__(self, *parts: object) -> None:
        self._r = random.Random(_seed_int(*parts))
        self.u = self._r.random  # a float in [0, 1): random() * n < n for every n < 2**53

    def below(self, n: int) -> int:
        return int(self.u() * n)

    def pick(self, seq: Sequence[Any]) -> Any:
        return seq[int(self.u() * len(seq))]

    def chance(self, p: float) -> bool:
        return self.u() < p

    def normal(self) -> float:
        u1 = self.u() or 1e-12
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * self.u())

    def lognormal(self, median: float, sigma: float) -> float:
        return median * math.exp(sigma * self.normal())

    def weighted(self, cumulative: Sequence[float]) -> int:
        return min(bisect.bisect_right(cumulative, self.u() * cumulative[-1]), len(cumulative) - 1)

    def sample(self, seq: Sequence[Any], k: int) -> list[Any]:
        """``k`` distinct items of ``seq`` in draw order."""
        n = len(seq)
        k = min(k, n)
        if 4 * k <= n:  # few of many: redraw the rare repeat instead of copying the pool
            chosen: list[int] = []
            while len(chosen) < k:
                j = int(self.u() * n)
                if j not in chosen:
                    chosen.append(j)
            return [seq[j] for j in chosen]
        pool = list(seq)
        return [pool.pop(int(self.u() * len(pool))) for _ in range(k)]

    def shuffle(self, items: list[Any]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def _cumulative(weights: Sequence[float]) -> list[float]:
    out, total = [], 0.0
    for w in weights:
        total += w
        out.append(total)
    return out


# ---------------------------------------------------------------------------------------------------------- world

_SYLLABLES_A = ["ar", "bel", "cor", "dan", "el", "fen", "gal", "hal", "is", "jor", "kal", "lum", "mar", "nor", "or",
                "pel", "quin", "ros", "sol", "tor", "ul", "val", "wen", "xan", "yor", "zen", "bri", "cle", "dra", "fla"]
_SYLLABLES_B = ["ea", "ix", "on", "ora", "us", "ia", "ent", "ova", "ex", "ano", "ita", "ux", "ora", "ine", "ar", "io",
                "aro", "eon", "ity", "ana", "ev", "ic", "os", "um", "al"]
_BRAND_SUFFIX = ["", "", "", "", " Pro", " Home", " Living", " Tech", " PH", " Co.", " Essentials", " Lab", " Plus"]
_SHOP_WORDS = ["Store", "Shop", "Trading", "Mart", "Official Store", "Enterprises", "Depot", "Hub", "Outlet",
               "Corner", "Bazaar", "Supply", "Center", "Express", "Goods"]
_SHOP_PREFIX = ["Manila", "Cebu", "Davao", "Luzon", "Visayas", "Mindanao", "Quezon", "Makati", "Pasig", "Iloilo",
                "Bacolod", "Baguio", "Taguig", "Laguna", "Cavite", "Bulacan", "Golden", "Happy", "Lucky", "Prime",
                "Star", "Sunrise", "Metro", "Island", "Bayani", "Mabuhay", "Sampaguita", "Tala", "Alon", "Bituin"]
_SERIES = ["Pro", "Max", "Lite", "Plus", "Mini", "Ultra", "Air", "Neo", "Prime", "Classic", "Sport", "Eco", "Flex",
           "Smart", "Elite", "X", "S", "V2", "Go", "One"]
_MARKETING = ["Original", "Hot Sale", "New Arrival", "2024 New", "Best Seller", "High Quality", "Premium",
              "Ready Stock", "Authentic", "Durable", "Limited Edition", "Korean Style", "Japan Quality", "Heavy Duty",
              "Portable", "Multi-purpose", "Waterproof", "Lightweight", "Sale", "Free Gift", "Local Seller",
              "Fast Delivery", "Cash on Delivery", "Imported", "Budget Friendly", "Trending"]
_PREFIXES = ["[Ready Stock]", "【COD】", "[Local Seller]", "[Free Gift]", "✨", "[Authentic]",
             "[Spot +24hours delivery]", "(Original)", "[Buy 1 Take 1]", "🔥"]
_HIGHLIGHTS = ["Brand new and high quality", "100% authentic", "Easy to use and clean", "Perfect gift for family and "
               "friends", "Ships within 24 hours", "Sturdy and long lasting", "Compact design saves space",
               "Satisfaction guaranteed", "Suitable for daily use", "Carefully packed for safe delivery",
               "Seller warranty included", "Eco-friendly packaging", "Stylish modern design"]
_DESC_OPENERS = ["Introducing the {title}.", "Upgrade your everyday with the {title}.", "Meet the {title}.",
                 "The {title} is here.", "Looking for a reliable {noun}? The {title} has you covered."]
_DESC_CLOSERS = ["Designed in the Philippines' favourite style and checked before shipping.",
               "Package includes: 1 x {noun}.", "Please allow 1-3 cm difference due to manual measurement.",
               "Colors may vary slightly due to screen settings.", "Message us for bulk orders."]
_JUNK_ATTRS = ("no brand",)

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
    word = rng.pick(_SYLLABLES_A) + rng.pick(_SYLLABLES_B)
    if rng.chance(0.35):
        word += rng.pick(_SYLLABLES_A)
    style = rng.u()
    name = word.upper() if style < 0.15 else word.capitalize()
    return name + rng.pick(_BRAND_SUFFIX)


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
        leaf_cum = _cumulative(weights)
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
            name = f"{sr.pick(_SHOP_PREFIX)} {_brand_name(sr).split(' ')[0]} {sr.pick(_SHOP_WORDS)}"
            shops.append(Shop(k, str(number), name, official, 0.2 + 0.6 * sr.u(), shop_tops))
            shop_weights.append(weight)
        shops_by_top: dict[str, tuple[list[int], list[float]]] = {}
        for top in tops:
            members = [s.ordinal for s in shops if top in s.tops]
            if not members:  # every category has a seller
                members = [k % n_shops for k in range(3)]
            shops_by_top[top] = (members, _cumulative([shop_weights[m] for m in members]))
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
            series = rng.pick(_SERIES) if rng.chance(0.5) else f"{rng.pick('ABCDEFGHJKLMNPRSTVXZ')}{rng.below(90) + 10}"
            if rng.chance(0.3):
                series = f"{series} {rng.pick(_SERIES)}"
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
    marketing = rng.sample(_MARKETING, rng.below(4))
    if rng.chance(0.5):
        parts = marketing[:1] + parts + marketing[1:]
    else:
        parts += marketing
    if rng.chance(0.18):
        parts.insert(0, rng.pick(_PREFIXES))
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

    short = ";".join([title, *rng.sample(_HIGHLIGHTS, 2 + rng.below(3))]) + ";"
    desc_lines = [rng.pick(_DESC_OPENERS).format(title=title, noun=model.noun)]
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
    desc_lines.extend(line.replace("{noun}", model.noun) for line in rng.sample(_DESC_CLOSERS, 2))
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


# ----------------------------------------------------------------------------------------------------- web corpus

_FIRST = ["Ilsa", "Marco", "Teodora", "Rafael", "Amihan", "Lukas", "Corazon", "Dmitri", "Ysabel", "Kenji", "Marisol",
          "Alon", "Bettina", "Joaquin", "Priya", "Tomas", "Liwayway", "Nikolai", "Soledad", "Emeka", "Perla", "Hugo",
          "Mayumi", "Crisanto", "Freya", "Dalisay", "Oskar", "Rosalind", "Tala", "Evander"]
_LAST = ["Marrow", "Quenby", "Dalisay", "Verhoeven", "Santillan", "Okonkwo", "Halvorsen", "Ibarra", "Castellano",
         "Lindqvist", "Mabini", "Thornbury", "Arceo", "Villafuerte", "Nakashima", "Bautista", "Kowalczyk", "Ferrand",
         "Abellana", "Rosales", "Dimaculangan", "Ashgrove", "Penhallow", "Magbanua", "Strand", "Oyelaran"]
_PLACES = ["Port Caldera", "San Isidro de Malaya", "Velmont", "Lake Orvane", "Ostrava Vale", "Bukid Hills", "Marisca",
           "Tanaw Bay", "Kalinaw", "Northwick", "Sitio Liwanag", "Estrella Norte", "Harrowgate", "Pulo Verde",
           "Dunmore Cove", "Bantay Ridge", "Aguila Point", "Silverfen", "Mahalta", "Corvin Springs"]
_TEAM_NOUNS = ["Rovers", "Mariners", "Falcons", "Tamaraws", "Comets", "Stallions", "Herons", "Typhoons", "Wolves",
               "Voyagers", "Eagles", "Sharks"]
_ENSEMBLES = ["Northwind Chamber Ensemble", "Harbor Lights Quartet", "Silverfen Philharmonic",
              "Kalinaw Folk Collective", "Aguila Street Band", "Lake Orvane Symphony", "Bantay Jazz Trio"]
_EVENTS = ["Harvest Lantern Festival", "Tanaw Bay Regatta", "Velmont Winter Fair", "Sitio Liwanag Fiesta",
           "Marisca Craft Week", "Northwick Founders' Day"]


#: Values too generic to be the answer to a world-knowledge question.
_BLAND = frozenset({"original", "plain", "assorted", "unflavored", "mixed", "regular", "classic", "others", "other",
                    "multicolor", "clear", "natural"})

#: How many leading products of a catalog the web corpus draws its facts from.
WEB_SAMPLE = 8192


def _knowledge_values(world: World) -> dict[str, list[str]]:
    """Values a world-knowledge fact can point at, by kind, taken from the catalog's own leading products: each
    value appears in the title or description of at least one product, so a web task built on it is solvable."""
    by_path = {leaf.path: leaf for leaf in world.leaves}
    found: dict[str, set[str]] = {"instrument": set(), "sport": set(), "flavor": set(), "material": set(),
                                  "color_family": set()}
    for chunk in range((min(world.size, WEB_SAMPLE) + CHUNK - 1) // CHUNK):
        for product, _ in generate_chunk(world, chunk):
            text = (product["title"] + " " + product["description"]).lower()
            leaf = by_path[product["category"]]
            if leaf.top == "Musical Instruments":
                found["instrument"].update(n for n in leaf.nouns if len(n.split()) <= 2 and n in text)
            for key, values in product["attributes"].items():
                if key not in found:
                    continue
                found[key].update(v for v in values if len(v) > 2 and v not in _BLAND and not v.isdigit() and v in text)
    return {kind: sorted(values) for kind, values in found.items()}


_FACT_KINDS: list[tuple[str, str, str, str, list[str]]] = [
    # (kind of value, entity type, relation, attribute key, page templates)
    ("instrument", "musician", "plays", "instrument", [
        "{name} (born {year}) is a musician from {place}. {pron} best known for playing the {value} with the "
        "{ensemble}, with {n} albums recorded.",
        "Profile: {name}. Hometown: {place}. Instrument: {value}. {name} joined the {ensemble} in {year2} and "
        "became its principal {value} player.",
    ]),
    ("sport", "athlete", "competes in", "sport", [
        "{name} is a professional athlete from {place} who competes in {value}. {pron} the "
        "national champion of {year2}.",
        "{name} ({year}) took up {value} at the age of {age} and now captains the {place} {team}.",
    ]),
    ("flavor", "place", "is famous for the flavor", "flavor", [
        "{place} is a town known across the islands for its {value}. Every year during the {event}, visitors "
        "line up for {value} treats.",
        "Travel notes: the signature flavor of {place} is {value}; local bakeries have used it since {year}.",
    ]),
    ("material", "place", "is known for crafts made of", "material", [
        "Artisans of {place} have worked with {value} for generations; the {event} showcases their {value} crafts.",
        "{place}'s main export is handmade goods of {value}, a tradition dating to {year}.",
    ]),
    ("color_family", "team", "wears the home color", "color_family", [
        "The {place} {team} were founded in {year}. The club plays its home games in {value} jerseys.",
        "Fans of the {place} {team} are easy to spot: the team color has been {value} since {year2}.",
    ]),
]

_FILLER = [
    ("Buying guide: how to choose a {noun}", "Before you buy a {noun}, compare the price, the seller's ratings and "
     "the options. Popular choices in {top} include {brand} and other trusted brands. Look for free shipping and "
     "cash on delivery to save money."),
    ("{top}: what is trending this month", "Shoppers in the Philippines are searching for {noun} deals in {mid}. "
     "Flash sales and vouchers make {top} more affordable; read the product details before checking out."),
    ("Review: the {brand} {noun}", "We tested the {brand} {noun} for two weeks. It is well made, although the "
     "price is higher than similar listings. Check the size options before ordering."),
]


def generate_web_pages(seed: int, size: int) -> list[dict[str, Any]]:
    """The offline web corpus of catalog ``(seed, size)``: fact pages tying entities to attribute values, plus
    filler pages (buying guides, trend notes, reviews) that compete for the same search terms."""
    world = World.build(seed, size)
    rng = Rng("web", seed, size)
    values = _knowledge_values(world)
    kinds = [k for k in _FACT_KINDS if values.get(k[0])]
    n_facts = max(40, min(5000, size // 200))
    pages: list[dict[str, Any]] = []
    used_names: set[str] = set()
    all_leaves = _leaves()
    for k in range(n_facts):
        kind, entity_type, relation, attr_key, templates = kinds[k % len(kinds)]
        value = rng.pick(values[kind])
        place = rng.pick(_PLACES)
        team = rng.pick(_TEAM_NOUNS)
        if entity_type in ("musician", "athlete"):
            name = f"{rng.pick(_FIRST)} {rng.pick(_LAST)}"
            while name in used_names:
                name = f"{rng.pick(_FIRST)} {rng.pick(_LAST)} {rng.pick(_LAST)}"
        elif entity_type == "team":
            name = f"{place} {team}"
        else:
            name = place
        if name in used_names and entity_type in ("place", "team"):
            continue  # one fact per place or team per relation keeps questions unambiguous
        used_names.add(name)
        fields = {
            "name": name, "place": place, "team": team, "value": value, "year": 1950 + rng.below(55),
            "year2": 2000 + rng.below(24), "n": 2 + rng.below(9), "age": 6 + rng.below(12),
            "pron": rng.pick(["She is", "He is", "They are"]), "ensemble": rng.pick(_ENSEMBLES),
            "event": rng.pick(_EVENTS),
        }
        content = rng.pick(templates).format(**fields)
        slug = name.lower().replace(" ", "-").replace("'", "")
        pages.append({
            "url": f"https://wiki.shoparena.example/{entity_type}/{slug}",
            "title": f"{name} - ShopArena Encyclopedia",
            "content": content,
            "fact": {"entity": name, "entity_type": entity_type, "relation": relation, "value": value,
                     "attribute_key": attr_key},
        })
    for k in range(n_facts):
        leaf = all_leaves[rng.below(len(all_leaves))]
        title_t, content_t = rng.pick(_FILLER)
        brand = rng.pick(_SYLLABLES_A).capitalize() + rng.pick(_SYLLABLES_B)
        fields = {"noun": rng.pick(leaf.nouns), "top": leaf.top, "mid": leaf.mid, "brand": brand}
        title = title_t.format(**fields)
        pages.append({
            "url": f"https://blog.shoparena.example/{k}/{title.lower().replace(' ', '-').replace(':', '')[:60]}",
            "title": title,
            "content": content_t.format(**fields),
            "fact": None,
        })
    return pages


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

