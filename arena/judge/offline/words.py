"""The offline judge's words and numbers: a text normalized into tokens and phrases, the numbers it writes (in
cents), which words are distinctive (not stop words, not words every shopping text shares), and the comparative
wording the comparison check looks for."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_TOKEN = re.compile(r"[^\W_]+")
_NUMBER = re.compile(r"(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\d])")

STOP_WORDS = frozenset(
    """
a about above after again against all also am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers him
his how i if in into is it its itself just let me more most my no nor not now of off on once only or other our ours
out over own same she should so some such than that the their theirs them then there these they this those through
to too under until up very was we were what when where which while who whom why will with would you your yours
yes none null true false one two three four five six seven eight nine ten per via etc like get got make made need
needs want wants look looks looking see seems seem use used using well much many way also still already
ok okay sure let lets i'm it's don't can't won't
""".split()
)

#: Words every shopping completion and listing shares; they show no reading of a particular result.
GENERIC_WORDS = frozenset(
    """
product products item items price prices priced cost costs shop shops store stores seller sellers brand brands
buy buying bought order orders sold sale sales new quality good great nice best better user users customer
customers query request requested requirement requirements search searched searching result results find found
option options candidate candidates recommend recommended recommendation tool tools call calls page pages id ids
title titles description descriptions detail details information info available availability service services
free shipping delivery official cod flashsale freeshipping voucher vouchers discount total budget within
match matches matching meet meets fits fit check checked checking view viewed list listed listing listings
attribute attributes sku skus specification specifications category categories number amount value values
feature features include includes included including package box pcs piece pieces set size sizes color colors
colour colours material materials type types model models style styles version
""".split()
)

#: Attribute values too common to be a specific datum.
GENERIC_VALUES = frozenset(
    {
        "yes",
        "no",
        "none",
        "n a",
        "na",
        "other",
        "others",
        "default",
        "standard",
        "normal",
        "regular",
        "all",
        "unknown",
        "not applicable",
        "true",
        "false",
        "one size",
        "free size",
    }
)

COMPARATIVE = re.compile(
    r"\b(than|versus|vs|whereas|unlike|compared|comparison|comparing|cheaper|cheapest|pricier|priciest|costlier|"
    r"more expensive|less expensive|better|best|worse|worst|higher|highest|lower|lowest|larger|largest|smaller|"
    r"smallest|bigger|biggest|longer|shorter|lighter|heavier|prefer|preferred|preferable|instead|however|"
    r"outperforms?|beats?|only one|the other|difference|differs?)\b"
)


def tokens(text: str) -> list[str]:
    """Lower-case letter/digit runs, after NFKC normalization."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())


@lru_cache(maxsize=16384)
def phrase(text: str) -> str:
    """A value normalized for containment checks: its tokens joined by single spaces."""
    return " ".join(tokens(text))


def cents(value: float) -> int:
    return int(round(float(value) * 100))


def numbers_in(text: str) -> set[int]:
    """The numbers written in a text (``1,299.00``, ``349``, ``$12.5``), in cents."""
    out = set()
    for whole, frac in _NUMBER.findall(unicodedata.normalize("NFKC", text)):
        try:
            out.add(cents(float(whole.replace(",", "") + (frac or ""))))
        except (ValueError, OverflowError):
            continue
    return out


def specific_number(value_cents: int) -> bool:
    """Numbers worth matching: 10 or more, or with a fractional part (not page numbers, counts, '1 of 3')."""
    return value_cents >= 1000 or (value_cents > 0 and value_cents % 100 != 0)


_NOT_DISTINCTIVE = STOP_WORDS | GENERIC_WORDS


def distinctive(word: str) -> bool:
    return len(word) >= 3 and word not in _NOT_DISTINCTIVE and not word.isdigit()


@lru_cache(maxsize=8192)
def text_facts(text: str) -> tuple[frozenset[str], frozenset[int]]:
    """A text's distinctive words and numbers (cached: the same titles come back page after page)."""
    return frozenset(w for w in tokens(text) if distinctive(w)), frozenset(numbers_in(text))
