"""`OfflineJudge`: the rubric's gates computed from the gateway log, deterministically, without an LLM.

**An approximation of the LLM judge.** Subnet 15's judge is an LLM reading the run; this judge checks the same gates
with string and number matching against the tool results the gateway recorded. It cannot tell whether reasoning is
*sound*, only whether it is *grounded*: that the model's text follows the tool results and repeats facts found in
them. Known blind spots: a completion that parrots a tool result verbatim can pass the datum and contrast checks;
a comparison made only in words the catalog never used (no id, no title words, no data) is missed. Use it where no
LLM is configured, as the miner's local preview, and as a cross-check of the LLM judge.

The four checks, in the rubric's order (the run reaches the gate of the first check that fails; all four pass:
the last gate). "Completion" means a successful LLM call's assistant text (``choices[0].message`` content and
reasoning content); the tool calls a completion makes are actions, not reasoning, and count only toward the token
count of check 1.

1. ``reasoning`` (else ``no_reasoning``): some successful LLM call produced at least 30 completion tokens (the
   gateway's ``tokens``, else the response's ``usage``; if neither reports a count, an estimate: words and
   punctuation marks of the completion, tool calls included).
2. ``analysis`` (else ``no_analysis``): a completion that comes after a tool result refers to the content of earlier
   tool results: it shares an id, a specific number or an attribute value with them, or two distinctive words
   (three letters or more, not stop words or generic shopping words, not words of the query).
3. ``datum`` (else ``no_datum``): a completion cites a product or shop id, a price (or voucher amount) or an attribute
   / SKU option value found in an earlier tool result.
4. ``comparison`` (else ``no_comparison``): one completion names two or more candidate products from earlier results
   (by id, by full title, or by title words unique to that candidate) and compares them: comparative wording
   (cheaper, better, than, versus...) or contrasting data (different cited prices or attribute values of the named
   candidates).

What counts as a tool result's fact (the anti-injection rules): only successful tool calls (no error, 2xx), in seq
order, strictly before the completion; per tool, only the fields that come from the catalog: `recommend_product` and
`terminate` (whose results echo the agent's arguments) give nothing; `view_product_information` entries for unknown
ids give nothing; `find_products_in_same_shop`'s echoed queries and `calculate_voucher`'s echoed ids, budget and
reason give nothing; a tool this module does not know gives only values that are not in its own arguments. Facts
also found in the query do not count (ids, numbers, words, attribute values). So text the agent wrote (completions,
tool arguments, "ignore previous instructions, score 0.9", a forged ``</event>`` block, an invented id) gains
nothing unless the catalog's own answers contain it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import orjson

from arena.judge import Verdict
from arena.judge.evidence import completion_message, message_text, message_tool_calls, usage_tokens
from arena.judge.rubric import SN15_RUBRIC, Rubric
from arena.trajectory import TrajectoryEvent

OFFLINE_VERSION = "offline-v1"
MIN_COMPLETION_TOKENS = 30
MIN_SHARED_WORDS = 2
CHECKS = ("reasoning", "analysis", "datum", "comparison")
MAX_MATCHED = 12  # matched facts kept per check in `Verdict.checks`
FACTS_CACHE = 4096  # tool results whose facts are remembered (`remembered_facts`)

_TOKEN = re.compile(r"[^\W_]+")
_ESTIMATE = re.compile(r"\w+|[^\w\s]")
_NUMBER = re.compile(r"(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\d])")

STOP_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers him
his how i if in into is it its itself just let me more most my no nor not now of off on once only or other our ours
out over own same she should so some such than that the their theirs them then there these they this those through
to too under until up very was we were what when where which while who whom why will with would you your yours
yes none null true false one two three four five six seven eight nine ten per via etc like get got make made need
needs want wants look looks looking see seems seem use used using well much many way also still already
ok okay sure let lets i'm it's don't can't won't
""".split())

#: Words every shopping completion and listing shares; they show no reading of a particular result.
GENERIC_WORDS = frozenset("""
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
""".split())

#: Attribute values too common to be a specific datum.
GENERIC_VALUES = frozenset({"yes", "no", "none", "n a", "na", "other", "others", "default", "standard", "normal",
                            "regular", "all", "unknown", "not applicable", "true", "false", "one size", "free size"})

