"""The node's read-only HTTP API and dashboard (FastAPI): races, runs, trajectories, submissions, miners, leaderboards
(one race, and standings across races), weight sets and each uid's weight history, the live race; `/metrics` for
Prometheus and `/healthz`. No write endpoint; the dashboard is static files shipped in the package (no CDN), served
at `/`.

Nothing of a race's content is shown before the race closes (`views.revealed`): while a race is open or running its
runs show their status, timing, error code and score counts only — no problem, query, steps, answer, checks, score or
stderr — and their trajectories answer 403. A run is shown in full, its answer beside the gold, once its race closed.

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

from arena.problem import TASKS
from validator.api import views
from validator.store.models import Race, Run, Score
from validator.store.repository import RUN_STATUSES, Store
from validator.store.views import Page, RunSort

STATIC = Path(__file__).resolve().parent / "static"
Limit = Query(50, ge=1, le=500, description="page size")
Offset = Query(0, ge=0, description="items to skip")


def _iso(value: Any) -> Any:
    return value.isoformat() if hasattr(value, "isoformat") else value


def _row(obj: Any, *fields: str) -> dict[str, Any]:
    return {f: _iso(getattr(obj, f)) for f in fields}


RACE_FIELDS = ("race_id", "pack_id", "kind", "status", "seed_block", "seed_hash", "problem_ids", "reason", "opened_at",
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


#: What a run of a race that has not closed shows: its status, timing and error code, nothing of its content.
HIDDEN_RUN_FIELDS = ("run_id", "race_id", "submission_id", "hotkey", "status", "error_code", "blame", "attempt",
                     "created_at", "starting_at", "running_at", "scoring_at", "judged_at", "finished_at", "errored_at")
HIDDEN = "the race is still open: a run's problem, steps, answer and checks are shown once its race closes"


def _race_row(race: Race) -> dict[str, Any]:
    out = _row(race, *RACE_FIELDS)
    out["problem_count"] = len(race.problem_ids or [])
    out["revealed"] = views.revealed(race.status)
    if not out["revealed"]:
        out["problem_ids"] = []  # which problems a race drew is its content
    return out


def _run_summary(run: Run, score: Score | None, task: str | None, race_status: str | None = None,
                 seed_block: int | None = None) -> dict[str, Any]:
    sandbox = run.sandbox or {}
    end = run.finished_at or run.errored_at
    timing = {"seconds": sandbox.get("elapsed_s"),
              "span_seconds": (end - run.starting_at).total_seconds() if end and run.starting_at else None,
              "ended_at": _iso(end), "race_status": race_status, "seed_block": seed_block}
    if race_status is not None and not views.revealed(race_status):
        return {**_row(run, *HIDDEN_RUN_FIELDS), **timing, "hidden": True}
    out = _row(run, *RUN_FIELDS)
    out.update(task=task, **timing, hidden=False,
               success=score.success if score else None, final=score.final if score else None,
               judge_quality=score.judge_quality if score else None,
               judge_gate=(score.judge or {}).get("gate") if score else None)
    return out


def _sandbox_facts(sandbox: dict[str, Any], *, full: bool) -> dict[str, Any]:
    """What the sandbox said of a run: exit code, OOM, timeout, its status (and, once the race closed, the tail of
    the agent's stderr)."""
    keys = ("backend", "status", "exit_code", "oom", "timed_out", "elapsed_s") + (("stderr_tail",) if full else ())
    return {k: sandbox.get(k) for k in keys}


def _gold(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The gold of a problem, one entry per product slot: its id, title and the constraints the answer is held to."""
    out = []
    for slot, reward in enumerate(data.get("reward") or []):
        if not isinstance(reward, dict):
            continue
        title = reward.get("title")
        out.append({"slot": slot, "product_id": reward.get("product_id"),
                    "title": title[0] if isinstance(title, list) and title else title,
                    "constraints": {k: reward.get(k) for k in ("attributes", "sku_options", "service", "price")
                                    if reward.get(k)}})
    return out


def create_app(store: Store, *, health: Any = None, metrics: Any = None) -> FastAPI:
    """The API over `store`. `health()` returns extra checks (chain, scheduler) as {name: (ok, detail)};
    `metrics` is a `validator.metrics.Metrics` whose registry `/metrics` exposes."""
    app = FastAPI(title="ShopArena validator API", version="1", docs_url=None, redoc_url=None,
                  description="Read-only: races, runs, trajectories, submissions, leaderboards, weight sets.")

    def page(found: Page, limit: int, offset: int, shape: Any) -> dict[str, Any]:
        return {"items": [shape(*row) for row in found.rows], "total": found.total, "limit": limit, "offset": offset}

    # --- races ------------------------------------------------------------------------------------------------------

    @app.get("/api/races", tags=["races"], summary="Races, newest first (qualifying rounds with kind=qualifying)")
    def races(status: Literal["open", "running", "closed", "cancelled"] | None = None,
              kind: Literal["race", "qualifying"] = "race", limit: int = Limit,
              offset: int = Offset) -> dict[str, Any]:
        return page(store.page_races(kind=kind, status=status, limit=limit, offset=offset), limit, offset,
                    _race_row)

    @app.get("/api/races/{race_id}", tags=["races"],
             summary="One race: its runs by status and its results, ties marked (problems only once it closed)")
    def race(race_id: str) -> dict[str, Any]:
        found = store.race(race_id)
        if found is None:
            raise HTTPException(404, f"no race {race_id!r}; list them at /api/races")
        out = _race_row(found)
        out["runs_by_status"] = store.count_runs(race_id)
        out["results"] = views.mark_ties([_row(r, *RESULT_FIELDS) for r in store.race_results(race_id)])
        out["tie_break"] = views.TIE_BREAK
        return out

    @app.get("/api/races/{race_id}/grid", tags=["races"],
             summary="A race's miner x problem grid (before close: statuses only, problems numbered)")
    def race_grid(race_id: str) -> dict[str, Any]:
        found = store.race(race_id)
        if found is None:
            raise HTTPException(404, f"no race {race_id!r}; list them at /api/races")
        return views.grid(store, found)

    @app.get("/api/live", tags=["races"],
             summary="The races not closed yet: progress by miner and status, score counts, the queue")
    def live_race() -> dict[str, Any]:
        return views.live(store)

    # --- runs -------------------------------------------------------------------------------------------------------

    @app.get("/api/runs", tags=["runs"],
             summary="Runs, filtered by race, miner, status, task, error code and blame; sorted; paged")
    def runs(race_id: str | None = None, miner: str | None = Query(None, description="hotkey"),
             status: str | None = None,
             task: str | None = Query(None, description="only runs of closed races: an open race's tasks are hidden"),
             error_code: int | None = None, blame: Literal["agent", "validator"] | None = None,
             sort: RunSort = Query("created", description="sort key"),
             order: Literal["asc", "desc"] = "asc", limit: int = Limit, offset: int = Offset) -> dict[str, Any]:
        if status is not None and status not in RUN_STATUSES:
            raise HTTPException(422, f"unknown status {status!r}; one of {', '.join(RUN_STATUSES)}")
        if task is not None and task not in TASKS:
            raise HTTPException(422, f"unknown task {task!r}; one of {', '.join(TASKS)}")
        found = store.page_runs(race_id=race_id, hotkey=miner, status=status, error_code=error_code, blame=blame,
                                task=task, sort=sort, descending=order == "desc", limit=limit, offset=offset)
        return page(found, limit, offset, _run_summary)

    @app.get("/api/runs/{run_id}", tags=["runs"],
             summary="One run: the public query, every step, the strict breakdown, the judge's verdict, errors")
    def run(run_id: str) -> dict[str, Any]:
        found = store.run(run_id)
        if found is None:
            raise HTTPException(404, f"no run {run_id!r}; list them at /api/runs")
        race_row = store.race(found.race_id)
        race_status = race_row.status if race_row else None
        score = store.score(run_id)
        sandbox = found.sandbox or {}
        if not views.revealed(race_status):
            out = _run_summary(found, score, None, race_status, race_row.seed_block if race_row else None)
            out["hidden_reason"] = HIDDEN
            out["sandbox_facts"] = _sandbox_facts(sandbox, full=False)
            out["error_description"] = _describe(found.error_code)
            return out
        problem = store.problem(found.problem_id)
        out = _run_summary(found, score, problem.task if problem else None, race_status,
                           race_row.seed_block if race_row else None)
        data = problem.data if problem else {}
        out["problem"] = {k: data.get(k) for k in ("problem_id", "task", "query", "difficulty")}
        out["problem"]["n_products"] = len(data.get("reward") or [])
        # the race closed: its gold is published, and the answer is shown beside it with each check
        out["gold"] = _gold(data)
        out["answer"] = sandbox.get("answer")
        out["sandbox"] = found.sandbox
        out["sandbox_facts"] = _sandbox_facts(sandbox, full=True)
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
        # the node's own faults met by this run: its upstream LLM failing (this attempt, and each earlier attempt
        # that ended in an error, with its code and blame)
        out["upstream_errors"] = sandbox.get("upstream_errors") or []
        out["attempts"] = sandbox.get("attempts") or []
        out["error_description"] = _describe(found.error_code)
        return out

    @app.get("/api/runs/{run_id}/trajectory", tags=["runs"],
             summary="A run's gateway log, in order (`download=true`: a JSONL file); 403 while its race is open")
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
            return Response(body, media_type="application/x-ndjson", headers={
                "Content-Disposition": f'attachment; filename="trajectory-{run_id}.jsonl"'})
        return events

    # --- submissions, leaderboards, weights ------------------------------------------------------------------------

    @app.get("/api/submissions", tags=["submissions"], summary="Submissions with copy and rejection reasons")
    def submissions(status: Literal["pending", "accepted", "rejected", "copy"] | None = None,
                    miner: str | None = None, limit: int = Limit, offset: int = Offset) -> dict[str, Any]:
        found = store.page_submissions(status=status, hotkey=miner, limit=limit, offset=offset)
        active = store.active_pack()
        qualifying = store.qualifying_by_submission(active.pack_id) if active is not None else {}
        return page(found, limit, offset, lambda sub, uid: {**_row(sub, *SUBMISSION_FIELDS), "uid": uid,
                                                            "qualifying": qualifying.get(sub.id)})

    @app.get("/api/miners", tags=["miners"], summary="Every miner: uid, submissions, races run, latest and best rank")
    def miners() -> dict[str, Any]:
        return {"items": views.miners(store)}

    @app.get("/api/miners/{hotkey}", tags=["miners"],
             summary="One miner: its submissions (copies, rejections), its races (rank, score), weights received")
    def miner(hotkey: str) -> dict[str, Any]:
        found = views.miner(store, hotkey)
        if found is None:
            raise HTTPException(404, f"no miner {hotkey!r}; list them at /api/miners")
        return found

    @app.get("/api/standings", tags=["leaderboards"],
             summary="Standings across closed races: rolling mean, rank movement, champion since, ties")
    def standings(window: int = Query(5, ge=1, le=100, description="races in the rolling mean")) -> dict[str, Any]:
        return views.standings(store, window=window)

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
        quality = store.judge_quality(race_id)
        rows = views.mark_ties([{**_row(r, *RESULT_FIELDS), "judge_quality": quality.get(r.hotkey)}
                                for r in store.race_results(race_id)])
        return {"race": _race_row(found), "rows": rows, "tie_break": views.TIE_BREAK}

    @app.get("/api/weights", tags=["weights"], summary="Weight sets and what became of their extrinsics")
    def weights(limit: int = Limit, offset: int = Offset) -> dict[str, Any]:
        return page(store.page_weight_sets(limit=limit, offset=offset), limit, offset,
                    lambda w: _row(w, "id", "race_id", "policy", "vector", "block", "status", "attempts", "outcome",
                                   "created_at", "updated_at", "shadow_policy", "shadow_vector"))

    @app.get("/api/weights/history", tags=["weights"], summary="Every weight set, and the weight of each uid in each")
    def weights_history() -> dict[str, Any]:
        return views.weight_history(store)

    @app.get("/api/charts", tags=["charts"], summary="Data for the dashboard's charts")
    def charts() -> dict[str, Any]:
        # closed races only: an open race's scores by task are its content
        by_task, finals, recent, opened_at = store.chart_rows()
        opened = {race_id: _iso(at) for race_id, at in opened_at.items()}
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
            checks["store"] = {"ok": True, "detail": store.ping()}
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
