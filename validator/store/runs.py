"""The store's runs and their trajectories: a race's runs made, read and moved along the status machine
(`validator.store.moves`), and their events written in batches (COPY on PostgreSQL), together with the run's status
change and strict score when a run is recorded (`record_run`)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from arena.trajectory import TrajectoryEvent
from validator.store.engine import EVENT_BATCH, dumps
from validator.store.errors import StoreError
from validator.store.models import Event, Run, Score, Submission, utcnow
from validator.store.moves import INSERT_EVENTS, advance, put_score, replace_events

_EVENT_COLUMNS = (
    "run_id",
    "seq",
    "kind",
    "name",
    "arguments",
    "result",
    "started_at",
    "duration_ms",
    "tokens",
    "cost",
    "error",
    "status",
)


def _event_row(event: TrajectoryEvent | dict[str, Any], run_id: str | None = None) -> dict[str, Any]:
    data = event if isinstance(event, dict) else event.__dict__  # pydantic keeps the fields there; no copy
    if data["started_at"].tzinfo is None:
        raise StoreError(
            "bad_input", f"event {data['seq']} of run {run_id or data['run_id']}: started_at must be timezone-aware"
        )
    return {
        "run_id": run_id or data["run_id"],
        "seq": int(data["seq"]),
        "kind": data["kind"],
        "name": data["name"],
        "arguments": data.get("arguments"),
        "result": data.get("result"),
        "started_at": data["started_at"],
        "duration_ms": float(data.get("duration_ms") or 0.0),
        "tokens": data.get("tokens") or {},
        "cost": float(data.get("cost") or 0.0),
        "error": data.get("error"),
        "status": int(data.get("status", 200)),
    }


def event_json(e: Event) -> dict[str, Any]:
    """A stored event as a trajectory's json (`arena.trajectory.TrajectoryEvent` without its run id)."""
    return {
        "seq": e.seq,
        "kind": e.kind,
        "name": e.name,
        "arguments": e.arguments,
        "result": e.result,
        "started_at": e.started_at.isoformat(),
        "duration_ms": e.duration_ms,
        "tokens": e.tokens or {},
        "cost": e.cost,
        "error": e.error,
        "status": e.status,
    }


def _copy_events(session: Session, rows: list[dict[str, Any]]) -> None:
    """Postgres: stream rows with COPY inside the session's transaction (the fastest bulk path psycopg offers)."""
    driver = session.connection().connection.driver_connection
    assert driver is not None
    with driver.cursor() as cursor:
        with cursor.copy(f"COPY trajectory_events ({', '.join(_EVENT_COLUMNS)}) FROM STDIN") as copy:
            for r in rows:
                copy.write_row(
                    (
                        r["run_id"],
                        r["seq"],
                        r["kind"],
                        r["name"],
                        None if r["arguments"] is None else dumps(r["arguments"]),
                        None if r["result"] is None else dumps(r["result"]),
                        r["started_at"],
                        r["duration_ms"],
                        dumps(r["tokens"]),
                        r["cost"],
                        r["error"],
                        r["status"],
                    )
                )


