"""The facts of one tool result (`result_facts`): only the fields that come from the catalog, read by the kind of
result its tool declares (`arena.tools.registry.RESULT_KINDS`, see the package's rules); and their cache
(`remembered_facts`), by the result's JSON, since a race's runs read the same results again and again.

A tool's kind is `arena.judge.kinds.result_kind`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import orjson

from arena.judge.kinds import NO_FACTS, result_kind
from arena.judge.offline.words import GENERIC_VALUES, cents, distinctive, numbers_in, phrase, text_facts, tokens

FACTS_CACHE = 4096  # tool results whose facts are remembered (`remembered_facts`)


@dataclass
class Facts:
    """The facts of one tool result."""

    ids: set[str] = field(default_factory=set)  # normalized phrases
    prices: set[int] = field(default_factory=set)
    numbers: set[int] = field(default_factory=set)
    attrs: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    products: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> {title, prices, attrs}
    #: what the facts add for a query (`Known.add`), per query: the same result is read for each run of a problem
    views: dict[Any, tuple[Any, ...]] = field(default_factory=dict, repr=False, compare=False)

    def text(self, value: Any) -> None:
        if isinstance(value, str):
            words, numbers = text_facts(value)
            self.words |= words
            self.numbers |= numbers

    def product(self, product_id: Any) -> dict[str, Any] | None:
        if not isinstance(product_id, str | int) or isinstance(product_id, bool) or not str(product_id).strip():
            return None
        pid = str(product_id).strip()
        self.id(pid)
        return self.products.setdefault(pid, {"title": "", "prices": set(), "attrs": set()})

    def id(self, value: Any) -> None:
        if isinstance(value, str | int) and not isinstance(value, bool) and phrase(str(value)):
            self.ids.add(phrase(str(value)))

    def price(self, value: Any, product: dict[str, Any] | None = None) -> None:
        if isinstance(value, int | float) and not isinstance(value, bool):
            c = cents(value)
            self.prices.add(c)
            self.numbers.add(c)
            if product is not None:
                product["prices"].add(c)

    def number(self, value: Any) -> None:
        if isinstance(value, int | float) and not isinstance(value, bool):
            self.numbers.add(cents(value))

    def attr(self, value: Any, product: dict[str, Any] | None) -> None:
        if isinstance(value, list):
            for v in value:
                self.attr(v, product)
            return
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            return
        text = str(value)
        norm = phrase(text)
        if len(norm) >= 3 and any(ch.isalpha() for ch in norm) and norm not in GENERIC_VALUES:
            self.attrs.add(norm)
            if product is not None:
                product["attrs"].add(norm)
        self.text(text)

    def summary(self, item: Any) -> None:
        """A product summary (in results of kind products and shops): id, shop, title, price, sold count."""
        if not isinstance(item, dict):
            return
        product = self.product(item.get("product_id"))
        self.id(item.get("shop_id"))
        title = item.get("title")
        if isinstance(title, str):
            self.text(title)
            if product is not None and not product["title"]:
                product["title"] = title
        self.price(item.get("price"), product)
        self.number(item.get("sold_count"))


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _leaves(value: Any) -> Iterable[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def result_facts(name: str, arguments: Any, result: Any) -> Facts:
    """The facts a successful result of tool ``name`` contributes, by the kind of result it declares (see the
    module's rules)."""
    return kind_facts(result_kind(name), arguments, result)


def kind_facts(kind: str, arguments: Any, result: Any) -> Facts:
    """The facts a successful tool result of kind ``kind`` contributes."""
    facts = Facts()
    if kind in NO_FACTS:
        return facts
    reader = _READERS.get(kind)
    if reader is None:  # kind other: its values, less anything the agent passed in
        _other(facts, arguments, result)
    else:
        reader(facts, result)
    return facts


def _products(facts: Facts, result: Any) -> None:
    for item in _items(result):
        facts.summary(item)


def _details(facts: Facts, result: Any) -> None:
    for item in _items(result):
        if not isinstance(item, dict) or "error" in item:
            continue  # an unknown id, echoed back: the agent's own text
        product = facts.product(item.get("product_id"))
        facts.text(item.get("short_description"))
        facts.text(item.get("description"))
        attributes = item.get("attributes")
        for values in attributes.values() if isinstance(attributes, dict) else ():
            facts.attr(values, product)
        options = item.get("sku_options")
        for option in options.values() if isinstance(options, dict) else ():
            for value in option.values() if isinstance(option, dict) else ():
                facts.attr(value, product)


def _shops(facts: Facts, result: Any) -> None:
    for shop in _items(result):
        if not isinstance(shop, dict):
            continue
        facts.id(shop.get("shop_id"))
        for match in _items(shop.get("matches")):  # match["query"] echoes the agent's query: skipped
            for item in _items(match.get("products") if isinstance(match, dict) else None):
                facts.summary(item)


def _prices(facts: Facts, result: Any) -> None:
    if isinstance(result, dict):  # product_ids, budget and reason echo the arguments: skipped
        for price in _items(result.get("prices")):
            facts.price(price)
        for key in ("total_before", "discount", "total_after"):
            facts.price(result.get(key))


def _pages(facts: Facts, result: Any) -> None:
    for page in _items(result):
        if isinstance(page, dict):
            facts.text(page.get("title"))
            facts.text(page.get("content"))


def _other(facts: Facts, arguments: Any, result: Any) -> None:
    echoed = {phrase(str(v)) for v in _leaves(arguments) if v is not None}
    echoed_words = {w for e in echoed for w in e.split()}
    echoed_numbers = {n for v in _leaves(arguments) if v is not None for n in numbers_in(str(v))}
    for leaf in _leaves(result):
        if leaf is None or isinstance(leaf, bool) or phrase(str(leaf)) in echoed:
            continue
        if isinstance(leaf, int | float):
            if cents(leaf) not in echoed_numbers:
                facts.number(leaf)
            continue
        text = str(leaf)
        if text.strip().isdigit() and len(text.strip()) >= 6:
            facts.id(text)
        facts.words.update(w for w in tokens(text) if distinctive(w) and w not in echoed_words)
        facts.numbers.update(n for n in numbers_in(text) if n not in echoed_numbers)


#: the kinds whose facts come from their result alone (kind ``other``: less what its arguments echo)
_READERS: dict[str, Callable[[Facts, Any], None]] = {
    "products": _products,
    "details": _details,
    "shops": _shops,
    "prices": _prices,
    "pages": _pages,
}
_EMPTY = Facts()


def remembered_facts(name: str, arguments: Any, result: Any) -> Facts:
    """`result_facts` of a tool result as the store keeps it (its JSON), remembered by that JSON (the last
    `FACTS_CACHE` results): the catalog answers a call with the same result every time, so a race's runs read the
    same results again and again. The facts returned are shared: read them, never change them. A result that is
    not JSON (which no store could keep) is read as it is, every time."""
    kind = result_kind(name)
    if kind in NO_FACTS:
        return _EMPTY
    result_only = kind in _READERS
    try:
        key = orjson.dumps(result if result_only else [arguments, result], option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return kind_facts(kind, arguments, result)
    return _facts_of(kind, key)


@lru_cache(maxsize=FACTS_CACHE)
def _facts_of(kind: str, key: bytes) -> Facts:
    value = orjson.loads(key)
    arguments, result = (None, value) if kind in _READERS else value
    return kind_facts(kind, arguments, result)
