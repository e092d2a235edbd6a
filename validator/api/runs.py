"""The runs: the filtered list, one run in full once its race closed (the sections its family draws: the answer
beside the gold, a session's conversation), and its trajectory (403 while the race is open)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import Response

from arena.scoring.models import normalize_strict
from arena.spend import RunSpend
from arena.tasks import UnknownTask, all_tasks, family_for, parse_problem
from arena.tasks.hooks import Section
from validator.api import views
from validator.api.shapes import HIDDEN, Limit, Offset, describe, page, run_summary, sandbox_facts
from validator.store.models import Run, Score
from validator.store.repository import RUN_STATUSES, Store
from validator.store.views import RunSort


def router(store: Store) -> APIRouter:
    """`/api/runs`, `/api/runs/{run_id}` and its `/trajectory` over `store`."""
    api = APIRouter()
    _list_route(api, store)
    _run_route(api, store)
    _trajectory_route(api, store)
    return api


def _list_route(api: APIRouter, store: Store) -> None:
    @api.get(
        "/api/runs",
        tags=["runs"],
        summary="Runs, filtered by race, miner, status, task, error code and blame; sorted; paged",
    )
    def runs(
        race_id: str | None = None,
        miner: str | None = Query(None, description="hotkey"),
        status: str | None = None,
        task: str | None = Query(None, description="only runs of closed races: an open race's tasks are hidden"),
        error_code: int | None = None,
        blame: Literal["agent", "validator"] | None = None,
        sort: RunSort = Query("created", description="sort key"),
        order: Literal["asc", "desc"] = "asc",
        limit: int = Limit,
        offset: int = Offset,
    ) -> dict[str, Any]:
        if status is not None and status not in RUN_STATUSES:
            raise HTTPException(422, f"unknown status {status!r}; one of {', '.join(RUN_STATUSES)}")
        known = all_tasks()
        if task is not None and task not in known:
            raise HTTPException(422, f"unknown task {task!r}; one of {', '.join(known)}")
        found = store.page_runs(
            race_id=race_id,
            hotkey=miner,
            status=status,
            error_code=error_code,
            blame=blame,
            task=task,
            sort=sort,
            descending=order == "desc",
            limit=limit,
            offset=offset,
        )
        return page(found, limit, offset, run_summary)


def _run_route(api: APIRouter, store: Store) -> None:
    @api.get(
        "/api/runs/{run_id}",
        tags=["runs"],
        summary="One run: the public query, every step, the strict breakdown, the judge's verdict, errors",
    )
    def run(run_id: str) -> dict[str, Any]:
        found = store.run(run_id)
        if found is None:
            raise HTTPException(404, f"no run {run_id!r}; list them at /api/runs")
        race_row = store.race(found.race_id)
        race_status = race_row.status if race_row else None
        score = store.score(run_id)
        sandbox = found.sandbox or {}
        if not views.revealed(race_status):
            out = run_summary(found, score, None, race_status, race_row.seed_block if race_row else None)
            out["hidden_reason"] = HIDDEN
            out["sandbox_facts"] = sandbox_facts(sandbox, full=False)
            out["error_description"] = describe(found.error_code)
            return out
        return _in_full(store, found, score, race_status, race_row.seed_block if race_row else None)


def _trajectory_route(api: APIRouter, store: Store) -> None:
    @api.get(
        "/api/runs/{run_id}/trajectory",
        tags=["runs"],
        summary="A run's gateway log, in order (`download=true`: a JSONL file); 403 while its race is open",
    )
    def trajectory(run_id: str, download: bool = False) -> Any:
        found = store.run(run_id)
        if found is None:
            raise HTTPException(404, f"no run {run_id!r}")
        race_row = store.race(found.race_id)
        if not views.revealed(race_row.status if race_row else None):
            raise HTTPException(403, f"run {run_id}: {HIDDEN}")
        events = [e.model_dump(mode="json") for e in store.events(run_id)]
        if download:
            import json

            body = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events)
            return Response(
                body,
                media_type="application/x-ndjson",
                headers={"Content-Disposition": f'attachment; filename="trajectory-{run_id}.jsonl"'},
            )
        return events


def run_sections(data: dict[str, Any] | None, strict: dict[str, Any] | None, steps: list[Any]) -> list[dict[str, Any]]:
    """The sections of a run's page, as its problem's family draws them (`Family.run_sections`); a problem whose
    family this node does not load gets its verdict as JSON, and one line saying why."""
    try:
        problem = parse_problem(data or {})
    except (UnknownTask, ValueError) as exc:  # pydantic's ValidationError is a ValueError
        why = f"this node cannot read the problem ({exc}); load its task family (SHOPARENA_FAMILIES)"
        return [Section("Answer and strict checks", "json", id="strict-generic", value=strict, note=why).as_dict()]
    try:
        sections = family_for(problem.task).run_sections(problem, strict, steps)
    except ValueError as exc:
        why = f"the {problem.task} family cannot draw this stored verdict ({exc})"
        return [Section("Answer and strict checks", "json", id="strict-generic", value=strict, note=why).as_dict()]
    return [section.as_dict() for section in sections]


def _shown_id(store: Store, found: Run) -> str | None:
    """The id the run's agent was shown for its problem (`arena.problems.alias`): the stable id maps to it."""
    from arena.problems.alias import race_key, shown_id

    race = store.race(found.race_id)
    return shown_id(race_key(race.race_id, race.seed_hash), found.problem_id) if race is not None else None


