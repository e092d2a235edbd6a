"""The node's read-only HTTP API and dashboard (FastAPI): races, runs, trajectories, submissions, leaderboards, weight
sets; `/metrics` for Prometheus and `/healthz`. No write endpoint; the dashboard is static files shipped in the
package (no CDN), served at `/`.

Lists are paginated with `limit` (1-500, default 50) and `offset`, and answer `{"items": [...], "total": N,
"limit": L, "offset": O}`. Unknown ids answer 404 and bad filters 422, each with a message.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Query
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy import func, select

from validator.store.models import Miner, ProblemRow, Race, Run, Score, Submission, WeightSet
from validator.store.repository import RUN_STATUSES, Store

STATIC = Path(__file__).resolve().parent / "static"
TASKS = ("product", "shop", "voucher", "web")
Limit = Query(50, ge=1, le=500, description="page size")
Offset = Query(0, ge=0, description="items to skip")


def _iso(value: Any) -> Any:
    return value.isoformat() if hasattr(value, "isoformat") else value


def _row(obj: Any, *fields: str) -> dict[str, Any]:
    return {f: _iso(getattr(obj, f)) for f in fields}


RACE_FIELDS = ("race_id", "pack_id", "status", "seed_block", "seed_hash", "problem_ids", "reason", "opened_at",
               "closed_at")
RUN_FIELDS = ("run_id", "race_id", "submission_id", "problem_id", "hotkey", "status", "error_code", "blame", "error",
              "attempt", "created_at", "starting_at", "running_at", "scoring_at", "judged_at", "finished_at",
              "errored_at", "tool_calls", "llm_calls", "tokens", "cost")
SUBMISSION_FIELDS = ("id", "hotkey", "sha256", "commitment_block", "source", "status", "reason", "copy_of",
                     "normalized_sha256", "size_bytes", "created_at", "checked_at")
RESULT_FIELDS = ("race_id", "hotkey", "uid", "submission_id", "commitment_block", "score", "success_rate", "runs",
                 "errored", "rank", "per_task")


def _describe(code: int | None) -> str | None:
    from arena.blame import CODES

    entry = CODES.get(code) if code is not None else None
    return entry.description if entry else None


def _run_summary(run: Run, score: Score | None, task: str | None) -> dict[str, Any]:
    sandbox = run.sandbox or {}
    out = _row(run, *RUN_FIELDS)
    end = run.finished_at or run.errored_at
    out.update(task=task, seconds=sandbox.get("elapsed_s"),
               span_seconds=(end - run.starting_at).total_seconds() if end and run.starting_at else None,
               success=score.success if score else None, final=score.final if score else None,
               judge_quality=score.judge_quality if score else None,
               judge_gate=(score.judge or {}).get("gate") if score else None)
    return out


def create_app(store: Store, *, health: Any = None, metrics: Any = None) -> FastAPI:
    """The API over `store`. `health()` returns extra checks (chain, scheduler) as {name: (ok, detail)};
    `metrics` is a `validator.metrics.Metrics` whose registry `/metrics` exposes."""
    app = FastAPI(title="ShopArena validator API", version="1", docs_url=None, redoc_url=None,
                  description="Read-only: races, runs, trajectories, submissions, leaderboards, weight sets.")

    def page(query: Any, count: Any, limit: int, offset: int, shape: Any) -> dict[str, Any]:
        with store.session() as s:
            total = s.scalar(count) or 0
            rows = s.execute(query.limit(limit).offset(offset)).all()
            return {"items": [shape(*row) for row in rows], "total": int(total), "limit": limit, "offset": offset}

    # --- races ------------------------------------------------------------------------------------------------------

    @app.get("/api/races", tags=["races"], summary="Races, newest first")
    def races(status: Literal["open", "running", "closed", "cancelled"] | None = None, limit: int = Limit,
              offset: int = Offset) -> dict[str, Any]:
        query = select(Race).order_by(Race.opened_at.desc(), Race.race_id.desc())
        count = select(func.count()).select_from(Race)
        if status:
            query, count = query.where(Race.status == status), count.where(Race.status == status)
        return page(query, count, limit, offset, lambda r: _row(r, *RACE_FIELDS))

    @app.get("/api/races/{race_id}", tags=["races"], summary="One race: its runs by status and its results")
    def race(race_id: str) -> dict[str, Any]:
        found = store.race(race_id)
        if found is None:
            raise HTTPException(404, f"no race {race_id!r}; list them at /api/races")
        out = _row(found, *RACE_FIELDS)
        out["runs_by_status"] = store.count_runs(race_id)
        out["results"] = [_row(r, *RESULT_FIELDS) for r in store.race_results(race_id)]
        return out

    # --- runs -------------------------------------------------------------------------------------------------------

    @app.get("/api/runs", tags=["runs"], summary="Runs, filtered by race, miner, status and task")
    def runs(race_id: str | None = None, miner: str | None = Query(None, description="hotkey"),
             status: str | None = None, task: str | None = None, limit: int = Limit,
             offset: int = Offset) -> dict[str, Any]:
        if status is not None and status not in RUN_STATUSES:
            raise HTTPException(422, f"unknown status {status!r}; one of {', '.join(RUN_STATUSES)}")
        if task is not None and task not in TASKS:
            raise HTTPException(422, f"unknown task {task!r}; one of {', '.join(TASKS)}")
        query = (select(Run, Score, ProblemRow.task).outerjoin(Score, Score.run_id == Run.run_id)
                 .outerjoin(ProblemRow, ProblemRow.problem_id == Run.problem_id)
                 .order_by(Run.created_at, Run.run_id))
        count = select(func.count()).select_from(Run).outerjoin(ProblemRow, ProblemRow.problem_id == Run.problem_id)
        for column, value in ((Run.race_id, race_id), (Run.hotkey, miner), (Run.status, status),
                              (ProblemRow.task, task)):
            if value is not None:
                query, count = query.where(column == value), count.where(column == value)
        return page(query, count, limit, offset, _run_summary)

    @app.get("/api/runs/{run_id}", tags=["runs"],
             summary="One run: the public query, every step, the strict breakdown, the judge's verdict, errors")
    def run(run_id: str) -> dict[str, Any]:
        found = store.run(run_id)
        if found is None:
            raise HTTPException(404, f"no run {run_id!r}; list them at /api/runs")
        with store.session() as s:
            problem = s.get(ProblemRow, found.problem_id)
        score = store.score(run_id)
        out = _run_summary(found, score, problem.task if problem else None)
        data = problem.data if problem else {}
        out["problem"] = {k: data.get(k) for k in ("problem_id", "task", "query", "difficulty")}
        out["problem"]["n_products"] = len(data.get("reward") or [])
        out["sandbox"] = found.sandbox
        out["strict"] = score.strict if score else None
        out["judge"] = score.judge if score else None
        out["judge_evidence"] = score.judge_evidence if score else None
        # the ruleset the strict checks were made by, and the verdicts a rescore replaced (oldest first)
        out["ruleset"] = {"name": score.ruleset, "version": score.ruleset_version} if score else None
        out["score_revisions"] = [
            {"ruleset": r.ruleset, "ruleset_version": r.ruleset_version, "rubric_version": r.rubric_version,
             "success": r.success, "final": r.final, "replaced_at": r.replaced_at.isoformat(), "reason": r.reason}
            for r in store.score_revisions(run_id)]
        out["steps"] = [e.model_dump(mode="json") for e in store.events(run_id)]
        sandbox = found.sandbox or {}
        # the node's own faults met by this run: its upstream LLM failing (this attempt, and each earlier attempt
        # that ended in an error, with its code and blame)
        out["upstream_errors"] = sandbox.get("upstream_errors") or []
        out["attempts"] = sandbox.get("attempts") or []
        out["error_description"] = _describe(found.error_code)
        return out

    @app.get("/api/runs/{run_id}/trajectory", tags=["runs"], summary="A run's gateway log, in order")
    def trajectory(run_id: str) -> list[dict[str, Any]]:
        if store.run(run_id) is None:
            raise HTTPException(404, f"no run {run_id!r}")
        return [e.model_dump(mode="json") for e in store.events(run_id)]

    # --- submissions, leaderboards, weights ------------------------------------------------------------------------

    @app.get("/api/submissions", tags=["submissions"], summary="Submissions with copy and rejection reasons")
    def submissions(status: Literal["pending", "accepted", "rejected", "copy"] | None = None,
                    miner: str | None = None, limit: int = Limit, offset: int = Offset) -> dict[str, Any]:
        query = (select(Submission, Miner.uid).outerjoin(Miner, Miner.hotkey == Submission.hotkey)
                 .order_by(Submission.commitment_block, Submission.id))
        count = select(func.count()).select_from(Submission)
        for column, value in ((Submission.status, status), (Submission.hotkey, miner)):
            if value is not None:
                query, count = query.where(column == value), count.where(column == value)
        return page(query, count, limit, offset, lambda sub, uid: {**_row(sub, *SUBMISSION_FIELDS), "uid": uid})

    @app.get("/api/leaderboard", tags=["leaderboards"],
             summary="A race's leaderboard (default: the latest closed race) with judge quality per miner")
    def leaderboard(race_id: str | None = None) -> dict[str, Any]:
        if race_id is None:
            closed = store.races(status="closed")
            if not closed:
                return {"race": None, "rows": [], "hint": "no race has closed yet; start the node with "
                                                         "`arena-validator run` (or try `arena-validator demo`)"}
            race_id = closed[-1].race_id
        found = store.race(race_id)
        if found is None:
            raise HTTPException(404, f"no race {race_id!r}")
        with store.session() as s:
            quality: dict[str, float | None] = dict(s.execute(select(Run.hotkey, func.avg(Score.judge_quality)).join(
                Score, Score.run_id == Run.run_id).where(Run.race_id == race_id).group_by(Run.hotkey)).all())
        rows = [{**_row(r, *RESULT_FIELDS), "judge_quality": quality.get(r.hotkey)}
                for r in store.race_results(race_id)]
        return {"race": _row(found, *RACE_FIELDS), "rows": rows}

    @app.get("/api/weights", tags=["weights"], summary="Weight sets and what became of their extrinsics")
    def weights(limit: int = Limit, offset: int = Offset) -> dict[str, Any]:
        query = select(WeightSet).order_by(WeightSet.id.desc())
        return page(query, select(func.count()).select_from(WeightSet), limit, offset,
                    lambda w: _row(w, "id", "race_id", "policy", "vector", "block", "status", "attempts", "outcome",
                                   "created_at", "updated_at", "shadow_policy", "shadow_vector"))

    @app.get("/api/charts", tags=["charts"], summary="Data for the dashboard's charts")
    def charts() -> dict[str, Any]:
        with store.session() as s:
            by_task = s.execute(select(Run.race_id, ProblemRow.task, func.avg(Score.success), func.count())
                                .join(Score, Score.run_id == Run.run_id)
                                .join(ProblemRow, ProblemRow.problem_id == Run.problem_id)
                                .group_by(Run.race_id, ProblemRow.task)).all()
            finals = [f for (f,) in s.execute(select(Score.final).where(Score.final.is_not(None))
                                              .order_by(Score.run_id).limit(20000))]
            recent = s.scalars(select(Run).where(Run.status.in_(("finished", "errored")))
                               .order_by(Run.created_at.desc()).limit(5000)).all()
            opened = {r.race_id: _iso(r.opened_at) for r in s.scalars(select(Race))}
        durations = [float(seconds) for r in recent if (seconds := (r.sandbox or {}).get("elapsed_s")) is not None]
        series: dict[str, list[dict[str, Any]]] = {}
        for race_id, task, success, n in sorted(by_task, key=lambda row: (opened.get(row[0]) or "", row[0])):
            series.setdefault(task, []).append({"race_id": race_id, "success": float(success or 0), "runs": n})
        return {"success_by_task": series, "final_scores": finals, "durations": durations}

    # --- health and metrics ------------------------------------------------------------------------------------------

    @app.get("/healthz", tags=["health"], summary="Store reachable, chain reachable, scheduler alive")
    def healthz() -> Response:
        checks: dict[str, dict[str, Any]] = {}
        started = time.perf_counter()
        try:
            with store.engine.connect() as conn:
                conn.exec_driver_sql("SELECT 1")
            checks["store"] = {"ok": True, "detail": store.engine.url.render_as_string(hide_password=True)}
        except Exception as exc:  # noqa: BLE001 - health reports any failure as data
            checks["store"] = {"ok": False, "detail": f"{type(exc).__name__}: {str(exc)[:200]}"}
        if health is not None:
            for name, (ok, detail) in health().items():
                checks[name] = {"ok": bool(ok), "detail": detail}
        healthy = all(c["ok"] for c in checks.values())
        body = {"ok": healthy, "checks": checks, "ms": round((time.perf_counter() - started) * 1000, 1)}
        return JSONResponse(body, status_code=200 if healthy else 503)

    @app.get("/metrics", tags=["health"], summary="Prometheus metrics", response_class=Response)
    def metrics_endpoint() -> Response:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        from validator.metrics import Metrics

        registry = (metrics or Metrics(store)).registry
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    # --- the dashboard -----------------------------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
