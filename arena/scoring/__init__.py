"""What every family's scoring shares: the verdict's shape (`RunScore`) and suite aggregates (the run's committed
answer is read by `arena.tasks.answer`). A family's own checks live in its package (`arena.tasks`)."""

from arena.scoring.aggregate import SuiteScore, aggregate, mean_pass_at_k, pass_at_k
from arena.scoring.models import Check, RunScore, ScoreExtras, normalize_strict

__all__ = [
    "Check",
    "RunScore",
    "ScoreExtras",
    "SuiteScore",
    "aggregate",
    "mean_pass_at_k",
    "normalize_strict",
    "pass_at_k",
]
