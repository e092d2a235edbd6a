"""The task families and their task types, from the one registry (`arena.tasks`): what the dashboard's filters,
columns and charts list, with a color per task type."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from arena.tasks import all_tasks, families

#: the colors of the task types, in the registry's order: ShoppingBench's four (product, shop, voucher, web) keep the
#: colors the dashboard always gave them; the task types of later families take the next ones, then round again
PALETTE = ("#2f6fdf", "#1f8a4c", "#b7791f", "#8e44ad", "#c0392b", "#16a2b8", "#6b7383", "#d35400", "#2c3e50", "#7f8c8d")


def task_colors() -> dict[str, str]:
    """task type -> its color (`PALETTE`, by the task type's place in the registry)."""
    return {task: PALETTE[i % len(PALETTE)] for i, task in enumerate(all_tasks())}


def tasks_body() -> dict[str, Any]:
    """The families (name, summary, task types) and every task type with its family and color."""
    colors = task_colors()
    found = families()
    return {
        "families": [{"name": fam.name, "summary": fam.summary, "tasks": list(fam.tasks)} for fam in found],
        "tasks": [{"task": task, "family": fam.name, "color": colors[task]} for fam in found for task in fam.tasks],
    }


def router() -> APIRouter:
    """`/api/tasks`."""
    api = APIRouter()

    @api.get("/api/tasks", tags=["tasks"], summary="The task families and their task types, each with a color")
    def tasks() -> dict[str, Any]:
        return tasks_body()

    return api
