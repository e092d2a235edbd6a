"""What the shopper of a session wants, as far as the agent has learnt it (`Wants`), and how the shopper's words are
read: the profile's notes (services, a budget), the answers to questions (an attribute or SKU value), rejections
(the value they need, never the one the rejected product has) and changes of mind (a new budget, a flipped value).

The shopper never says a label or a count, only words: a value is recognised when it is one the catalog's products
carry (the viewed candidates' attribute and SKU values), under the key the candidates carry it with."""

from __future__ import annotations

import re
from typing import Any

from baseline.text import services_of, tokens, value_pattern

#: The shopper's fixed lines, as the agent recognises them (lower case, a fragment is enough).
NO_PREFERENCE = ("no preference",)
REFUSED = ("one thing at a time", "just show me some options", "a lot to read", "ask me one short thing")
CONFIRMED = ("works for me", "go ahead", "i'll take it", "i will take it")
UNCONVINCED = ("what does it cost", "does it really have")
AGAIN = ("showed me that already", "shown me that already")
UNKNOWN = ("can't find that one", "cannot find that one")
REJECTED = ("not that one",)
CLOSED = ("look elsewhere", "gone on long enough", "conversation is over")

_NUM = r"₱?\s?(\d[\d,]*(?:\.\d+)?)"
_BETWEEN = re.compile(rf"(?:between|from)\s{_NUM}\s?(?:php|pesos?)?\s(?:and|to)\s{_NUM}")
_AT_MOST = re.compile(
    rf"(?:at most|under|below|less than|no more than|not more than|up to|max(?:imum)?(?: of)?|dropped to|down to|"
    rf"lowered to|cut to|reduced to|only have|budget(?: is| of)?(?: now| only)?(?: just)?){_NUM}"
)
_AT_LEAST = re.compile(
    rf"(?:at least|(?<!no )(?<!not )(?:over|above|more than)|no less than|starting at|minimum(?: of)?)\s{_NUM}"
)
_PRICE_CUE = re.compile(r"budget|cost|price|spend|pay|peso|php|₱|afford|cheap|expensive|pricey|purchase")
_KEY_VALUE = re.compile(r"\bthe ([a-z0-9_ -]{2,40}?) has to be ([^;]+?)\s*(?:;|\.\s|\.$|$)")
#: The shopper's own phrasing: a catalog value made only of these (a "can" packaging) is never read from a line.
_PHRASING = frozenset(
    "a an the i i'd i'm me my it it's its to for of on in is be has have had that this one not can could only "
    "change plan mind instead actually second thought rather now go ahead works work thanks sorry kind asked said "
    "there budget spend pay need needs want wants like would please just make should really what does".split()
)
_SERVICE_WORDS = {
    "official": "official store",
    "freeShipping": "free shipping",
    "COD": "cash on delivery",
    "flashsale": "flash sale",
}


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def price_bounds(text: str) -> tuple[float | None, float | None]:
    """(lowest, highest) price the words allow, or (None, None) when they name no price (a number counts only in a
    sentence about money, so "18 inches" is no budget)."""
    low = text.lower()
    if not _PRICE_CUE.search(low):
        return None, None
    m = _BETWEEN.search(low)
    if m:
        a, b = _number(m.group(1)), _number(m.group(2))
        return min(a, b), max(a, b)
    lo = hi = None
    m = _AT_MOST.search(low)
    if m:
        hi = _number(m.group(1))
    m = _AT_LEAST.search(low)
    if m:
        lo = _number(m.group(1))
    if lo is None and hi is None and "budget" in low:
        numbers = re.findall(r"\d[\d,]*(?:\.\d+)?", low)
        if numbers:
            hi = _number(numbers[-1])
    return lo, hi


