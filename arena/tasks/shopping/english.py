"""English for the query templates: number and percentage formatting, plurals, singulars and articles."""

from __future__ import annotations

import re


def fmt_number(value: float) -> str:
    """``430.0`` -> ``430``, ``225.15`` -> ``225.15``, ``2000.50`` -> ``2000.5``."""
    if abs(value - round(value)) < 1e-9:
        return str(int(round(value)))
    return f"{value:.2f}".rstrip("0").rstrip(".")


def fmt_percent(fraction: float) -> str:
    """``0.21`` -> ``21%``, ``0.215`` -> ``21.5%``."""
    return fmt_number(round(fraction * 100, 2)) + "%"


# ------------------------------------------------------------------------------------------------------ word forms

_IRREGULAR_PLURALS = {
    "knife": "knives",
    "leaf": "leaves",
    "shelf": "shelves",
    "life": "lives",
    "wife": "wives",
    "half": "halves",
    "man": "men",
    "woman": "women",
    "child": "children",
    "foot": "feet",
    "tooth": "teeth",
    "mouse": "mice",
    "person": "people",
    "series": "series",
    "species": "species",
    "sheep": "sheep",
    "fish": "fish",
}
_IRREGULAR_SINGULARS = {plural: single for single, plural in _IRREGULAR_PLURALS.items()}
#: Nouns that end in "s" but are singular.
_SINGULAR_S = frozenset(
    {
        "lens",
        "canvas",
        "chassis",
        "atlas",
        "gas",
        "bias",
        "iris",
        "bus",
        "abacus",
        "cactus",
        "bonus",
        "campus",
        "citrus",
        "hummus",
        "octopus",
        "walrus",
        "series",
        "species",
        "mattress",
    }
)
_SPLITTERS = (" of ", " for ", " with ", " in ", " to ")
SIZE_LETTERS = frozenset({"xxs", "xs", "s", "m", "l", "xl", "xxl", "xxxl", "2xl", "3xl", "4xl", "5xl", "6xl"})


def is_plural_word(word: str) -> bool:
    w = word.lower()
    if w in _IRREGULAR_SINGULARS and w not in _IRREGULAR_PLURALS:
        return True
    if w in _SINGULAR_S or not w.endswith("s") or len(w) < 3:
        return False
    return not w.endswith(("ss", "us", "is", "ous"))


def plural_word(word: str) -> str:
    w = word.lower()
    if w in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[w]
    if is_plural_word(w) or not w[-1:].isalpha():
        return word
    if w.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if w.endswith("y") and len(w) > 1 and w[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def head_part(noun: str) -> tuple[str, str]:
    """Split "case for iphone" into ("case", " for iphone"): the part whose last word takes the plural."""
    cut = min((noun.find(s) for s in _SPLITTERS if s in noun), default=-1)
    return (noun, "") if cut < 0 else (noun[:cut], noun[cut:])


def is_plural(noun: str) -> bool:
    head, _ = head_part(noun)
    words = head.split()
    return bool(words) and is_plural_word(words[-1])


def plural(noun: str) -> str:
    """``crash cymbal`` -> ``crash cymbals``, ``kitchen knife`` -> ``kitchen knives``, ``jeans`` -> ``jeans``."""
    head, tail = head_part(noun)
    words = head.split()
    if not words:
        return noun
    words[-1] = plural_word(words[-1])
    return " ".join(words) + tail


def singular_word(word: str) -> str:
    w = word.lower()
    if w in _IRREGULAR_SINGULARS:
        return _IRREGULAR_SINGULARS[w]
    if not is_plural_word(w):
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ches", "shes", "xes", "sses", "zes")):
        return w[:-2]
    return w[:-1]


def article(phrase: str) -> str:
    """The indefinite article for ``phrase``: "an" before a vowel sound, else "a" (a heuristic, good enough)."""
    word = phrase.split()[0].lower() if phrase.split() else ""
    digits = re.match(r"\d+", word)
    if digits:
        number = digits.group()
        return "an" if number.startswith("8") or number in ("11", "18") else "a"
    if word.startswith(("hour", "honest", "honor", "heir")):
        return "an"
    if word.startswith(("uni", "use", "usb", "usu", "ure", "uro", "eu", "one", "once", "ubi")):
        return "a"
    return "an" if word[:1] in "aeiou" and word[:1] else "a"


def with_article(phrase: str) -> str:
    return f"{article(phrase)} {phrase}"


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]
