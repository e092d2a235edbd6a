"""The races: the list (qualifying rounds too), one race with its results and its pooling with the other validators,
its miner x problem grid, and the live races not closed yet."""

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
        status: Literal["open", "running", "closed", "cancelled", "voided"] | None = None,
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
        out["pool"] = pool_view(store.race_pool(race_id))
        out["providers_dropped"] = providers_dropped(store, race_id)
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


def providers_dropped(store: Store, race_id: str) -> list[dict[str, Any]]:
    """The miners' providers the race went on without (code 2012), each with its one line why and how many runs it
    left out."""
    from arena.blame import PROVIDER_DROPPED

    lines: dict[str, int] = {}
    for run in store.runs(race_id=race_id, status="errored"):
        if run.error_code == PROVIDER_DROPPED:
            lines[run.error or ""] = lines.get(run.error or "", 0) + 1
    return [{"reason": line, "runs": n} for line, n in sorted(lines.items())]


def pool_view(pool: Any) -> dict[str, Any] | None:
    """A race's pooling with the other validators (`validator.races.pooling`): this node's bundle and commitment, each
    committed validator's bundle verified, refused (kind and the one line why) or not fetched, the pooled standings;
    None when the race was not pooled (`--no-pool`, or a race before pooling)."""
    if pool is None:
        return None
    state = pool.state or {}
    return {
        "status": pool.status,
        "cutoff_block": pool.cutoff_block,
        "due_block": pool.due_block,
        "bundle_sha256": pool.bundle_sha256,
        "committed_block": pool.committed_block,
        "commit_error": state.get("commit_error"),
        "committed": state.get("committed") or {},
        "validators": state.get("validators") or {},
        "standings": state.get("standings"),
        "note": state.get("note"),
    }
