"""The reasoning judge: did a run reason its way to its answer? Read from the gateway's log, which the agent
cannot touch.

- `Judge`: the protocol both judges implement: `judge(problem, events) -> Verdict` (raises `JudgeUnavailable` when
  it could not judge: the validator's fault, retried later, never a zero for the miner);
- `OfflineJudge` (`arena.judge.offline`): deterministic, no LLM, the rubric's gates computed from the log;
- `LLMJudge` (`arena.judge.llm`): an OpenAI-compatible model reading the quoted evidence with a versioned prompt;
- `Rubric` (`arena.judge.rubric`): the gates and the final-score formula.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, Field

from arena.judge.rubric import SN15_RUBRIC, Gate, Rubric
from arena.trajectory import TrajectoryEvent


class Verdict(BaseModel):
    """A judge's reading of one run."""

    judge: str  # "offline" or "llm:<model>"
    rubric_version: str
    prompt_version: str | None = None
    gate: str  # the rubric gate reached (its name)
    quality: float  # the gate's quality
    coefficient: float
    explanation: str
    evidence: list[int] = Field(default_factory=list)  # event seqs the verdict rests on
    raw: str | None = None  # the LLM's raw output, kept
    calls: int = 0  # judge calls made (LLM judge)
    failures: int = 0  # of which failed (transport, malformed, refused)
    tokens: dict[str, int] = Field(default_factory=dict)
    checks: dict[str, Any] = Field(default_factory=dict)  # the offline judge's per-gate findings


class JudgeUnavailable(Exception):
    """The judge could not judge this run (upstream down, malformed output after retries...): validator blame.

    ``transient``: every failed call was the judge's own trouble (a rate limit, a timeout, a 5xx, no connection),
    which the run's next try may not meet; False when the judge refused the request (another 4xx) or answered it
    unusably, as it may for what the run holds (`validator/races/judging.py`, a run the judge refuses)."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class Judge(Protocol):
    name: str
    rubric: Rubric

    def judge(self, problem: dict[str, Any], events: list[TrajectoryEvent]) -> Verdict:
        """`problem` is the public view (`Problem.public()`); `events` the run's gateway log in order."""
        ...


__all__ = ["Gate", "Judge", "JudgeUnavailable", "Rubric", "SN15_RUBRIC", "Verdict"]
