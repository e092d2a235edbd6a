"""What the API answers, shaped from the store's rows: races, runs (hidden until their race closes), the sandbox's
facts, error-code descriptions, and the paginated list every list endpoint answers."""

from __future__ import annotations

from typing import Any

from fastapi import Query

from validator.api import views
from validator.store.models import Race, Run, Score
from validator.store.views import Page

Limit = Query(50, ge=1, le=500, description="page size")
Offset = Query(0, ge=0, description="items to skip")


def page(found: Page, limit: int, offset: int, shape: Any) -> dict[str, Any]:
    """One page of a list: its items shaped by `shape(*row)`, the total, the limit and the offset."""
    return {"items": [shape(*item) for item in found.rows], "total": found.total, "limit": limit, "offset": offset}


def iso(value: Any) -> Any:
    return value.isoformat() if hasattr(value, "isoformat") else value


def row(obj: Any, *fields: str) -> dict[str, Any]:
    return {f: iso(getattr(obj, f)) for f in fields}


RACE_FIELDS = (
    "race_id",
    "pack_id",
    "kind",
    "status",
    "seed_block",
    "seed_hash",
    "problem_ids",
    "reason",
    "opened_at",
    "closed_at",
    "held_since",
)
RUN_FIELDS = (
    "run_id",
    "race_id",
    "submission_id",
    "problem_id",
    "hotkey",
    "status",
    "error_code",
    "blame",
    "error",
    "sample",
    "attempt",
    "created_at",
    "starting_at",
    "running_at",
    "scoring_at",
    "judged_at",
    "finished_at",
    "errored_at",
    "tool_calls",
    "llm_calls",
    "tokens",
    "cost",
)
SUBMISSION_FIELDS = (
    "id",
    "hotkey",
    "sha256",
    "commitment_block",
    "source",
    "status",
    "reason",
    "copy_of",
    "normalized_sha256",
    "size_bytes",
    "code_notes",
    "created_at",
    "checked_at",
)
RESULT_FIELDS = (
    "race_id",
    "hotkey",
    "uid",
    "submission_id",
    "commitment_block",
    "score",
    "success_rate",
    "runs",
    "errored",
    "rank",
    "per_task",
    "low",
    "high",
    "p_rank1",
    "samples",
    "pass_at_k",
    "pass_hat_k",
)


def describe(code: int | None) -> str | None:
    from arena.blame import CODES

    entry = CODES.get(code) if code is not None else None
    return entry.description if entry else None


#: What a run of a race that has not closed shows: its status, timing and error code, nothing of its content.
HIDDEN_RUN_FIELDS = tuple(
    f for f in RUN_FIELDS if f not in ("problem_id", "error", "tool_calls", "llm_calls", "tokens", "cost")
)
HIDDEN = "the race is still open: a run's problem, steps, answer and checks are shown once its race closes"


def race_row(race: Race) -> dict[str, Any]:
    out = row(race, *RACE_FIELDS)
    out["problem_count"] = len(race.problem_ids or [])
    out["revealed"] = views.revealed(race.status)
    if not out["revealed"]:
        out["problem_ids"] = []  # which problems a race drew is its content
    return out


def run_summary(
    run: Run, score: Score | None, task: str | None, race_status: str | None = None, seed_block: int | None = None
) -> dict[str, Any]:
    sandbox = run.sandbox or {}
    end = run.finished_at or run.errored_at
    timing = {
        "seconds": sandbox.get("elapsed_s"),
        "span_seconds": (end - run.starting_at).total_seconds() if end and run.starting_at else None,
        "ended_at": iso(end),
        "race_status": race_status,
        "seed_block": seed_block,
    }
    if race_status is not None and not views.revealed(race_status):
        return {**row(run, *HIDDEN_RUN_FIELDS), **timing, "hidden": True}
    out = row(run, *RUN_FIELDS)
    out.update(
        task=task,
        **timing,
        hidden=False,
        success=score.success if score else None,
        final=score.final if score else None,
        judge_quality=score.judge_quality if score else None,
        judge_gate=(score.judge or {}).get("gate") if score else None,
    )
    return out


def sandbox_facts(sandbox: dict[str, Any], *, full: bool) -> dict[str, Any]:
    """What the sandbox said of a run: exit code, OOM, timeout, its status (and, once the race closed, the tail of
    the agent's stderr)."""
    keys = ("backend", "status", "exit_code", "oom", "timed_out", "elapsed_s") + (("stderr_tail",) if full else ())
    return {k: sandbox.get(k) for k in keys}
