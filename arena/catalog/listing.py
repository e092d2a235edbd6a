"""One listing of the seeded synthetic catalog (`arena.catalog.generator`): its leaf, model and shop drawn from the
`World`, then its attributes, SKU options, title, price, services, sales and texts, from its chunk's stream."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Any, Final

from arena.catalog import vocab
from arena.catalog.rng import Rng, draw_sample
from arena.catalog.world import Leaf, Model, Shop, World, model_key, title_case

#: a stream's ``random``: the next float in [0, 1)
Draw = Callable[[], float]

#: ShoppingBench-like service rates: COD is common, free shipping per shop, LazMall (official) for a minority of
#: shops, flash sales for a few listings.
_RATE_COD: Final = 0.62
_RATE_FLASH: Final = 0.12


# -------------------------------------------------------------------------------------------------------- listing
#
# A listing is about 47 draws and a dozen strings; at millions of products the Python around each draw is the
# build's time, so the code below draws with the stream's own ``random`` bound to a local (``u``) and spells the
# `Rng` helpers out inline, in exactly their arithmetic: ``pick`` is ``seq[int(u() * len(seq))]``, ``chance(p)`` is
# ``u() < p``, ``below(n)`` is ``int(u() * n)``. What does not depend on the draws is worked out once: per leaf
# (`_Plan`: its schema walked, each value's specification entry and description sentence made) and per noun
# (`_noun_texts`: the description's openers split around the title, its closing pairs joined). One pass over the
# attributes makes the attributes, the specification, the search text's values and the description's sentences.
# The order of the draws is the catalog: change nothing here without the byte-for-byte check of
# tests/unit/test_generator.py.


_KEY_NAMES: Final[dict[str, str]] = {}
_SKU_NUMBERS: Final = tuple(str(n) for n in range(1, 10))
_DESC_TAIL: Final = {"Made with ": " for lasting quality.", "Comes in ": " to match your style."}


def _key_name(key: str) -> str:
    name = _KEY_NAMES.get(key)
    if name is None:
        name = _KEY_NAMES[key] = key.replace("_", " ")
    return name


def _sentence(kind: int, opening: str, values: Sequence[str]) -> str:
    """An attribute's description sentence: kind 1 a fixed one on its first value, kind 2 a drawn one."""
    if kind == 1:
        return opening + values[0] + _DESC_TAIL[opening]
    return f"{opening}{', '.join(values)}, just what you need."


#: A description item: the sentence, and whether it is drawn for.
_Item = tuple[str, bool]


class _Choice:
    """A value a listing may draw for an attribute: the value, its specification entry and its description item."""

    __slots__ = ("value", "entry", "item")

    def __init__(self, value: str, entry: str, item: _Item) -> None:
        self.value = value
        self.entry = entry
        self.item = item


class _Slot:
    """An attribute of a leaf's listings: its key, whether the model fixes it (and where in `Model.attrs`: `pos`), its
    specification prefix, its description sentence's kind (1 always written, 2 written on a draw) and opening; for a
    drawn attribute its values' `_Choice`; for the model's, per value set met: its entry and its item (`made`)."""

    __slots__ = ("key", "of_model", "pos", "prefix", "kind", "opening", "choices", "n_choices", "made")

    def __init__(self, key: str, pos: int, prefix: str, kind: int, opening: str, choices: list[_Choice]) -> None:
        self.key = key
        self.of_model = pos >= 0
        self.pos = pos
        self.prefix = prefix
        self.kind = kind
        self.opening = opening
        self.choices = choices
        self.n_choices = len(choices)
        self.made: dict[tuple[str, ...], tuple[str, _Item]] = {}


class _Plan:
    """A leaf's schema walked once for all its listings: the attributes in schema order (`_Slot`: the model's key
    attribute, or drawn from its values), and its SKU keys with their values."""

    __slots__ = ("attrs", "sku_keys", "sku_values")

    def __init__(self, leaf: Leaf) -> None:
        if not all(leaf.nouns) or not all(v for values in leaf.schema.values() for v in values):
            raise ValueError(f"{leaf.path}: an empty noun or attribute value; every word of a title must be one")
        key_attrs = leaf.key_attrs  # the keys of every model of the leaf (`World.model`), in `Model.attrs` order
        self.attrs: list[_Slot] = []
        for key, values in leaf.schema.items():
            if key not in key_attrs and key in leaf.sku_keys:
                continue
            kind, opening = {"material": (1, "Made with "), "color_family": (1, "Comes in ")}.get(
                key, (2, f"Its {_key_name(key)} is ")
            )
            spec = f"{_key_name(key)}:"
            choices = [_Choice(v, spec + v, (_sentence(kind, opening, (v,)), kind == 2)) for v in values]
            pos = key_attrs.index(key) if key in key_attrs else -1
            self.attrs.append(_Slot(key, pos, spec, kind, opening, choices))
        self.sku_keys = leaf.sku_keys
        self.sku_values = [(leaf.schema[k], len(leaf.schema[k])) for k in leaf.sku_keys]


