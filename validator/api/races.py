"""The races: the list (qualifying rounds too), one race with its results, its miner x problem grid, and the live
races not closed yet."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, HTTPException

from validator.api import views
from validator.api.shapes import RESULT_FIELDS, Limit, Offset, page, race_row, row
from validator.store.repository import Store


def router(store: Store) -> APIRouter:
    """`/api/races`, `/api/races/{race_id}` (and its grid) and `/api/live` over `store`."""
    api = APIRouter()

    @api.get("/api/races", tags=["races"], summary="Races, newest first (qualifying rounds with kind=qualifying)")
    def races(
        status: Literal["open", "running", "closed", "cancelled"] | None = None,
        kind: Literal["race", "qualifying"] = "race",
        limit: int = Limit,
        offset: int = Offset,
    ) -> dict[str, Any]:
        return page(store.page_races(kind=kind, status=status, limit=limit, offset=offset), limit, offset, race_row)

    @api.get(
        "/api/races/{race_id}",
        tags=["races"],
        summary="One race: its runs by status and its results, ties marked (problems only once it closed)",
    )
    def race(race_id: str) -> dict[str, Any]:
        found = store.race(race_id)
        if found is None:
            raise HTTPException(404, f"no race {race_id!r}; list them at /api/races")
        out = race_row(found)
        out["runs_by_status"] = store.count_runs(race_id)
        out["results"] = views.mark_ties([row(r, *RESULT_FIELDS) for r in store.race_results(race_id)])
        out["tie_break"] = views.TIE_BREAK
        out["noise"] = views.noise(out["results"])
        out["certainty"] = views.CERTAINTY
        return out

    @api.get(
        "/api/races/{race_id}/grid",
        tags=["races"],
        summary="A race's miner x problem grid (before close: statuses only, problems numbered)",
    )
    def race_grid(race_id: str) -> dict[str, Any]:
        found = store.race(race_id)
        if found is None:
            raise HTTPException(404, f"no race {race_id!r}; list them at /api/races")
        return views.grid(store, found)

    @api.get(
        "/api/live",
        tags=["races"],
        summary="The races not closed yet: progress by miner and status, score counts, the queue",
    )
    def live_race() -> dict[str, Any]:
        return views.live(store)

    return api
