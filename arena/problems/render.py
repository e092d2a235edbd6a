"""Shopping queries rendered from a problem's ground truth, in the style of ShoppingBench's synthesized queries.

The generator fixes the gold products and their constraints first; this module only puts them into words. It sees
a spec, never a product, so it cannot leak a title: every word it writes comes from the spec (noun, category names,
constraint values) or from the fixed phrase tables below.

Guarantees a checker can rely on:

- every attribute value, SKU value and brand of an `ItemSpec` appears verbatim (case-insensitively) in the query;
- every service is stated with a phrase holding one of its `SERVICE_MARKERS`;
- price bounds are printed as plain numbers (integers without ``.0``, at most two decimals, no thousands separator);
- shop queries number their items "(1) ... (2) ..." or "First, ... Second, ..." and end with one of `SHOP_CLOSINGS`;
- voucher queries end with ShoppingBench's voucher block, character for character;
- web queries never state the knowledge value: a constraint carrying it is dropped from the wording and referred to
  ("in that color"), and a noun or category name that names it is not used (`ValueError` if nothing else is left
  to say about a stated constraint without naming it).

Deterministic: the only randomness is the `Rng` passed in, consumed in a fixed order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from arena.catalog import generator as gen
from arena.catalog.rng import Rng
from arena.problems.english import (
    SIZE_LETTERS,
    capitalise,
    fmt_number,
    fmt_percent,
    is_plural,
    is_plural_word,
    plural,
    singular_word,
    with_article,
)
from arena.problems.templates import (
    FIND,
    NUMBER_WORDS,
    ORDINALS,
    PRODUCT_TEMPLATES,
    SHOP_CLOSINGS,
    SHOP_INTROS,
    VOUCHER_TEMPLATES,
    WANT,
    WEB_TEMPLATES,
)

# ------------------------------------------------------------------------------------------------------------ specs


@dataclass(frozen=True)
class ItemSpec:
    """What one requested product must be, as the query has to say it."""

    noun: str
    category: str
    brand: str | None = None
    attributes: tuple[tuple[str, str], ...] = ()
    sku: tuple[tuple[str, str], ...] = ()
    services: tuple[str, ...] = ()
    price: tuple[str, float | None, float | None] | None = None


@dataclass(frozen=True)
class VoucherSpec:
    voucher_type: str
    threshold: float
    discount_type: str
    face_value: float | None
    discount: float | None
    cap: float | None
    budget: float


@dataclass(frozen=True)
class KnowledgeSpec:
    question: str
    entity: str
    relation: str
    attribute_key: str


#: A constraint phrase: (preposition, body). Adjacent phrases whose preposition is "with" may be merged
#: ("with free shipping and LazFlash deals"); an empty preposition means the body stands alone.
Phrase = tuple[str, str]

def _humanise(key: str) -> str:
    return key.strip().lower().replace("_", " ").replace("-", " ")


def _place(value: str) -> str:
    """Country and place names capitalised ("south korea" -> "South Korea", "usa" -> "USA")."""
    if value.lower() in ("usa", "uk", "uae", "us"):
        return value.upper()
    return " ".join(w[:1].upper() + w[1:] for w in value.split())


def _join(texts: Sequence[str], rng: Rng) -> str:
    if not texts:
        return ""
    if len(texts) == 1:
        return texts[0]
    if len(texts) == 2:
        return f"{texts[0]} and {texts[1]}"
    last = ", and " if rng.chance(0.5) else " and "
    return ", ".join(texts[:-1]) + last + texts[-1]


def _phrase_text(phrase: Phrase) -> str:
    prep, body = phrase
    return f"{prep} {body}" if prep else body


# ------------------------------------------------------------------------------------------------ constraint words

SERVICE_OPTIONS: dict[str, tuple[Phrase, ...]] = {
    "official": (("", "from a LazMall store"), ("", "sold by an official LazMall shop"),
                 ("", "from an official store"), ("with", "LazMall service"), ("", "from an official LazMall seller"),
                 ("", "available through LazMall"), ("", "from an official brand store")),
    "freeShipping": (("with", "free shipping"), ("with", "free delivery"), ("", "that ships for free"),
                     ("", "eligible for free shipping"), ("with", "free delivery included"),
                     ("", "with no shipping fee (free shipping)")),
    "COD": (("with", "cash on delivery"), ("", "that supports cash on delivery"),
            ("with", "pay on delivery available"), ("", "payable by cash on delivery"),
            ("with", "COD (cash on delivery)"), ("", "that I can pay on delivery")),
    "flashsale": (("with", "LazFlash deals"), ("", "on a LazFlash deal"), ("", "on a flash sale deal"),
                  ("", "in a flash sale"), ("with", "a LazFlash discount"), ("", "currently in a LazFlash sale")),
}

#: Lower-case markers: every phrase for a service contains at least one of its markers.
SERVICE_MARKERS: dict[str, tuple[str, ...]] = {
    "official": ("lazmall", "official"),
    "freeShipping": ("free shipping", "free delivery", "ships for free"),
    "COD": ("cash on delivery", "pay on delivery"),
    "flashsale": ("lazflash", "flash sale"),
}

_COLOR_KEYS = frozenset({"color_family", "color", "colour", "colour_family"})
_SIZE_KEYS = frozenset({"size", "shoe_size", "clothing_size", "apparel_size"})
_FOR_KEYS = frozenset({"gender", "age_group", "recommended_for", "target_group", "target_use", "suitable_for"})
_ORIGIN_KEYS = frozenset({"country_of_origin", "origin", "made_in"})
_SIMPLE_WORDS = re.compile(r"^[a-z][a-z\-]*( [a-z][a-z\-]*)?$")


def _price_options(price: tuple[str, float | None, float | None]) -> list[Phrase]:
    mode, lo, hi = price
    if mode == "between":
        if lo is None or hi is None:
            raise ValueError("price 'between' needs both bounds")
        if lo > hi:
            raise ValueError(f"price range [{lo}, {hi}] is empty")
        a, b = fmt_number(lo), fmt_number(hi)
        return [("", f"priced between {a} and {b} PHP"), ("", f"priced from ₱{a} to ₱{b}"),
                ("with", f"a price range from {a} to {b} pesos"), ("", f"costing {a} to {b} PHP"),
                ("", f"in the ₱{a}-₱{b} price range"), ("", f"between {a} and {b} pesos"),
                ("with", f"a price between ₱{a} and ₱{b}"), ("", f"priced at {a}-{b} PHP"),
                ("", f"that costs from {a} up to {b} PHP")]
    if mode == "less than":
        if hi is None:
            raise ValueError("price 'less than' needs an upper bound")
        b = fmt_number(hi)
        pesos = "peso" if b == "1" else "pesos"
        return [("", f"under {b} {pesos}"), ("", f"priced under ₱{b}"), ("", f"costing less than {b} PHP"),
                ("", f"at most {b} PHP"), ("", f"priced at most ₱{b}"), ("", f"for no more than {b} {pesos}"),
                ("", f"below ₱{b}"), ("with", f"a price of at most {b} PHP"), ("", f"that costs up to {b} PHP")]
    if mode == "greater than":
        if lo is None:
            raise ValueError("price 'greater than' needs a lower bound")
        a = fmt_number(lo)
        pesos = "peso" if a == "1" else "pesos"
        return [("", f"costing more than {a} PHP"), ("", f"priced above ₱{a}"), ("", f"over {a} {pesos}"),
                ("", f"at least {a} PHP"), ("", f"priced at least ₱{a}"), ("with", f"a price of at least ₱{a}"),
                ("", f"that costs more than {a} {pesos}"), ("", f"priced over {a} PHP"),
                ("", f"no cheaper than ₱{a}")]
    raise ValueError(f"unknown price mode {mode!r}")


def _brand_options(brand: str) -> list[Phrase]:
    return [("", f"from {brand}"), ("", f"by {brand}"), ("", f"from the brand {brand}"), ("", f"brand: {brand}"),
            ("", f"made by {brand}"), ("", f"of the {brand} brand")]


def _self_descriptive(hk: str, value: str) -> bool:
    """The value names its key ("short sleeve" for sleeve_length, "dishwasher safe" for dishwasher_safe)."""
    words = {w for w in hk.split() if w not in ("type", "of", "the", "and", "level")}
    stems = {singular_word(w) for w in re.findall(r"[a-z]+", value.lower())}
    return any(singular_word(w) in stems for w in words)


def _attr_options(key: str, value: str, *, sku: bool = False) -> tuple[list[Phrase], list[Phrase]]:
    """Ways to state one attribute (or SKU option), each containing ``value`` verbatim: (usual wordings,
    key-free fallbacks for when the key's name would give a web task's answer away)."""
    k = key.strip().lower()
    hk = _humanise(k)
    v = value
    low = v.lower()
    opts: list[Phrase]
    if k == "brand":
        opts = _brand_options(v)
    elif k in _COLOR_KEYS:
        if not re.search(r"[a-z]{2}", low):  # "4", "c2": ShoppingBench's "in color family 4"
            opts = [("", f"in color family {v}"), ("", f"color family: {v}"), ("", f"in the color option {v}")]
        else:
            opts = [("", f"in {v}"), ("", f"in {v} color"), ("", f"color: {v}"), ("", f"in the color {v}"),
                    ("with", f"{v} as the color")]
    elif k == "material":
        opts = [("", f"made of {v}"), ("", f"crafted from {v}"), ("with", f"{v} material"), ("", f"material: {v}"),
                ("", f"made from {v}")]
    elif k in _SIZE_KEYS:
        shown = v.upper() if low in SIZE_LETTERS else v
        if "size" in low:
            opts = [("", f"in {shown}"), ("", f"size: {shown}")]
        else:
            opts = [("", f"in size {shown}"), ("", f"size {shown}"), ("", f"size: {shown}")]
    elif k == "recommended_age":
        if low[:1].isdigit():
            opts = [("", f"for ages {v}"), ("", f"recommended age: {v}"), ("", f"suitable for ages {v}")]
        else:
            opts = [("", f"for {v}"), ("", f"suitable for {v}"), ("", f"recommended age: {v}")]
    elif k in _FOR_KEYS:
        if low == "unisex":
            opts = [("", f"in a {v} design"), ("", f"{hk}: {v}"), ("", f"in a {v} style")]
        else:
            opts = [("", f"for {v}"), ("", f"meant for {v}"), ("", f"suitable for {v}"), ("", f"{hk}: {v}")]
    elif k in _ORIGIN_KEYS:
        p = _place(v)
        opts = [("", f"made in {p}"), ("", f"country of origin: {p}"), ("", f"produced in {p}")]
    elif k == "craft_origin":
        p = _place(v)
        opts = [("", f"crafted in {p}"), ("", f"handmade in {p}"), ("", f"craft origin: {p}")]
    elif k == "flavor" or k.endswith("_flavor"):
        opts = [("", f"in {v} flavor"), ("with", f"{v} flavor"), ("", f"{hk}: {v}"),
                ("with", with_article(f"{v} taste"))]
    elif k == "scent":
        opts = [("with", with_article(f"{v} scent")), ("", f"in {v} scent"), ("", f"scent: {v}")]
    elif k == "pattern":
        opts = [("with", with_article(f"{v} pattern")), ("", f"in {with_article(v + ' pattern')}"),
                ("", f"pattern: {v}")]
    elif k == "style":
        if low.endswith("style"):
            opts = [("", f"in {v}"), ("", f"style: {v}")]
        else:
            opts = [("", f"in {with_article(v + ' style')}"), ("", f"style: {v}"),
                    ("with", with_article(f"{v} look"))]
    elif k == "occasion":
        opts = [("", f"for {v} occasions"), ("", f"suitable for {v} wear"), ("", f"occasion: {v}")]
    elif k == "sport" or k.endswith("_sport"):
        opts = [("", f"for {v}"), ("", f"made for {v}"), ("", f"sport: {v}")]
    elif k == "make":
        if low == "universal":
            opts = [("with", f"{v} fitment"), ("", f"make: {v}")]
        else:
            opts = [("", f"for {_place(v)}"), ("", f"compatible with {_place(v)}"), ("", f"make: {v}"),
                    ("", f"that fits {_place(v)}")]
    elif k == "compatible_model":
        opts = [("", f"compatible with {v}"), ("", f"for {v}"), ("", f"that fits {v}")]
    elif k == "warranty_type":
        if "warranty" in low:
            opts = [("with", v), ("", f"warranty: {v}"), ("", f"that comes with {v}")]
        else:
            opts = [("", f"warranty: {v}"), ("with", with_article(f"{v} warranty"))]
    elif k == "condition":
        opts = [("", f"in {v} condition"), ("", f"condition: {v}")]
    elif k == "language":
        opts = [("", f"in {v}"), ("", f"language: {v}"), ("", f"written in {v}")]
    elif k == "pack_size":
        opts = [("", f"pack size: {v}"), ("", f"sold as {v}")]
    elif low.startswith("with "):
        opts = [("", v), ("", f"{hk}: {v}")]
    elif low[:1].isdigit() and _self_descriptive(hk, v):  # "61 keys" for synth_keys
        opts = [("with", v), ("", f"{hk}: {v}")]
    elif low[:1].isdigit():
        opts = [("with", with_article(f"{v} {hk}")), ("", f"{hk}: {v}"), ("with", f"{hk} of {v}")]
    elif _self_descriptive(hk, v):  # "short sleeve" for sleeve_length, "dishwasher safe" for dishwasher_safe
        opts = [("", f"{hk}: {v}"), ("with", with_article(f"{v} design"))]
    else:
        opts = [("", f"{hk}: {v}"), ("with", f"{v} as the {hk}"), ("with", with_article(f"{v} {hk}"))]
    if sku:
        opts.append(("", f"in the {v} variant"))
    return opts, [("", f"in the {v} variant"), ("with", f"the {v} option")]


# ------------------------------------------------------------------------------------------------- leak detection


def _word_pattern(values: Sequence[str]) -> re.Pattern[str] | None:
    alts = sorted({re.escape(v.strip().lower()) for v in values if v.strip()}, key=len, reverse=True)
    if not alts:
        return None
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(alts) + r")(?:s|es)?(?![a-z0-9])")


def mentions(text: str, value: str) -> bool:
    """Whether ``text`` names ``value`` as a word (plural allowed): "Violins" names "violin", "Tanaw" not "tan"."""
    pattern = _word_pattern([value])
    return pattern is not None and pattern.search(text.lower()) is not None


@lru_cache(maxsize=64)
def _known_values(attribute_key: str) -> re.Pattern[str] | None:
    """Every value the catalog's taxonomy has for ``attribute_key`` (for "instrument": the instrument nouns)."""
    values: set[str] = set()
    for leaf in gen.leaves():
        if attribute_key == "instrument":
            if leaf.top == "Musical Instruments":
                values.update(n for n in leaf.nouns if len(n.split()) <= 2)
        else:
            values.update(leaf.schema.get(attribute_key, ()))
    return _word_pattern(sorted(values))


