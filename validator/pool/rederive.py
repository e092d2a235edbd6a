"""The one place a pooled run's strict verdict is re-derived from its published trajectory.

It is the node's own strict verdict (`arena.verdict.strict_verdict`: the answer read from the gateway's log, checked
by the problem's family under the pack's ruleset with its gold vectors), so a verdict re-derives exactly when it is
the one an honest node would have stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arena import verdict
from arena.scoring.models import RunScore
from arena.trajectory import TrajectoryEvent


def strict_verdict(
    problem: Any,
    events: Sequence[TrajectoryEvent],
    lookup: Callable[[str], Any],
    *,
    gold_vectors: Any = None,
    ruleset: Any = None,
) -> RunScore:
    """The strict verdict on a run of `problem` whose gateway log is `events` (`arena.verdict.strict_verdict`)."""
    return verdict.strict_verdict(problem, events, lookup, gold_vectors=gold_vectors, ruleset=ruleset)


__all__ = ["strict_verdict"]
