"""How one constraint is said: the phrases for a service, a price rule, a brand and an attribute or SKU value (each
holding the value verbatim), from which the item renderer picks."""

from __future__ import annotations

import re
from collections.abc import Sequence

from arena.catalog.rng import Rng
from arena.tasks.shopping.english import SIZE_LETTERS, fmt_number, singular_word, with_article

#: A constraint phrase: (preposition, body). Adjacent phrases whose preposition is "with" may be merged
#: ("with free shipping and LazFlash deals"); an empty preposition means the body stands alone.
Phrase = tuple[str, str]


def humanise(key: str) -> str:
    return key.strip().lower().replace("_", " ").replace("-", " ")


def place_name(value: str) -> str:
    """Country and place names capitalised ("south korea" -> "South Korea", "usa" -> "USA")."""
    if value.lower() in ("usa", "uk", "uae", "us"):
        return value.upper()
    return " ".join(w[:1].upper() + w[1:] for w in value.split())


def join_texts(texts: Sequence[str], rng: Rng) -> str:
    if not texts:
        return ""
    if len(texts) == 1:
        return texts[0]
    if len(texts) == 2:
        return f"{texts[0]} and {texts[1]}"
    last = ", and " if rng.chance(0.5) else " and "
    return ", ".join(texts[:-1]) + last + texts[-1]


def phrase_text(phrase: Phrase) -> str:
    prep, body = phrase
    return f"{prep} {body}" if prep else body


SERVICE_OPTIONS: dict[str, tuple[Phrase, ...]] = {
    "official": (
        ("", "from a LazMall store"),
        ("", "sold by an official LazMall shop"),
        ("", "from an official store"),
        ("with", "LazMall service"),
        ("", "from an official LazMall seller"),
        ("", "available through LazMall"),
        ("", "from an official brand store"),
    ),
    "freeShipping": (
        ("with", "free shipping"),
        ("with", "free delivery"),
        ("", "that ships for free"),
        ("", "eligible for free shipping"),
        ("with", "free delivery included"),
        ("", "with no shipping fee (free shipping)"),
    ),
    "COD": (
        ("with", "cash on delivery"),
        ("", "that supports cash on delivery"),
        ("with", "pay on delivery available"),
        ("", "payable by cash on delivery"),
        ("with", "COD (cash on delivery)"),
        ("", "that I can pay on delivery"),
    ),
    "flashsale": (
        ("with", "LazFlash deals"),
        ("", "on a LazFlash deal"),
        ("", "on a flash sale deal"),
        ("", "in a flash sale"),
        ("with", "a LazFlash discount"),
        ("", "currently in a LazFlash sale"),
    ),
}

#: Lower-case markers: every phrase for a service contains at least one of its markers.
SERVICE_MARKERS: dict[str, tuple[str, ...]] = {
    "official": ("lazmall", "official"),
    "freeShipping": ("free shipping", "free delivery", "ships for free"),
    "COD": ("cash on delivery", "pay on delivery"),
    "flashsale": ("lazflash", "flash sale"),
}

COLOR_KEYS = frozenset({"color_family", "color", "colour", "colour_family"})
_SIZE_KEYS = frozenset({"size", "shoe_size", "clothing_size", "apparel_size"})
_FOR_KEYS = frozenset({"gender", "age_group", "recommended_for", "target_group", "target_use", "suitable_for"})
_ORIGIN_KEYS = frozenset({"country_of_origin", "origin", "made_in"})
SIMPLE_WORDS = re.compile(r"^[a-z][a-z\-]*( [a-z][a-z\-]*)?$")


