"""The query, parsed: the requested items (`Item`) with their price ranges, services and search words; how shop and
voucher queries list their items; a voucher task's voucher and budget."""

from __future__ import annotations

import re
from typing import Any

from baseline.text import CATEGORY, FILLER, fmt, has_currency, services_of, strip_intro, tokens

_NUM = r"(\d+(?:\.\d+)?)"
_CUR = r"(?:\s?(?:php|pesos?))?"
_PRICE_RANGE = re.compile(
    r"(?:(?:priced|costing|that costs|with a price range|with a price|a price range|a price|in the)\s)?"
    rf"(?:(?:between|from|at)\s)?₱?{_NUM}\s?(?:and|to|up to|-)\s?₱?{_NUM}{_CUR}(?:\sprice range)?"
)
_PRICE_BELOW = re.compile(
    r"(?:(?:priced|costing|that costs|for|with a price of|a price of)\s)?"
    rf"(?:under|less than|at most|no more than|below|up to)\s₱?{_NUM}{_CUR}"
)
_PRICE_ABOVE = re.compile(
    r"(?:(?:priced|costing|that costs|with a price of|a price of)\s)?"
    rf"(?:more than|above|over|at least|no cheaper than)\s₱?{_NUM}{_CUR}"
)

#: Where the product's own name ends: the first clause that describes it instead.
_HEAD_STOP = re.compile(
    r"[,;:(]|\.(?:\s|$)|\s(?:with|in|from|by|made|crafted|for|meant|suitable|recommended|produced|handmade|that|"
    r"priced|costing|under|below|over|eligible|payable|available|sold|on|currently|compatible|written|size|at|no|"
    r"of the|brand|color|pattern|style|material|pack size|requirements|specs|must-haves)\b"
)

_VOUCHER_BUDGET = re.compile(r"budget is only `?([\d.]+)`?")
_VOUCHER_THRESHOLD = re.compile(r"exceeds `?([\d.]+)`?")
_VOUCHER_FIXED = re.compile(r"fixed discount of `?([\d.]+)`?")
_VOUCHER_PERCENT = re.compile(r"percentage discount of `?([\d.]+)%`?(?: with a cap of `?([\d.]+)`?)?")


class Item:
    """One requested product, as the query states it."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.text = ""  # lower-case wording with the price and category phrases removed
        self.head_end = 0  # text[:head_end] names the product itself (noun, maybe a colour or brand before it)
        self.lo: float | None = None
        self.hi: float | None = None
        self.services: list[str] = []
        self.query = ""  # the search words
        #: where the price most likely is: a price rule's bounds are drawn around the gold price
        self.likely: tuple[float, float] | None = None

    def __repr__(self) -> str:
        return (
            f"Item(text={self.text!r}, head={self.text[: self.head_end]!r}, price={self.price}, "
            f"service={self.service}, query={self.query!r})"
        )

    @property
    def price(self) -> str | None:
        """The price range as ``find_product`` takes it ("100-250", "-500", "20-"), or None."""
        if self.lo is None and self.hi is None:
            return None
        return f"{fmt(self.lo) if self.lo is not None else ''}-{fmt(self.hi) if self.hi is not None else ''}"

    @property
    def service(self) -> str | None:
        """The services as ``find_product`` takes them ("COD,official"), or None."""
        return ",".join(self.services) or None


def parse_item(raw: str) -> Item:
    """One item's wording, price range, services, product noun and search words."""
    item = Item(raw=raw)
    text = " " + " ".join(raw.replace("\n", " ").split()) + " "
    text = re.sub(r"\.\s*(?:requirements|must-haves|specs):", ", ", text, flags=re.IGNORECASE)
    text = re.sub(r"\bwith these requirements:", ", ", text, flags=re.IGNORECASE)
    low = text.lower()
    item.services = services_of(low)
    low = _take_price(item, low)
    low = CATEGORY.sub(" ", low)
    low = " ".join(low.split()).strip(" .?!")
    low = strip_intro(low)
    item.text = low
    m = _HEAD_STOP.search(" " + low)
    item.head_end = max(0, m.start() - 1) if m else len(low)
    if item.head_end == 0:
        item.head_end = len(low)
    words = []
    for w in tokens(low):
        if w not in words and w not in FILLER and (len(w) > 1 or w.isdigit()):
            words.append(w)
    item.query = " ".join(words) or " ".join(tokens(raw)) or raw
    return item


