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
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
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
    title_case,
    validate_seed_size,
)

#: a stream's ``random``: the next float in [0, 1)
Draw = Callable[[], float]

#: ShoppingBench-like service rates: COD is common, free shipping per shop, LazMall (official) for a minority of
#: shops, flash sales for a few listings.
_RATE_COD = 0.62
_RATE_FLASH = 0.12


# -------------------------------------------------------------------------------------------------------- listing
#
# A listing is about 47 draws and a dozen strings; at millions of products the Python around each draw is the
# build's time, so the code below draws with the stream's own ``random`` bound to a local (``u``) and spells the
# `Rng` helpers out inline, in exactly their arithmetic: ``pick`` is ``seq[int(u() * len(seq))]``, ``chance(p)`` is
# ``u() < p``, ``below(n)`` is ``int(u() * n)``. What does not depend on the draws (a leaf's schema walked, key
# names, sentence openings) is worked out once per leaf (`_Plan`). The order of the draws is the catalog: change
# nothing here without the byte-for-byte check of tests/unit/test_generator.py.


_KEY_NAMES: dict[str, str] = {}
_SKU_NUMBERS = tuple(str(n) for n in range(1, 10))


def _key_name(key: str) -> str:
    name = _KEY_NAMES.get(key)
    if name is None:
        name = _KEY_NAMES[key] = key.replace("_", " ")
    return name


class _Plan:
    """A leaf's schema walked once for all its listings: the attributes in schema order with how each is filled
    (the model's key attribute, or drawn from its values), the SKU keys' values, and per attribute key its
    specification prefix and description sentence (a fixed one, or a drawn one's opening)."""

    __slots__ = ("attrs", "sku_keys", "sku_values", "spec", "desc")

    def __init__(self, leaf: Leaf) -> None:
        key_attrs = set(leaf.key_attrs)  # the keys of every model of the leaf (`World.model`)
        self.attrs: list[tuple[str, tuple[str, ...], int, bool]] = [
            (key, values, len(values), key in key_attrs)
            for key, values in leaf.schema.items()
            if key in key_attrs or key not in leaf.sku_keys
        ]
        self.sku_keys = leaf.sku_keys
        self.sku_values = [(leaf.schema[k], len(leaf.schema[k])) for k in leaf.sku_keys]
        self.spec = {k: f"{_key_name(k)}:" for k in [*leaf.schema, "brand"]}
        self.desc: dict[str, tuple[int, str]] = {"brand": (0, ""), "material": (1, "Made with "),
                                                 "color_family": (1, "Comes in ")}  # fmt: skip
        for k in leaf.schema:
            self.desc.setdefault(k, (2, f"Its {_key_name(k)} is "))


_PLANS: dict[int, _Plan] = {}
_DESC_TAIL = {"Made with ": " for lasting quality.", "Comes in ": " to match your style."}


def _plan(leaf: Leaf) -> _Plan:
    plan = _PLANS.get(leaf.index)
    if plan is None:
        plan = _PLANS[leaf.index] = _Plan(leaf)
    return plan


def _weighted(u: Draw, cum: list[float]) -> int:
    return min(bisect_right(cum, u() * cum[-1]), len(cum) - 1)


def _sample(u: Draw, seq: Sequence[Any], k: int) -> list[Any]:
    """`Rng.sample` with the stream's ``random``: the same draws, the same items."""
    n = len(seq)
    if 4 * k <= n:
        chosen: list[int] = []
        while len(chosen) < k:
            j = int(u() * n)
            if j not in chosen:
                chosen.append(j)
        return [seq[j] for j in chosen]
    pool = list(seq)
    return [pool.pop(int(u() * len(pool))) for _ in range(min(k, n))]


def _round_price(p: float, u: Draw) -> float:
    if p < 100:
        return round(max(p, 5.0), 2) if u() < 0.3 else float(max(5, round(p)))
    if u() < 0.45:  # charm pricing: 199, 1,499
        step = 10 if p < 1000 else 100
        return float(max(step, round(p / step)) * step - 1)
    return float(round(p))


def _listing(world: World, i: int, rng: Rng) -> tuple[dict[str, Any], int]:
    """Product ``i``: its leaf, model and shop drawn, then its attributes, SKU options, title, price, services,
    sales and texts, in that order (the order of the draws is the catalog)."""
    u = rng.u
    leaf = world.leaves[_weighted(u, world.leaf_cum)]
    n_models = world.models_per_leaf[leaf.index]
    model_index = min(int(n_models * u() ** 2.2), n_models - 1)
    model = world.model(leaf, model_index)
    members, cum = world.shops_by_top[leaf.top]
    shop = world.shops[members[_weighted(u, cum)]]
    number = world.product_number(i)
    product_id = str(number)
    plan = _plan(leaf)
    attributes = _attributes(plan, model, u)
    sku_options = _sku_options(plan, u)
    title = _title(model, sku_options, u)
    u1 = u() or 1e-12  # Rng.normal
    normal = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u())
    price = _round_price(model.base_price * math.exp(0.2 * normal), u)
    services = _services(shop, u)
    if "COD" not in services and ("【COD】" in title or "Cash on Delivery" in title):
        # a listing whose title promises cash on delivery offers it (no draw changes: the catalog stays the same)
        services.insert(len(services) - ("flashsale" in services), "COD")
    sold_count = 0 if u() < 0.28 else int(math.exp(u() ** 0.8 * 9.5 * (1.0 if shop.official else 0.8)))
    short = ";".join([title, *_sample(u, vocab.HIGHLIGHTS, 2 + int(u() * 3))]) + ";"
    description = _description(title, model, plan, attributes, sku_options, u)
    spec = plan.spec
    spec_pairs = [spec[k] + v[0] for k, v in attributes.items()]
    spec_pairs.append(f"model:{title[:80]}")
    image = f"{(number * 11400714819323198485) % 2**64:016x}"
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


