"""What the scripted reference agent understands of the shopper: requirements read off free text against the values
the catalog showed it (`Vocabulary`), kept in a state where the latest statement about a field wins (`Needs`).

Reading is by value spotting, as a careful clerk would: a value the catalog uses for a field (an attribute or SKU
option value of a product seen so far) that the text names as a word is a requirement on that field; when the value
belongs to several fields, the field named in the text decides, and a value the just-rejected product has is what the
shopper is refusing, not asking for. Budgets are read from "at most N", "under N", "between N and M" and the like;
services from their marker phrases (`arena.tasks.shopping.phrases.SERVICE_MARKERS`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from arena.tasks.shopping.phrases import SERVICE_MARKERS, humanise
from arena.tasks.shopping.rebuild.distractors import TAGS_KEY
from arena.tasks.shopping.render import mentions

_NUM = r"[^\d\n]{0,6}?(\d[\d,]*(?:\.\d+)?)"
_MAX = re.compile(r"\b(?:at most|under|below|less than|no more than|up to|maximum|max|within)" + _NUM)
_MIN = re.compile(r"\b(?:at least|over|above|more than|no cheaper than|minimum)" + _NUM)
_RANGE = re.compile(r"\b(?:between|from)" + _NUM + r"\s*(?:and|to|-)" + _NUM)
_MONEY_WORDS = frozenset(
    "dollars dollar usd php pesos peso bucks euros eur now total each and or on for per so in at to max".split()
)
_SERVICE_WORDS = {**SERVICE_MARKERS, "official": ("official", "lazmall")}


def _money(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of ``pattern`` whose number is an amount of money: followed by no word, or by a currency
    word ("at least 20 ratings" is no price)."""
    for m in pattern.finditer(text):
        word = re.match(r"\s*([a-z]+)", text[m.end() :])
        if word is None or word.group(1) in _MONEY_WORDS:
            return m
    return None


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def pairs_of(doc: dict[str, Any]) -> set[tuple[str, str]]:
    """Every (field, value) a product document has, lowercased."""
    out = {(k, v.lower()) for k, vs in (doc.get("attributes") or {}).items() for v in vs or ()}
    for option in (doc.get("sku_options") or {}).values():
        out |= {(k, str(v).lower()) for k, v in option.items()}
    return out


@dataclass
class Vocabulary:
    """The values each field has among the products seen so far, with how many products have each."""

    values: dict[str, dict[str, int]] = field(default_factory=dict)
    #: the same counts over the best-ranked products only (those first seen among the top hits of a search)
    top: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, doc: dict[str, Any], top: bool = False) -> None:
        for key, value in pairs_of(doc):
            if key != TAGS_KEY:  # search keywords a listing carries, not a field a shopper asks about
                for table in (self.values, self.top) if top else (self.values,):
                    counts = table.setdefault(key, {})
                    counts[value] = counts.get(value, 0) + 1


def names_value(text: str, value: str) -> bool:
    """Whether ``text`` names ``value``: as a word, or every part of a list value ("activity tracker, pedometer"
    in "an activity tracker and a pedometer")."""
    if mentions(text, value):
        return True
    parts = [p.strip() for p in re.split(r",|/|&| and ", value) if p.strip()]
    return len(parts) > 1 and all(mentions(text, p) for p in parts)


@dataclass
class Needs:
    """The agent's picture of the shopper: one value per field (the latest said), a price window, services."""

    pairs: dict[str, str] = field(default_factory=dict)
    max_price: float | None = None
    min_price: float | None = None
    services: set[str] = field(default_factory=set)
    #: fields read from a bare value (the text did not name the field): dropped first when nothing fits
    weak: set[str] = field(default_factory=set)

    def fits(self, doc: dict[str, Any], ignore: frozenset[str] = frozenset()) -> bool:
        price = float(doc.get("price", 0))
        if self.max_price is not None and price > self.max_price + 1e-9:
            return False
        if self.min_price is not None and price < self.min_price - 1e-9:
            return False
        if not self.services <= set(doc.get("service") or ()):
            return False
        have = pairs_of(doc)
        return all((k, v) in have for k, v in self.pairs.items() if k not in ignore)

    def known(self) -> set[str]:
        """The fields with a stated value (price and services under their own names)."""
        out = set(self.pairs)
        if self.max_price is not None or self.min_price is not None:
            out.add("price")
        return out | self.services


def _key_named(text: str, key: str) -> bool:
    words = humanise(key)
    if key.startswith("colo"):
        words = "color"
    return mentions(text, words) or any(len(w) > 3 and mentions(text, w) for w in words.split())


def _spotted(text: str, vocab: Vocabulary, refused: set[tuple[str, str]]) -> dict[str, tuple[str, bool]]:
    """Field -> (the value the text asks for, whether the text names the field too). A value several fields have
    goes to a field the text names, else to the field most products have it under."""
    low = text.lower()
    hits: list[tuple[str, str]] = []
    for key, values in vocab.values.items():
        hits += [(key, v) for v in values if len(v) >= 2 and (key, v) not in refused and names_value(text, v)]
    said = {v for _, v in hits}
    hits = [(k, v) for k, v in hits if not any(v != w and v in w for w in said)]  # "box" inside "box of 12"
    keys_of: dict[str, list[tuple[bool, int, int, str]]] = {}
    for key, value in hits:
        top = vocab.top.get(key, {}).get(value, 0)
        keys_of.setdefault(value, []).append((_key_named(text, key), top, vocab.values[key][value], key))
    out: dict[str, tuple[str, bool]] = {}
    for value in sorted(keys_of, key=low.rfind):  # the last one said wins
        named, _, _, key = max(keys_of[value])
        out[key] = (value, named)
    return out


def read(text: str, vocab: Vocabulary, needs: Needs, refused: dict[str, Any] | None = None) -> bool:
    """Update ``needs`` from ``text`` (``refused``: the product the text turns down). Whether anything changed."""
    low = text.lower()
    before = (dict(needs.pairs), needs.max_price, needs.min_price, set(needs.services), set(needs.weak))
    for key, (value, named) in _spotted(text, vocab, pairs_of(refused) if refused else set()).items():
        for other in [k for k, v in needs.pairs.items() if v == value and k != key]:
            del needs.pairs[other]  # one value said belongs to one field: the latest reading wins
            needs.weak.discard(other)
        needs.pairs[key] = value
        if named:
            needs.weak.discard(key)
        else:
            needs.weak.add(key)
    ranged = _money(_RANGE, low)
    if ranged:
        needs.min_price, needs.max_price = _number(ranged.group(1)), _number(ranged.group(2))
    else:
        if m := _money(_MAX, low):
            needs.max_price = _number(m.group(1))
        if m := _money(_MIN, low):
            needs.min_price = _number(m.group(1))
    for service, markers in _SERVICE_WORDS.items():
        if any(marker in low for marker in markers):
            needs.services.add(service)
    return before != (needs.pairs, needs.max_price, needs.min_price, needs.services, needs.weak)