def _take_price(item: Item, low: str) -> str:
    """Set the item's price range (and where the price likely is) from the first priced phrase; the text without
    that phrase."""
    for pattern, kind in ((_PRICE_RANGE, "range"), (_PRICE_BELOW, "below"), (_PRICE_ABOVE, "above")):
        for m in pattern.finditer(low):
            if not has_currency(m.group(0)):
                continue
            if kind == "range":
                a, b = float(m.group(1)), float(m.group(2))
                item.lo, item.hi = min(a, b), max(a, b)
                item.likely = (max(item.lo / 0.951, (item.hi - 1) / 2.05), min((item.lo + 1) / 0.5, item.hi / 1.05))
            elif kind == "below":
                item.hi = float(m.group(1))
                item.likely = ((item.hi - 1) / 2.05, item.hi / 1.05)
            else:
                item.lo = float(m.group(1))
                item.likely = (item.lo / 0.951, (item.lo + 1) / 0.3)
            return low[: m.start()] + " " + low[m.end() :]
    return low


def split_shop_items(query: str, n: int | None = None) -> list[str]:
    """The items of a shop query: "(1) ... (2) ...", "First, ... Second, ... Lastly, ...", or, given the number of
    products the problem asks for (``n``), a list in one sentence ("a kettle; a lamp, and a mug") split where it
    yields exactly ``n`` items."""
    body = " ".join(query.split())
    parts = _numbered(body)
    if n is not None and n > 1 and len(parts) != n:
        listed = _listed(body, n)
        if listed:
            return listed
    return parts


def _numbered(body: str) -> list[str]:
    if re.search(r"\(\d\)", body):
        parts = re.split(r"\(\d\)", body)[1:]
    else:
        parts = re.split(
            r"(?:^|[.;:!?]\s+)(?:first|second|third|fourth|fifth|lastly|finally),\s", body, flags=re.IGNORECASE
        )[1:]
    if not parts:
        return [body]
    last = parts[-1]
    # the closing sentence ("The shop should sell all these products.") follows the last item
    cut = re.search(
        r"[.?]\s+(?:the|all|one|every|they|each|these|please|make|can|could)\b[^.?]*(?:shop|seller|store)[^.?]*[.?]?\s*$",
        last,
        flags=re.IGNORECASE,
    )
    if cut:
        parts[-1] = last[: cut.start()]
    return [p.strip(" ;.") for p in parts if p.strip(" ;.")]


# the request's opening up to its list ("Find a shop that sells ", "I'm looking for stores offering ")
_LEAD_IN = re.compile(
    r"^[^.;]*?\b(?:sells?|selling|offer(?:s|ing)?|carr(?:y|ies|ying)|stocks?|stocking|has|have|having|"
    r"includ(?:e|es|ing)|provid(?:e|es|ing)|with)\b(?:\s+(?:these|the following|all of these)\s+(?:items|products))?"
    r"\s*:?\s+",
    flags=re.IGNORECASE,
)
# ways one sentence separates its items, tried in turn: semicolons, a comma before an article, any comma, "and
# another item", "and" before an article
_JOINTS = (
    r"\s*;\s*(?:and\s+|plus\s+)?(?:also\s+)?",
    r",\s+(?:and\s+|plus\s+)?(?:also\s+)?(?=(?:a|an|some|one|the|another)\s)",
    r",\s+(?:and\s+|plus\s+)?(?:also\s+)?",
    r",?\s+and\s+(?:another|the other|a second)\s+(?:item|one|product)\s+(?:is\s+|has\s+)?",
    r"\s+and\s+(?:also\s+)?(?=(?:a|an|some)\s)",
)