# ------------------------------------------------------------------------------------------------ item rendering


@dataclass
class _Item:
    head: str
    lead: list[Phrase]  # fixed phrases right after the head (category context, the web anaphor)
    rest: list[Phrase]  # the constraints, in rendering order

    def inline(self, rng: Rng) -> str:
        """"a crash cymbal in the cymbals category, made of b20 bronze and with free shipping"."""
        text = " ".join([self.head] + [_phrase_text(p) for p in self.lead])
        rest = _merge_with(self.rest, rng)
        if not rest:
            return text
        sep = ", " if self.lead or ": " in rest[0] else " "
        return text + sep + _join(rest, rng)

    def listed(self) -> str:
        return ", ".join(_phrase_text(p) for p in self.lead + self.rest)


def _merge_with(phrases: list[Phrase], rng: Rng) -> list[str]:
    """Texts of ``phrases``; runs of "with" phrases become one ("with free shipping and a LazFlash discount")."""
    out: list[str] = []
    run: list[str] = []
    for prep, body in phrases + [("", "")]:
        if prep == "with":
            run.append(body)
            continue
        if run:
            out.append("with " + _join(run, rng))
            run = []
        if body:
            out.append(_phrase_text((prep, body)))
    return out


def _categories(category: str) -> tuple[str, str, str]:
    parts = [p.strip() for p in category.split(">") if p.strip()]
    if not parts:
        return "", "", ""
    top = parts[0]
    mid = parts[-2] if len(parts) >= 2 else ""
    return top, mid, parts[-1]


