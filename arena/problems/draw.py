"""Drawing problems from a pack: a race's from its race pool, seeded by the block hash at the race's start (a
qualifying round's are made fresh instead, `arena.problems.fresh`); the same on every honest validator (pure: a
function of the pool, the pack id and the seed)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from arena.tasks import ProblemBase


def _rank(seed_hash: str, pack_id: str, problem_id: str) -> bytes:
    return hashlib.sha256(f"{seed_hash}|{pack_id}|{problem_id}".encode()).digest()


def draw_problems(
    problems: Sequence[ProblemBase],
    *,
    pack_id: str,
    seed_hash: str,
    n: int,
    task_mix: dict[str, float],
    split: str = "race",
) -> list[str]:
    """`n` problem ids from the race pool (split `race`, or the one named), deterministic in
    (`seed_hash`, `pack_id`, the pool).

    Each task gets its share of `n` by the mix (largest remainders, ties by task name); within a task, problems are
    taken in the order of sha256(seed | pack | id), which no one can steer without the block hash. A task short of
    problems leaves its places to the best-ranked of the rest. The result is sorted by that rank."""
    pool = sorted((p for p in problems if p.split == split), key=lambda p: _rank(seed_hash, pack_id, p.problem_id))
    n = min(n, len(pool))
    if n <= 0:
        return []
    weights = {task: w for task, w in task_mix.items() if w > 0}
    total = sum(weights.values()) or 1.0
    exact = {task: n * w / total for task, w in weights.items()}
    quota = {task: int(share) for task, share in exact.items()}
    for task in sorted(exact, key=lambda t: (-(exact[t] - quota[t]), t))[: n - sum(quota.values())]:
        quota[task] += 1
    chosen: list[ProblemBase] = []
    for task in sorted(quota):
        chosen += [p for p in pool if p.task == task][: quota[task]]
    taken = {p.problem_id for p in chosen}
    chosen += [p for p in pool if p.problem_id not in taken][: n - len(chosen)]
    chosen.sort(key=lambda p: _rank(seed_hash, pack_id, p.problem_id))
    return [p.problem_id for p in chosen]