def _listed(body: str, n: int, lead_in: re.Pattern[str] = _LEAD_IN) -> list[str]:
    """``body``'s one-sentence list split into exactly ``n`` items, or [] where no joint yields ``n``."""
    lead = lead_in.match(body)
    text = body[lead.end() :] if lead else body
    text = re.split(r"[.?]\s+(?=[A-Z])", text)[0].strip(" .?")  # the list's sentence, not the closing one
    for joint in _JOINTS:
        parts = [p.strip(" ;.") for p in re.split(joint, text, flags=re.IGNORECASE) if p.strip(" ;.")]
        if len(parts) == n:
            return parts
    return []


# a voucher request's opening up to its list ("I'm looking for ", "I need some music albums: ")
_WANT_LEAD_IN = re.compile(
    r"^[^.;:]*?\b(?:looking for|searching for|shopping for|need|want|find|buy|get)\b"
    r"(?:\s+(?:some|these|the following|a few|several)\s+[^:,.;]*:)?\s*:?\s+",
    flags=re.IGNORECASE,
)


def split_voucher_items(text: str, n: int | None = None) -> list[str]:
    """The items of a voucher query's request ("a kettle; a lamp, and also a mug"); given the number of products
    the problem asks for (``n``), split where it yields exactly ``n`` items (a list in one sentence, or a sentence
    an item)."""
    parts = _voucher_items(text)
    if n is None or n < 2 or len(parts) == n:
        return parts
    body = " ".join(text.split()).strip()
    listed = _listed(body, n, _WANT_LEAD_IN)
    if listed:
        return listed
    sentences = [p.strip(" .") for p in re.split(r"[.?!]\s+(?=[A-Z])", body) if p.strip(" .")]
    if len(sentences) == n:
        return [_strip_want(p) for p in sentences]
    return parts


def _strip_want(sentence: str) -> str:
    lead = _WANT_LEAD_IN.match(sentence)
    return sentence[lead.end() :] if lead else sentence


def _voucher_items(text: str) -> list[str]:
    body = " ".join(text.split()).strip()
    for joint in (r"\.\s+also, i need\s", r"\.\s+then i also want\s", r"\.\s+i also want\s"):
        m = re.search(joint, body, flags=re.IGNORECASE)
        if m:
            return [body[: m.start()]] + _voucher_items(body[m.end() :])
    if ";" in body:
        parts = body.split(";")
    else:
        parts = re.split(r",\s(?:and also|as well as)\s", body, maxsplit=1)
    out = []
    for p in parts:
        p = re.sub(r"^\s*(?:and also|and|plus|as well as|also)\s", "", p.strip(), flags=re.IGNORECASE)
        p = re.sub(r"\btogether\.?\s*$", "", p.strip()).strip(" .?")
        if p:
            out.append(p)
    return out or [body]


def parse_voucher(query: str) -> tuple[str, dict[str, Any] | None]:
    """(the items' text, the voucher as calculate_voucher takes it with the budget) from a voucher query."""
    cut = re.search(r"\s*my budget is only", query, flags=re.IGNORECASE)
    if not cut:
        return query, None
    items_text, block = query[: cut.start()], query[cut.start() :]
    low = block.lower()
    budget = _VOUCHER_BUDGET.search(low)
    threshold = _VOUCHER_THRESHOLD.search(low)
    voucher: dict[str, Any] = {
        "voucher_type": "shop" if "same shop" in low else "platform",
        "threshold": float(threshold.group(1)) if threshold else 0.0,
        "budget": float(budget.group(1)) if budget else None,
    }
    fixed = _VOUCHER_FIXED.search(low)
    percent = _VOUCHER_PERCENT.search(low)
    if fixed:
        voucher.update(discount_type="fixed", face_value=float(fixed.group(1)))
    elif percent:
        voucher.update(discount_type="percentage", discount=float(percent.group(1)) / 100)
        if percent.group(2):
            voucher["cap"] = float(percent.group(2))
    else:
        voucher.update(discount_type="fixed", face_value=0.0)
    return items_text, voucher
