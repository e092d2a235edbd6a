"""What a run has learned from its tool results so far (`Known`): each fact not in the query, with the seq of the
first result that showed it, and the candidate products seen."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from arena.judge.offline.facts import Facts
from arena.judge.offline.words import numbers_in, phrase, specific_number, text_facts, tokens


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

    @classmethod
    def for_query(cls, query: str) -> Known:
        return cls(
            query_words=frozenset(tokens(query)),
            query_numbers=frozenset(numbers_in(query)),
            query_phrase=f" {phrase(query)} ",
        )

    def in_query(self, norm: str) -> bool:
        return f" {norm} " in self.query_phrase

    def add(self, seq: int, facts: Facts) -> None:
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
