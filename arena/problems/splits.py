"""Clusters of near-duplicate problems, and splits that cannot leak.

Two problems share a cluster when they have the same reward spec, the same gold product set, paraphrased queries
(the same bag of content words, or word-set Jaccard >= 0.8 for suites up to `PAIRWISE_LIMIT` problems), or share
*any* gold product (the leak guard: an answer product must never be in two splits; subnet 15's corpus filter did the
same with "leak clusters"). Splits take whole clusters, so no answer appears in two of them.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Sequence

from arena.tasks import ProblemBase

PAIRWISE_LIMIT = 5000
PARAPHRASE_JACCARD = 0.8
_STOP = frozenset(
    "a an the and or of for to in on with from me i my is are be can you please find show looking "
    "want need some any that this it at by".split()
)


def _words(query: str) -> frozenset[str]:
    return frozenset(w for w in re.findall(r"[a-z0-9]+", query.lower()) if w not in _STOP)


class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def cluster(problems: Sequence[ProblemBase]) -> list[ProblemBase]:
    """The problems with ``cluster_id`` set; ids are stable (derived from the cluster's smallest problem id)."""
    n = len(problems)
    uf = _UnionFind(n)
    first: dict[tuple[str, str], int] = {}

    def link(kind: str, key: str, i: int) -> None:
        j = first.setdefault((kind, key), i)
        if j != i:
            uf.union(i, j)

    words = [_words(p.query) for p in problems]
    for i, p in enumerate(problems):
        link("spec", p.answer_spec(), i)
        link("golds", ",".join(sorted(p.gold_ids)), i)
        for product_id in p.gold_ids:
            link("gold", product_id, i)
        link("words", " ".join(sorted(words[i])), i)
    if n <= PAIRWISE_LIMIT:
        by_word: dict[str, list[int]] = defaultdict(list)
        for i, ws in enumerate(words):
            for w in ws:
                by_word[w].append(i)
        for i, ws in enumerate(words):
            if not ws:
                continue
            candidates = Counter(j for w in ws for j in by_word[w] if j > i)
            for j, shared in candidates.items():
                if shared / len(ws | words[j]) >= PARAPHRASE_JACCARD:
                    uf.union(i, j)
    members: dict[int, list[int]] = defaultdict(list)
    for i in range(n):
        members[uf.find(i)].append(i)
    cluster_of: dict[int, str] = {}
    for root, idx in members.items():
        smallest = min(problems[i].problem_id for i in idx)
        cluster_of[root] = "c-" + hashlib.sha256(smallest.encode()).hexdigest()[:12]
    return [p.model_copy(update={"cluster_id": cluster_of[uf.find(i)]}) for i, p in enumerate(problems)]


def assign_splits(problems: Sequence[ProblemBase], fractions: dict[str, float], seed: int = 0) -> list[ProblemBase]:
    """Cluster, then give whole clusters to splits so each split's share of problems is close to ``fractions``."""
    total_fraction = sum(fractions.values())
    if total_fraction <= 0 or any(v < 0 for v in fractions.values()):
        raise ValueError("split fractions must be non-negative and not all zero")
    unknown = set(fractions) - {"public", "race", "held_out"}
    if unknown:
        raise ValueError(f"unknown split(s) {sorted(unknown)}; use public, race and held_out")
    clustered = cluster(problems)
    sizes: Counter[str] = Counter(p.cluster_id for p in clustered)
    order = sorted(sizes, key=lambda c: hashlib.sha256(f"{seed}:{c}".encode()).hexdigest())
    # largest clusters first (placed while every split still has room), the rest in seeded order
    order.sort(key=lambda c: -sizes[c])
    filled: Counter[str] = Counter()
    target = {s: f / total_fraction * len(clustered) for s, f in fractions.items()}
    split_of: dict[str, str] = {}
    for c in order:
        split = max(target, key=lambda s: (target[s] - filled[s], s == "race"))
        split_of[c] = split
        filled[split] += sizes[c]
    return [p.model_copy(update={"split": split_of[p.cluster_id]}) for p in clustered]


def split_report(problems: Sequence[ProblemBase]) -> dict[str, dict[str, int]]:
    """split -> {"problems", "clusters", and per task type counts}."""
    out: dict[str, dict[str, int]] = {}
    clusters: dict[str, set[str]] = defaultdict(set)
    for p in problems:
        row = out.setdefault(p.split, {"problems": 0, "clusters": 0})
        row["problems"] += 1
        row[p.task] = row.get(p.task, 0) + 1
        clusters[p.split].add(p.cluster_id)
    for split, ids in clusters.items():
        out[split]["clusters"] = len(ids)
    return out


def leaks(problems: Sequence[ProblemBase]) -> list[str]:
    """Answer products found in more than one split (empty when the split is sound)."""
    where: dict[str, set[str]] = defaultdict(set)
    for p in problems:
        for product_id in p.gold_ids:
            where[product_id].add(p.split)
    return sorted(pid for pid, splits in where.items() if len(splits) > 1)
