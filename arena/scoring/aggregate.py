"""Suite aggregates: success and gt rates over a whole suite (timeouts and errors count as failures), per task type,
per-field rates, and pass@k with the unbiased estimator of Chen et al. 2021 (``1 - C(n-c, k) / C(n, k)``).

The gt and rule rates and the per-field hits are read from each verdict's ``extras`` by name (a family whose
verdict has none counts 0 there and adds no field)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from math import comb

from pydantic import BaseModel, Field

from arena.scoring.models import RunScore


class TaskAggregate(BaseModel):
    problems: int
    success_rate: float
    gt_rate: float
    mean_rule: float


class SuiteScore(BaseModel):
    problems: int
    scored: int
    success_rate: float
    gt_rate: float
    mean_rule: float
    by_task: dict[str, TaskAggregate] = Field(default_factory=dict)
    field_rates: dict[str, float | None] = Field(default_factory=dict)


def aggregate(results: Iterable[tuple[str, RunScore | None]]) -> SuiteScore:
    """``results``: (task, score) per problem of the suite; ``None`` for a run that errored or timed out."""
    rows = list(results)
    by_task: dict[str, list[RunScore | None]] = defaultdict(list)
    for task, score in rows:
        by_task[task].append(score)

    def summary(scores: Sequence[RunScore | None]) -> tuple[float, float, float]:
        n = len(scores) or 1
        return (
            sum(1 for s in scores if s and s.success) / n,
            sum(s.extras.rate("gt") or 0.0 for s in scores if s) / n,
            sum(s.extras.rate("rule") or 0.0 for s in scores if s) / n,
        )

    success, gt, rule = summary([s for _, s in rows])
    hits: dict[str, list[int]] = {}
    for _, score in rows:
        for product in getattr(score.extras, "products", None) or [] if score else ():
            shown = product.get("hits") if isinstance(product, dict) else getattr(product, "hits", None)
            for name, (p, t) in (shown or {}).items():
                hits.setdefault(name, [0, 0])
                hits[name][0] += p
                hits[name][1] += t
    field_rates = {name: p / t if t else None for name, (p, t) in hits.items()}
    return SuiteScore(
        problems=len(rows),
        scored=sum(1 for _, s in rows if s is not None),
        success_rate=success,
        gt_rate=gt,
        mean_rule=rule,
        by_task={
            task: TaskAggregate(
                problems=len(scores),
                **dict(zip(("success_rate", "gt_rate", "mean_rule"), summary(scores), strict=True)),
            )
            for task, scores in sorted(by_task.items())
        },
        field_rates=field_rates,
    )


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one problem with ``n`` attempts of which ``c`` succeeded."""
    if not 0 <= c <= n or k < 1:
        raise ValueError(f"pass@k needs 0 <= c <= n and k >= 1, got n={n} c={c} k={k}")
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} attempts, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def mean_pass_at_k(attempts: dict[str, list[bool]], k: int) -> float:
    """Mean pass@k over problems, each with its list of attempt outcomes."""
    if not attempts:
        return 0.0
    return sum(pass_at_k(len(o), sum(o), k) for o in attempts.values()) / len(attempts)
