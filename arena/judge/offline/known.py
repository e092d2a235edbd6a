"""What a run has learned from its tool results so far (`Known`): each fact not in the query, with the seq of the
first result that showed it, and the candidate products seen. Words and attribute values the agent had written into
a tool call's arguments before a result showed them are planted (`arena.judge.echo`), not learned: ids, prices and
numbers are the catalog's own whoever asked for them (an id the agent knew beforehand is a lookup, which the judge
cannot see)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from arena.judge.evidence import render
from arena.judge.offline.facts import Facts
from arena.judge.offline.words import numbers_in, phrase, specific_number, text_facts, tokens

MAX_PLANTED = 12  # planted facts kept per result for the verdict's evidence


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
    #: what the agent wrote into tool arguments so far: its words and phrases (" tok tok | ... ")
    written_words: set[str] = field(default_factory=set)
    written_phrase: str = " "
    #: per result (seq): the words and values it showed first that the agent had written before: planted, not learned
    planted: list[tuple[int, list[str]]] = field(default_factory=list)

    @classmethod
    def for_query(cls, query: str) -> Known:
        return cls(
            query_words=frozenset(tokens(query)),
            query_numbers=frozenset(numbers_in(query)),
            query_phrase=f" {phrase(query)} ",
        )

    def in_query(self, norm: str) -> bool:
        return f" {norm} " in self.query_phrase

    def write(self, arguments: Any) -> None:
        """Take in a tool call's arguments (before its result): what the agent wrote itself."""
        if arguments is None:
            return
        text = render(arguments)
        self.written_words.update(tokens(text))
        self.written_phrase += f"{phrase(text)} | "

    def _written(self, norm: str) -> bool:
        return f" {norm} " in self.written_phrase

    def add(self, seq: int, facts: Facts) -> None:
        """Count a tool result and keep its facts not in the query (its words and values only if the agent had not
        written them before: planted), each with the seq of the first result that showed it (set differences: only
        the facts not known yet are looked at)."""
        self.results += 1
        ids, prices, numbers, attrs, words, products = self._view(facts)
        new_attrs, new_words = attrs.difference(self.attrs), words.difference(self.words)
        planted = [f"attribute '{a}'" for a in sorted(a for a in new_attrs if self._written(a))]
        planted += [f"word '{w}'" for w in sorted(new_words & self.written_words)]
        if planted:
            self.planted.append((seq, planted[:MAX_PLANTED]))
            new_attrs = frozenset(a for a in new_attrs if not self._written(a))
        self.ids.update(dict.fromkeys(ids.difference(self.ids), seq))
        self.prices.update(dict.fromkeys(prices.difference(self.prices), seq))
        self.numbers.update(dict.fromkeys(numbers.difference(self.numbers), seq))
        self.attrs.update(dict.fromkeys(new_attrs, seq))
        self.words.update(dict.fromkeys(new_words - self.written_words, seq))
        for pid, title, product_prices, product_attrs in products:
            self._candidate(seq, pid, title, product_prices, product_attrs)

    def _candidate(self, seq: int, pid: str, title: str, prices: frozenset[int], attrs: frozenset[str]) -> None:
        """A product seen in a result, less what the agent wrote before: title words and values it wrote are not the
        candidate's (they name nothing)."""
        candidate = self.candidates.get(pid)
        if candidate is None:
            candidate = self.candidates[pid] = Candidate(product_id=pid, seq=seq, id_phrase=phrase(pid))
        if title and not candidate.title:
            candidate.title = title
            candidate.title_phrase = "" if self._written(phrase(title)) else phrase(title)
            candidate.title_words = text_facts(title)[0] - self.query_words - self.written_words
            for word in candidate.title_words:
                self.by_title_word.setdefault(word, set()).add(pid)
        candidate.prices |= prices
        candidate.attrs |= {a for a in attrs if not self._written(a)}

    def _view(self, facts: Facts) -> tuple[Any, ...]:
        """The facts of a result that are not in the query (numbers: only the specific ones), kept with the facts
        for the next run of the same query."""
        key = (self.query_phrase, self.query_numbers)
        view = facts.views.get(key)
        if view is None:

            def specific(values: Iterable[int]) -> frozenset[int]:
                return frozenset(c for c in values if specific_number(c) and c not in self.query_numbers)

            def unsaid(values: Iterable[str]) -> frozenset[str]:
                return frozenset(v for v in values if not self.in_query(v))

            view = (
                unsaid(facts.ids),
                specific(facts.prices),
                specific(facts.numbers),
                unsaid(facts.attrs),
                frozenset(facts.words - self.query_words),
                [
                    (pid, info["title"], specific(info["prices"]), unsaid(info["attrs"]))
                    for pid, info in facts.products.items()
                ],
            )
            if len(facts.views) < 16:  # a result seen by many queries: the first ones kept
                facts.views[key] = view
        return view

    def unique_title_words(self, pid: str) -> frozenset[str]:
        """A candidate's title words that no other candidate's title has."""
        return frozenset(w for w in self.candidates[pid].title_words if len(self.by_title_word[w]) == 1)
