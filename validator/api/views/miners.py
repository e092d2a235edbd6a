"""The miners: every hotkey with its race record, and one hotkey's story."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from validator.api.views.common import iso
from validator.store.dashboard import MinerRows
from validator.store.models import RaceResult, Submission
from validator.store.repository import Store


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
    return {
        "hotkey": m.hotkey,
        "uid": m.uid,
        "coldkey": m.coldkey,
        "registered": m.registered,
        "first_seen_at": iso(m.first_seen_at),
        "first_seen_block": m.first_seen_block,
        "submissions": [_submission(x, originals) for x in subs],
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
                "low": r.low,
                "high": r.high,
                "p_rank1": r.p_rank1,
                "samples": r.samples,
                "pass_at_k": r.pass_at_k,
                "pass_hat_k": r.pass_hat_k,
            }
            for r, race in results
        ],
        "open_races": _open_races(found.live),
        "weights": _weights(found),
        "runs_by_status": {k: int(v) for k, v in found.runs_by_status.items()},
    }


def _submission(x: Submission, originals: dict[int, Submission]) -> dict[str, Any]:
    """One submission as the miner's page shows it, with the hotkey and block of the one it copied."""
    return {
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


def _weights(found: MinerRows) -> list[dict[str, Any]]:
    """The weight the miner's uid (as it was in each set's race) received in each weight set."""
    race_uid = {r.race_id: r.uid for r, _race in found.results}
    weights = []
    for ws in found.weight_sets:
        uid = race_uid.get(ws.race_id) if ws.race_id in race_uid else found.miner.uid
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
    return weights


def _open_races(live: list[Any]) -> list[dict[str, Any]]:
    """The races not closed yet that the miner runs in, with its runs in each by status."""
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
    return list(open_races.values())
