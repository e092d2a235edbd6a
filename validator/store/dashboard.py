"""The store's reads for the dashboard's views (`validator.api.views`): the closed races' results and the weight sets
(the standings), the miners and one miner's story, the races not closed yet and a race's grid. Rows and ORM objects
only: what may be shown of a race that has not closed is decided by the API, not here."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from validator.store.models import Miner, ProblemRow, Race, RaceResult, Run, Score, Submission, WeightSet


@dataclass(frozen=True)
class MinerRows:
    """What `validator.api.views.miner` tells of one hotkey, as the store holds it."""

    miner: Miner
    submissions: list[Submission]
    originals: dict[int, Submission]  # the submissions its copies copied, by id
    results: list[tuple[RaceResult, Race]]  # its results in races (kind "race"), oldest race first
    field: dict[str, int]  # results per race: how many miners each race ranked
    live: list[Any]  # (race, race status, seed, opened, run status, runs)
    runs_by_status: dict[str, int]
    weight_sets: list[WeightSet]


@dataclass(frozen=True)
class LiveRows:
    """The races not closed yet and their runs' counts, as `validator.api.views.live` shows them."""

    races: list[Race]
    counts: list[Any]  # (race, hotkey, status, runs, last move)
    scored: list[Any]  # (race, hotkey, scored, successes)
    workers: list[Any]  # (race, worker, runs)
    ready: int
    backoff: int
    uids: dict[str, int | None]
    last_closed: Race | None


