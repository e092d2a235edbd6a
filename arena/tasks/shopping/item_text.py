"""How one requested item is said: the specs the generator fills in (what the query has to say), and an item put
into words: its noun phrase (maybe with a colour or brand before the noun), its category context, and every
constraint stated once, in a seeded order."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from arena.catalog import generator as gen
from arena.catalog.rng import Rng
from arena.tasks.shopping.english import is_plural, is_plural_word, plural, singular_word, with_article
from arena.tasks.shopping.phrases import (
    COLOR_KEYS,
    SERVICE_OPTIONS,
    SIMPLE_WORDS,
    Phrase,
    attr_options,
    brand_options,
    join_texts,
    phrase_text,
    price_options,
)


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


# --- an item in words


@dataclass
class ItemText:
    """One item put into words: its noun phrase, the phrases fixed right after it, and its constraints."""

    head: str
    lead: list[Phrase]  # fixed phrases right after the head (category context, the web anaphor)
    rest: list[Phrase]  # the constraints, in rendering order

    def inline(self, rng: Rng) -> str:
        """ "a crash cymbal in the cymbals category, made of b20 bronze and with free shipping"."""
        text = " ".join([self.head] + [phrase_text(p) for p in self.lead])
        rest = merge_with(self.rest, rng)
        if not rest:
            return text
        sep = ", " if self.lead or ": " in rest[0] else " "
        return text + sep + join_texts(rest, rng)

    def listed(self) -> str:
        return ", ".join(phrase_text(p) for p in self.lead + self.rest)


def merge_with(phrases: list[Phrase], rng: Rng) -> list[str]:
    """Texts of ``phrases``; runs of "with" phrases become one ("with free shipping and a LazFlash discount")."""
    out: list[str] = []
    run: list[str] = []
    for prep, body in phrases + [("", "")]:
        if prep == "with":
            run.append(body)
            continue
        if run:
            out.append("with " + join_texts(run, rng))
            run = []
        if body:
            out.append(phrase_text((prep, body)))
    return out


def categories(category: str) -> tuple[str, str, str]:
    parts = [p.strip() for p in category.split(">") if p.strip()]
    if not parts:
        return "", "", ""
    top = parts[0]
    mid = parts[-2] if len(parts) >= 2 else ""
    return top, mid, parts[-1]


def leaf_singular(leaf: str) -> str | None:
    """ "Cymbals" -> "cymbal", "Kitchen Knives" -> "kitchen knife"; None for compound names ("Pans & Woks")."""
    low = leaf.lower()
    if not low or re.search(r"[&,/]| and ", low):
        return None
    words = low.split()
    if not is_plural_word(words[-1]):
        return None
    words[-1] = singular_word(words[-1])
    return " ".join(words)


def category_context(item: ItemSpec, noun: str, ok: Callable[[str], bool]) -> list[Phrase]:
    top, mid, leaf = (c.lower() for c in categories(item.category))
    options: list[Phrase] = []
    single = leaf_singular(leaf)
    redundant = bool(single and (single in noun.lower() or noun.lower() in single))
    if leaf and not redundant and leaf != noun.lower():
        options += [("", f"in the {leaf} category"), ("", f"from the {leaf} section")]
    if mid:
        options += [("", f"from the {mid} department"), ("", f"in the {mid} category")]
    return [p for p in options if ok(p[1])]


def _always(text: str) -> bool:
    return True


def constraints(
    item: ItemSpec,
    rng: Rng,
    *,
    skip: Callable[[str, str], bool] = lambda k, v: False,
    ok: Callable[[str], bool] = _always,
    prefer: Callable[[str], bool] = _always,
    allow_pre: bool = True,
) -> tuple[list[str], list[Phrase]]:
    """(words to put before the noun, constraint phrases in order); every constraint not skipped is stated once.

    A phrase must pass ``ok`` (else `ValueError`) and should pass ``prefer`` (fallback wordings are tried first)."""

    def choose(options: Sequence[Phrase], what: str, fallback: Sequence[Phrase] = ()) -> Phrase:
        for pool in (options, fallback):
            good = [p for p in pool if ok(phrase_text(p)) and prefer(phrase_text(p))]
            if good:
                return rng.pick(good)
        good = [p for p in list(options) + list(fallback) if ok(phrase_text(p))]
        if not good:
            raise ValueError(f"cannot state {what} without naming the knowledge value")
        return rng.pick(good)

    pairs = [(k, v, False) for k, v in item.attributes] + [(k, v, True) for k, v in item.sku]
    pairs = [(k, v, s) for k, v, s in pairs if not skip(k, v)]
    pre: list[str] = []
    phrases: list[Phrase] = []
    color_at = next(
        (
            i
            for i, (k, v, _) in enumerate(pairs)
            if k.lower() in COLOR_KEYS and SIMPLE_WORDS.match(v.lower()) and ok(v) and prefer(v)
        ),
        None,
    )
    if allow_pre and color_at is not None and rng.chance(0.35):
        pre.append(pairs.pop(color_at)[1])
    for key, value, is_sku in pairs:
        main, fallback = attr_options(key, value, sku=is_sku)
        phrases.append(choose(main, f"{key}={value!r}", fallback))
    if item.brand:
        if allow_pre and ok(item.brand) and prefer(item.brand) and rng.chance(0.35):
            pre.append(item.brand)
        else:
            phrases.append(choose(brand_options(item.brand), f"brand {item.brand!r}"))
    for service in item.services:
        if service not in SERVICE_OPTIONS:
            raise ValueError(f"unknown service {service!r}; expected one of {sorted(SERVICE_OPTIONS)}")
        phrases.append(choose(SERVICE_OPTIONS[service], f"service {service!r}"))
    if item.price is not None:
        phrases.append(choose(price_options(item.price), "the price"))
    rng.shuffle(phrases)
    if rng.chance(0.5):  # gather the "with" phrases where the first one stands, so they merge into one
        first = next((i for i, p in enumerate(phrases) if p[0] == "with"), None)
        if first is not None:
            withs = [p for p in phrases if p[0] == "with"]
            others = [p for p in phrases if p[0] != "with"]
            phrases = others[:first] + withs + others[first:]
    return pre, phrases


def noun_phrase(noun: str, pre: list[str], *, plural_form: bool) -> str:
    if plural_form:
        return " ".join(pre + [plural(noun)])
    base = " ".join(pre + [noun])
    return base if is_plural(noun) else with_article(base)


def build_item(item: ItemSpec, rng: Rng, *, plural_ok: bool) -> ItemText:
    noun = item.noun.strip()
    if not noun:
        raise ValueError("an item needs a noun")
    pre, phrases = constraints(item, rng)
    _, _, leaf = categories(item.category)
    general = leaf_singular(leaf)
    if general and general != noun.lower() and noun.lower().endswith(" " + general) and rng.chance(0.1):
        noun = general  # the leaf's own word, a generalisation of the noun ("crash cymbal" -> "cymbal")
    head = noun_phrase(noun, pre, plural_form=plural_ok and rng.chance(0.3))
    lead: list[Phrase] = []
    context = category_context(item, noun, lambda t: True)
    if context and rng.chance(0.25):
        lead.append(rng.pick(context))
    return ItemText(head, lead, phrases)


@lru_cache(maxsize=1)
def _leaf_nouns() -> dict[str, tuple[str, ...]]:
    return {leaf.path: leaf.nouns for leaf in gen.leaves()}


def product_noun(product: dict[str, Any]) -> str:
    """The product-type phrase a shopper would use: the leaf noun found in the title, else the leaf name."""
    title = product["title"].lower()
    nouns = _leaf_nouns().get(product["category"], ())
    for noun in sorted(nouns, key=len, reverse=True):
        if noun in title:
            return noun
    if nouns:
        return nouns[0]
    leaf = product["category"].rsplit(" > ", 1)[-1].lower()
    return leaf.rstrip("s") if leaf.endswith("s") and not leaf.endswith("ss") else leaf
