"""Weight sets and each uid's weight history, and the data of the dashboard's charts."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from validator.api import views
from validator.api.shapes import Limit, Offset, iso, page, row
from validator.store.repository import Store


def router(store: Store) -> APIRouter:
    """`/api/weights`, `/api/weights/history` and `/api/charts` over `store`."""
    api = APIRouter()

    @api.get("/api/weights", tags=["weights"], summary="Weight sets and what became of their extrinsics")
    def weights(limit: int = Limit, offset: int = Offset) -> dict[str, Any]:
        return page(
            store.page_weight_sets(limit=limit, offset=offset),
            limit,
            offset,
            lambda w: row(
                w,
                "id",
                "race_id",
                "policy",
                "vector",
                "block",
                "status",
                "attempts",
                "outcome",
                "created_at",
                "updated_at",
                "shadow_policy",
                "shadow_vector",
            ),
        )

    @api.get("/api/weights/history", tags=["weights"], summary="Every weight set, and the weight of each uid in each")
    def weights_history() -> dict[str, Any]:
        return views.weight_history(store)

    @api.get("/api/charts", tags=["charts"], summary="Data for the dashboard's charts")
    def charts() -> dict[str, Any]:
        # closed races only: an open race's scores by task are its content
        by_task, finals, recent, opened_at = store.chart_rows()
        opened = {race_id: iso(at) for race_id, at in opened_at.items()}
        durations = [float(seconds) for r in recent if (seconds := (r.sandbox or {}).get("elapsed_s")) is not None]
        series: dict[str, list[dict[str, Any]]] = {}
        for race_id, task, success, n in sorted(by_task, key=lambda row: (opened.get(row[0]) or "", row[0])):
            series.setdefault(task, []).append({"race_id": race_id, "success": float(success or 0), "runs": n})
        return {"success_by_task": series, "final_scores": finals, "durations": durations}

    return api
