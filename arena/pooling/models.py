"""What the pooling rule reads (`PooledRun`: one run as a validator published it) and what it returns (`Standing`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Rate = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


class PooledRun(BaseModel):
    """One run of a race as a validator published it: `score` is the final score (strict x judge coefficient),
    `success` the strict verdict before the judge, `attempt` the sample index (0..k-1, not the retry count). A run
    blamed on the validator is not a sample: the rule leaves it out (missing, not a 0)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    validator: str = Field(min_length=1)
    miner: str = Field(min_length=1)
    submission: str
    problem_id: str = Field(min_length=1)
    attempt: int = Field(ge=0)
    score: Rate
    success: Rate
    error_code: int | None = None
    blame: Literal["agent", "validator"] | None = None
    #: the run's tool calls as tokens (`arena.copies.behaviour.behaviour_of`): the fork rule's behaviour evidence
    behaviour: tuple[str, ...] | None = None
    #: unused: read from pooled runs stored before the fork rule's order became pairwise (a results bundle's
    #: ``dates``, kept beside the runs: `validator.pool.copies.pooled_dates`); never set now
    since: int | None = Field(default=None, ge=0)


class Standing(BaseModel):
    """A miner's standing: score, 95% interval, P(rank 1), how many samples, problems and validators it rests on,
    its rank."""

    model_config = ConfigDict(frozen=True)

    miner: str
    score: float
    low: float
    high: float
    p_rank1: float
    samples: int
    problems: int
    rank: int
    validators: int = 1


def within_noise(ranked: Sequence[Standing]) -> list[str]:
    """The miners whose score lies inside the leader's 95% interval (the leader first); one miner alone is no band.
    An overlap of intervals is not enough: a miner with few samples has a wide interval that reaches any leader's."""
    if not ranked:
        return []
    leader = ranked[0]
    band = [s.miner for s in ranked if leader.low <= s.score <= leader.high]
    return band if len(band) > 1 else []
