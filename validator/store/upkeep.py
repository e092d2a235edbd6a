"""The store's reads and the one write of the node's upkeep (`validator.upkeep`): what on disk is still needed (the
bundles of miners' latest and pending submissions and of unclosed races), which sandboxes' runs are final, the
latest weights set, and the trajectories of old races (read to be archived, then dropped)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from validator.store.models import Event, Race, RacePool, Run, Submission, WeightSet
from validator.store.moves import FINAL_STATUSES
from validator.store.runs import event_json

#: races whose runs may still start or need their agent
UNCLOSED = ("open", "running")
#: race pools still pooling (`validator.races.pooling.WAITING`): the race's weights wait for them
POOLING = ("building", "committing", "committed", "late")


@dataclass
class ResultsNeeds:
    """What the results-bundle sweep reads from the store: the races whose bundles are still needed (`keep`), the
    latest block the store has seen (the chain is at least there), and when each race ended (else opened)."""

    keep: set[str] = field(default_factory=set)
    block: int = 0
    ended: dict[str, datetime] = field(default_factory=dict)


class UpkeepStore:
    """Mixed into `validator.store.repository.Store` (which provides `session`)."""

    session: Callable[[], AbstractContextManager[Session]]

    def bundles_in_use(self) -> set[str]:
        """The sha256 of every bundle something still needs: each hotkey's latest submission (whatever its status: a
        copy is judged again on every sync), every pending one, and the submissions of runs of unclosed races or not
        final."""
        with self.session() as s:
            latest = (
                select(Submission.hotkey, func.max(Submission.commitment_block).label("block"))
                .group_by(Submission.hotkey)
                .subquery()
            )
            found = set(
                s.scalars(
                    select(Submission.sha256).join(
                        latest, (Submission.hotkey == latest.c.hotkey) & (Submission.commitment_block == latest.c.block)
                    )
                )
            )
            found |= set(s.scalars(select(Submission.sha256).where(Submission.status == "pending")))
            live_runs = select(Run.submission_id).where(
                Run.race_id.in_(select(Race.race_id).where(Race.status.in_(UNCLOSED)))
                | Run.status.notin_(tuple(FINAL_STATUSES))
            )
            found |= set(s.scalars(select(Submission.sha256).where(Submission.id.in_(live_runs))))
            return found

    def run_statuses(self, run_ids: Iterable[str]) -> dict[str, str]:
        """The status of each of `run_ids` the store holds (absent: not a run of this store)."""
        ids = list(run_ids)
        if not ids:
            return {}
        with self.session() as s:
            return {r: st for r, st in s.execute(select(Run.run_id, Run.status).where(Run.run_id.in_(ids))).all()}

    def last_weights_set(self) -> WeightSet | None:
        """The latest weight set the chain took (status `set`), or None."""
        with self.session() as s:
            query = select(WeightSet).where(WeightSet.status == "set").order_by(WeightSet.id.desc()).limit(1)
            return s.scalar(query)

    def results_needs(self) -> ResultsNeeds:
        """The races whose results bundles are still needed: not closed yet, still pooling, with a weight set waiting
        to be sent, after the race of the latest weights set (theirs are not set yet; all closed races when none
        ever was), and the newest W races of the rotation (W the largest window a race was raced with: the pooling
        window the next pools read back)."""
        with self.session() as s:
            rows = s.execute(
                select(Race.race_id, Race.status, Race.seed_block, Race.plan, Race.opened_at, Race.closed_at)
                .where(Race.kind == "race")
                .order_by(Race.seed_block, Race.race_id)
            ).all()
            pooling = set(s.scalars(select(RacePool.race_id).where(RacePool.status.in_(POOLING))))
            sending = select(WeightSet.race_id).where(WeightSet.status.in_(("pending", "rate_limited")))
            waiting = {r for r in s.scalars(sending) if r is not None}
            last = s.scalar(
                select(Race.seed_block)
                .join(WeightSet, WeightSet.race_id == Race.race_id)
                .where(WeightSet.status == "set")
                .order_by(Race.seed_block.desc())
                .limit(1)
            )
            blocks = [
                s.scalar(select(func.max(WeightSet.block))),
                s.scalar(select(func.max(RacePool.committed_block))),
                rows[-1].seed_block if rows else None,
            ]
        window = max((int((r.plan or {}).get("window", 1)) for r in rows), default=1)
        keep = pooling | waiting | {r.race_id for r in rows[-max(1, window) :]}
        keep |= {r.race_id for r in rows if r.status in UNCLOSED or (last is None or r.seed_block > last)}
        ended = {r.race_id: r.closed_at or r.opened_at for r in rows}
        return ResultsNeeds(keep=keep, block=max((int(b) for b in blocks if b is not None), default=0), ended=ended)

    def races_to_archive(self, closed_before: datetime) -> list[str]:
        """Races ended (closed, voided or cancelled) before `closed_before` that still hold trajectory events and have
        no weight set waiting to be sent, oldest first."""
        with self.session() as s:
            waiting = select(WeightSet.race_id).where(
                WeightSet.status.in_(("pending", "rate_limited")), WeightSet.race_id.is_not(None)
            )
            # an EXISTS per race (the events' primary key starts with run_id), never a scan of every event
            with_events = (
                select(Event.run_id).join(Run, Run.run_id == Event.run_id).where(Run.race_id == Race.race_id).exists()
            )
            query = (
                select(Race.race_id)
                .where(
                    Race.status.in_(("closed", "voided", "cancelled")),
                    func.coalesce(Race.closed_at, Race.opened_at) < closed_before,
                    Race.race_id.notin_(waiting),
                    with_events,
                )
                .order_by(Race.opened_at)
            )
            return list(s.scalars(query))

    def race_trajectories(self, race_id: str) -> list[dict[str, Any]]:
        """Each run of the race with its trajectory events (as stored), for the archive."""
        with self.session() as s:
            runs = list(s.scalars(select(Run).where(Run.race_id == race_id).order_by(Run.run_id)))
            out = []
            for run in runs:
                events = s.scalars(select(Event).where(Event.run_id == run.run_id).order_by(Event.seq))
                out.append(
                    {
                        "race_id": race_id,
                        "run_id": run.run_id,
                        "hotkey": run.hotkey,
                        "problem_id": run.problem_id,
                        "status": run.status,
                        "events": [event_json(e) for e in events],
                    }
                )
            return out

    def drop_trajectories(self, race_id: str) -> int:
        """Delete the trajectory events of the race's runs (the runs, scores and results stay). Returns how many."""
        with self.session() as s:
            runs = select(Run.run_id).where(Run.race_id == race_id)
            done = s.execute(delete(Event).where(Event.run_id.in_(runs)))
            return int(getattr(done, "rowcount", 0) or 0)
