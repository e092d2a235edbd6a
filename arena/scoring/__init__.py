"""Strict checks (ShoppingBench's rules), title similarity and suite aggregates."""

from arena.scoring.aggregate import SuiteScore, aggregate, mean_pass_at_k, pass_at_k
from arena.scoring.strict import Check, ProductScore, RunScore, parse_answer, score_run

__all__ = [
    "Check",
    "ProductScore",
    "RunScore",
    "SuiteScore",
    "aggregate",
    "mean_pass_at_k",
    "parse_answer",
    "pass_at_k",
    "score_run",
]
