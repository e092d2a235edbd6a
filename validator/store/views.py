"""The store's reads for the API, the dashboard and `/metrics`: pages of races, runs, submissions and weight sets, the
charts' rows and the gauges; the rows the dashboard's views (`validator.api.views`) are computed from are read by its
base, `validator.store.dashboard`. Rows and ORM objects only: what may be shown of a race that has not closed is
decided by the API, not here."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Engine, Select, case, func, select
from sqlalchemy.orm import Session

from validator.store.dashboard import DashboardStore, LiveRows, MinerRows  # noqa: F401 - still importable from here
from validator.store.models import Miner, ProblemRow, Race, Run, Score, Submission, WeightSet

#: How `/api/runs` may be sorted (a race's content sorts only once it closed: before, the last six keys are blank).
RunSort = Literal[
    "created", "ended", "status", "miner", "race", "attempt", "score", "success", "cost", "tools", "problem", "task"
]


@dataclass(frozen=True)
class Page:
    """One page of a list: the rows of the page and how many rows the whole list has."""

    total: int
    rows: list[Any]


@dataclass(frozen=True)
class StatusCounts:
    """The store's gauges for `/metrics`: runs, races (kind "race") and weight sets by status; runs ready to start."""

    runs: list[Any]
    ready: int
    races: list[Any]
    weight_sets: list[Any]


