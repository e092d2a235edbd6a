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
from arena.copies.fork import CopyVerdict, fork_verdicts, order_by, without_copies
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


def pooled_since(runs: Iterable[Mapping[str, Any] | Any]) -> dict[str, int]:
    """Each miner's order key from the pooled runs: every validator that ran it says since which block it holds the
    miner has stood for its agent (its results bundle's ``since``; none said counts as no earlier block), and the
    lower median of what they say is taken: a value every node and the audit read alike from the same bundles, that
    no minority of the validators can move (with two, the earlier of the two)."""
    said: dict[str, dict[str, float]] = {}
    for run in runs:
        block = _field(run, "since")
        said.setdefault(str(_field(run, "miner")), {})[str(_field(run, "validator") or "")] = (
            float(block) if block is not None else math.inf
        )
    out = {}
    for miner, by_validator in sorted(said.items()):
        values = sorted(by_validator.values())
        middle = values[(len(values) - 1) // 2]
        if middle != math.inf:
            out[miner] = int(middle)
    return out


def find_copies(
    results: Sequence[MinerResult],
    runs: Iterable[Mapping[str, Any] | Any],
    folder_of: Callable[[str], Path | None],
    *,
    threshold: float = COPY_THRESHOLD,
    since: Mapping[str, int] | None = None,
) -> tuple[list[MinerResult], list[CopyVerdict]]:
    """The standings without their copies, and the fork rule's verdicts. ``runs`` are the race's runs (pooled runs
    or their json: miner, submission, problem_id, behaviour, success: the strict score, which wrong answers
    are the answer evidence); ``folder_of`` gives an agent bundle's folder by its
    sha256 (None: not held, no code evidence for it); ``since`` each agent's order key (`arena.copies.fork.order_by`;
    default its commitment block). A pooled race passes none: the order keys are then read from the pooled runs
    (`pooled_since`), so every pooled validator and the audit order the miners alike."""
    runs = sorted(runs, key=_run_key)
    if since is None:
        since = pooled_since(runs)
    hotkeys = {r.hotkey for r in results}
    submissions: dict[str, Counter[str]] = {}
    calls: dict[str, dict[str, list[Calls]]] = {}
    success: dict[str, dict[str, list[float]]] = {}
    for run in runs:
        miner = str(_field(run, "miner"))
        if miner not in hotkeys:
            continue
        submissions.setdefault(miner, Counter())[str(_field(run, "submission"))] += 1
        behaviour = _field(run, "behaviour")
        if behaviour is not None:
            calls.setdefault(miner, {}).setdefault(str(_field(run, "problem_id")), []).append(tuple(behaviour))
            score = _field(run, "success")
            success.setdefault(miner, {}).setdefault(str(_field(run, "problem_id")), []).append(
                float(score) if score is not None else 0.0
            )
    agent = {miner: _most_run(counts) for miner, counts in submissions.items()}
    order = [r.hotkey for r in sorted(results, key=order_by(since)) if r.hotkey in agent]
    folders = [(h, folder) for h in order if (folder := folder_of(agent[h])) is not None]
    evidence = code_evidence(folders, threshold=threshold)
    evidence += behaviour_evidence([(h, calls[h]) for h in order if h in calls], success)
    verdicts = fork_verdicts(results, evidence, since)
    return without_copies(results, verdicts), verdicts


__all__ = ["find_copies"]