class RunsStore:
    """Mixed into `validator.store.repository.Store` (which provides `session` and `dialect`)."""

    session: Callable[[], AbstractContextManager[Session]]  # Store's one-transaction session
    dialect: str  # the engine's dialect name

    def create_runs(
        self, race_id: str, units: Iterable[tuple[Submission, str] | tuple[Submission, str, int]], *, samples: int = 1
    ) -> int:
        """Pending runs, skipping those that exist: for a (submission, problem id) pair one per sample index
        0..`samples`-1, for a (submission, problem id, sample) triple that one sample. Returns how many were made."""
        with self.session() as s:
            have = set(
                s.execute(select(Run.submission_id, Run.problem_id, Run.sample).where(Run.race_id == race_id)).all()
            )
            wanted: dict[tuple[int, str, int], Submission] = {}
            for unit in units:
                indices = [unit[2]] if len(unit) == 3 else range(samples)
                for sample in indices:
                    wanted.setdefault((unit[0].id, unit[1], int(sample)), unit[0])
            rows = [
                {
                    "run_id": uuid.uuid4().hex,
                    "race_id": race_id,
                    "submission_id": sub.id,
                    "problem_id": pid,
                    "sample": sample,
                    "hotkey": sub.hotkey,
                    "status": "pending",
                    "created_at": utcnow(),
                }
                for (_, pid, sample), sub in wanted.items()
                if (sub.id, pid, sample) not in have
            ]
            for start in range(0, len(rows), EVENT_BATCH):
                s.execute(insert(Run.__table__), rows[start : start + EVENT_BATCH])
            return len(rows)

    def run(self, run_id: str) -> Run | None:
        with self.session() as s:
            return s.get(Run, run_id)

    def runs(
        self,
        *,
        race_id: str | None = None,
        status: str | Sequence[str] | None = None,
        hotkey: str | None = None,
        ready_at: datetime | None = None,
        limit: int | None = None,
    ) -> list[Run]:
        """Runs by race, status, hotkey; `ready_at` keeps those whose retry backoff has passed by then."""
        with self.session() as s:
            query = select(Run).order_by(Run.created_at, Run.run_id)
            if race_id is not None:
                query = query.where(Run.race_id == race_id)
            if status is not None:
                query = query.where(Run.status.in_([status] if isinstance(status, str) else list(status)))
            if hotkey is not None:
                query = query.where(Run.hotkey == hotkey)
            if ready_at is not None:
                query = query.where((Run.not_before.is_(None)) | (Run.not_before <= ready_at))
            if limit is not None:
                query = query.limit(limit)
            return list(s.scalars(query))

    def count_runs(self, race_id: str) -> dict[str, int]:
        with self.session() as s:
            rows = s.execute(select(Run.status, func.count()).where(Run.race_id == race_id).group_by(Run.status))
            return {status: int(n) for status, n in rows}

    def transition(self, run_id: str, status: str, **fields: Any) -> Run:
        """Move a run to `status` (checked against the status machine), stamping the phase's time, in one commit."""
        with self.session() as s:
            return advance(s.connection(), run_id, [(status, fields)])

    def claim(self, run_id: str, *, running: bool = False) -> Run:
        """Take a pending run for an attempt (`starting`); with `running`, when nothing is left to prepare (its
        agent is staged already), on into `running` in the same commit."""
        with self.session() as s:
            return advance(s.connection(), run_id, [("starting", {})] + ([("running", {})] if running else []))

    def retry_later(self, run_id: str, *, delay: timedelta) -> Run:
        """Put a validator-blamed errored (or interrupted) run back to pending after `delay`."""
        with self.session() as s:
            return advance(s.connection(), run_id, [("pending", {"not_before": utcnow() + delay})])

    def release(self, run_id: str) -> Run:
        """Put a run claimed for an attempt whose sandbox never started (the node stopped first) back to pending now,
        the attempt `claim` counted given back: nothing of it ran."""
        with self.session() as s:
            conn = s.connection()
            query = select(Run.attempt).where(Run.run_id == run_id)
            claimed = conn.execute(query.with_for_update() if self.dialect == "postgresql" else query).scalar()
            fields = {"not_before": utcnow(), "attempt": max((claimed or 1) - 1, 0)}
            return advance(conn, run_id, [("pending", fields)])

    def add_events(
        self,
        events: Sequence[TrajectoryEvent | dict[str, Any]],
        *,
        run_id: str | None = None,
        session: Session | None = None,
    ) -> int:
        """Append events in batches of `EVENT_BATCH` rows per INSERT; returns how many were written."""
        if session is None:
            with self.session() as s:
                return self.add_events(events, run_id=run_id, session=s)
        rows = [_event_row(e, run_id) for e in events]
        for start in range(0, len(rows), EVENT_BATCH):
            if self.dialect == "postgresql":
                _copy_events(session, rows[start : start + EVENT_BATCH])
            else:
                session.connection().execute(INSERT_EVENTS, rows[start : start + EVENT_BATCH])
        return len(rows)

    def record_run(
        self,
        run_id: str,
        status: str,
        events: Sequence[TrajectoryEvent | dict[str, Any]],
        strict: tuple[float, dict[str, Any]] | None = None,
        judgment: dict[str, Any] | None = None,
        **fields: Any,
    ) -> Run:
        """A run's trajectory and its status change in one transaction: both land, or neither does; with `strict`
        (success, verdict), its strict score too (no final score yet: the judge's coefficient makes it); with
        `judgment` as well (`save_judgment`'s arguments), the judge's verdict and final score, and the run moves on
        to `finished` in the same commit.

        Events already stored for this run (an earlier, interrupted attempt) are replaced. Plain statements, no ORM
        object: one DELETE and one multi-row INSERT (COPY on PostgreSQL) of events, one SELECT and one UPDATE of
        the run, one upsert of its score."""
        moves = [(status, fields)]
        if strict is not None and judgment is not None:
            moves += [("judged", {}), ("finished", {"error": None})]
        with self.session() as s:
            conn = s.connection()
            run = advance(conn, run_id, moves)
            replace_events(conn, run_id)
            self.add_events(events, run_id=run_id, session=s)
            if strict is not None:
                put_score(conn, run_id, success=strict[0], strict=strict[1], judgment=judgment)
            return run

    def events(self, run_id: str) -> list[TrajectoryEvent]:
        """A run's whole trajectory, in order."""
        with self.session() as s:
            rows = s.execute(select(Event).where(Event.run_id == run_id).order_by(Event.seq)).scalars()
            return [
                TrajectoryEvent(
                    run_id=e.run_id,
                    seq=e.seq,
                    kind=e.kind,
                    name=e.name,
                    arguments=e.arguments,
                    result=e.result,
                    started_at=e.started_at,
                    duration_ms=e.duration_ms,
                    tokens=e.tokens or {},
                    cost=e.cost,
                    error=e.error,
                    status=e.status,
                )
                for e in rows
            ]

    def race_evidence(self, race_id: str) -> list[dict[str, Any]]:
        """Every final run of a race with what a results bundle publishes of it (`validator.pool`): the miner, its
        submission's sha256, the problem, sample and retry count, the trajectory (events as json), the strict
        verdict and the judge's, the final score, the error code and blame; ordered by miner, problem, sample."""
        with self.session() as s:
            rows = s.execute(
                select(Run, Submission.sha256, Score)
                .join(Submission, Submission.id == Run.submission_id)
                .outerjoin(Score, Score.run_id == Run.run_id)
                .where(Run.race_id == race_id, Run.status.in_(("finished", "errored")))
                .order_by(Run.hotkey, Run.problem_id, Run.sample, Run.run_id)
            ).all()
            events: dict[str, list[dict[str, Any]]] = {}
            query = (
                select(Event)
                .join(Run, Run.run_id == Event.run_id)
                .where(Run.race_id == race_id, Run.status.in_(("finished", "errored")))
                .order_by(Event.run_id, Event.seq)
            )
            for e in s.scalars(query):
                events.setdefault(e.run_id, []).append(event_json(e))
            out = []
            for run, sha256, score in rows:
                judged = score is not None and score.judge_coefficient is not None and score.judge is not None
                out.append(
                    {
                        "miner": run.hotkey,
                        "submission": sha256,
                        "problem_id": run.problem_id,
                        "attempt": run.sample,
                        "retries": run.attempt,
                        "trajectory": events.get(run.run_id, []),
                        "strict": score.strict if score is not None else None,
                        "judgment": {
                            "verdict": score.judge,
                            "quality": score.judge_quality,
                            "coefficient": score.judge_coefficient,
                            "evidence": score.judge_evidence or [],
                        }
                        if judged
                        else None,
                        "final": float(score.final or 0.0) if score is not None and run.status == "finished" else 0.0,
                        "error_code": run.error_code,
                        "blame": run.blame,
                        "spend": (run.sandbox or {}).get("spend"),
                    }
                )
            return out
