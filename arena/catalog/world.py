"""The world of a seeded synthetic catalog: everything about it that is not one product. The category tree
flattened into `Leaf` objects (each with its attribute schema), and per catalog ``(seed, size)`` the `World`: brand
pools, shops with Zipf-sized catalogues selling across several top-level categories, the product `Model` objects
shops list, and how product ids are numbered. `arena.catalog.generator` makes the listings from it.
"""

from __future__ import annotations

import _random
import math
import operator
import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final, SupportsIndex

from arena.catalog import taxonomy as tx
from arena.catalog import vocab
from arena.catalog.rng import Rng, cumulative, draw_sample, seed_prefix

CHUNK: Final = 1024
MAX_SIZE: Final = 5_000_000
MAX_SEED: Final = 2**63 - 1


# ---------------------------------------------------------------------------------------------------------- world


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


class Model:
    """A product type as a manufacturer makes it; shops list it many times with their own wording and prices.

    A plain class, not a dataclass: compiled, a dataclass's generated ``__init__`` stays a Python function (a frozen
    one sets each field through ``object.__setattr__``), about 11k instructions a model made (valgrind); this one's
    ``__init__`` is compiled."""

    __slots__ = ("brand", "series", "noun", "attrs", "base_price", "words", "noun_title")

    def __init__(
        self,
        brand: str,
        series: str,
        noun: str,
        attrs: tuple[tuple[str, ...], ...],
        base_price: float,
        words: tuple[str, ...] = (),
        noun_title: str = "",
    ) -> None:
        self.brand = brand
        self.series = series
        self.noun = noun
        #: its key attributes' values, in its leaf's `Leaf.key_attrs` order (a single value's tuple shared by the
        #: leaf's models: a model cached takes about a quarter fewer bytes than as a dict of new tuples)
        self.attrs = attrs
        self.base_price = base_price
        #: what every listing's title takes from the model: its key values and its noun, title-cased
        self.words = words
        self.noun_title = noun_title

    def _fields(self) -> tuple[object, ...]:
        return (self.brand, self.series, self.noun, self.attrs, self.base_price, self.words, self.noun_title)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Model) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return f"Model{self._fields()!r}"


_TITLE_CASE: Final[dict[str, str]] = {}


def title_case(value: str) -> str:
    """Each space-separated word's first letter upper-cased (the rest kept), as titles write attribute values."""
    cased = _TITLE_CASE.get(value)
    if cased is None:
        cased = _TITLE_CASE[value] = " ".join(w[:1].upper() + w[1:] for w in value.split(" "))
    return cased


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
                    Leaf(
                        len(out),
                        top,
                        mid,
                        name,
                        path,
                        spec["family"],
                        tuple(leaf["nouns"]),
                        schema,
                        key_attrs,
                        sku_keys,
                        float(median),
                        float(sigma),
                    )
                )
    return tuple(out)


def _brand_name(rng: Rng) -> str:
    word = rng.pick(vocab.SYLLABLES_A) + rng.pick(vocab.SYLLABLES_B)
    if rng.chance(0.35):
        word += rng.pick(vocab.SYLLABLES_A)
    style = rng.u()
    name = word.upper() if style < 0.15 else word.capitalize()
    return name + rng.pick(vocab.BRAND_SUFFIX)


class _ModelParts:
    """What a leaf's models are made of, worked out once per world: its brand pool, its key attributes (each with
    its values, how many, their title-cased forms and each value alone in a tuple) and its nouns with theirs."""

    __slots__ = ("brands", "keys", "nouns", "noun_titles")

    def __init__(self, leaf: Leaf, brands: list[str]) -> None:
        self.brands = brands
        self.keys = [
            (values, len(values), [title_case(v) for v in values], [(v,) for v in values])
            for values in (leaf.schema[k] for k in leaf.key_attrs)
        ]
        self.nouns = leaf.nouns
        self.noun_titles = [title_case(noun) for noun in leaf.nouns]


#: `random.Random.seed` for an int, without its Python wrapper: the same state (`Rng.from_prefix` seeds so)
_reseed: Final = _random.Random.seed
_SERIES: Final = vocab.SERIES
_SERIES_LETTERS: Final = "ABCDEFGHJKLMNPRSTVXZ"

