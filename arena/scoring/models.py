"""A run's strict verdict, the same shape for every task family (`RunScore`): the task, the ruleset, the answer,
success, the checks that explain it, the final score and the judge's fields filled in later. What only one family's
verdict has (ShoppingBench's gt and rule rates, per-slot checks, shop and budget checks) is in ``extras``, a model
the family subclasses from `ScoreExtras` (the shopping families': `arena.tasks.shopping.verdict.ShoppingExtras`).

A verdict stored before ``extras`` existed held the shopping fields at the top level: `RunScore` and
`normalize_strict` read such a row with them moved into ``extras``, so old rows stay readable."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, model_validator

#: the top-level keys of a verdict stored before ``extras``: the shopping families' extras
LEGACY_EXTRAS = ("title_model", "gt", "rule", "shop", "budget", "kw", "field_rates", "products")


class Check(BaseModel):
    """One strict check and what it was decided on."""

    name: str
    passed: bool
    evidence: str


class ScoreExtras(BaseModel):
    """What one family's verdict adds to `RunScore` (subclass it with typed fields). Read back without its family's
    model, its fields are kept as they were stored (``extra="allow"``)."""

    model_config = ConfigDict(extra="allow")

    def rate(self, name: str) -> float | None:
        """A numeric figure of the extras (e.g. ShoppingBench's ``gt``), or None when it has none of that name."""
        value = getattr(self, name, None)
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def normalize_strict(strict: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored verdict (`RunScore` as JSON) as it is written today: the shopping fields of a row stored before
    ``extras`` moved into it (a row stored before rulesets is ShoppingBench's ``shoppingbench``)."""
    if not isinstance(strict, dict) or not any(k in strict for k in LEGACY_EXTRAS):
        return strict
    out = {k: v for k, v in strict.items() if k not in LEGACY_EXTRAS}
    out["extras"] = {**{k: strict[k] for k in LEGACY_EXTRAS if k in strict}, **(strict.get("extras") or {})}
    out.setdefault("ruleset", "shoppingbench")
    return out


class RunScore(BaseModel):
    """A run's strict verdict; the judge fills ``judge_*`` and ``final`` later (until then final = the family's
    score before the judge: ShoppingBench's success, a session's rubric-weighted success)."""

    task: str
    ruleset: str = ""
    ruleset_version: str = "1"
    answer: list[str]
    success: bool
    checks: list[Check] = Field(default_factory=list)
    extras: SerializeAsAny[ScoreExtras] = Field(default_factory=ScoreExtras)
    judge_quality: float | None = None
    judge_coefficient: float | None = None
    final: float = 0.0

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, value: Any) -> Any:
        return normalize_strict(value) if isinstance(value, dict) else value


def strict_score(strict: dict[str, Any] | None, success: float) -> float:
    """A stored verdict's score before the judge: its family's ``final`` (ShoppingBench: success, 0 or 1; a
    session: success weighted by its rubric), or ``success`` for a verdict stored without one."""
    value = (strict or {}).get("final")
    return float(value) if isinstance(value, int | float) else float(success)
