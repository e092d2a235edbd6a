"""A race's standings over the rotation's window, with how sure they are, and pass@k / pass^k per task.

The window: a miner's standing at a race's close pools its samples over the last `window` closed races of the
rotation (this one included), whichever of its submissions raced them. A new submission joins the miner's window
and its older versions' races roll out of it race by race: it stands on its own runs alone after `window` races.
Not the other way round (a new submission starting a new window): a miner could then commit again (the same agent,
one byte changed) after every unlucky race and keep the lucky ones, and a standing picked that way is biased upward
(tests/unit/test_window.py measures it). A run the validator failed on every attempt is not a sample (missing, not
a 0); an agent's error is a 0.
The interval, P(rank 1) and the ranking come from `arena.sampling.standings`, seeded by the race's seed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from arena.sampling import Sample, pass_at_k, pass_hat_k, seed_of, standings
from validator.store.models import Race
from validator.store.repository import Store


def counted(row: Mapping[str, Any]) -> bool:
    """Whether a final run is a sample: every run but one the validator failed on every attempt."""
    return not (row["status"] == "errored" and row["blame"] == "validator")


def in_window(
    rows: Sequence[dict[str, Any]], earlier: Sequence[tuple[str, Sequence[dict[str, Any]]]], window: int
) -> list[dict[str, Any]]:
    """This race's rows and, of the `window - 1` latest (race id, rows) of `earlier` (oldest first), the rows of the
    miners racing now (any of their submissions), each marked with its race id."""
    racing = {r["hotkey"] for r in rows}
    out = [dict(r) for r in rows]
    if window <= 1:
        return out
    for race_id, race_rows in earlier[-(window - 1) :]:
        out += [{**r, "race_id": race_id} for r in race_rows if r["hotkey"] in racing]
    return out


def window_rows(store: Store, race: Race, rows: Sequence[dict[str, Any]], window: int) -> list[dict[str, Any]]:
    """This race's rows and those of the `window - 1` closed races before it (`in_window`), marked with their race."""
    before = [r for r in store.races(status="closed") if r.race_id != race.race_id and r.seed_block < race.seed_block]
    earlier = [(r.race_id, store.race_rows(r.race_id)) for r in before[-(window - 1) :]] if window > 1 else []
    return in_window([{**r, "race_id": race.race_id} for r in rows], earlier, window)


def pass_k(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[dict[str, float], dict[str, float]]]:
    """Per miner: (pass@k per task, pass^k per task) over this race's samples, k = its samples of each problem."""
    by_problem: dict[tuple[str, str, str], list[bool]] = defaultdict(list)
    for r in rows:
        if counted(r):
            by_problem[(r["hotkey"], str(r.get("task", "?")), r["problem_id"])].append(bool(r["success"]))
    per: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for (hotkey, task, _), successes in sorted(by_problem.items()):
        per[hotkey][task].append((pass_at_k(successes), pass_hat_k(successes)))
    return {
        hotkey: (
            {task: sum(a for a, _ in v) / len(v) for task, v in sorted(tasks.items())},
            {task: sum(h for _, h in v) / len(v) for task, v in sorted(tasks.items())},
        )
        for hotkey, tasks in per.items()
    }


def race_standings(
    store: Store, race: Race, rows: Sequence[dict[str, Any]], blocks: Mapping[str, int], window: int
) -> dict[str, dict[str, Any]]:
    """Per miner of this race: its standing over the window (score, rank, low, high, p_rank1, samples) and this
    race's pass@k and pass^k per task."""
    samples = [
        Sample(miner=r["hotkey"], problem=f"{r['race_id']}/{r['problem_id']}", score=float(r["final"] or 0.0))
        for r in window_rows(store, race, rows, window)
        if counted(r)
    ]
    passes = pass_k(rows)
    out: dict[str, dict[str, Any]] = {}
    for s in standings(samples, blocks, seed=seed_of(race.seed_hash or race.race_id)):
        at_k, hat_k = passes.get(s.miner, ({}, {}))
        out[s.miner] = {
            "score": s.score,
            "rank": s.rank,
            "low": s.low,
            "high": s.high,
            "p_rank1": s.p_rank1,
            "samples": s.samples,
            "pass_at_k": at_k,
            "pass_hat_k": hat_k,
        }
    return out