def _leaf_singular(leaf: str) -> str | None:
    """"Cymbals" -> "cymbal", "Kitchen Knives" -> "kitchen knife"; None for compound names ("Pans & Woks")."""
    low = leaf.lower()
    if not low or re.search(r"[&,/]| and ", low):
        return None
    words = low.split()
    if not is_plural_word(words[-1]):
        return None
    words[-1] = singular_word(words[-1])
    return " ".join(words)


def _category_context(item: ItemSpec, noun: str, ok: Callable[[str], bool]) -> list[Phrase]:
    top, mid, leaf = (c.lower() for c in _categories(item.category))
    options: list[Phrase] = []
    single = _leaf_singular(leaf)
    redundant = bool(single) and (single in noun.lower() or noun.lower() in (single or ""))
    if leaf and not redundant and leaf != noun.lower():
        options += [("", f"in the {leaf} category"), ("", f"from the {leaf} section")]
    if mid:
        options += [("", f"from the {mid} department"), ("", f"in the {mid} category")]
    return [p for p in options if ok(p[1])]


def _always(text: str) -> bool:
    return True


def _constraints(item: ItemSpec, rng: Rng, *, skip: Callable[[str, str], bool] = lambda k, v: False,
                 ok: Callable[[str], bool] = _always, prefer: Callable[[str], bool] = _always,
                 allow_pre: bool = True) -> tuple[list[str], list[Phrase]]:
    """(words to put before the noun, constraint phrases in order); every constraint not skipped is stated once.

    A phrase must pass ``ok`` (else `ValueError`) and should pass ``prefer`` (fallback wordings are tried first)."""

    def choose(options: Sequence[Phrase], what: str, fallback: Sequence[Phrase] = ()) -> Phrase:
        for pool in (options, fallback):
            good = [p for p in pool if ok(_phrase_text(p)) and prefer(_phrase_text(p))]
            if good:
                return rng.pick(good)
        good = [p for p in list(options) + list(fallback) if ok(_phrase_text(p))]
        if not good:
            raise ValueError(f"cannot state {what} without naming the knowledge value")
        return rng.pick(good)

    pairs = [(k, v, False) for k, v in item.attributes] + [(k, v, True) for k, v in item.sku]
    pairs = [(k, v, s) for k, v, s in pairs if not skip(k, v)]
    pre: list[str] = []
    phrases: list[Phrase] = []
    color_at = next((i for i, (k, v, _) in enumerate(pairs) if k.lower() in _COLOR_KEYS
                     and _SIMPLE_WORDS.match(v.lower()) and ok(v) and prefer(v)), None)
    if allow_pre and color_at is not None and rng.chance(0.35):
        pre.append(pairs.pop(color_at)[1])
    for key, value, is_sku in pairs:
        main, fallback = _attr_options(key, value, sku=is_sku)
        phrases.append(choose(main, f"{key}={value!r}", fallback))
    if item.brand:
        if allow_pre and ok(item.brand) and prefer(item.brand) and rng.chance(0.35):
            pre.append(item.brand)
        else:
            phrases.append(choose(_brand_options(item.brand), f"brand {item.brand!r}"))
    for service in item.services:
        if service not in SERVICE_OPTIONS:
            raise ValueError(f"unknown service {service!r}; expected one of {sorted(SERVICE_OPTIONS)}")
        phrases.append(choose(SERVICE_OPTIONS[service], f"service {service!r}"))
    if item.price is not None:
        phrases.append(choose(_price_options(item.price), "the price"))
    rng.shuffle(phrases)
    if rng.chance(0.5):  # gather the "with" phrases where the first one stands, so they merge into one
        first = next((i for i, p in enumerate(phrases) if p[0] == "with"), None)
        if first is not None:
            withs = [p for p in phrases if p[0] == "with"]
            others = [p for p in phrases if p[0] != "with"]
            phrases = others[:first] + withs + others[first:]
    return pre, phrases


