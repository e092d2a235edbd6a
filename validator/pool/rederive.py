"""The one place a pooled run's strict verdict is re-derived from its published trajectory.

It calls the strict checks the node itself scores with (`arena.tasks.score` on the raw answer the gateway's log
holds, `arena.scoring.answer.raw_answer`), with the pack's ruleset and gold vectors, so a verdict re-derives exactly
when it is the one an honest node would have stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arena import tasks
from arena.scoring.models import RunScore
from arena.tasks.answer import raw_answer
from arena.trajectory import TrajectoryEvent


def strict_verdict(
    problem: Any,
    events: Sequence[TrajectoryEvent],
    lookup: Callable[[str], Any],
    *,
    gold_vectors: Any = None,
    ruleset: Any = None,
) -> RunScore:
    """The strict verdict on a run of `problem` whose gateway log is `events`."""
    verdict: RunScore = tasks.score(
        problem, raw_answer(events), lookup, events=events, gold_vectors=gold_vectors, ruleset=ruleset
    )
    return verdict


__all__ = ["strict_verdict"]
