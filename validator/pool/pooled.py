"""A verified bundle's runs as the pooling rule reads them (`arena.pooling.PooledRun`)."""

from __future__ import annotations

from arena.copies.behaviour import behaviour_of
from arena.pooling import PooledRun
from arena.scoring.models import strict_score
from validator.pool.models import VerifiedBundle


def to_pooled(verified: VerifiedBundle) -> list[PooledRun]:
    """One `PooledRun` per run of the bundle: its final score, its strict score before the judge as re-derived from
    its trajectory (0 for an error), its error code and blame (a run blamed on the validator is left out by the rule,
    not counted as 0), and its tool calls (the fork rule's behaviour evidence; the fork rule's order is the bundle's
    ``dates``, read beside the runs: `validator.pool.copies.pooled_dates`)."""
    body = verified.bundle
    strict = verified.strict or tuple(
        strict_score(run.strict, float(run.strict.get("success", 0.0))) if run.strict else 0.0 for run in body.runs
    )
    return [
        PooledRun(
            validator=body.validator,
            miner=run.miner,
            submission=run.submission,
            problem_id=run.problem_id,
            attempt=run.attempt,
            score=run.final,
            success=score,
            error_code=run.error_code,
            blame=run.blame,
            behaviour=behaviour_of(run.trajectory),
        )
        for run, score in zip(body.runs, strict, strict=True)
    ]


__all__ = ["to_pooled"]
