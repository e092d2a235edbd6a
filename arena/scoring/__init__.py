"""What every family's scoring shares: the verdict's shape (`RunScore`) and suite aggregates (the run's committed
answer is read by `arena.tasks.answer`). A family's own checks live in its package (`arena.tasks`)."""

from arena.scoring.aggregate import SuiteScore, aggregate, mean_pass_at_k, pass_at_k
from arena.scoring.models import Check, ProductScore, RunScore

__all__ = ["Check", "ProductScore", "RunScore", "SuiteScore", "aggregate", "mean_pass_at_k", "pass_at_k"]