def price_options(price: tuple[str, float | None, float | None]) -> list[Phrase]:
    mode, lo, hi = price
    if mode == "between":
        if lo is None or hi is None:
            raise ValueError("price 'between' needs both bounds")
        if lo > hi:
            raise ValueError(f"price range [{lo}, {hi}] is empty")
        a, b = fmt_number(lo), fmt_number(hi)
        return [
            ("", f"priced between {a} and {b} PHP"),
            ("", f"priced from ₱{a} to ₱{b}"),
            ("with", f"a price range from {a} to {b} pesos"),
            ("", f"costing {a} to {b} PHP"),
            ("", f"in the ₱{a}-₱{b} price range"),
            ("", f"between {a} and {b} pesos"),
            ("with", f"a price between ₱{a} and ₱{b}"),
            ("", f"priced at {a}-{b} PHP"),
            ("", f"that costs from {a} up to {b} PHP"),
        ]
    if mode == "less than":
        if hi is None:
            raise ValueError("price 'less than' needs an upper bound")
        b = fmt_number(hi)
        pesos = "peso" if b == "1" else "pesos"
        return [
            ("", f"under {b} {pesos}"),
            ("", f"priced under ₱{b}"),
            ("", f"costing less than {b} PHP"),
            ("", f"at most {b} PHP"),
            ("", f"priced at most ₱{b}"),
            ("", f"for no more than {b} {pesos}"),
            ("", f"below ₱{b}"),
            ("with", f"a price of at most {b} PHP"),
            ("", f"that costs up to {b} PHP"),
        ]
    if mode == "greater than":
        if lo is None:
            raise ValueError("price 'greater than' needs a lower bound")
        a = fmt_number(lo)
        pesos = "peso" if a == "1" else "pesos"
        return [
            ("", f"costing more than {a} PHP"),
            ("", f"priced above ₱{a}"),
            ("", f"over {a} {pesos}"),
            ("", f"at least {a} PHP"),
            ("", f"priced at least ₱{a}"),
            ("with", f"a price of at least ₱{a}"),
            ("", f"that costs more than {a} {pesos}"),
            ("", f"priced over {a} PHP"),
            ("", f"no cheaper than ₱{a}"),
        ]
    raise ValueError(f"unknown price mode {mode!r}")


def brand_options(brand: str) -> list[Phrase]:
    return [
        ("", f"from {brand}"),
        ("", f"by {brand}"),
        ("", f"from the brand {brand}"),
        ("", f"brand: {brand}"),
        ("", f"made by {brand}"),
        ("", f"of the {brand} brand"),
    ]


def _self_descriptive(hk: str, value: str) -> bool:
    """The value names its key ("short sleeve" for sleeve_length, "dishwasher safe" for dishwasher_safe)."""
    words = {w for w in hk.split() if w not in ("type", "of", "the", "and", "level")}
    stems = {singular_word(w) for w in re.findall(r"[a-z]+", value.lower())}
    return any(singular_word(w) in stems for w in words)


def attr_options(key: str, value: str, *, sku: bool = False) -> tuple[list[Phrase], list[Phrase]]:
    """Ways to state one attribute (or SKU option), each containing ``value`` verbatim: (usual wordings,
    key-free fallbacks for when the key's name would give a web task's answer away)."""
    k = key.strip().lower()
    hk = humanise(k)
    low = value.lower()
    opts = _look_options(k, hk, value, low)
    if opts is None:
        opts = _kind_options(k, hk, value, low)
    if opts is None:
        opts = _generic_options(hk, value, low)
    if sku:
        opts.append(("", f"in the {value} variant"))
    return opts, [("", f"in the {value} variant"), ("with", f"the {value} option")]


def _look_options(k: str, hk: str, v: str, low: str) -> list[Phrase] | None:
    """Wordings for what a product is and who and where it is for: brand, colour, material, size, age, audience,
    origin; None for another key."""
    if k == "brand":
        return brand_options(v)
    if k in COLOR_KEYS:
        if not re.search(r"[a-z]{2}", low):  # "4", "c2": ShoppingBench's "in color family 4"
            return [("", f"in color family {v}"), ("", f"color family: {v}"), ("", f"in the color option {v}")]
        return [
            ("", f"in {v}"),
            ("", f"in {v} color"),
            ("", f"color: {v}"),
            ("", f"in the color {v}"),
            ("with", f"{v} as the color"),
        ]
    if k == "material":
        return [
            ("", f"made of {v}"),
            ("", f"crafted from {v}"),
            ("with", f"{v} material"),
            ("", f"material: {v}"),
            ("", f"made from {v}"),
        ]
    if k in _SIZE_KEYS:
        shown = v.upper() if low in SIZE_LETTERS else v
        if "size" in low:
            return [("", f"in {shown}"), ("", f"size: {shown}")]
        return [("", f"in size {shown}"), ("", f"size {shown}"), ("", f"size: {shown}")]
    if k == "recommended_age":
        if low[:1].isdigit():
            return [("", f"for ages {v}"), ("", f"recommended age: {v}"), ("", f"suitable for ages {v}")]
        return [("", f"for {v}"), ("", f"suitable for {v}"), ("", f"recommended age: {v}")]
    if k in _FOR_KEYS:
        if low == "unisex":
            return [("", f"in a {v} design"), ("", f"{hk}: {v}"), ("", f"in a {v} style")]
        return [("", f"for {v}"), ("", f"meant for {v}"), ("", f"suitable for {v}"), ("", f"{hk}: {v}")]
    if k in _ORIGIN_KEYS:
        p = place_name(v)
        return [("", f"made in {p}"), ("", f"country of origin: {p}"), ("", f"produced in {p}")]
    if k == "craft_origin":
        p = place_name(v)
        return [("", f"crafted in {p}"), ("", f"handmade in {p}"), ("", f"craft origin: {p}")]
    return None


