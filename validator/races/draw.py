"""Pure parts of a race: its start block and id, its miners' scores. The problems it draws come from
`arena.problems.draw` (the qualifying round draws its set there too)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

# --- drawing ------------------------------------------------------------------------------------------------------


def race_start_block(block: int, cadence: int) -> int:
    """The block a race opened at `block` starts from: the last multiple of the cadence (the same on every node)."""
    return block - block % cadence


def race_id_for(pack_id: str, start_block: int) -> str:
    return f"{pack_id[:16]}-{start_block}"


# --- race scores --------------------------------------------------------------------------------------------------


def race_scores(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
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