class Wants:
    """The shopper's needs learnt so far: ``pairs`` (catalog key -> the value it must have; the latest word wins),
    a price range, services; the products they rejected and the one they confirmed; free ``words`` (values said
    that no candidate carries: the next search looks for them)."""

    def __init__(self) -> None:
        self.pairs: dict[str, str] = {}
        #: key -> (the words that named it, values they ruled out): a value no viewed product carried yet, kept as
        #: the words; a product fits when one of its values for the key is in them
        self.mentions: dict[str, tuple[str, frozenset[str]]] = {}
        self.lo: float | None = None
        self.hi: float | None = None
        self.services: list[str] = []
        self.words: list[str] = []
        self.rejected: set[str] = set()
        self.confirmed: str | None = None

    def __repr__(self) -> str:
        return (
            f"Wants(pairs={self.pairs}, mentions={sorted(self.mentions)}, price=({self.lo}, {self.hi}), "
            f"services={self.services})"
        )

    @property
    def price(self) -> str | None:
        """The price range as ``find_product`` takes it, or None."""
        if self.lo is None and self.hi is None:
            return None
        lo = "" if self.lo is None else f"{self.lo:g}"
        hi = "" if self.hi is None else f"{self.hi:g}"
        return f"{lo}-{hi}"

    def add_services(self, names: list[str]) -> bool:
        fresh = [n for n in names if n not in self.services]
        self.services += fresh
        return bool(fresh)

    def set_price(self, lo: float | None, hi: float | None) -> bool:
        """Take the bounds the words named (a change of mind replaces the bound it names)."""
        changed = False
        if lo is not None and lo != self.lo:
            self.lo, changed = lo, True
        if hi is not None and hi != self.hi:
            self.hi, changed = hi, True
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            self.lo = None
        return changed

    def fits(self, summary: dict[str, Any], detail: dict[str, Any] | None) -> bool:
        """Whether a product meets everything learnt (its key-value pairs exactly, as the strict checks read them)."""
        try:
            price = float(summary.get("price") or 0)
        except (TypeError, ValueError):
            price = 0.0
        if self.lo is not None and price < self.lo - 1e-9:
            return False
        if self.hi is not None and price > self.hi + 1e-9:
            return False
        have = set(summary.get("service") or ())
        if any(s not in have for s in self.services):
            return False
        if not self.pairs and not self.mentions:
            return True
        if detail is None:
            return False
        if not all(has_pair(detail, k, v) for k, v in self.pairs.items()):
            return False
        carried = values_by_key({"": detail})
        return all(
            any(v not in ruled_out and _said(v, words) for v in carried.get(key, ()))
            for key, (words, ruled_out) in self.mentions.items()
        )


def _said(value: str, words: str) -> bool:
    pattern = value_pattern(value)
    return pattern is not None and pattern.search(words) is not None


def named_key(text: str, known: dict[str, set[str]]) -> str | None:
    """The catalog key the words name by its whole name (the longest such name), or None."""
    low = " ".join(text.lower().split())
    named = [k for k in known if _named(k, low) == 2 and not all(w in _PHRASING for w in tokens(k))]
    return max(named, key=lambda k: (len(k), k)) if named else None


def has_pair(detail: dict[str, Any], key: str, value: str) -> bool:
    """The product carries ``key: value`` in its attributes or in one of its SKU options."""
    if value in (detail.get("attributes") or {}).get(key, ()):
        return True
    options = (detail.get("sku_options") or {}).values()
    return any(isinstance(o, dict) and o.get(key) == value for o in options)


def values_by_key(details: dict[str, dict[str, Any]]) -> dict[str, set[str]]:
    """Every attribute and SKU value the viewed products carry, by catalog key."""
    out: dict[str, set[str]] = {}
    for doc in details.values():
        for key, values in (doc.get("attributes") or {}).items():
            for v in values if isinstance(values, list) else [values]:
                out.setdefault(str(key), set()).add(str(v))
        for option in (doc.get("sku_options") or {}).values():
            if isinstance(option, dict):
                for key, v in option.items():
                    out.setdefault(str(key), set()).add(str(v))
    return out


def find_value(
    text: str, known: dict[str, set[str]], prefer: str | None = None, exclude: set[tuple[str, str]] | None = None
) -> tuple[str, str] | None:
    """The (key, value) the words name: the catalog value found in them under the ``prefer``red key, else under the
    key the words name, else the longest; none of ``exclude`` (what a rejected product has: the shopper names it
    only to say it is wrong)."""
    low = " ".join(text.lower().split())
    explicit = _KEY_VALUE.search(low)  # "the color_family has to be red": a stated constraint, word for word
    if explicit and explicit.group(1).strip().replace(" ", "_") in known:
        return explicit.group(1).strip().replace(" ", "_"), explicit.group(2).strip()
    exclude = exclude or set()
    best: tuple[int, int, int, str, str] | None = None
    for key in sorted(known):
        for value in sorted(known[key]):
            if (key, value) in exclude or len(value) < 2 or all(w in _PHRASING for w in tokens(value)):
                continue
            pattern = value_pattern(value)
            if pattern is None or not pattern.search(low):
                continue
            rank = (1 if key == prefer else 0, _named(key, low), len(value), key, value)
            if best is None or rank[:3] > best[:3]:
                best = rank
    return (best[3], best[4]) if best else None