class ViewsStore(DashboardStore):
    """Mixed into `validator.store.repository.Store` (which provides `session`); the dashboard's rows in its base."""

    session: Callable[[], AbstractContextManager[Session]]  # Store's one-transaction session
    engine: Engine

    def _page(self, query: Select[Any] | Any, count: Select[Any], limit: int, offset: int) -> Page:
        with self.session() as s:
            total = s.scalar(count) or 0
            rows = list(s.execute(query.limit(limit).offset(offset)).all())
        return Page(total=int(total), rows=rows)

    # --- pages ------------------------------------------------------------------------------------------------------

    def page_races(self, *, kind: str, status: str | None, limit: int, offset: int) -> Page:
        """Races of `kind` (and `status`), newest first; rows of (race,)."""
        query = select(Race).where(Race.kind == kind).order_by(Race.opened_at.desc(), Race.race_id.desc())
        count = select(func.count()).select_from(Race).where(Race.kind == kind)
        if status:
            query, count = query.where(Race.status == status), count.where(Race.status == status)
        return self._page(query, count, limit, offset)

    def page_runs(
        self,
        *,
        race_id: str | None = None,
        hotkey: str | None = None,
        status: str | None = None,
        error_code: int | None = None,
        blame: str | None = None,
        task: str | None = None,
        sort: RunSort = "created",
        descending: bool = False,
        limit: int,
        offset: int,
    ) -> Page:
        """Runs filtered and sorted by a `RunSort` key (then creation, then id), a task only matching runs of
        closed races; rows of (run, score or None, task or None, race status, race seed block)."""
        closed = Race.status == "closed"
        keys = {
            "created": Run.created_at,
            "ended": func.coalesce(Run.finished_at, Run.errored_at),
            "status": Run.status,
            "miner": Run.hotkey,
            "race": Race.opened_at,
            "attempt": Run.attempt,
            # a race's content sorts only once it closed: before, these keys are blank
            "score": case((closed, Score.final)),
            "success": case((closed, Score.success)),
            "cost": case((closed, Run.cost)),
            "tools": case((closed, Run.tool_calls)),
            "problem": case((closed, Run.problem_id)),
            "task": case((closed, ProblemRow.task)),
        }
        key = keys[sort]
        ordered = [key.desc().nulls_last() if descending else key.asc().nulls_last(), Run.created_at, Run.run_id]
        query = (
            select(Run, Score, ProblemRow.task, Race.status, Race.seed_block)
            .join(Race, Race.race_id == Run.race_id)
            .outerjoin(Score, Score.run_id == Run.run_id)
            .outerjoin(ProblemRow, ProblemRow.problem_id == Run.problem_id)
            .order_by(*ordered)
        )
        count = (
            select(func.count())
            .select_from(Run)
            .join(Race, Race.race_id == Run.race_id)
            .outerjoin(ProblemRow, ProblemRow.problem_id == Run.problem_id)
        )
        for column, value in (
            (Run.race_id, race_id),
            (Run.hotkey, hotkey),
            (Run.status, status),
            (Run.error_code, error_code),
            (Run.blame, blame),
        ):
            if value is not None:
                query, count = query.where(column == value), count.where(column == value)
        if task is not None:
            query, count = query.where(ProblemRow.task == task, closed), count.where(ProblemRow.task == task, closed)
        return self._page(query, count, limit, offset)

    def page_submissions(self, *, status: str | None, hotkey: str | None, limit: int, offset: int) -> Page:
        """Submissions by commitment block; rows of (submission, its miner's uid or None)."""
        query = (
            select(Submission, Miner.uid)
            .outerjoin(Miner, Miner.hotkey == Submission.hotkey)
            .order_by(Submission.commitment_block, Submission.id)
        )
        count = select(func.count()).select_from(Submission)
        for column, value in ((Submission.status, status), (Submission.hotkey, hotkey)):
            if value is not None:
                query, count = query.where(column == value), count.where(column == value)
        return self._page(query, count, limit, offset)

    def page_weight_sets(self, *, limit: int, offset: int) -> Page:
        """Weight sets, newest first; rows of (weight set,)."""
        query = select(WeightSet).order_by(WeightSet.id.desc())
        return self._page(query, select(func.count()).select_from(WeightSet), limit, offset)

    # --- leaderboards and charts ------------------------------------------------------------------------------------

    def judge_quality(self, race_id: str) -> dict[str, float | None]:
        """Each hotkey's mean judge quality over its scored runs of `race_id`."""
        with self.session() as s:
            return dict(
                s.execute(
                    select(Run.hotkey, func.avg(Score.judge_quality))
                    .join(Score, Score.run_id == Run.run_id)
                    .where(Run.race_id == race_id)
                    .group_by(Run.hotkey)
                ).all()
            )

    def chart_rows(
        self,
    ) -> tuple[list[tuple[str, str, float | None, int]], list[float], list[Run], dict[str, datetime]]:
        """Of closed races (kind "race") only: (race, task, mean success, runs) per race and task; up to 20,000
        final scores; the 5,000 newest finished or errored runs; and when every race opened."""
        with self.session() as s:
            closed = select(Race.race_id).where(Race.status == "closed", Race.kind == "race")
            by_task = s.execute(
                select(Run.race_id, ProblemRow.task, func.avg(Score.success), func.count())
                .join(Score, Score.run_id == Run.run_id)
                .join(ProblemRow, ProblemRow.problem_id == Run.problem_id)
                .where(Run.race_id.in_(closed))
                .group_by(Run.race_id, ProblemRow.task)
            ).all()
            finals = [
                f
                for (f,) in s.execute(
                    select(Score.final)
                    .join(Run, Run.run_id == Score.run_id)
                    .where(Score.final.is_not(None), Run.race_id.in_(closed))
                    .order_by(Score.run_id)
                    .limit(20000)
                )
                if f is not None
            ]
            recent = list(
                s.scalars(
                    select(Run)
                    .where(Run.status.in_(("finished", "errored")), Run.race_id.in_(closed))
                    .order_by(Run.created_at.desc())
                    .limit(5000)
                ).all()
            )
            opened = {r.race_id: r.opened_at for r in s.scalars(select(Race))}
        return list(by_task), finals, recent, opened

    # --- health and metrics -----------------------------------------------------------------------------------------

    def ping(self) -> str:
        """One round trip to the database (raising what the driver raises); the store's URL, password hidden."""
        with self.engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
        return self.engine.url.render_as_string(hide_password=True)

    def status_counts(self, now: datetime) -> StatusCounts:
        """Runs, races (kind "race") and weight sets by status, and the pending runs ready to start at `now`."""
        with self.session() as s:
            runs = s.execute(select(Run.status, func.count()).group_by(Run.status)).all()
            ready = s.scalar(
                select(func.count())
                .select_from(Run)
                .where(Run.status == "pending", (Run.not_before.is_(None)) | (Run.not_before <= now))
            )
            races = s.execute(select(Race.status, func.count()).where(Race.kind == "race").group_by(Race.status)).all()
            weights = s.execute(select(WeightSet.status, func.count()).group_by(WeightSet.status)).all()
        return StatusCounts(runs=list(runs), ready=int(ready or 0), races=list(races), weight_sets=list(weights))