def _noun_phrase(noun: str, pre: list[str], *, plural_form: bool) -> str:
    if plural_form:
        return " ".join(pre + [plural(noun)])
    base = " ".join(pre + [noun])
    return base if is_plural(noun) else with_article(base)


def _build_item(item: ItemSpec, rng: Rng, *, plural_ok: bool) -> _Item:
    noun = item.noun.strip()
    if not noun:
        raise ValueError("an item needs a noun")
    pre, phrases = _constraints(item, rng)
    _, _, leaf = _categories(item.category)
    general = _leaf_singular(leaf)
    if general and general != noun.lower() and noun.lower().endswith(" " + general) and rng.chance(0.1):
        noun = general  # the leaf's own word, a generalisation of the noun ("crash cymbal" -> "cymbal")
    head = _noun_phrase(noun, pre, plural_form=plural_ok and rng.chance(0.3))
    lead: list[Phrase] = []
    context = _category_context(item, noun, lambda t: True)
    if context and rng.chance(0.25):
        lead.append(rng.pick(context))
    return _Item(head, lead, phrases)


# ---------------------------------------------------------------------------------------------------- task queries


def render_product_query(item: ItemSpec, rng: Rng) -> str:
    """One product: "Show me Toyota back door buffer pads with LazFlash deals, priced from 101 to 430 PHP."."""
    built = _build_item(item, rng, plural_ok=True)
    usable = [t for t, split in PRODUCT_TEMPLATES if not split or built.rest or built.lead]
    template = rng.pick(usable)
    inline = built.inline(rng) if "{item}" in template else ""
    text = template.format(item=inline, head=built.head, details=built.listed(),
                           find=rng.pick(FIND), want=rng.pick(WANT))
    return capitalise(text)