def _named(key: str, low: str) -> int:
    """How plainly the words name ``key``: 2 its whole name ("origin" for ``origin``, not for
    ``country_of_origin``), 1 one of its longer words ("color" for ``color_family``), else 0."""
    words = key.lower().replace("_", " ").replace("-", " ")
    whole = value_pattern(words)
    if whole is not None and whole.search(low):
        return 2
    return int(any(len(w) > 3 and (p := value_pattern(w)) is not None and p.search(low) for w in words.split()))


def pairs_of(detail: dict[str, Any]) -> set[tuple[str, str]]:
    """Every (key, value) a product carries."""
    return {(k, v) for k, vs in values_by_key({"": detail}).items() for v in vs}


def read_line(
    wants: Wants,
    text: str,
    known: dict[str, set[str]],
    prefer: str | None = None,
    product: dict[str, Any] | None = None,
) -> bool:
    """Learn from one of the shopper's lines: a price, services, a value (not one ``product`` has, when the line
    rejects it). Whether anything new was learnt."""
    learnt = wants.set_price(*price_bounds(text))
    learnt |= wants.add_services(services_of(text.lower()))
    ruled_out = pairs_of(product) if product else set()
    found = find_value(text, known, prefer, ruled_out)
    if found is not None:
        wants.mentions.pop(found[0], None)
        if wants.pairs.get(found[0]) != found[1]:
            wants.pairs[found[0]] = found[1]
            learnt = True
        return learnt
    key = named_key(text, known)
    if key is not None:  # a value no viewed product carries: the words stand for it until one is seen
        wants.pairs.pop(key, None)
        wants.mentions[key] = (" ".join(text.lower().split()), frozenset(v for k, v in ruled_out if k == key))
        learnt = True
    return learnt


def read_profile(wants: Wants, profile: Any) -> str:
    """Services and a budget from the profile's notes; the notes' text (the ranking reads it for values)."""
    if not isinstance(profile, dict):
        return ""
    notes = profile.get("notes")
    text = " ".join(str(n) for n in notes) if isinstance(notes, list) else str(notes or "")
    wants.add_services(services_of(text.lower()))
    wants.set_price(*price_bounds(text))
    return text


def quote(summary: dict[str, Any], detail: dict[str, Any] | None, wants: Wants, words: str) -> str:
    """A proposal's message: the title, the catalog price, and the values that matter (a skeptical shopper wants
    the price and a value they asked for quoted)."""
    from baseline.text import fmt

    try:
        price = fmt(float(summary.get("price") or 0))
    except (TypeError, ValueError):
        price = "?"
    said = []
    low = words.lower()
    for key, value in sorted(pairs_of(detail or {})):
        pattern = value_pattern(value)
        if wants.pairs.get(key) == value or (pattern is not None and pattern.search(low)):
            said.append(f"{key.replace('_', ' ')} {value}")
    services = [_SERVICE_WORDS.get(s, s) for s in wants.services if s in (summary.get("service") or ())]
    extra = "; ".join(said + services)
    title = str(summary.get("title") or "this one")[:120]
    return f"How about {title}? It costs {price}" + (f", with {extra}." if extra else ".")


def full_quote(summary: dict[str, Any], detail: dict[str, Any] | None) -> str:
    """Every value the product carries, with its price: for a shopper who wants the evidence."""
    from baseline.text import fmt

    try:
        price = fmt(float(summary.get("price") or 0))
    except (TypeError, ValueError):
        price = "?"
    said = [f"{k.replace('_', ' ')} {v}" for k, v in sorted(pairs_of(detail or {}))]
    return f"It costs {price}. It has: " + "; ".join(said)[:600] + "."
