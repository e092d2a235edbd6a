"""Submissions, miners and the leaderboards: one race's, and the standings across races."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Query

from arena.spend import cost_per_solved
from validator.api import views
from validator.api.shapes import RESULT_FIELDS, SUBMISSION_FIELDS, Limit, Offset, page, race_row, row
from validator.store.repository import Store


def _submission_row(qualifying: dict[int, Any], copies: dict[int, Any]) -> Any:
    """A submission as `/api/submissions` lists it: with its qualifying round and the fork rule's latest verdict."""
    return lambda sub, uid: {
        **row(sub, *SUBMISSION_FIELDS),
        "uid": uid,
        "qualifying": qualifying.get(sub.id),
        "copy_verdict": copies.get(sub.id),
    }


def router(store: Store) -> APIRouter:
    """`/api/submissions`, `/api/miners` (and one miner), `/api/standings` and `/api/leaderboard` over
    `store`."""
    api = APIRouter()

    @api.get("/api/submissions", tags=["submissions"], summary="Submissions with copy and rejection reasons")
    def submissions(
        status: Literal["pending", "accepted", "rejected", "copy"] | None = None,
        miner: str | None = None,
        limit: int = Limit,
        offset: int = Offset,
    ) -> dict[str, Any]:
        found = store.page_submissions(status=status, hotkey=miner, limit=limit, offset=offset)
        active = store.active_pack()
        qualifying = store.qualifying_by_submission(active.pack_id) if active is not None else {}
        return page(found, limit, offset, _submission_row(qualifying, store.latest_copy_verdicts()))

    @api.get("/api/miners", tags=["miners"], summary="Every miner: uid, submissions, races run, latest and best rank")
    def miners() -> dict[str, Any]:
        return {"items": views.miners(store)}

    @api.get(
        "/api/miners/{hotkey}",
        tags=["miners"],
        summary="One miner: its submissions (copies, rejections), its races (rank, score), weights received",
    )
    def miner(hotkey: str) -> dict[str, Any]:
        found = views.miner(store, hotkey)
        if found is None:
            raise HTTPException(404, f"no miner {hotkey!r}; list them at /api/miners")
        # what its runs' LLM calls cost over every race, and per problem solved (None: nothing solved)
        cost, solved = store.miner_costs().get(hotkey, (0.0, 0))
        found["llm_cost"] = {"cost": cost, "solved": solved, "cost_per_solved": cost_per_solved(cost, solved)}
        return found

    @api.get(
        "/api/standings",
        tags=["leaderboards"],
        summary="Standings across closed races: rolling mean, rank movement, champion since, ties",
    )
    def standings(window: int = Query(5, ge=1, le=100, description="races in the rolling mean")) -> dict[str, Any]:
        return views.standings(store, window=window)

    @api.get(
        "/api/leaderboard",
        tags=["leaderboards"],
        summary="A race's leaderboard (default: the latest closed race) with judge quality per miner",
    )
    def leaderboard(race_id: str | None = None) -> dict[str, Any]:
        if race_id is None:
            closed = store.races(status="closed")
            if not closed:
                return {
                    "race": None,
                    "rows": [],
                    "hint": "no race has closed yet; start the node with "
                    "`arena-validator run` (or try `arena-validator demo`)",
                }
            race_id = closed[-1].race_id
        found = store.race(race_id)
        if found is None:
            raise HTTPException(404, f"no race {race_id!r}")
        quality = store.judge_quality(race_id)
        rows = views.mark_ties(
            [{**row(r, *RESULT_FIELDS), "judge_quality": quality.get(r.hotkey)} for r in store.race_results(race_id)]
        )
        return {
            "race": race_row(found),
            "rows": rows,
            "tie_break": views.TIE_BREAK,
            "noise": views.noise(rows),
            "certainty": views.CERTAINTY,
        }

    return api
