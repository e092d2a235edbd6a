"""The judging rubric: gates a run's reasoning can reach, and how the judged quality turns success into a final score.

Default (`SN15_RUBRIC`): subnet 15's five gates, each the highest quality a run earns when it fails the next check:
0.1 no real LLM reasoning; 0.3 the reasoning never analyses tool results; 0.5 no specific datum cited; 0.7 no
explicit comparison of two or more candidates; 0.9 otherwise. Final score: `strict * coeff` with
`coeff = 1 if q >= 0.8 else 0.3 + 0.875 q` (subnet 15's formula), all configurable. `strict` is the family's score
before the judge (`RunScore.final` as scored): success (0 or 1) for ShoppingBench, as in subnet 15; a session's
success weighted by its rubric.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Gate(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str  # a short stable identifier, e.g. "no_reasoning"
    quality: float = Field(ge=0.0, le=1.0)
    description: str  # what a run at this gate failed to do (the LLM judge reads it)


class Rubric(BaseModel):
    """A versioned rubric: ordered gates (lowest quality first) and the final-score formula."""

    model_config = ConfigDict(frozen=True)

    version: str
    gates: tuple[Gate, ...]
    full_credit_at: float = Field(0.8, ge=0.0, le=1.0)  # q at or above this: coefficient 1
    base: float = Field(0.3, ge=0.0, le=1.0)
    slope: float = Field(0.875, ge=0.0)

    @model_validator(mode="after")
    def _ordered(self) -> Rubric:
        qualities = [g.quality for g in self.gates]
        if not qualities or qualities != sorted(set(qualities)):
            raise ValueError("gates must be given in increasing, distinct quality")
        return self

    @property
    def qualities(self) -> tuple[float, ...]:
        return tuple(g.quality for g in self.gates)

    def gate(self, name: str) -> Gate:
        for gate in self.gates:
            if gate.name == name:
                return gate
        raise KeyError(name)

    def coefficient(self, quality: float) -> float:
        if quality >= self.full_credit_at:
            return 1.0
        return min(1.0, self.base + self.slope * quality)

    def final(self, success: float, quality: float) -> float:
        return float(success) * self.coefficient(quality)


SN15_RUBRIC = Rubric(
    version="sn15-gates-v1",
    gates=(
        Gate(
            name="no_reasoning",
            quality=0.1,
            description="no real LLM reasoning: no model completion of substance (under 30 completion tokens), or the "
            "agent acted by code alone",
        ),
        Gate(
            name="no_analysis",
            quality=0.3,
            description="the reasoning never analyses tool results: completions do not follow tool results or do not "
            "refer to their content",
        ),
        Gate(
            name="no_datum",
            quality=0.5,
            description="no specific datum cited: the reasoning names no product id, price or attribute value seen in "
            "an earlier tool result",
        ),
        Gate(
            name="no_comparison",
            quality=0.7,
            description="no explicit comparison: no completion weighs two or more candidates against the request",
        ),
        Gate(
            name="sound",
            quality=0.9,
            description="reasoning that analyses tool results, cites specific data and compares candidates",
        ),
    ),
)