def render_shop_query(items: list[ItemSpec], rng: Rng) -> str:
    """2-4 products of one shop, numbered, then a closing sentence from `SHOP_CLOSINGS`."""
    if not 2 <= len(items) <= 4:
        raise ValueError(f"a shop query lists 2-4 items, got {len(items)}")
    texts = [_build_item(it, rng, plural_ok=False).inline(rng) for it in items]
    intro = rng.pick(SHOP_INTROS).format(n=NUMBER_WORDS[len(items)])
    style = rng.below(4)
    if style == 0:
        body = "; ".join(f"({i + 1}) {t}" for i, t in enumerate(texts)) + "."
    elif style == 1:
        body = " ".join(f"({i + 1}) {capitalise(t)}." for i, t in enumerate(texts))
    elif style == 2:
        body = " ".join(f"{ORDINALS[i]}, {t}." for i, t in enumerate(texts))
    else:
        body = "; ".join(f"{ORDINALS[i] if i == 0 else ORDINALS[i].lower()}, {t}" for i, t in enumerate(texts)) + "."
    return f"{intro} {body} {rng.pick(SHOP_CLOSINGS)}"


def voucher_block(voucher: VoucherSpec) -> str:
    """ShoppingBench's budget-and-voucher paragraph, exactly (it starts with the blank line)."""
    if voucher.voucher_type == "platform":
        scope = "The voucher applies to all products."
    elif voucher.voucher_type == "shop":
        scope = "The voucher only applies to the products from the same shop."
    else:
        raise ValueError(f"unknown voucher type {voucher.voucher_type!r}")
    if voucher.discount_type == "fixed":
        if voucher.face_value is None:
            raise ValueError("a fixed voucher needs a face value")
        benefit = f"It provides a fixed discount of `{fmt_number(voucher.face_value)}`."
    elif voucher.discount_type == "percentage":
        if voucher.discount is None:
            raise ValueError("a percentage voucher needs a discount")
        cap = "" if voucher.cap is None else f" with a cap of `{fmt_number(voucher.cap)}`"
        benefit = f"It provides a percentage discount of `{fmt_percent(voucher.discount)}`{cap}."
    else:
        raise ValueError(f"unknown discount type {voucher.discount_type!r}")
    return (f"\n\nMy budget is only `{fmt_number(voucher.budget)}`, but I have a voucher with the following rules:\n"
            f"1. {scope}\n"
            f"2. It is valid only when the total price of the products exceeds `{fmt_number(voucher.threshold)}`.\n"
            f"3. {benefit}")