#: models a worker keeps per cache generation (two generations, about 450 bytes a model): at 2.5M products a
#: worker draws about 514k distinct models in 1.25M listings; one generation cleared when full made 916k, two 659k
MODEL_CACHE = 200_000


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
    _models: dict[int, Model] = field(default_factory=dict)  # by `model_key`
    _older: dict[int, Model] = field(default_factory=dict)  # the cache's previous generation
    model_cache: int = MODEL_CACHE
    _model_prefix: Any = field(init=False, repr=False)  # the hash of ("model", seed, size): models' seeds
    _model_random: random.Random = field(init=False, repr=False)  # reseeded for each model made
    _model_parts: list[_ModelParts] = field(init=False, repr=False)  # per leaf, what its models are made of

    def __post_init__(self) -> None:
        self._model_prefix = seed_prefix("model", self.seed, self.size)
        self._model_random = random.Random()
        self._model_parts = [_ModelParts(leaf, self.brands[f"{leaf.top} > {leaf.mid}"]) for leaf in self.leaves]

    @classmethod
    def build(cls, seed: object, size: object) -> World:  # object: any bad seed is `validate_seed_size`'s one line
        seed, size = validate_seed_size(seed, size)
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
            breadth = 1 + min(len(tops) - 1, int(2 + 14 * weight**0.25 * sr.u() + 3 * sr.u()))
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
        check_model_keys(models_per_leaf)
        id_mult = 1 + 2 * rng.below(499_999_999)
        while math.gcd(id_mult, 10**9) != 1:
            id_mult += 2
        return cls(
            seed, size, all_leaves, leaf_cum, brands, shops, shops_by_top, models_per_leaf, id_mult, rng.below(10**9)
        )

    def product_id(self, i: SupportsIndex) -> str:
        return str(self.product_number(i))

    def product_number(self, i: SupportsIndex) -> int:
        """Product `i`'s number (any integer type: numpy's too, which the compiled build's ``int`` would refuse)."""
        # a bijection of [0, 1e9): unique 10-digit ids that look like marketplace ids
        return 1_000_000_000 + (operator.index(i) * self.id_mult + self.id_offset) % 1_000_000_000

    def model(self, leaf: Leaf, model_index: int) -> Model:
        key = model_key(leaf, model_index)
        cached = self._models.get(key)
        if cached is None:
            cached = self._older.get(key)
            if cached is not None:  # still drawn: kept in the new generation
                self._keep(key, cached)
        if cached is not None:
            return cached
        # Rng("model", seed, size, leaf, model_index)'s draws, on one generator reseeded per model (a new
        # random.Random a model was a tenth of its time) and with the Rng helpers spelled out in their arithmetic:
        # pick is seq[int(u() * len(seq))], chance(p) is u() < p (see arena.catalog.generator's listing)
        h = self._model_prefix.copy()
        h.update(f"{leaf.index}\x1f{model_index}".encode())
        _reseed(self._model_random, int.from_bytes(h.digest()[:8], "big"))
        u = self._model_random.random
        parts = self._model_parts[leaf.index]
        pool = parts.brands
        brand = "No Brand" if u() < 0.08 else pool[min(int(len(pool) * u() ** 1.6), len(pool) - 1)]
        series = ""
        if u() < 0.55:
            if u() < 0.5:
                series = _SERIES[int(u() * len(_SERIES))]
            else:
                series = f"{_SERIES_LETTERS[int(u() * len(_SERIES_LETTERS))]}{int(u() * 90) + 10}"
            if u() < 0.3:
                series = f"{series} {_SERIES[int(u() * len(_SERIES))]}"
        attrs: list[tuple[str, ...]] = []
        words: list[str] = []
        for values, n, titled, singles in parts.keys:
            if u() < 0.15 and n > 2:
                picked = tuple(draw_sample(u, values, 2))
                words.extend([title_case(v) for v in picked])
            else:
                j = int(u() * n)
                picked = singles[j]
                words.append(titled[j])
            attrs.append(picked)
        u1 = u() or 1e-12  # Rng.normal
        normal = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u())
        z = max(-2.5, min(2.5, normal))  # no 1-in-a-million outliers: +-2.5 sigma around the median
        base = leaf.price_median * math.exp(leaf.price_sigma * z)
        j = int(u() * len(parts.nouns))
        model = Model(brand, series, parts.nouns[j], tuple(attrs), max(15.0, base), tuple(words), parts.noun_titles[j])
        self._keep(key, model)
        return model

    def _keep(self, key: int, model: Model) -> None:
        """Two generations: when the current one is full it becomes the older one, so the models still drawn (a
        listing's model is drawn from a skewed distribution) survive the turn instead of being made again."""
        if len(self._models) >= self.model_cache:
            self._older, self._models = self._models, {}
        self._models[key] = model


#: a model key's room for the models of one leaf (`model_key`)
MODELS_PER_KEY: Final = 1_000_000


def model_key(leaf: Leaf, model_index: int) -> int:
    """A product model's key: its leaf's index and its index among the leaf's models, in one int."""
    return leaf.index * MODELS_PER_KEY + model_index


def check_model_keys(models_per_leaf: list[int]) -> None:
    """Every leaf's models fit its model keys (`model_key`): more would give two models one key, each listing of
    one then sharing the other's cached brand, title and price, silently (a larger `MAX_SIZE` could do it)."""
    most = max(models_per_leaf)
    if most >= MODELS_PER_KEY:
        raise ValueError(
            f"a category of this catalog has {most:,} product models, more than its model keys tell apart (under "
            f"{MODELS_PER_KEY:,}: arena.catalog.world.MODELS_PER_KEY); lower MAX_SIZE or widen the key"
        )


def validate_seed_size(seed: object, size: object) -> tuple[int, int]:
    """The seed and size as Python ints; ValueError with a one-line reason for an impossible one, of any type (the
    compiled build's typed signatures would otherwise raise their own TypeError first: hence ``object`` here and in
    `World.build`). An integer of another type (numpy's, from an operator's script: anything with ``__index__``) is
    taken as its value; a bool, a float or a string is not an integer (docs/operator.md, section 1)."""
    return _whole("seed", seed, 0, MAX_SEED, f"{MAX_SEED}"), _whole("size", size, 1, MAX_SIZE, f"{MAX_SIZE:,}")


def _whole(name: str, value: object, low: int, high: int, shown: str) -> int:
    number = None
    if type(value).__name__ not in ("bool", "bool_"):  # Python's and numpy's (np.bool_, named bool in numpy 2)
        try:
            number = operator.index(value)  # type: ignore[arg-type]  # anything else raises TypeError
        except TypeError:
            number = None
    if number is None or not low <= number <= high:
        raise ValueError(f"{name} must be an integer from {low} to {shown}, got {value!r}")
    return number
