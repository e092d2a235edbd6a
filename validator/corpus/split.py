"""Step 9 of the funnel: the leak-cluster-guarded train/eval split, and the leak audit of a split."""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from validator.corpus.decontaminate import query_text
from validator.corpus.options import EXAMPLES


@dataclass(frozen=True)
class SplitProblem:
    """What the split needs to know of a problem."""

    problem_id: str
    cluster_id: str
    query: str
    golds: tuple[str, ...]
    split: str = "race"  # the pack's split: public | race | held_out


@dataclass(frozen=True)
class SplitRow:
    key: str
    problem_id: str
    recommended: tuple[str, ...]


@dataclass
class SplitOutcome:
    side: dict[str, str]  # problem id -> "train" | "eval"
    cluster: dict[str, str]  # problem id -> leak-cluster id
    dropped: dict[str, str]  # row key -> reason
    rows: Counter[str]  # kept rows per problem


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        parent = self.parent.setdefault(x, x)
        while parent != x:
            grand = self.parent[parent]
            self.parent[x] = grand
            x, parent = parent, grand
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def rank(seed: int, key: str) -> str:
    return hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()


def split_corpus(
    problems: Mapping[str, SplitProblem],
    rows: Iterable[SplitRow],
    *,
    held_out_fraction: float,
    seed: int,
    held_out_answers: set[str],
) -> SplitOutcome:
    """Leak-cluster-guarded split (one pass over `rows`; memory grows with problems and products, not rows).

    Rows of held-out problems (pack split ``held_out``, or a gold answer that is a held-out answer) and rows that
    recommend a held-out answer are dropped. The remaining problems are joined into leak clusters by stored cluster
    id, shared answer products (golds and recommended ids) and identical queries; eval takes whole clusters in the
    seeded order until it holds `held_out_fraction` of the rows, leaving at least one cluster to train."""
    uf = _UnionFind()
    dropped: dict[str, str] = {}
    counts: Counter[str] = Counter()
    for row in rows:
        problem = problems[row.problem_id]
        if problem.split == "held_out" or held_out_answers.intersection(problem.golds):
            dropped[row.key] = "held_out_problem"
            continue
        if held_out_answers.intersection(row.recommended):
            dropped[row.key] = "recommends_held_out_answer"
            continue
        counts[row.problem_id] += 1
        node = "p:" + row.problem_id
        for product_id in row.recommended:
            uf.union(node, "x:" + product_id)
    members: dict[str, list[str]] = defaultdict(list)
    for problem_id in sorted(counts):
        problem = problems[problem_id]
        node = "p:" + problem_id
        uf.union(node, "c:" + problem.cluster_id)
        uf.union(node, "q:" + query_text(problem.query))
        for product_id in problem.golds:
            uf.union(node, "x:" + product_id)
    for problem_id in sorted(counts):
        members[uf.find("p:" + problem_id)].append(problem_id)
    clusters = {root: "lc-" + hashlib.sha256(min(ids).encode()).hexdigest()[:12] for root, ids in members.items()}
    order = sorted(members, key=lambda root: rank(seed, clusters[root]))
    total = sum(counts.values())
    target = held_out_fraction * total
    side: dict[str, str] = {}
    cluster: dict[str, str] = {}
    in_eval = 0
    for i, root in enumerate(order):
        size = sum(counts[p] for p in members[root])
        to_eval = in_eval < target and i < len(order) - 1
        if to_eval:
            in_eval += size
        for problem_id in members[root]:
            side[problem_id] = "eval" if to_eval else "train"
            cluster[problem_id] = clusters[root]
    return SplitOutcome(side=side, cluster=cluster, dropped=dropped, rows=counts)


def audit_split(rows: Iterable[tuple[str, SplitProblem, Sequence[str]]], held_out_answers: set[str]) -> dict[str, Any]:
    """The leak audit of a split: `rows` are (side, problem, recommended ids). Train and the held-out answers (eval's
    golds and recommendations, and the held-out problems' golds) must share no product; train and eval no stored
    cluster and no query; no row may recommend a held-out answer."""
    products: dict[str, set[str]] = {"train": set(), "eval": set()}
    clusters: dict[str, set[str]] = {"train": set(), "eval": set()}
    queries: dict[str, set[str]] = {"train": set(), "eval": set()}
    recommending = 0
    for side, problem, recommended in rows:
        products[side].update(problem.golds)
        products[side].update(recommended)
        clusters[side].add(problem.cluster_id)
        queries[side].add(query_text(problem.query))
        recommending += bool(held_out_answers.intersection(recommended))
    held_out = products["eval"] | held_out_answers
    shared = sorted(products["train"] & held_out)
    shared_clusters = sorted(clusters["train"] & clusters["eval"])
    shared_queries = sorted(queries["train"] & queries["eval"])
    return {
        "passed": not (shared or shared_clusters or shared_queries or recommending),
        "train_answer_products": len(products["train"]),
        "held_out_answer_products": len(held_out),
        "shared_answer_products": len(shared),
        "shared_answer_product_examples": shared[:EXAMPLES],
        "shared_clusters": len(shared_clusters),
        "shared_queries": len(shared_queries),
        "rows_recommending_held_out_answers": recommending,
    }