def _join_items(texts: Sequence[str], rng: Rng) -> str:
    """Whole items joined so that the joints stand out from the "and"s inside each item."""
    if len(texts) == 1:
        return texts[0]
    sep, last = rng.pick([(", ", ", and also "), ("; ", "; and "), (", ", ", as well as "), ("; ", "; plus "),
                          ("; ", "; and also ")])
    if len(texts) > 2:  # items carry commas of their own
        sep, last = "; ", "; " + last.lstrip(",; ")
    return sep.join(texts[:-1]) + last + texts[-1]


def render_voucher_query(items: list[ItemSpec], voucher: VoucherSpec, rng: Rng) -> str:
    """1-4 products, then the voucher block (`voucher_block`) last."""
    if not 1 <= len(items) <= 4:
        raise ValueError(f"a voucher query lists 1-4 items, got {len(items)}")
    block = voucher_block(voucher)
    texts = [_build_item(it, rng, plural_ok=False).inline(rng) for it in items]
    template = rng.pick([t for t, least in VOUCHER_TEMPLATES if len(items) >= least])
    if "{items}" in template:
        text = template.format(items=_join_items(texts, rng))
    else:
        text = template.format(first=texts[0], rest=_join_items(texts[1:], rng))
    return capitalise(text) + block


_ANAPHORS: dict[str, tuple[str, ...]] = {
    "color_family": ("in that color", "in the same color", "in that exact color"),
    "color": ("in that color", "in the same color", "in that exact color"),
    "material": ("made of that material", "crafted from the same material", "made from that material"),
    "flavor": ("in that flavor", "with that flavor", "in the same flavor"),
    "sport": ("for that sport", "made for that sport", "meant for the same sport"),
    "instrument": ("for that instrument", "to go with that instrument", "made for that instrument"),
}