def _in_full(
    store: Store, found: Run, score: Score | None, race_status: str | None, seed_block: int | None
) -> dict[str, Any]:
    """A run of a closed race, in full: its problem, the gold beside its answer, the sandbox, the strict checks and
    the judge's verdict (with the verdicts a rescore replaced), every step, and the node's own faults it met."""
    sandbox = found.sandbox or {}
    problem = store.problem(found.problem_id)
    out = run_summary(found, score, problem.task if problem else None, race_status, seed_block)
    data = problem.data if problem else {}
    out["problem"] = {k: data.get(k) for k in ("problem_id", "task", "query", "difficulty")}
    out["problem"]["shown_id"] = _shown_id(store, found)
    out["answer"] = sandbox.get("answer")
    out["sandbox"] = found.sandbox
    out["sandbox_facts"] = sandbox_facts(sandbox, full=True)
    out["strict"] = normalize_strict(score.strict) if score else None  # a row stored before `extras` too
    out["judge"] = score.judge if score else None
    out["judge_evidence"] = score.judge_evidence if score else None
    # the ruleset the strict checks were made by, and the verdicts a rescore replaced (oldest first)
    out["ruleset"] = {"name": score.ruleset, "version": score.ruleset_version} if score else None
    out["score_revisions"] = [
        {
            "ruleset": r.ruleset,
            "ruleset_version": r.ruleset_version,
            "rubric_version": r.rubric_version,
            "success": r.success,
            "final": r.final,
            "replaced_at": r.replaced_at.isoformat(),
            "reason": r.reason,
        }
        for r in store.score_revisions(found.run_id)
    ]
    out["steps"] = [e.model_dump(mode="json") for e in store.events(found.run_id)]
    # the race closed: the gold is published, and the run's family draws the answer beside it, its checks (a
    # session: the conversation, the shopper's reveals, the attribution), never before (see `run` above)
    out["sections"] = run_sections(data, out["strict"], out["steps"])
    # the node's own faults met by this run: its upstream LLM failing (this attempt, and each earlier attempt
    # that ended in an error, with its code and blame)
    out["upstream_errors"] = sandbox.get("upstream_errors") or []
    # what the run's LLM calls cost and who paid (`arena.spend.RunSpend`), with its one line
    out["spend"] = _spend(sandbox)
    out["attempts"] = sandbox.get("attempts") or []
    out["error_description"] = describe(found.error_code)
    return out


def _spend(sandbox: dict[str, Any]) -> dict[str, Any] | None:
    raw = sandbox.get("spend")
    if not isinstance(raw, dict):
        return None
    spend = RunSpend.model_validate(raw)
    return {**spend.model_dump(mode="json"), "line": spend.line()}
