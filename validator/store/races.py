"""The store's races: opened, moved through their statuses, followed while their runs move (how many are not final
yet, when one last moved), and closed with their results."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from arena.blame import PROVIDER_DROPPED
from validator.store.errors import StoreError
from validator.store.models import Race, RaceResult, Run, Score, utcnow


class RacesStore:
    """Mixed into `validator.store.repository.Store` (which provides `session`)."""

    session: Callable[[], AbstractContextManager[Session]]  # Store's one-transaction session

    def create_race(
        self,
        *,
        race_id: str,
        pack_id: str,
        seed_block: int,
        seed_hash: str,
        problem_ids: Sequence[str],
        kind: str = "race",
    ) -> tuple[Race, bool]:
        """The race, created if new (idempotent by `race_id`); returns (race, created). `kind`: "race" (a race of
        the rotation) or "qualifying" (`validator.qualifying`)."""
        with self.session() as s:
            race = s.get(Race, race_id)
            if race is not None:
                return race, False
            race = Race(
                race_id=race_id,
                pack_id=pack_id,
                seed_block=seed_block,
                seed_hash=seed_hash,
                problem_ids=list(problem_ids),
                status="open",
                kind=kind,
            )
            s.add(race)
            return race, True

    def race(self, race_id: str) -> Race | None:
        with self.session() as s:
            return s.get(Race, race_id)

    def races(self, *, status: str | None = None, kind: str | None = "race") -> list[Race]:
        """Races in the order they opened; by default the rotation's only (`kind=None`: qualifying races too)."""
        with self.session() as s:
            query = select(Race).order_by(Race.opened_at, Race.race_id)
            if status is not None:
                query = query.where(Race.status == status)
            if kind is not None:
                query = query.where(Race.kind == kind)
            return list(s.scalars(query))

    def in_race(self) -> tuple[list[str], int]:
        """The running races' ids and how many runs are in flight, read by columns every schema revision has
        (`arena-validator upgrade-check` reads a store its code may be behind or ahead of)."""
        with self.session() as s:
            races = list(s.scalars(select(Race.race_id).where(Race.status == "running").order_by(Race.race_id)))
            flying = s.scalar(select(func.count()).select_from(Run).where(Run.status.in_(("starting", "running"))))
            return races, int(flying or 0)

    def set_race_plan(self, race_id: str, plan: dict[str, Any]) -> None:
        """Store how the race is raced (`validator.races.sharding`)."""
        with self.session() as s:
            race = s.get(Race, race_id)
            if race is None:
                raise StoreError("not_found", f"no race {race_id}")
            race.plan = plan

    def set_race_status(self, race_id: str, status: str, *, reason: str | None = None) -> None:
        if status not in {"open", "running", "closed", "cancelled", "voided"}:
            raise StoreError("bad_input", f"unknown race status {status!r}")
        with self.session() as s:
            race = s.get(Race, race_id)
            if race is None:
                raise StoreError("not_found", f"no race {race_id}")
            race.status = status
            if reason is not None:
                race.reason = reason
            if status in {"closed", "cancelled", "voided"}:
                race.closed_at = utcnow()

    def set_race_held(self, race_id: str, since: datetime | None, reason: str | None) -> None:
        """The race waits for a validator fault to clear since `since`, on `reason` (None, None: it no longer does)."""
        with self.session() as s:
            race = s.get(Race, race_id)
            if race is None:
                raise StoreError("not_found", f"no race {race_id}")
            race.held_since, race.reason = since, reason

    @staticmethod
    def _not_final(max_attempts: int) -> Any:
        """The SQL condition of a run that is not final yet: neither finished nor the agent's error (a validator's
        error is retried, however many attempts it took, unless its provider was dropped from the race: 2012);
        `Closing.final` in SQL.
        `max_attempts` is kept for the callers' signature."""
        del max_attempts
        ended = (func.coalesce(Run.blame, "") == "agent") | (func.coalesce(Run.error_code, 0) == PROVIDER_DROPPED)
        return ~((Run.status == "finished") | ((Run.status == "errored") & ended))

    def unfinal_runs(self, race_id: str, *, max_attempts: int) -> int:
        """How many of the race's runs are not final: a count on the (race, status) index while any run is not yet
        finished or errored (most of a race), the errored ones checked only after that. No run is read."""
        with self.session() as s:
            moving = s.scalar(
                select(func.count())
                .select_from(Run)
                .where(Run.race_id == race_id, Run.status.not_in(("finished", "errored")))
            )
            if moving:
                return int(moving)
            return int(
                s.scalar(
                    select(func.count())
                    .select_from(Run)
                    .where(Run.race_id == race_id, Run.status == "errored", self._not_final(max_attempts))
                )
                or 0
            )

    def held_runs(self, race_id: str, *, max_attempts: int) -> tuple[int, int | None, str | None]:
        """The race's runs a validator fault keeps from a result: not final, and past their retry budget (failed on
        their last attempt, or retried beyond it). Returns how many, and the latest such error's code and text."""
        held = self._not_final(max_attempts) & (
            (Run.attempt > max_attempts)
            | ((Run.attempt == max_attempts) & (func.coalesce(Run.blame, "") == "validator"))
        )
        with self.session() as s:
            count = s.scalar(select(func.count()).select_from(Run).where(Run.race_id == race_id, held))
            if not count:
                return 0, None, None
            latest = s.execute(
                select(Run.error_code, Run.error)
                .where(Run.race_id == race_id, held, Run.error_code.is_not(None))
                .order_by(Run.errored_at.desc())
                .limit(1)
            ).first()
        return int(count), (latest[0] if latest else None), (latest[1] if latest else None)

    def race_progress(self, race_id: str, *, max_attempts: int) -> tuple[int, datetime | None]:
        """How many of the race's runs are not final, and when any of its runs last moved: one aggregate query,
        no run read (closing and the health check ask this every few seconds of a race)."""
        moved = [
            func.max(c)
            for c in (Run.starting_at, Run.running_at, Run.scoring_at, Run.judged_at, Run.finished_at, Run.errored_at)
        ]
        with self.session() as s:
            row = s.execute(
                select(func.count().filter(self._not_final(max_attempts)), *moved).where(Run.race_id == race_id)
            ).one()
        times = [t for t in row[1:] if t is not None]  # UTC-aware: max() keeps the column's type
        return int(row[0] or 0), max(times) if times else None

    def race_rows(self, race_id: str) -> list[dict[str, Any]]:
        """The race's runs with their final score, as `race_scores` takes them (hotkey, submission_id, problem_id,
        status, blame, attempt, sample, final, success): one query over runs and scores, when the race closes."""
        query = (
            select(
                Run.hotkey,
                Run.submission_id,
                Run.problem_id,
                Run.status,
                Run.blame,
                Run.attempt,
                Run.sample,
                Score.final,
                Score.success,
            )
            .outerjoin(Score, Score.run_id == Run.run_id)
            .where(Run.race_id == race_id)
            .order_by(Run.created_at, Run.run_id)
        )
        with self.session() as s:
            rows = s.execute(query).all()
        return [
            {
                "hotkey": r.hotkey,
                "submission_id": r.submission_id,
                "problem_id": r.problem_id,
                "status": r.status,
                "blame": r.blame,
                "attempt": r.attempt,
                "sample": r.sample,
                "final": (r.final or 0.0) if r.status == "finished" else 0.0,
                "success": bool(r.status == "finished" and r.success),
            }
            for r in rows
        ]

    def save_race_results(self, race_id: str, results: Sequence[dict[str, Any]], *, close: bool = True) -> None:
        """Replace the race's results (one dict per miner: hotkey, uid, submission_id, commitment_block, score,
        success_rate, runs, errored, rank, per_task) and close the race, in one transaction."""
        with self.session() as s:
            race = s.get(Race, race_id)
            if race is None:
                raise StoreError("not_found", f"no race {race_id}")
            s.query(RaceResult).filter(RaceResult.race_id == race_id).delete(synchronize_session=False)
            for row in results:
                s.add(RaceResult(race_id=race_id, **row))
            if close:
                race.status, race.closed_at = "closed", utcnow()

    def race_results(self, race_id: str) -> list[RaceResult]:
        with self.session() as s:
            query = select(RaceResult).where(RaceResult.race_id == race_id)
            return list(s.scalars(query.order_by(RaceResult.rank, RaceResult.hotkey)))

    def miner_costs(self, race_id: str | None = None) -> dict[str, tuple[float, int]]:
        """Per miner: what its final runs' LLM calls cost (USD) and how many of them solved their problem, in race
        `race_id` (None: over every race); a run's cost is whoever paid it."""

        with self.session() as s:
            query = (
                select(Run.hotkey, func.sum(Run.cost), func.sum(case((Score.success > 0, 1), else_=0)))
                .outerjoin(Score, Score.run_id == Run.run_id)
                .where(Run.status.in_(("finished", "errored")))
                .group_by(Run.hotkey)
            )
            if race_id is not None:
                query = query.where(Run.race_id == race_id)
            return {hotkey: (float(cost or 0.0), int(solved or 0)) for hotkey, cost, solved in s.execute(query)}
