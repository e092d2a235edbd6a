"""Public test sets (ShoppingBench test JSONL) and the decontamination step's query matching."""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from validator.corpus.options import DEFAULT_NEAR, CorpusError

_TOKEN = re.compile(r"[^\W_]+")
_STOP = frozenset(
    "a an the and or of for to in on with from me i my is are be can you please find show looking "
    "want need some any that this it at by".split()
)


def query_text(query: str) -> str:
    """A query for exact matching: NFKC, case-folded, letters and digits only, single spaces."""
    return " ".join(_TOKEN.findall(unicodedata.normalize("NFKC", query).casefold()))


def query_words(query: str) -> frozenset[str]:
    """A query's content words (near-duplicate matching)."""
    return frozenset(w for w in query_text(query).split() if w not in _STOP)


@dataclass
class TestSet:
    """A public test set's queries (a ShoppingBench test JSONL)."""

    name: str
    sha256: str
    queries: list[str]

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> TestSet:
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CorpusError(f"--decontaminate {path}: cannot read it ({exc.strerror})") from None
        queries = []
        for lineno, line in enumerate(data.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = orjson.loads(line)
            except orjson.JSONDecodeError:
                raise CorpusError(
                    f"--decontaminate {path}:{lineno}: not JSON; a ShoppingBench test file has one "
                    '{"query": ..., "reward": ...} object per line'
                ) from None
            if not isinstance(row, dict) or not isinstance(row.get("query"), str):
                raise CorpusError(
                    f'--decontaminate {path}:{lineno}: no "query" string; a ShoppingBench test '
                    'file has one {"query": ..., "reward": ...} object per line'
                )
            queries.append(row["query"])
        if not queries:
            raise CorpusError(f"--decontaminate {path}: no queries in it")
        return cls(name=path.name, sha256=hashlib.sha256(data).hexdigest(), queries=queries)


class Decontaminator:
    """Finds the public test query a query matches: exactly (same normalized text), or nearly (content-word Jaccard
    at or above `threshold`)."""

    def __init__(self, sets: Sequence[TestSet], threshold: float = DEFAULT_NEAR) -> None:
        self.sets = list(sets)
        self.threshold = threshold
        self._exact: dict[str, str] = {}
        self._words: list[tuple[frozenset[str], str]] = []
        self._index: dict[str, list[int]] = defaultdict(list)
        for test_set in self.sets:
            for query in test_set.queries:
                self._exact.setdefault(query_text(query), test_set.name)
                words = query_words(query)
                if words:
                    for w in words:
                        self._index[w].append(len(self._words))
                    self._words.append((words, test_set.name))

    def match(self, query: str) -> tuple[str, str] | None:
        """(reason, test set name) for a contaminated query, else None."""
        exact = self._exact.get(query_text(query))
        if exact is not None:
            return "exact_query", exact
        words = query_words(query)
        if not words:
            return None
        shared = Counter(i for w in words for i in self._index.get(w, ()))
        best: tuple[float, int] | None = None
        for i, n in shared.items():
            jaccard = n / len(words | self._words[i][0])
            if jaccard >= self.threshold and (best is None or (jaccard, -i) > (best[0], -best[1])):
                best = (jaccard, i)
        return ("near_duplicate_query", self._words[best[1]][1]) if best else None