class DashboardStore:
    """The base of `validator.store.views.ViewsStore`, mixed into `validator.store.repository.Store` (which provides
    `session`)."""

    session: Callable[[], AbstractContextManager[Session]]  # Store's one-transaction session

    def closed_race_results(self) -> tuple[list[Race], dict[str, list[RaceResult]]]:
        """The closed races (kind "race"), oldest first, and every race's results by rank then hotkey."""
        with self.session() as s:
            races = list(
                s.scalars(
                    select(Race)
                    .where(Race.status == "closed", Race.kind == "race")
                    .order_by(Race.opened_at, Race.race_id)
                )
            )
            by_race: dict[str, list[RaceResult]] = defaultdict(list)
            for r in s.scalars(select(RaceResult).order_by(RaceResult.rank, RaceResult.hotkey)):
                by_race[r.race_id].append(r)
        return races, by_race

    def miner_uids(self) -> dict[str, int | None]:
        """Every known hotkey's uid."""
        with self.session() as s:
            return {m.hotkey: m.uid for m in s.scalars(select(Miner))}

    def weight_set_rows(self) -> tuple[list[WeightSet], dict[int, str], dict[str | None, list[RaceResult]]]:
        """Every weight set (oldest first), the hotkey of every uid, and the results (by rank) of their races."""
        with self.session() as s:
            sets = list(s.scalars(select(WeightSet).order_by(WeightSet.id)))
            hotkeys = {m.uid: m.hotkey for m in s.scalars(select(Miner)) if m.uid is not None}
            results: dict[str | None, list[RaceResult]] = defaultdict(list)
            for r in s.scalars(
                select(RaceResult).where(RaceResult.race_id.in_([ws.race_id for ws in sets])).order_by(RaceResult.rank)
            ):
                results[r.race_id].append(r)
        return sets, hotkeys, results

    # --- miners -----------------------------------------------------------------------------------------------------

    def miners_with_submissions(self) -> tuple[list[Miner], dict[str, int]]:
        """Every miner (by uid, then hotkey) and how many submissions each hotkey made."""
        with self.session() as s:
            found = list(s.scalars(select(Miner).order_by(Miner.uid, Miner.hotkey)))
            subs = dict(s.execute(select(Submission.hotkey, func.count()).group_by(Submission.hotkey)).all())
        return found, subs

    def miner_rows(self, hotkey: str) -> MinerRows | None:
        """One hotkey's submissions, results, races not closed yet, runs and the weight sets; None if unknown."""
        with self.session() as s:
            m = s.get(Miner, hotkey)
            if m is None:
                return None
            subs = list(
                s.scalars(
                    select(Submission)
                    .where(Submission.hotkey == hotkey)
                    .order_by(Submission.commitment_block, Submission.id)
                )
            )
            originals = {
                o.id: o
                for o in s.scalars(
                    select(Submission).where(Submission.id.in_([x.copy_of for x in subs if x.copy_of is not None]))
                )
            }
            results = list(
                s.execute(
                    select(RaceResult, Race)
                    .join(Race, Race.race_id == RaceResult.race_id)
                    .where(RaceResult.hotkey == hotkey, Race.kind == "race")
                    .order_by(Race.opened_at, Race.race_id)
                ).all()
            )
            field = dict(s.execute(select(RaceResult.race_id, func.count()).group_by(RaceResult.race_id)).all())
            # races it is in that have not closed: their runs' statuses only
            live = list(
                s.execute(
                    select(Race.race_id, Race.status, Race.seed_block, Race.opened_at, Run.status, func.count())
                    .join(Run, Run.race_id == Race.race_id)
                    .where(Run.hotkey == hotkey, Race.status != "closed")
                    .group_by(Race.race_id, Race.status, Race.seed_block, Race.opened_at, Run.status)
                    .order_by(Race.opened_at)
                ).all()
            )
            by_status = dict(
                s.execute(select(Run.status, func.count()).where(Run.hotkey == hotkey).group_by(Run.status)).all()
            )
            sets = list(s.scalars(select(WeightSet).order_by(WeightSet.id)))
        return MinerRows(
            miner=m,
            submissions=subs,
            originals=originals,
            results=[(r, race) for r, race in results],
            field=field,
            live=live,
            runs_by_status=by_status,
            weight_sets=sets,
        )

    # --- the live races and a race's grid ---------------------------------------------------------------------------

    def live_rows(self, now: datetime) -> LiveRows:
        """The open and running races (kind "race"), oldest first, with their runs counted by miner and status."""
        with self.session() as s:
            races = list(
                s.scalars(
                    select(Race)
                    .where(Race.status.in_(("open", "running")), Race.kind == "race")
                    .order_by(Race.opened_at, Race.race_id)
                )
            )
            ids = [r.race_id for r in races]
            ended = func.coalesce(
                Run.finished_at,
                Run.errored_at,
                Run.judged_at,
                Run.scoring_at,
                Run.running_at,
                Run.starting_at,
                Run.created_at,
            )
            counts = s.execute(
                select(Run.race_id, Run.hotkey, Run.status, func.count(), func.max(ended))
                .where(Run.race_id.in_(ids))
                .group_by(Run.race_id, Run.hotkey, Run.status)
            ).all()
            scored = s.execute(
                select(Run.race_id, Run.hotkey, func.count(), func.sum(Score.success))
                .join(Score, Score.run_id == Run.run_id)
                .where(Run.race_id.in_(ids))
                .group_by(Run.race_id, Run.hotkey)
            ).all()
            worker = Run.sandbox["worker"].as_string()  # where each run's sandbox ran: "local", or a Ray worker's id
            workers = s.execute(
                select(Run.race_id, worker, func.count())
                .where(Run.race_id.in_(ids), worker.is_not(None))
                .group_by(Run.race_id, worker)
            ).all()
            ready = s.scalar(
                select(func.count())
                .select_from(Run)
                .where(
                    Run.status == "pending", Run.race_id.in_(ids), (Run.not_before.is_(None)) | (Run.not_before <= now)
                )
            )
            backoff = s.scalar(
                select(func.count())
                .select_from(Run)
                .where(Run.status == "pending", Run.race_id.in_(ids), Run.not_before > now)
            )
            uids = {m.hotkey: m.uid for m in s.scalars(select(Miner))}
            last_closed = s.scalar(
                select(Race)
                .where(Race.status == "closed", Race.kind == "race")
                .order_by(Race.closed_at.desc(), Race.race_id.desc())
                .limit(1)
            )
        return LiveRows(
            races=races,
            counts=list(counts),
            scored=list(scored),
            workers=list(workers),
            ready=int(ready or 0),
            backoff=int(backoff or 0),
            uids=uids,
            last_closed=last_closed,
        )

    def grid_rows(
        self, race_id: str, problem_ids: Sequence[str], *, tasks: bool
    ) -> tuple[list[tuple[Run, Score | None]], dict[str, str], dict[str, int | None], dict[str, int | None]]:
        """A race's runs with their scores, the tasks of `problem_ids` (when `tasks`, else none), the race's ranks
        and every hotkey's uid."""
        with self.session() as s:
            rows = s.execute(
                select(Run, Score).outerjoin(Score, Score.run_id == Run.run_id).where(Run.race_id == race_id)
            ).all()
            found = (
                dict(
                    s.execute(
                        select(ProblemRow.problem_id, ProblemRow.task).where(ProblemRow.problem_id.in_(problem_ids))
                    ).all()
                )
                if tasks
                else {}
            )
            ranks = {r.hotkey: r.rank for r in s.scalars(select(RaceResult).where(RaceResult.race_id == race_id))}
            uids = {m.hotkey: m.uid for m in s.scalars(select(Miner))}
        return [(run, score) for run, score in rows], found, ranks, uids