_PLANS: Final[dict[int, _Plan]] = {}


def _plan(leaf: Leaf) -> _Plan:
    plan = _PLANS.get(leaf.index)
    if plan is None:
        plan = _PLANS[leaf.index] = _Plan(leaf)
    return plan


_NOUN_TEXTS: Final[dict[str, tuple[list[tuple[str, str]], list[str]]]] = {}


def _noun_texts(noun: str) -> tuple[list[tuple[str, str]], list[str]]:
    """A noun's description openers, each split around the title, and its closing pairs: the two closers drawn
    (`Rng.sample` of 2 of 5: one of the 5 popped, then one of the 4 left), joined, at ``4 * first + second``."""
    texts = _NOUN_TEXTS.get(noun)
    if texts is None:
        openers = [tuple(t.replace("{noun}", noun) for t in o.split("{title}")) for o in vocab.DESC_OPENERS]
        closers = [c.replace("{noun}", noun) for c in vocab.DESC_CLOSERS]
        pairs = [f"{a} {b}" for i, a in enumerate(closers) for b in closers[:i] + closers[i + 1 :]]
        texts = _NOUN_TEXTS[noun] = ([(o[0], o[1]) for o in openers], pairs)
    return texts


def _round_price(p: float, u: Draw) -> float:
    if p < 100:
        return round(max(p, 5.0), 2) if u() < 0.3 else float(max(5, round(p)))
    if u() < 0.45:  # charm pricing: 199, 1,499
        step = 10 if p < 1000 else 100
        return float(max(step, round(p / step)) * step - 1)
    return float(round(p))


#: A listing as the build takes it: the product, its model's key (leaf * 1,000,000 + model) and its search text
#: (`arena.catalog.models.search_contents`, made as the product is).
Row = tuple[dict[str, Any], int, str]


def _listing(world: World, i: int, rng: Rng) -> Row:
    """Product ``i``: its leaf, model and shop drawn, then its attributes, SKU options, title, price, services,
    sales and texts, in that order (the order of the draws is the catalog)."""
    u = rng.u
    cum = world.leaf_cum  # Rng.weighted, spelled out (and for the shop below)
    leaf = world.leaves[min(bisect_right(cum, u() * cum[-1]), len(cum) - 1)]
    n_models = world.models_per_leaf[leaf.index]
    model_index = min(int(n_models * u() ** 2.2), n_models - 1)
    model = world.model(leaf, model_index)
    members, cum = world.shops_by_top[leaf.top]
    shop = world.shops[members[min(bisect_right(cum, u() * cum[-1]), len(cum) - 1)]]
    number = 1_000_000_000 + (i * world.id_mult + world.id_offset) % 1_000_000_000  # World.product_number
    product_id = str(number)
    plan = _PLANS.get(leaf.index) or _plan(leaf)
    attributes, spec, words, sentences = _attributes(plan, model, u)
    sku_options, sku_values, first = _sku_options(plan, u) if plan.sku_keys else ({}, [], ())
    title = _title(model, first, u)
    u1 = u() or 1e-12  # Rng.normal
    normal = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u())
    price = _round_price(model.base_price * math.exp(0.2 * normal), u)
    services = _services(shop, u)
    if "COD" not in services and ("【COD】" in title or "Cash on Delivery" in title):
        # a listing whose title promises cash on delivery offers it (no draw changes: the catalog stays the same)
        services.insert(len(services) - ("flashsale" in services), "COD")
    sold_count = 0 if u() < 0.28 else int(math.exp(u() ** 0.8 * 9.5 * (1.0 if shop.official else 0.8)))
    short = ";".join([title, *draw_sample(u, vocab.HIGHLIGHTS, 2 + int(u() * 3))]) + ";"
    description = _description(title, model.noun, sentences, sku_values, u)
    spec.append(f"model:{title[:80]}")
    sku_text = " ".join(sku_values)
    product = {
        "product_id": product_id,
        "shop_id": shop.shop_id,
        "brand": model.brand,
        "category": leaf.path,
        "title": title,
        "short_description": short[:2000],
        "description": description[:2000],
        "specification": ";".join(spec)[:2000],
        "price": price,
        "sold_count": sold_count,
        "sku_options": sku_options,
        "attributes": attributes,
        "main_image_url": f"https://img.shoparena.example/p/{(number * 11400714819323198485) % 2**64:016x}.jpg",
        "product_url": f"https://shoparena.example/products/-i{product_id}.html",
        "service": services,
    }
    return product, model_key(leaf, model_index), f"{title}\n{sku_text}\n{' '.join(words)}"


