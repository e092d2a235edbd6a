"""The fork rule's evidence read one way for the node (`validator.races.copying`) and for `arena-validator audit`
(`validator.audit`), so both find the same copies from the same runs and bundles: code similarity of the raced
agents' bundles (and the templates) and the behaviour of their runs (`PooledRun.behaviour`, the tool calls of each
run's trajectory), then `arena.copies.fork`."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.copies import COPY_THRESHOLD
from arena.copies.behaviour import Calls, behaviour_evidence
from arena.copies.fork import CopyVerdict, Dates, Order, fork_verdicts, without_copies
from arena.weights import MinerResult
from validator.submissions.similarity import code_evidence


def _field(run: Mapping[str, Any] | Any, key: str) -> Any:
    return run.get(key) if isinstance(run, Mapping) else getattr(run, key, None)


def _run_key(run: Mapping[str, Any] | Any) -> tuple[str, str, str, int, str, tuple[str, ...]]:
    """The order runs are read in, whatever order they arrived in: by validator, miner, problem and attempt."""
    behaviour = _field(run, "behaviour")
    return (
        str(_field(run, "validator") or ""),
        str(_field(run, "miner")),
        str(_field(run, "problem_id")),
        int(_field(run, "attempt") or 0),
        str(_field(run, "submission")),
        tuple(behaviour) if behaviour is not None else (),
    )


def _most_run(counts: Counter[str]) -> str:
    """The agent a miner raced: the bundle most of its runs ran (a validator that raced an older one is outvoted),
    the smallest sha256 of equals."""
    return min(counts, key=lambda sha: (-counts[sha], sha))


def pooled_dates(
    runs: Iterable[Mapping[str, Any] | Any],
    said: Mapping[str, Mapping[str, Mapping[str, int]]],
    stakes: Mapping[str, float] | None = None,
    registered: Mapping[str, int] | None = None,
) -> dict[str, dict[str, int]]:
    """Each pair's date from what the validators say (``said``: validator -> its results bundle's ``dates``, x -> y
    -> the block since which it holds x has held the code x shares with y): the stake-weighted lower median over the
    whole pool (every validator that published runs or dates; one that did not run x, or says nothing of the pair,
    counts as no block, i.e. late), the earliest block that validators holding at least half the pool's stake say,
    or earlier (`arena.pooling`'s stakes, a validator without stake counting nothing while any has some, all alike
    when none has), and never before x's hotkey was registered (``registered``: hotkey -> its registration block as
    the pool reads the chain). Without half the pool's stake behind an earlier block the pair has no date and x is
    dated by its commitment block (`arena.copies.fork.Order`). The same on every node and in the audit, which read
    the same bundles and chain; below half the pool's stake a validator, or a few serving a miner only to
    themselves, move no date."""
    ran: dict[str, set[str]] = {}
    pool: set[str] = {str(v) for v in said}
    for run in runs:
        validator = str(_field(run, "validator") or "")
        ran.setdefault(str(_field(run, "miner")), set()).add(validator)
        pool.add(validator)
    weights = {v: _stake(stakes or {}, v) for v in sorted(pool)}
    if not any(weights.values()):
        weights = dict.fromkeys(weights, 1.0)
    counted = sorted(v for v, w in weights.items() if w > 0)
    out: dict[str, dict[str, int]] = {}
    for x, validators in sorted(ran.items()):
        dating = [v for v in counted if v in validators]
        others = sorted({y for v in dating for y in (said.get(v) or {}).get(x, {})})
        for y in others:
            values = sorted(
                (float((said.get(v) or {}).get(x, {}).get(y, math.inf)) if v in validators else math.inf, weights[v])
                for v in counted
            )
            block = _lower_median(values)
            if block != math.inf:
                out.setdefault(x, {})[y] = max(int(block), int((registered or {}).get(x, 0)))
    return out


def _stake(stakes: Mapping[str, float], validator: str) -> float:
    value = float(stakes.get(validator, 0.0))
    return value if math.isfinite(value) and value > 0 else 0.0


def _lower_median(values: Sequence[tuple[float, float]]) -> float:
    """The first value (sorted) at which the cumulative weight reaches half the total (exact sums: `math.fsum`)."""
    total = math.fsum(w for _, w in values)
    held: list[float] = []
    for value, weight in values:
        held.append(weight)
        if 2 * math.fsum(held) >= total * (1 - 1e-12):
            return value
    return math.inf


def find_copies(
    results: Sequence[MinerResult],
    runs: Iterable[Mapping[str, Any] | Any],
    folder_of: Callable[[str], Path | None],
    *,
    threshold: float = COPY_THRESHOLD,
    dates: Dates | None = None,
) -> tuple[list[MinerResult], list[CopyVerdict]]:
    """The standings without their copies, and the fork rule's verdicts. ``runs`` are the race's runs (pooled runs
    or their json: miner, submission, problem_id, behaviour, success: the strict score re-derived in pooling,
    error_code: a run that ended in error answered nothing; the strict failures of runs without error are the
    answer evidence's wrong answers); ``folder_of`` gives an agent bundle's folder by its sha256 (None: not held,
    no code evidence for it); ``dates`` each pair's order (`arena.copies.fork.Order`: this node's own for a race judged
    alone, `pooled_dates` for a pooled one; none: by commitment block)."""
    runs = sorted(runs, key=_run_key)
    hotkeys = {r.hotkey for r in results}
    submissions: dict[str, Counter[str]] = {}
    calls: dict[str, dict[str, list[Calls]]] = {}
    success: dict[str, dict[str, list[float | None]]] = {}
    for run in runs:
        miner = str(_field(run, "miner"))
        if miner not in hotkeys:
            continue
        submissions.setdefault(miner, Counter())[str(_field(run, "submission"))] += 1
        behaviour = _field(run, "behaviour")
        if behaviour is not None:
            calls.setdefault(miner, {}).setdefault(str(_field(run, "problem_id")), []).append(tuple(behaviour))
            score = _field(run, "success")  # an errored run answered nothing: None, no wrong answer
            errored = _field(run, "error_code") is not None
            success.setdefault(miner, {}).setdefault(str(_field(run, "problem_id")), []).append(
                None if errored else float(score) if score is not None else 0.0
            )
    agent = {miner: _most_run(counts) for miner, counts in submissions.items()}
    order = Order(results, dates)
    raced = sorted((r.hotkey for r in results if r.hotkey in agent), key=lambda h: (order.blocks[h], h))
    folders = [(h, folder) for h in raced if (folder := folder_of(agent[h])) is not None]
    evidence = code_evidence(folders, threshold=threshold, first=order.first)
    evidence += behaviour_evidence([(h, calls[h]) for h in raced if h in calls], success, first=order.first)
    verdicts = fork_verdicts(results, evidence, dates)
    return without_copies(results, verdicts), verdicts


__all__ = ["find_copies", "pooled_dates"]


def audit_copies(
    chain: Any,
    start: int,
    pinned: int | None,
    runs: Mapping[str, Sequence[Any]],
    said: Mapping[str, Any],
    holders: Mapping[str, Any],
    results: list[MinerResult],
    agents: Path,
    threshold: float,
    *,
    wallet: Any,
    timeout: float,
) -> tuple[list[MinerResult], list[CopyVerdict], list[str]]:
    """The fork rule as a node applies it, for `arena-validator audit`: the pooled dates (the validators' `said`
    dates weighed by their stakes, floored at the registration blocks as of the pinned block, as every node reads
    them) and the raced agents fetched into ``agents`` (from their miners, else from a validator that raced them).
    Returns the results without the copies' standing, the verdicts, and notes on agents that could not be fetched."""
    from validator.chain.port import ChainError
    from validator.pool.agents import fetch_agents
    from validator.pool.inputs import registered_at

    flat = [run for rows in runs.values() for run in rows]
    stakes = {h: float(n.stake) for h, n in holders.items()}
    try:
        registered = registered_at(chain, pinned)
    except ChainError:  # a node that no longer holds that block's state: as now
        registered = registered_at(chain, None)
    dates = pooled_dates(flat, said, stakes, registered)
    raced_by: dict[str, list[str]] = {}
    for r in flat:
        raced_by.setdefault(r.submission, []).append(r.validator)
    folders, notes = fetch_agents(
        chain, start, {(r.miner, r.submission) for r in flat}, agents, wallet=wallet, timeout=timeout, holders=raced_by
    )
    kept, verdicts = find_copies(results, flat, folders.get, threshold=threshold, dates=dates)
    return kept, verdicts, notes