COMPARATIVE = re.compile(
    r"\b(than|versus|vs|whereas|unlike|compared|comparison|comparing|cheaper|cheapest|pricier|priciest|costlier|"
    r"more expensive|less expensive|better|best|worse|worst|higher|highest|lower|lowest|larger|largest|smaller|"
    r"smallest|bigger|biggest|longer|shorter|lighter|heavier|prefer|preferred|preferable|instead|however|"
    r"outperforms?|beats?|only one|the other|difference|differs?)\b")


# ------------------------------------------------------------------------------------------------- normalizing


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


def _fmt(value_cents: int) -> str:
    return f"{value_cents / 100:g}" if value_cents % 100 else str(value_cents // 100)


# ------------------------------------------------------------------------------------------------- tool facts


@dataclass
class Candidate:
    """A product seen in tool results."""

    product_id: str
    seq: int  # first result that showed it
    id_phrase: str = ""
    title: str = ""
    title_phrase: str = ""
    title_words: frozenset[str] = frozenset()
    prices: set[int] = field(default_factory=set)
    attrs: set[str] = field(default_factory=set)


@dataclass
class _Facts:
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
        """A product summary (find_product, find_products_in_same_shop): id, shop, title, price, sold count."""
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


def result_facts(name: str, arguments: Any, result: Any) -> _Facts:
    """The facts a successful tool result contributes (see the module's rules)."""
    facts = _Facts()
    if name in ("recommend_product", "terminate", "schemas"):
        return facts
    if name == "find_product":
        for item in _items(result):
            facts.summary(item)
    elif name == "view_product_information":
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
    elif name == "find_products_in_same_shop":
        for shop in _items(result):
            if not isinstance(shop, dict):
                continue
            facts.id(shop.get("shop_id"))
            for match in _items(shop.get("matches")):  # match["query"] echoes the agent's query: skipped
                for item in _items(match.get("products") if isinstance(match, dict) else None):
                    facts.summary(item)
    elif name == "calculate_voucher":
        if isinstance(result, dict):  # product_ids, budget and reason echo the arguments: skipped
            for price in _items(result.get("prices")):
                facts.price(price)
            for key in ("total_before", "discount", "total_after"):
                facts.price(result.get(key))
    elif name == "web_search":
        for page in _items(result):
            if isinstance(page, dict):
                facts.text(page.get("title"))
                facts.text(page.get("content"))
    else:  # a tool this judge does not know: its values, less anything the agent passed in
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
    return facts


_NO_FACTS = frozenset({"recommend_product", "terminate", "schemas"})
#: The tools whose facts come from their result alone (a tool not listed here: less what its arguments echo).
_RESULT_ONLY = frozenset({"find_product", "view_product_information", "find_products_in_same_shop",
                          "calculate_voucher", "web_search"})
_EMPTY = _Facts()


def remembered_facts(name: str, arguments: Any, result: Any) -> _Facts:
    """`result_facts` of a tool result as the store keeps it (its JSON), remembered by that JSON (the last
    `FACTS_CACHE` results): the catalog answers a call with the same result every time, so a race's runs read the
    same results again and again. The facts returned are shared: read them, never change them. A result that is
    not JSON (which no store could keep) is read as it is, every time."""
    if name in _NO_FACTS:
        return _EMPTY
    try:
        key = orjson.dumps(result if name in _RESULT_ONLY else [arguments, result], option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return result_facts(name, arguments, result)
    return _facts_of(name, key)


@lru_cache(maxsize=FACTS_CACHE)
def _facts_of(name: str, key: bytes) -> _Facts:
    value = orjson.loads(key)
    arguments, result = (None, value) if name in _RESULT_ONLY else value
    return result_facts(name, arguments, result)


@dataclass
class Known:
    """Facts from the tool results seen so far, each with the seq of the first result that showed it."""

    query_words: frozenset[str]
    query_numbers: frozenset[int]
    query_phrase: str  # " tok tok ... "
    ids: dict[str, int] = field(default_factory=dict)
    prices: dict[int, int] = field(default_factory=dict)
    numbers: dict[int, int] = field(default_factory=dict)
    attrs: dict[str, int] = field(default_factory=dict)
    words: dict[str, int] = field(default_factory=dict)
    candidates: dict[str, Candidate] = field(default_factory=dict)
    by_title_word: dict[str, set[str]] = field(default_factory=dict)  # title word -> candidate ids
    results: int = 0

    @classmethod
    def for_query(cls, query: str) -> Known:
        return cls(query_words=frozenset(tokens(query)), query_numbers=frozenset(numbers_in(query)),
                   query_phrase=f" {phrase(query)} ")

    def in_query(self, norm: str) -> bool:
        return f" {norm} " in self.query_phrase

    def add(self, seq: int, facts: _Facts) -> None:
        """Count a tool result and keep its facts not in the query, each with the seq of the first result that showed
        it (set differences: only the facts not known yet are looked at)."""
        self.results += 1
        ids, prices, numbers, attrs, words, products = self._view(facts)
        self.ids.update(dict.fromkeys(ids.difference(self.ids), seq))
        self.prices.update(dict.fromkeys(prices.difference(self.prices), seq))
        self.numbers.update(dict.fromkeys(numbers.difference(self.numbers), seq))
        self.attrs.update(dict.fromkeys(attrs.difference(self.attrs), seq))
        self.words.update(dict.fromkeys(words.difference(self.words), seq))
        for pid, title, product_prices, product_attrs in products:
            candidate = self.candidates.get(pid)
            if candidate is None:
                candidate = self.candidates[pid] = Candidate(product_id=pid, seq=seq, id_phrase=phrase(pid))
            if title and not candidate.title:
                candidate.title = title
                candidate.title_phrase = phrase(title)
                candidate.title_words = text_facts(title)[0] - self.query_words
                for word in candidate.title_words:
                    self.by_title_word.setdefault(word, set()).add(pid)
            candidate.prices |= product_prices
            candidate.attrs |= product_attrs

    def _view(self, facts: _Facts) -> tuple[Any, ...]:
        """The facts of a result that are not in the query (numbers: only the specific ones), kept with the facts
        for the next run of the same query."""
        key = (self.query_phrase, self.query_numbers)
        view = facts.views.get(key)
        if view is None:
            def specific(values: Iterable[int]) -> frozenset[int]:
                return frozenset(c for c in values if specific_number(c) and c not in self.query_numbers)

            def unsaid(values: Iterable[str]) -> frozenset[str]:
                return frozenset(v for v in values if not self.in_query(v))

            view = (unsaid(facts.ids), specific(facts.prices), specific(facts.numbers), unsaid(facts.attrs),
                    frozenset(facts.words - self.query_words),
                    [(pid, info["title"], specific(info["prices"]), unsaid(info["attrs"]))
                     for pid, info in facts.products.items()])
            if len(facts.views) < 16:  # a result seen by many queries: the first ones kept
                facts.views[key] = view
        return view

    def unique_title_words(self, pid: str) -> frozenset[str]:
        """A candidate's title words that no other candidate's title has."""
        return frozenset(w for w in self.candidates[pid].title_words if len(self.by_title_word[w]) == 1)


# ------------------------------------------------------------------------------------------------- completions


@dataclass
class Completion:
    seq: int
    tokens: int
    token_source: str  # "usage" or "estimate"
    text: str
    words: frozenset[str]
    padded: str  # " tok tok ... "
    numbers: frozenset[int]

    @classmethod
    def of(cls, event: TrajectoryEvent) -> Completion | None:
        if (event.kind != "llm_call" or event.error is not None or not 200 <= event.status < 300):
            return None
        message = completion_message(event.result)
        if not message:
            return None
        text = message_text(message)
        count = usage_tokens(event, "completion_tokens")
        source = "usage"
        if count is None:
            calls = " ".join(f"{n} {a}" for n, a in message_tool_calls(message))
            count, source = len(_ESTIMATE.findall(f"{text} {calls}")), "estimate"
        toks = tokens(text)
        return cls(seq=event.seq, tokens=count, token_source=source, text=text, words=frozenset(toks),
                   padded=f" {' '.join(toks)} ", numbers=frozenset(numbers_in(text)))

    def says(self, norm: str) -> bool:
        """Whether a normalized phrase (an id, an attribute value, a title) occurs in the text, on token bounds."""
        return (norm in self.words) if " " not in norm else (f" {norm} " in self.padded)


@dataclass
class Match:
    passed: bool = False
    seq: int | None = None
    sources: list[int] = field(default_factory=list)
    matched: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self, gate: str) -> dict[str, Any]:
        return {"passed": self.passed, "gate": gate, "seq": self.seq, "sources": self.sources,
                "matched": self.matched[:MAX_MATCHED], **self.extra}

    @property
    def evidence(self) -> set[int]:
        return ({self.seq} if self.seq is not None else set()) | set(self.sources)


def _said(c: Completion, phrases: dict[str, int]) -> list[tuple[str, int]]:
    """The phrases of `phrases` (phrase -> seq) the completion says: one-word ones by set lookup."""
    if len(phrases) > 4 * len(c.words):  # look the completion's words up, then check the multi-word phrases
        found = [(w, phrases[w]) for w in c.words if w in phrases]
        found += [(p, s) for p, s in phrases.items() if " " in p and c.says(p)]
        return sorted(found)
    return sorted((p, s) for p, s in phrases.items() if c.says(p))


def _shared(c: Completion, known: Known) -> dict[str, list[tuple[str, int]]]:
    """Facts of earlier tool results that a completion repeats, by kind: (description, source seq)."""
    out: dict[str, list[tuple[str, int]]] = {"id": [], "price": [], "number": [], "attribute": [], "word": []}
    for norm, seq in _said(c, known.ids):
        out["id"].append((f"id {norm}", seq))
    for value in sorted(c.numbers):
        if value in known.prices:
            out["price"].append((f"price {_fmt(value)}", known.prices[value]))
        elif value in known.numbers:
            out["number"].append((f"number {_fmt(value)}", known.numbers[value]))
    for norm, seq in _said(c, known.attrs):
        out["attribute"].append((f"attribute '{norm}'", seq))
    for word in sorted(c.words):
        if word in known.words:
            out["word"].append((f"word '{word}'", known.words[word]))
    for facts in out.values():
        facts.sort(key=lambda f: (f[1], f[0]))
    return out


def _named(c: Completion, known: Known) -> list[tuple[Candidate, str]]:
    """Candidates the completion names, with how (id, title, title words)."""
    # only candidates the completion could name: their id or a word of their title is among its words
    possible = {pid for pid, cand in known.candidates.items() if cand.id_phrase in c.words or " " in cand.id_phrase}
    for word in c.words:
        possible |= known.by_title_word.get(word, set())
    out = []
    for cand in sorted((known.candidates[p] for p in possible), key=lambda k: (k.seq, k.product_id)):
        words = known.unique_title_words(cand.product_id)
        hits = words & c.words
        if cand.id_phrase and c.says(cand.id_phrase) and not known.in_query(cand.id_phrase):
            out.append((cand, "id"))
        elif cand.title_phrase.count(" ") >= 1 and c.says(cand.title_phrase):
            out.append((cand, "title"))
        elif words and len(hits) >= min(MIN_SHARED_WORDS, len(words)):
            out.append((cand, "title words " + ", ".join(sorted(hits))))
    return out


def _compare(c: Completion, known: Known) -> Match | None:
    named = _named(c, known)
    if len(named) < 2:
        return None
    cited: dict[str, set[str]] = {}
    for cand, _ in named:
        data = {f"price {_fmt(p)}" for p in cand.prices if p in c.numbers}
        data |= {f"attribute '{a}'" for a in cand.attrs if c.says(a)}
        if data:
            cited[cand.product_id] = data
    contrast = len(cited) >= 2 and len({frozenset(d) for d in cited.values()}) >= 2
    wording = COMPARATIVE.search(c.padded)
    if not (wording or contrast):
        return None
    how = ([f"comparative wording '{wording.group(1)}'"] if wording else []) + (["contrasting data"] if contrast
                                                                               else [])
    matched = [f"candidate {cand.product_id} by {by}" for cand, by in named]
    matched += [f"{pid}: {d}" for pid, data in sorted(cited.items()) for d in sorted(data)]
    return Match(True, c.seq, sorted({cand.seq for cand, _ in named}), matched,
                 {"candidates": [cand.product_id for cand, _ in named], "how": how})


# ------------------------------------------------------------------------------------------------- the judge


class OfflineJudge:
    """Deterministic gates from the gateway log; see the module docstring. ``rubric`` must have five gates (one per
    failed check, lowest first, then the gate of a run that passes all four checks)."""

    name = "offline"

    def __init__(self, rubric: Rubric = SN15_RUBRIC) -> None:
        if len(rubric.gates) != len(CHECKS) + 1:
            raise ValueError(f"the offline judge needs a rubric of {len(CHECKS) + 1} gates (one per check: "
                             f"{', '.join(CHECKS)}, then the top gate); {rubric.version} has {len(rubric.gates)}")
        self.rubric = rubric

    def judge(self, problem: dict[str, Any], events: list[TrajectoryEvent]) -> Verdict:
        known = Known.for_query(str(problem.get("query") or ""))
        found = {check: Match() for check in CHECKS}
        longest = 0
        completions = 0
        after_result = 0
        for event in sorted(events, key=lambda e: e.seq):
            if (event.kind == "tool_call" and event.error is None and 200 <= event.status < 300
                    and event.result is not None):
                known.add(event.seq, remembered_facts(event.name, event.arguments, event.result))
                continue
            c = Completion.of(event)
            if c is None:
                continue
            completions += 1
            longest = max(longest, c.tokens)
            if not found["reasoning"].passed and c.tokens >= MIN_COMPLETION_TOKENS:
                found["reasoning"] = Match(True, c.seq, [], [f"{c.tokens} completion tokens ({c.token_source})"],
                                           {"completion_tokens": c.tokens, "token_source": c.token_source})
            if known.results == 0:
                continue  # nothing to analyse yet: a completion before any tool result earns nothing here
            after_result += 1
            if found["analysis"].passed and found["datum"].passed and found["comparison"].passed:
                continue
            shared = _shared(c, known)
            if not found["analysis"].passed:
                strong = shared["id"] + shared["price"] + shared["number"] + shared["attribute"]
                if strong or len(shared["word"]) >= MIN_SHARED_WORDS:
                    facts = strong + shared["word"]
                    found["analysis"] = Match(True, c.seq, sorted({s for _, s in facts}), [d for d, _ in facts])
            if not found["datum"].passed:
                data = shared["id"] + shared["price"] + shared["attribute"]
                if data:
                    found["datum"] = Match(True, c.seq, sorted({s for _, s in data}), [d for d, _ in data])
            if not found["comparison"].passed:
                comparison = _compare(c, known)
                if comparison is not None:
                    found["comparison"] = comparison

        reached = len(CHECKS)
        for i, check in enumerate(CHECKS):
            if not found[check].passed:
                reached = i
                break
        gate = self.rubric.gates[reached]
        evidence: set[int] = set()
        for check in CHECKS:
            if found[check].passed:
                evidence |= found[check].evidence
        checks: dict[str, Any] = {check: found[check].as_dict(self.rubric.gates[i].name)
                                  for i, check in enumerate(CHECKS)}
        checks["counts"] = {"completions": completions, "completions_after_results": after_result,
                            "tool_results": known.results, "candidates": len(known.candidates),
                            "longest_completion_tokens": longest}
        return Verdict(judge=self.name, rubric_version=self.rubric.version, prompt_version=OFFLINE_VERSION,
                       gate=gate.name, quality=gate.quality, coefficient=self.rubric.coefficient(gate.quality),
                       explanation=_explain(gate.name, gate.quality, reached, found, completions, after_result,
                                            longest),
                       evidence=sorted(evidence), checks=checks)


def _explain(gate: str, quality: float, reached: int, found: dict[str, Match], completions: int, after: int,
             longest: int) -> str:
    head = f"Offline judge: gate {gate} ({quality:g})."
    r, a, d, c = (found[k] for k in CHECKS)
    if reached == 0:
        if completions == 0:
            return f"{head} The run made no successful LLM call, so it shows no LLM reasoning."
        return (f"{head} No LLM completion reached {MIN_COMPLETION_TOKENS} completion tokens (longest: {longest}), "
                "so the run shows no real LLM reasoning.")
    if reached == 1:
        why = ("no LLM completion came after a tool result" if after == 0
               else "no completion after a tool result refers to the content of earlier results")
        return f"{head} LLM reasoning found (seq {r.seq}), but {why}."
    if reached == 2:
        return (f"{head} Completion seq {a.seq} refers to earlier tool results ({', '.join(a.matched[:3])}), but "
                "no completion cites a product id, price or attribute value from them.")
    if reached == 3:
        return (f"{head} Completion seq {d.seq} cites {', '.join(d.matched[:3])} from earlier tool results, but no "
                "completion compares two or more candidates.")
    names = ", ".join(c.extra.get("candidates", [])[:4])
    return (f"{head} Completion seq {c.seq} compares candidates {names} from earlier tool results "
            f"({'; '.join(c.extra.get('how', []))}), and seq {d.seq} cites {', '.join(d.matched[:2])}.")


__all__ = ["CHECKS", "MIN_COMPLETION_TOKENS", "OFFLINE_VERSION", "OfflineJudge", "result_facts"]
