"""The node's read-only HTTP API and dashboard (FastAPI): races, runs, trajectories, submissions, miners, leaderboards
(one race, and standings across races), weight sets and each uid's weight history, the live race; `/metrics` for
Prometheus and `/healthz`. No write endpoint; the dashboard is static files shipped in the package (no CDN), served
at `/`.

Nothing of a race's content is shown before the race closes (`views.revealed`): while a race is open or running its
runs show their status, timing, error code and score counts only — no problem, query, steps, answer, checks, score or
stderr — and their trajectories answer 403. A run is shown in full, its answer beside the gold, once its race closed.

Lists are paginated with `limit` (1-500, default 50) and `offset`, and answer `{"items": [...], "total": N,
"limit": L, "offset": O}`. Unknown ids answer 404 and bad filters 422, each with a message.

One router per route group, included here in the order the OpenAPI schema lists them: `races`, `runs`, `miners`
(submissions, miners, leaderboards), `weights` (weight sets, charts), `health` (`/healthz`, `/metrics`), `tasks`
(the task families and their task types, from `arena.tasks`); the answers are shaped in `shapes`, and the
dashboard is served here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from validator.api import health as health_routes
from validator.api import miners, races, runs, tasks, weights
from validator.store.repository import Store

STATIC = Path(__file__).resolve().parent / "static"


def create_app(store: Store, *, health: Any = None, metrics: Any = None) -> FastAPI:
    """The API over `store`. `health()` returns extra checks (chain, scheduler) as {name: (ok, detail)};
    `metrics` is a `validator.metrics.Metrics` whose registry `/metrics` exposes."""
    app = FastAPI(
        title="ShopArena validator API",
        version="1",
        docs_url=None,
        redoc_url=None,
        description="Read-only: races, runs, trajectories, submissions, leaderboards, weight sets.",
    )
    for router in (
        races.router(store),
        runs.router(store),
        miners.router(store),
        weights.router(store),
        health_routes.router(store, health=health, metrics=metrics),
        tasks.router(),
    ):
        app.include_router(router)

    # --- the dashboard -----------------------------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
