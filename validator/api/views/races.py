"""The races not closed yet (their progress, no content) and a race's miner x problem grid."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from validator.api.views.common import iso, revealed
from validator.store.models import Race
from validator.store.repository import Store


def live(store: Store, now: datetime | None = None) -> dict[str, Any]:
    """The races not closed yet (open or running): per miner, how many of its runs are in each status, how many are
    scored and how many of those succeeded, and when its last run moved; the queue (pending runs ready to start,
    waiting for a retry's backoff, in a sandbox, being scored). No problem, query, step or answer."""
    now = now or datetime.now(UTC)
    found = store.live_rows(now)
    races, counts, scored, workers, uids = found.races, found.counts, found.scored, found.workers, found.uids
    ready, backoff, last_closed = found.ready, found.backoff, found.last_closed
    progress: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for race_id, hotkey, status, n, moved in counts:
        row = progress[race_id].setdefault(
            hotkey,
            {
                "hotkey": hotkey,
                "uid": uids.get(hotkey),
                "runs": 0,
                "by_status": {},
                "scored": 0,
                "succeeded": 0,
                "last_move": None,
            },
        )
        row["runs"] += int(n)
        row["by_status"][status] = int(n)
        if moved is not None and (row["last_move"] is None or iso(moved) > row["last_move"]):
            row["last_move"] = iso(moved)
    for race_id, hotkey, n, ok in scored:
        mine = progress[race_id].get(hotkey)
        if mine is not None:
            mine["scored"], mine["succeeded"] = int(n), int(ok or 0)
    out = []
    for race in races:
        rows = sorted(
            progress.get(race.race_id, {}).values(), key=lambda r: (r["uid"] is None, r["uid"] or 0, r["hotkey"])
        )
        for row in rows:
            row["done"] = row["by_status"].get("finished", 0) + row["by_status"].get("errored", 0)
        total = sum(r["runs"] for r in rows)
        by_status: dict[str, int] = defaultdict(int)
        for row in rows:
            for status, n in row["by_status"].items():
                by_status[status] += n
        out.append(
            {
                "race_id": race.race_id,
                "status": race.status,
                "seed_block": race.seed_block,
                "opened_at": iso(race.opened_at),
                "problem_count": len(race.problem_ids or []),
                "elapsed_s": (now - race.opened_at).total_seconds(),
                "runs": total,
                "done": sum(r["done"] for r in rows),
                "runs_by_status": dict(by_status),
                "miners": rows,
                "runs_by_worker": {w: int(n) for race_id, w, n in sorted(workers) if race_id == race.race_id},
            }
        )
    return {
        "now": iso(now),
        "races": out,
        "queue": {
            "ready": int(ready or 0),
            "backoff": int(backoff or 0),
            "in_sandbox": sum(r["runs_by_status"].get(k, 0) for r in out for k in ("starting", "running")),
            "scoring": sum(r["runs_by_status"].get(k, 0) for r in out for k in ("scoring", "judged")),
        },
        "last_closed": {
            "race_id": last_closed.race_id,
            "closed_at": iso(last_closed.closed_at),
            "seed_block": last_closed.seed_block,
        }
        if last_closed
        else None,
    }


def grid(store: Store, race: Race) -> dict[str, Any]:
    """A race's miner x problem grid: one cell per (miner, problem) with its status (and, once the race closed, its
    score and success); with k samples the cell is sample 0's and holds every sample's in `samples`. Before close
    the columns are numbered, not named."""
    show = revealed(race.status)
    problem_ids = list(race.problem_ids or [])
    rows, tasks, ranks, uids = store.grid_rows(race.race_id, problem_ids, tasks=show)
    column = {pid: i for i, pid in enumerate(problem_ids)}
    cells: dict[str, list[dict[str, Any] | None]] = {}
    for run, score in rows:
        line = cells.setdefault(run.hotkey, [None] * len(problem_ids))
        i = column.get(run.problem_id)
        if i is None:
            continue
        cell: dict[str, Any] = {
            "run_id": run.run_id,
            "status": run.status,
            "error_code": run.error_code,
            "blame": run.blame,
        }
        if show:
            cell.update(final=score.final if score else None, success=score.success if score else None)
        cell["sample"] = run.sample
        held = line[i]
        if held is None:
            line[i] = {**cell, "samples": [cell]}
        else:
            held["samples"] = sorted([*held["samples"], cell], key=lambda c: c["sample"])
            line[i] = {**held["samples"][0], "samples": held["samples"]}
    order = sorted(cells, key=lambda h: (ranks.get(h) is None, ranks.get(h) or 0, uids.get(h) or 0, h))
    return {
        "race_id": race.race_id,
        "status": race.status,
        "revealed": show,
        "problems": [
            {
                "problem_id": pid if show else None,
                "task": tasks.get(pid) if show else None,
                "label": pid if show else f"#{i + 1}",
            }
            for i, pid in enumerate(problem_ids)
        ],
        "rows": [{"hotkey": h, "uid": uids.get(h), "rank": ranks.get(h), "cells": cells[h]} for h in order],
    }
