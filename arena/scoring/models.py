"""A run's strict verdict, the same shape for every task family: the answer, success, the gt and rule rates, the
per-slot checks, and the judge's fields filled in later."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

#: the fields whose pass rates a verdict reports (`RunScore.field_rates`)
FIELDS = ("title", "price", "service", "attributes")


class Check(BaseModel):
    """One strict check and what it was decided on."""

    name: str
    passed: bool
    evidence: str


class ProductScore(BaseModel):
    slot: int
    gold_id: str
    answer_id: str | None
    known: bool
    gt: float
    rule: float
    title_similarity: float | None = None
    hits: dict[str, list[int]] = Field(default_factory=dict)  # field -> [passed, total]
    checks: list[Check] = Field(default_factory=list)


class RunScore(BaseModel):
    """A run's strict verdict; the judge fills ``judge_*`` and ``final`` later (until then final = success)."""

    task: str
    ruleset: str = "shoppingbench"
    ruleset_version: str = "1"
    title_model: str = ""
    answer: list[str]
    success: bool
    gt: float
    rule: float
    shop: float | None = None
    budget: float | None = None
    kw: float | None = None
    field_rates: dict[str, float | None] = Field(default_factory=dict)
    products: list[ProductScore] = Field(default_factory=list)
    checks: list[Check] = Field(default_factory=list)
    judge_quality: float | None = None
    judge_coefficient: float | None = None
    final: float = 0.0


def strict_score(strict: dict[str, Any] | None, success: float) -> float:
    """A stored verdict's score before the judge: its family's ``final`` (ShoppingBench: success, 0 or 1; a
    session: success weighted by its rubric), or ``success`` for a verdict stored without one."""
    value = (strict or {}).get("final")
    return float(value) if isinstance(value, int | float) else float(success)
