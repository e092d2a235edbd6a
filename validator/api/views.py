"""What the dashboard shows across races, computed from the store: the standings over recent races, a miner's
history, the weights each uid received, the live race's progress and a race's miner x problem grid.

Nothing here shows the content of a race that has not closed (its problems, queries, steps, answers or checks): an
open or running race is seen through its runs' statuses, timing and score counts only (`revealed`).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from validator.store.models import Race, RaceResult
from validator.store.repository import Store

#: How the node breaks a tie in a race's score (`validator.races.Arena.close_races`).
TIE_BREAK = "equal scores are ranked by the earlier commitment block, then by hotkey"
#: Scores closer than this are a tie.
TIE_EPSILON = 1e-9


def revealed(race_status: str | None) -> bool:
    """Whether a race's content may be shown: only once it closed (a cancelled race's problems may be drawn again)."""
    return race_status == "closed"


def iso(value: Any) -> Any:
    return value.isoformat() if hasattr(value, "isoformat") else value


def ties(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Groups of rows (ranked results with `score`, `rank`, `hotkey`, `commitment_block`) sharing one score."""
    groups: dict[float, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        key = next((k for k in groups if abs(k - float(row["score"])) <= TIE_EPSILON), float(row["score"]))
        groups[key].append(row)
    out = []
    for score, members in groups.items():
        if len(members) > 1:
            members = sorted(members, key=lambda r: r["rank"] or 0)
            out.append(
                {
                    "score": score,
                    "ranks": [m["rank"] for m in members],
                    "hotkeys": [m["hotkey"] for m in members],
                    "commitment_blocks": [m["commitment_block"] for m in members],
                    "broken_by": TIE_BREAK,
                }
            )
    return sorted(out, key=lambda g: g["ranks"][0])


def mark_ties(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row gets `tied_with`: the ranks of the other rows with its score (empty when alone)."""
    for group in ties(rows):
        for row in rows:
            if row["hotkey"] in group["hotkeys"]:
                row["tied_with"] = [r for r in group["ranks"] if r != row["rank"]]
    for row in rows:
        row.setdefault("tied_with", [])
    return rows


def standings(store: Store, *, window: int = 5) -> dict[str, Any]:
    """The standings across closed races: each miner's mean score over the last `window` closed races it ran in,
    its rank in the latest race and the move from the race before, its wins, and since when the champion (rank 1 of
    the latest race) has held rank 1; the latest race's ties; and every miner's rank and score per race."""
    races, by_race = store.closed_race_results()
    uids = store.miner_uids()
    if not races:
        return {"races": [], "window": window, "rows": [], "ties": [], "champion": None, "history": {}}
    recent = races[-window:]
    history: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for race in races:
        for r in by_race.get(race.race_id, []):
            history[r.hotkey].append(
                {
                    "race_id": race.race_id,
                    "rank": r.rank,
                    "score": r.score,
                    "seed_block": race.seed_block,
                    "opened_at": iso(race.opened_at),
                }
            )
    latest = races[-1]
    previous = races[-2] if len(races) > 1 else None
    latest_rank = {r.hotkey: r.rank for r in by_race.get(latest.race_id, [])}
    previous_rank = {r.hotkey: r.rank for r in by_race.get(previous.race_id, [])} if previous else {}
    rows = []
    for hotkey, points in history.items():
        in_window = [p for p in points if p["race_id"] in {r.race_id for r in recent}]
        rank, before = latest_rank.get(hotkey), previous_rank.get(hotkey)
        rows.append(
            {
                "hotkey": hotkey,
                "uid": uids.get(hotkey),
                "races": len(points),
                "rolling_mean": sum(p["score"] for p in in_window) / len(in_window) if in_window else None,
                "races_in_window": len(in_window),
                "latest_rank": rank,
                "previous_rank": before,
                "movement": (before - rank) if rank is not None and before is not None else None,
                "new": rank is not None and before is None and previous is not None,
                "wins": sum(1 for p in points if p["rank"] == 1),
                "best_rank": min((p["rank"] for p in points if p["rank"] is not None), default=None),
                "last_race": points[-1]["race_id"],
            }
        )
    rows.sort(
        key=lambda r: (
            r["rolling_mean"] is None,
            -(r["rolling_mean"] or 0.0),
            r["latest_rank"] if r["latest_rank"] is not None else 10**9,
            r["hotkey"],
        )
    )
    for i, row in enumerate(rows):
        row["position"] = i + 1
    champion = None
    winners = [r for r in by_race.get(latest.race_id, []) if r.rank == 1]
    if winners:
        hotkey = winners[0].hotkey
        since = latest
        for race in reversed(races):
            if any(r.hotkey == hotkey and r.rank == 1 for r in by_race.get(race.race_id, [])):
                since = race
            else:
                break
        streak = races.index(latest) - races.index(since) + 1
        champion = {
            "hotkey": hotkey,
            "uid": uids.get(hotkey),
            "since_race": since.race_id,
            "since_block": since.seed_block,
            "since": iso(since.closed_at or since.opened_at),
            "races": streak,
        }
    latest_rows = [
        {"hotkey": r.hotkey, "rank": r.rank, "score": r.score, "commitment_block": r.commitment_block}
        for r in by_race.get(latest.race_id, [])
    ]
    return {
        "races": [
            {
                "race_id": r.race_id,
                "seed_block": r.seed_block,
                "opened_at": iso(r.opened_at),
                "closed_at": iso(r.closed_at),
            }
            for r in races
        ],
        "window": window,
        "latest_race": latest.race_id,
        "rows": rows,
        "ties": ties(latest_rows),
        "tie_break": TIE_BREAK,
        "champion": champion,
        "history": dict(history),
    }


def weight_history(store: Store) -> dict[str, Any]:
    """Every weight set, oldest first, and per uid the weight it got in each (0 where the vector leaves it out)."""
    sets, hotkeys, by_race = store.weight_set_rows()
    results = {
        race_id: [
            {"hotkey": r.hotkey, "rank": r.rank, "score": r.score, "commitment_block": r.commitment_block} for r in rows
        ]
        for race_id, rows in by_race.items()
    }
    uids = sorted({int(u) for ws in sets for u in ws.vector}, key=int)
    per_uid = {
        str(uid): [
            {
                "weight_set_id": ws.id,
                "race_id": ws.race_id,
                "block": ws.block,
                "status": ws.status,
                "created_at": iso(ws.created_at),
                "weight": float(ws.vector.get(str(uid), 0.0)),
                "shadow_weight": float((ws.shadow_vector or {}).get(str(uid), 0.0)) if ws.shadow_vector else None,
            }
            for ws in sets
        ]
        for uid in uids
    }
    return {
        "sets": [
            {
                "id": ws.id,
                "race_id": ws.race_id,
                "policy": ws.policy,
                "block": ws.block,
                "status": ws.status,
                "created_at": iso(ws.created_at),
                "shadow_policy": ws.shadow_policy,
                "ties": ties(results.get(ws.race_id, [])),
            }
            for ws in sets
        ],
        "uids": per_uid,
        "hotkeys": {str(u): hotkeys.get(u) for u in uids},
    }


def miners(store: Store) -> list[dict[str, Any]]:
    """Every hotkey that submitted or was seen, with its submissions and its race record."""
    races, by_race = store.closed_race_results()
    found, subs = store.miners_with_submissions()
    record: dict[str, list[RaceResult]] = defaultdict(list)
    for race in races:
        for r in by_race.get(race.race_id, []):
            record[r.hotkey].append(r)
    out = []
    for m in found:
        mine = record.get(m.hotkey, [])
        out.append(
            {
                "hotkey": m.hotkey,
                "uid": m.uid,
                "registered": m.registered,
                "submissions": subs.get(m.hotkey, 0),
                "races": len(mine),
                "latest_rank": mine[-1].rank if mine else None,
                "latest_score": mine[-1].score if mine else None,
                "best_rank": min((r.rank for r in mine if r.rank is not None), default=None),
                "mean_score": sum(r.score for r in mine) / len(mine) if mine else None,
            }
        )
    return out


def miner(store: Store, hotkey: str) -> dict[str, Any] | None:
    """One hotkey's story: its submissions (copies and rejections with their reasons), each race it ran in (rank,
    score, of how many), the weight its uid received in each weight set, and its runs by status."""
    found = store.miner_rows(hotkey)
    if found is None:
        return None
    m, subs, originals, results, field = found.miner, found.submissions, found.originals, found.results, found.field
    live, by_status, sets = found.live, found.runs_by_status, found.weight_sets
    race_uid = {r.race_id: r.uid for r, _race in results}
    weights = []
    for ws in sets:
        uid = race_uid.get(ws.race_id) if ws.race_id in race_uid else m.uid
        weights.append(
            {
                "weight_set_id": ws.id,
                "race_id": ws.race_id,
                "block": ws.block,
                "status": ws.status,
                "created_at": iso(ws.created_at),
                "uid": uid,
                "weight": float(ws.vector.get(str(uid), 0.0)) if uid is not None else 0.0,
            }
        )
    open_races: dict[str, dict[str, Any]] = {}
    for race_id, status, seed_block, opened_at, run_status, n in live:
        entry = open_races.setdefault(
            race_id,
            {
                "race_id": race_id,
                "status": status,
                "seed_block": seed_block,
                "opened_at": iso(opened_at),
                "runs_by_status": {},
            },
        )
        entry["runs_by_status"][run_status] = int(n)
    return {
        "hotkey": m.hotkey,
        "uid": m.uid,
        "coldkey": m.coldkey,
        "registered": m.registered,
        "first_seen_at": iso(m.first_seen_at),
        "first_seen_block": m.first_seen_block,
        "submissions": [
            {
                "id": x.id,
                "sha256": x.sha256,
                "commitment_block": x.commitment_block,
                "status": x.status,
                "reason": x.reason,
                "copy_of": x.copy_of,
                "copy_of_hotkey": originals[x.copy_of].hotkey if x.copy_of in originals else None,
                "copy_of_block": originals[x.copy_of].commitment_block if x.copy_of in originals else None,
                "source": x.source,
                "size_bytes": x.size_bytes,
                "created_at": iso(x.created_at),
                "checked_at": iso(x.checked_at),
            }
            for x in subs
        ],
        "races": [
            {
                "race_id": race.race_id,
                "seed_block": race.seed_block,
                "opened_at": iso(race.opened_at),
                "closed_at": iso(race.closed_at),
                "rank": r.rank,
                "of": int(field.get(race.race_id, 0)),
                "score": r.score,
                "success_rate": r.success_rate,
                "runs": r.runs,
                "errored": r.errored,
                "submission_id": r.submission_id,
                "uid": r.uid,
                "per_task": r.per_task,
            }
            for r, race in results
        ],
        "open_races": list(open_races.values()),
        "weights": weights,
        "runs_by_status": {k: int(v) for k, v in by_status.items()},
    }


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
    """A race's miner x problem grid: one cell per run with its status (and, once the race closed, its score and
    success). Before close the columns are numbered, not named."""
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
        line[i] = cell
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
