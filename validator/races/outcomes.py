"""What a run keeps of an attempt: its sandbox's stats, what it spent, and the attempts that ended in an error."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena import blame
from validator.races.stages import KEEP_UPSTREAM_ERRORS
from validator.store.models import Run


def run_stats(run: Run, outcome: Any, code: int | None, error: str | None) -> dict[str, Any]:
    """What the attempt spent and what its sandbox said, as the run keeps them."""
    result = outcome.result
    stats = {
        "backend": result.backend,
        "status": result.status,
        "exit_code": result.exit_code,
        "elapsed_s": round(result.elapsed_s, 3),
        "timed_out": result.timed_out,
        "oom": result.oom,
        "stderr_tail": result.stderr[-2000:],
        "answer": outcome.answer,
        "worker": outcome.worker,
        "upstream_errors": outcome.upstream_errors[:KEEP_UPSTREAM_ERRORS],
        "budget_refusals": outcome.budget_refusals,
        "spend": outcome.spend.model_dump(mode="json"),  # tokens in and out, cost per model, who paid
        "payer_errors": outcome.payer_errors[:KEEP_UPSTREAM_ERRORS],
        "attempts": attempts_of(run, code, error, outcome.upstream_errors),
    }
    return {
        "tool_calls": outcome.tool_calls,
        "llm_calls": outcome.llm_calls,
        "tokens": outcome.tokens,
        "cost": outcome.cost,
        "sandbox": stats,
    }


def attempts_of(
    run: Run, code: int | None, error: str | None, upstream_errors: Sequence[dict[str, Any]] = ()
) -> list[dict[str, Any]]:
    """The run's earlier attempts that ended in an error, and this one if it did (the run page lists them)."""
    earlier = list((run.sandbox or {}).get("attempts") or [])
    if code is None:
        return earlier
    return [
        *earlier,
        {
            "attempt": run.attempt + 1 if run.status == "pending" else run.attempt,
            "code": code,
            "blame": blame.blame_of(code),
            "error": error,
            "upstream_errors": list(upstream_errors)[:KEEP_UPSTREAM_ERRORS],
            "upstream_error_count": len(upstream_errors),
        },
    ]