def _strip_values(noun: str, pattern: re.Pattern[str]) -> str | None:
    """``noun`` without the words ``pattern`` matches, if its head word survives ("guitar capo" -> "capo");
    "" when the whole noun is a value ("acoustic guitar"), None when the head word itself is one."""
    low = noun.lower()
    matches = list(pattern.finditer(low))
    if not matches:
        return noun
    last_start = len(low.rstrip()) - len(low.split()[-1]) if low.split() else 0
    if any(m.end() > last_start for m in matches):
        rest = pattern.sub(" ", low)
        return "" if not re.search(r"[a-z]", rest) else None
    rest = re.sub(r"\s+", " ", pattern.sub(" ", noun)).strip(" -")
    rest = re.sub(r"^(?:and|of|for|with|-)\s+", "", rest)
    return rest if re.search(r"[a-z]", rest.lower()) else ""


def render_web_query(item: ItemSpec, knowledge: KnowledgeSpec, rng: Rng, answer: str | None = None) -> str:
    """The knowledge question, then a request for a product with the answer's trait, never naming the answer.

    The answer is ``answer`` when given, else the value of the item's attribute or SKU option keyed
    ``knowledge.attribute_key`` (that constraint is then referred to, not stated). When neither is known, every value
    the taxonomy has for the key counts as a possible answer for the noun and category words.
    """
    key = knowledge.attribute_key.strip().lower()
    if answer is None:
        answer = next((v for k, v in item.attributes + item.sku if k.lower() == key), None)
    if answer is not None and mentions(knowledge.question, answer):
        raise ValueError("the knowledge question names its own answer")
    avoid = _word_pattern([answer]) if answer else _known_values(key)

    def ok(text: str) -> bool:
        return answer is None or not mentions(text, answer)

    def safe(text: str) -> bool:
        return avoid is None or avoid.search(text.lower()) is None

    skip_pair: Callable[[str, str], bool] = (
        (lambda k, v: k.lower() == key and v.lower() == answer.lower()) if answer else (lambda k, v: False))
    noun = item.noun.strip()
    kept = _strip_values(noun, avoid) if avoid is not None else noun
    pre, phrases = _constraints(item, rng, skip=skip_pair, ok=ok, prefer=safe, allow_pre=bool(kept))
    hk = "color" if key in _COLOR_KEYS else _humanise(key)
    anaphors = _ANAPHORS.get(key, (f"with that {hk}", f"with the same {hk}", f"matching that {hk}"))
    top, _, _ = _categories(item.category)
    lead: list[Phrase] = []
    if kept:
        head = _noun_phrase(kept, pre, plural_form=False)
        lead.append(("", rng.pick(anaphors)))
        context = _category_context(item, kept, safe)
        if context and rng.chance(0.2):
            lead.append(rng.pick(context))
    elif key == "instrument":  # the noun is the instrument itself: "I'd like to buy one"
        head = rng.pick(["one", "that instrument", "an instrument of that kind", "the same instrument"])
        if top and safe(top) and rng.chance(0.3):
            lead.append(("", f"from the {top.lower()} category"))
    else:
        contexts = [c.lower() for c in reversed(_categories(item.category)) if c and safe(c)]
        head = f"something from the {contexts[0]} category" if contexts else "something"
        lead.append(("", rng.pick(anaphors)))
    built = _Item(head, lead, phrases)
    question = knowledge.question.strip()
    return rng.pick(WEB_TEMPLATES).format(q=question, item=built.inline(rng))


