"""The standings across closed races and the weights each uid received."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from validator.api.views.common import CERTAINTY, TIE_BREAK, iso, noise, ties
from validator.store.models import Race, RaceResult
from validator.store.repository import Store


def standings(store: Store, *, window: int = 5) -> dict[str, Any]:
    """The standings across closed races: each miner's mean score over the last `window` closed races it ran in,
    its rank in the latest race and the move from the race before, its wins, and since when the champion (rank 1 of
    the latest race) has held rank 1; the latest race's ties; and every miner's rank and score per race."""
    races, by_race = store.closed_race_results()
    uids = store.miner_uids()
    if not races:
        return {
            "races": [],
            "window": window,
            "rows": [],
            "ties": [],
            "noise": noise([]),
            "certainty": CERTAINTY,
            "champion": None,
            "history": {},
        }
    history = _history(races, by_race)
    latest = races[-1]
    latest_rows = [
        {
            "hotkey": r.hotkey,
            "rank": r.rank,
            "score": r.score,
            "commitment_block": r.commitment_block,
            "low": r.low,
            "high": r.high,
            "p_rank1": r.p_rank1,
            "samples": r.samples,
        }
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
        "rows": _rows(races, by_race, history, uids, window),
        "ties": ties(latest_rows),
        "noise": noise(latest_rows),
        "certainty": CERTAINTY,
        "tie_break": TIE_BREAK,
        "champion": _champion(races, by_race, uids),
        "history": dict(history),
    }


def _history(races: list[Race], by_race: dict[str, list[RaceResult]]) -> dict[str, list[dict[str, Any]]]:
    """Every miner's rank and score per closed race, oldest first."""
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
    return history


def _rows(
    races: list[Race],
    by_race: dict[str, list[RaceResult]],
    history: dict[str, list[dict[str, Any]]],
    uids: dict[str, int | None],
    window: int,
) -> list[dict[str, Any]]:
    """The standings' rows, by rolling mean over the last `window` races (then latest rank, then hotkey)."""
    recent = races[-window:]
    latest = races[-1]
    previous = races[-2] if len(races) > 1 else None
    latest_rank = {r.hotkey: r.rank for r in by_race.get(latest.race_id, [])}
    standing = {r.hotkey: r for r in by_race.get(latest.race_id, [])}
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
                # the latest race's standing (over the rotation's window) and how sure it is; None when the miner
                # was not in it
                **_certainty(standing.get(hotkey)),
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
    return rows


def _certainty(result: RaceResult | None) -> dict[str, Any]:
    fields = ("score", "low", "high", "p_rank1", "samples", "pass_at_k", "pass_hat_k")
    return {f: getattr(result, f) if result is not None else None for f in fields}


def _champion(
    races: list[Race], by_race: dict[str, list[RaceResult]], uids: dict[str, int | None]
) -> dict[str, Any] | None:
    """Rank 1 of the latest race and since which race it has held rank 1 (None when no one ranked first)."""
    latest = races[-1]
    winners = [r for r in by_race.get(latest.race_id, []) if r.rank == 1]
    if not winners:
        return None
    hotkey = winners[0].hotkey
    since = latest
    for race in reversed(races):
        if any(r.hotkey == hotkey and r.rank == 1 for r in by_race.get(race.race_id, [])):
            since = race
        else:
            break
    streak = races.index(latest) - races.index(since) + 1
    return {
        "hotkey": hotkey,
        "uid": uids.get(hotkey),
        "since_race": since.race_id,
        "since_block": since.seed_block,
        "since": iso(since.closed_at or since.opened_at),
        "races": streak,
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
