"""What a shopping family's verdict adds to `arena.scoring.RunScore` (its ``extras``): ShoppingBench's rates (gt, the
mean rule, the shop, budget and keyword checks, the per-field pass rates), the per-slot product checks and the title
model; the session family's verdict has the same shape for its one committed product."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from arena.scoring.models import Check, RunScore, ScoreExtras, normalize_strict

#: the fields whose pass rates a verdict reports (`ShoppingExtras.field_rates`)
FIELDS = ("title", "price", "service", "attributes")


class ProductScore(BaseModel):
    """The checks of one answered product against one reward (one slot); a stored row missing a figure reads it as
    nothing found (0, unknown)."""

    slot: int
    gold_id: str = ""
    answer_id: str | None = None
    known: bool = False
    gt: float = 0.0
    rule: float = 0.0
    title_similarity: float | None = None
    hits: dict[str, list[int]] = Field(default_factory=dict)  # field -> [passed, total]
    checks: list[Check] = Field(default_factory=list)


class ShoppingExtras(ScoreExtras):
    """The shopping families' part of a verdict."""

    title_model: str = ""
    gt: float = 0.0
    rule: float = 0.0
    shop: float | None = None
    budget: float | None = None
    kw: float | None = None
    field_rates: dict[str, float | None] = Field(default_factory=dict)
    products: list[ProductScore] = Field(default_factory=list)


def extras_of(score: RunScore) -> ShoppingExtras:
    """A shopping verdict's extras, typed."""
    if isinstance(score.extras, ShoppingExtras):
        return score.extras
    return ShoppingExtras.model_validate(score.extras.model_dump())


def shopping_extras(strict: Mapping[str, Any] | None) -> ShoppingExtras:
    """The shopping extras of a stored verdict (a row stored before ``extras`` too); empty ones for None."""
    normal = normalize_strict(dict(strict)) if strict is not None else None
    return ShoppingExtras.model_validate((normal or {}).get("extras") or {})


def known_answer_ids(strict: Mapping[str, Any] | None) -> set[str]:
    """The answer ids a stored verdict's per-slot checks found in the catalog (`Family.corpus_known`)."""
    return {str(p.answer_id) for p in shopping_extras(strict).products if p.known and p.answer_id}
