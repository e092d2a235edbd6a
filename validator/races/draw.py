"""Pure parts of a race: its start block and id, the problems it draws, its miners' scores."""


from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from arena.problems import Problem

# --- drawing ------------------------------------------------------------------------------------------------------


def race_start_block(block: int, cadence: int) -> int:
    """The block a race opened at `block` starts from: the last multiple of the cadence (the same on every node)."""
    return block - block % cadence


def race_id_for(pack_id: str, start_block: int) -> str:
    return f"{pack_id[:16]}-{start_block}"


def _rank(seed_hash: str, pack_id: str, problem_id: str) -> bytes:
    return hashlib.sha256(f"{seed_hash}|{pack_id}|{problem_id}".encode()).digest()


def draw_problems(problems: Sequence[Problem], *, pack_id: str, seed_hash: str, n: int,
                  task_mix: dict[str, float], split: str = "race") -> list[str]:
    """`n` problem ids from the race pool (split `race`; the qualifying set draws from `public`), deterministic in
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
    chosen: list[Problem] = []
    for task in sorted(quota):
        chosen += [p for p in pool if p.task == task][: quota[task]]
    taken = {p.problem_id for p in chosen}
    chosen += [p for p in pool if p.problem_id not in taken][: n - len(chosen)]
    chosen.sort(key=lambda p: _rank(seed_hash, pack_id, p.problem_id))
    return [p.problem_id for p in chosen]


# --- race scores --------------------------------------------------------------------------------------------------


def race_scores(rows: Sequence[dict[str, Any]], max_attempts: int) -> dict[str, dict[str, Any]]:
    """Per hotkey: score (mean final), success rate, runs, errored, per-task means, from the race's final runs.

    `rows`: one dict per run with hotkey, submission_id, task, status, blame, attempt, final, success. A run the
    validator failed on every attempt is left out of that miner's mean; agent errors count 0."""
    by_miner: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_miner[row["hotkey"]].append(row)
    out: dict[str, dict[str, Any]] = {}
    for hotkey, runs in sorted(by_miner.items()):
        counted = [r for r in runs if not (r["status"] == "errored" and r["blame"] == "validator")]
        if not counted:
            continue
        finals = [float(r["final"] or 0.0) if r["status"] == "finished" else 0.0 for r in counted]
        tasks: dict[str, list[float]] = defaultdict(list)
        for r, value in zip(counted, finals, strict=True):
            tasks[r["task"]].append(value)
        out[hotkey] = {
            "submission_id": runs[0]["submission_id"],
            "score": sum(finals) / len(finals),
            "success_rate": sum(1 for r in counted if r["status"] == "finished" and r["success"]) / len(counted),
            "runs": len(runs),
            "errored": sum(1 for r in runs if r["status"] == "errored"),
            "per_task": {task: sum(v) / len(v) for task, v in sorted(tasks.items())},
        }
    return out