def _kind_options(k: str, hk: str, v: str, low: str) -> list[Phrase] | None:
    """Wordings for a product's kind and use: flavour, scent, pattern, style, occasion, sport, fitment, warranty,
    condition, language, pack size; None for another key."""
    if k == "flavor" or k.endswith("_flavor"):
        return [
            ("", f"in {v} flavor"),
            ("with", f"{v} flavor"),
            ("", f"{hk}: {v}"),
            ("with", with_article(f"{v} taste")),
        ]
    if k == "scent":
        return [("with", with_article(f"{v} scent")), ("", f"in {v} scent"), ("", f"scent: {v}")]
    if k == "pattern":
        return [
            ("with", with_article(f"{v} pattern")),
            ("", f"in {with_article(v + ' pattern')}"),
            ("", f"pattern: {v}"),
        ]
    if k == "style":
        if low.endswith("style"):
            return [("", f"in {v}"), ("", f"style: {v}")]
        return [("", f"in {with_article(v + ' style')}"), ("", f"style: {v}"), ("with", with_article(f"{v} look"))]
    if k == "occasion":
        return [("", f"for {v} occasions"), ("", f"suitable for {v} wear"), ("", f"occasion: {v}")]
    if k == "sport" or k.endswith("_sport"):
        return [("", f"for {v}"), ("", f"made for {v}"), ("", f"sport: {v}")]
    if k == "make":
        if low == "universal":
            return [("with", f"{v} fitment"), ("", f"make: {v}")]
        return [
            ("", f"for {place_name(v)}"),
            ("", f"compatible with {place_name(v)}"),
            ("", f"make: {v}"),
            ("", f"that fits {place_name(v)}"),
        ]
    if k == "compatible_model":
        return [("", f"compatible with {v}"), ("", f"for {v}"), ("", f"that fits {v}")]
    if k == "warranty_type":
        if "warranty" in low:
            return [("with", v), ("", f"warranty: {v}"), ("", f"that comes with {v}")]
        return [("", f"warranty: {v}"), ("with", with_article(f"{v} warranty"))]
    if k == "condition":
        return [("", f"in {v} condition"), ("", f"condition: {v}")]
    if k == "language":
        return [("", f"in {v}"), ("", f"language: {v}"), ("", f"written in {v}")]
    if k == "pack_size":
        return [("", f"pack size: {v}"), ("", f"sold as {v}")]
    return None


def _generic_options(hk: str, v: str, low: str) -> list[Phrase]:
    """Wordings for any other key, from the key's name and the value's shape."""
    if low.startswith("with "):
        return [("", v), ("", f"{hk}: {v}")]
    if low[:1].isdigit() and _self_descriptive(hk, v):  # "61 keys" for synth_keys
        return [("with", v), ("", f"{hk}: {v}")]
    if low[:1].isdigit():
        return [("with", with_article(f"{v} {hk}")), ("", f"{hk}: {v}"), ("with", f"{hk} of {v}")]
    if _self_descriptive(hk, v):  # "short sleeve" for sleeve_length, "dishwasher safe" for dishwasher_safe
        return [("", f"{hk}: {v}"), ("with", with_article(f"{v} design"))]
    return [("", f"{hk}: {v}"), ("with", f"{v} as the {hk}"), ("with", with_article(f"{v} {hk}"))]