# ---------------------------------------------------------------------------------------------- knowledge questions

_QUESTIONS: dict[str, tuple[str, ...]] = {
    "instrument": ("Which instrument is {e} best known for playing?", "What instrument does {e} play?",
                   "What instrument is the musician {e} famous for?", "Which instrument does {e} play?",
                   "What is the main instrument of the musician {e}?"),
    "sport": ("What sport does {e} compete in?", "In which sport does the athlete {e} compete?",
              "Which sport is {e} a professional athlete in?", "What sport does {e} play professionally?"),
    "flavor": ("What flavor is {e} famous for?", "Which flavor is {e} best known for?",
               "What is the signature flavor of {e}?", "What flavor are the local treats of {e} known for?"),
    "material": ("What material are the crafts of {e} made of?", "Which material do the artisans of {e} work with?",
                 "What are the handicrafts of {e} made from?", "What material is {e} known for in its crafts?"),
    "color_family": ("What color are the home jerseys of {the}{e}?", "Which color do {the}{e} wear at home games?",
                     "What is the home color of {the}{e}?", "What color do {the}{e} play in at home?"),
}
_RELATION_KEYS = {"plays": "instrument", "competes in": "sport", "is famous for the flavor": "flavor",
                  "is known for crafts made of": "material", "wears the home color": "color_family"}


def knowledge_question(entity: str, entity_type: str, relation: str, attribute_key: str, rng: Rng) -> str:
    """A natural question whose answer is the fact's value (which the question never contains)."""
    key = attribute_key.strip().lower()
    if key not in _QUESTIONS:
        key = _RELATION_KEYS.get(relation.strip().lower(), key)
    the = "the " if entity_type == "team" and not entity.lower().startswith("the ") else ""
    if key == "color_family" and entity_type != "team":
        options: Sequence[str] = ("What color is {e} known for?", "Which color is {e} associated with?")
    elif key in _QUESTIONS:
        options = _QUESTIONS[key]
    else:
        hk = _humanise(key)
        options = (f"What {hk} is {{e}} known for?", f"Which {hk} is {{e}} associated with?")
    return rng.pick(options).format(e=entity, the=the)