def _attributes(plan: _Plan, model: Model, u: Draw) -> dict[str, list[str]]:
    """The model's key attributes, plus this listing's own values for the rest of the schema (not its SKU keys)."""
    attributes: dict[str, list[str]] = {}
    model_attrs = model.attrs
    for key, values, n, of_model in plan.attrs:
        if of_model:
            attributes[key] = list(model_attrs[key])
        elif u() < 0.6:
            attributes[key] = [values[int(u() * n)]]
    if model.brand != "No Brand":
        attributes["brand"] = [model.brand.lower()]
    return attributes


def _sku_options(plan: _Plan, u: Draw) -> dict[str, dict[str, str]]:
    """0-9 distinct combinations of the leaf's SKU keys, numbered from "1"."""
    if not plan.sku_keys or u() >= 0.75:
        return {}
    wanted = 1 + min(8, int(9 * u() ** 1.8))
    if len(plan.sku_keys) == 1:  # most leaves with options (303 of 366): the one key's value is the combination
        return _one_key_options(plan, wanted, u)
    sku_options: dict[str, dict[str, str]] = {}
    keys, pools = plan.sku_keys, plan.sku_values
    seen: set[tuple[str, ...]] = set()
    for _ in range(wanted * 3):
        if len(sku_options) >= wanted:
            break
        combo = tuple([values[int(u() * n)] for values, n in pools])
        if combo in seen:
            continue
        seen.add(combo)
        sku_options[_SKU_NUMBERS[len(sku_options)]] = dict(zip(keys, combo, strict=True))
    return sku_options


def _one_key_options(plan: _Plan, wanted: int, u: Draw) -> dict[str, dict[str, str]]:
    """`_sku_options` of a leaf with one SKU key: the same draws, the same options."""
    sku_options: dict[str, dict[str, str]] = {}
    (key,), ((values, n),) = plan.sku_keys, plan.sku_values
    seen: set[str] = set()
    for _ in range(wanted * 3):
        if len(seen) >= wanted:
            break
        value = values[int(u() * n)]
        if value not in seen:
            seen.add(value)
            sku_options[_SKU_NUMBERS[len(sku_options)]] = {key: value}
    return sku_options


def _title(model: Model, sku_options: dict[str, dict[str, str]], u: Draw) -> str:
    """The title, the way marketplace sellers write them: brand, series, key words around the noun, an option,
    marketing words, sometimes a prefix."""
    parts: list[str] = []
    if model.brand != "No Brand" and u() < 0.9:
        parts.append(model.brand)
    if model.series and u() < 0.8:
        parts.append(model.series)
    key_words = list(model.words)
    for i in range(len(key_words) - 1, 0, -1):  # Rng.shuffle
        j = int(u() * (i + 1))
        key_words[i], key_words[j] = key_words[j], key_words[i]
    noun = model.noun_title
    if u() < 0.5:
        parts.extend(key_words[:2])
        parts.append(noun)
        parts.extend(key_words[2:3])
    else:
        parts.append(noun)
        parts.extend(key_words[:3])
    if sku_options and u() < 0.5:
        values = list(sku_options["1"].values())
        parts.append(title_case(values[int(u() * len(values))]))
    marketing = _sample(u, vocab.MARKETING, int(u() * 4))
    if u() < 0.5:
        parts = marketing[:1] + parts + marketing[1:]
    else:
        parts += marketing
    if u() < 0.18:
        parts.insert(0, vocab.PREFIXES[int(u() * len(vocab.PREFIXES))])
    return " ".join([p for p in parts if p])


def _services(shop: Shop, u: Draw) -> list[str]:
    services: list[str] = ["official"] if shop.official else []
    if u() < shop.free_shipping:
        services.append("freeShipping")
    if u() < _RATE_COD:
        services.append("COD")
    if u() < _RATE_FLASH:
        services.append("flashsale")
    return services


def _description(
    title: str, model: Model, plan: _Plan, attributes: dict[str, list[str]], sku_options: dict[str, Any], u: Draw
) -> str:
    """An opener, a sentence for some attributes, the options on offer, two closers."""
    openers = vocab.DESC_OPENERS
    desc_lines = [openers[int(u() * len(openers))].format(title=title, noun=model.noun)]
    desc = plan.desc
    for key, values in attributes.items():
        kind, opening = desc[key]
        if kind == 1:
            desc_lines.append(opening + values[0] + _DESC_TAIL[opening])
        elif kind == 2 and u() < 0.6:
            desc_lines.append(f"{opening}{', '.join(values)}, just what you need.")
    if sku_options:
        shown = sorted({v for o in sku_options.values() for v in o.values()})[:8]
        desc_lines.append(f"Available options: {', '.join(shown)}.")
    closers = list(vocab.DESC_CLOSERS)  # Rng.sample of 2 of 5: two pops from the pool
    noun = model.noun
    for _ in range(2):
        desc_lines.append(closers.pop(int(u() * len(closers))).replace("{noun}", noun))
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