def _attributes(plan: _Plan, model: Model, u: Draw) -> tuple[dict[str, list[str]], list[str], list[str], list[_Item]]:
    """The model's key attributes, plus this listing's own values for the rest of the schema (not its SKU keys);
    with them, in the same order, their specification entries, their values (the search text's) and their
    description sentences (each with whether it is drawn for)."""
    attributes: dict[str, list[str]] = {}
    spec: list[str] = []
    words: list[str] = []
    sentences: list[_Item] = []
    model_attrs = model.attrs
    for slot in plan.attrs:
        if slot.of_model:
            values = model_attrs[slot.pos]
            attributes[slot.key] = list(values)
            entry_item = slot.made.get(values)
            if entry_item is None:
                kind = slot.kind
                entry_item = slot.made[values] = (
                    slot.prefix + values[0],
                    (_sentence(kind, slot.opening, values), kind == 2),
                )
            spec.append(entry_item[0])
            words.extend(values)
            sentences.append(entry_item[1])
        elif u() < 0.6:
            choice = slot.choices[int(u() * slot.n_choices)]
            attributes[slot.key] = [choice.value]
            spec.append(choice.entry)
            words.append(choice.value)
            sentences.append(choice.item)
    if model.brand != "No Brand":
        brand = model.brand.lower()
        attributes["brand"] = [brand]
        spec.append("brand:" + brand)
        words.append(brand)
    return attributes, spec, words, sentences


#: A listing's SKU options, their values in order (the search text's) and their first combination (the title's)
Options = tuple[dict[str, dict[str, str]], list[str], tuple[str, ...]]


def _sku_options(plan: _Plan, u: Draw) -> Options:
    """0-9 distinct combinations of the leaf's SKU keys, numbered from "1"; with their values in order and the
    first combination."""
    if u() >= 0.75:
        return {}, [], ()
    wanted = 1 + min(8, int(9 * u() ** 1.8))
    if len(plan.sku_keys) == 1:  # most leaves with options (303 of 366): the one key's value is the combination
        return _one_key_options(plan, wanted, u)
    sku_options: dict[str, dict[str, str]] = {}
    keys, pools = plan.sku_keys, plan.sku_values
    seen: list[tuple[str, ...]] = []
    for _ in range(wanted * 3):
        if len(seen) >= wanted:
            break
        combo = tuple([values[int(u() * n)] for values, n in pools])
        if combo in seen:
            continue
        seen.append(combo)
        sku_options[_SKU_NUMBERS[len(sku_options)]] = dict(zip(keys, combo, strict=True))
    return sku_options, [v for combo in seen for v in combo], seen[0] if seen else ()


def _one_key_options(plan: _Plan, wanted: int, u: Draw) -> Options:
    """`_sku_options` of a leaf with one SKU key: the same draws, the same options."""
    sku_options: dict[str, dict[str, str]] = {}
    (key,), ((values, n),) = plan.sku_keys, plan.sku_values
    seen: list[str] = []
    for _ in range(wanted * 3):
        if len(seen) >= wanted:
            break
        value = values[int(u() * n)]
        if value not in seen:
            seen.append(value)
            sku_options[_SKU_NUMBERS[len(sku_options)]] = {key: value}
    return sku_options, seen, (seen[0],)


def _title(model: Model, first: tuple[str, ...], u: Draw) -> str:
    """The title, the way marketplace sellers write them: brand, series, key words around the noun, an option
    (of the first SKU combination, `first`), marketing words, sometimes a prefix."""
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
    if first and u() < 0.5:
        parts.append(title_case(first[int(u() * len(first))]))
    marketing = draw_sample(u, vocab.MARKETING, int(u() * 4))
    if u() < 0.5:
        parts = marketing[:1] + parts + marketing[1:]
    else:
        parts += marketing
    if u() < 0.18:
        parts.insert(0, vocab.PREFIXES[int(u() * len(vocab.PREFIXES))])
    return " ".join(parts)  # no part is empty (`_Plan` checks the leaf's words; the rest are fixed or checked)


def _services(shop: Shop, u: Draw) -> list[str]:
    services: list[str] = ["official"] if shop.official else []
    if u() < shop.free_shipping:
        services.append("freeShipping")
    if u() < _RATE_COD:
        services.append("COD")
    if u() < _RATE_FLASH:
        services.append("flashsale")
    return services


def _description(title: str, noun: str, sentences: list[_Item], sku_values: list[str], u: Draw) -> str:
    """An opener, a sentence for some attributes, the options on offer, two closers."""
    openers, closings = _NOUN_TEXTS.get(noun) or _noun_texts(noun)
    before, after = openers[int(u() * len(openers))]
    desc_lines = [before + title + after]
    for sentence, drawn in sentences:
        if not drawn or u() < 0.6:
            desc_lines.append(sentence)
    if sku_values:
        desc_lines.append(f"Available options: {', '.join(sorted(set(sku_values))[:8])}.")
    first = int(u() * 5)
    desc_lines.append(closings[4 * first + int(u() * 4)])
    return " ".join(desc_lines)
