"""The store's one repository: every read and write the node makes, on PostgreSQL or SQLite with the same code.

Rules it keeps:
- a run moves only along DESIGN's status machine (`pending -> starting -> running -> scoring -> judged ->
  finished`, or `errored`; a validator-blamed `errored` run goes back to `pending` for a retry); an illegal move is a
  `StoreError`, never a silent overwrite;
- trajectory events are written in batches (one multi-row INSERT per batch), and a run's events commit together with
  its status change (`record_run`), so a crash never leaves a run `scoring` without its trajectory;
- everything is idempotent where a resumed job may repeat it (`upsert_miners`, `create_runs`, `add_pack`).

Connecting is lazy: `Store(url)` builds the engine; `Store.open(url)` also checks the database answers (retrying with
backoff) and that its schema is the code's (`validator.store.schema.check_current`).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import orjson
from sqlalchemy import Engine, create_engine, event, func, insert, select, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from arena.trajectory import TrajectoryEvent
from validator.store.errors import StoreError
from validator.store.models import (
    Event,
    Miner,
    Pack,
    ProblemRow,
    Race,
    RaceResult,
    Run,
    Score,
    ScoreRevision,
    Submission,
    WeightSet,
    utcnow,
)
from validator.store.moves import (
    FINAL_STATUSES,
    INSERT_EVENTS,
    RUN_STATUSES,
    advance,
    changes,
    check_status,
    put_score,
    replace_events,
)
from validator.store.qualifying import QualifyingStore
from validator.store.submissions import SubmissionsStore
from validator.store.views import ViewsStore

#: Events per INSERT statement; large enough to amortize round trips, small enough to bound memory.
EVENT_BATCH = 1000


def blame_of(code: int | None) -> str | None:
    """Who is to blame for a run error code, from `arena.blame`'s one table (1xxx the agent, 2xxx the validator);
    `ValueError` for a code the table does not hold."""
    from arena.blame import blame_of as table_blame

    return table_blame(code)


def make_engine(url: str, *, create: bool = True, **kwargs: Any) -> Engine:
    """An engine for `url`; SQLite gets foreign keys, WAL and a busy timeout so several processes can share it.

    With `create=False` (read-only commands) a SQLite file that does not exist is a `StoreError` (`no_store`), so a
    mistyped path never leaves a new database or folder behind."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError("bad_url", f"{url!r} is not a database URL; use postgresql+psycopg://user:pass@host/db "
                                    "or sqlite:///path/file.sqlite") from None
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:":
            from pathlib import Path

            if not create and not Path(database).expanduser().is_file():
                raise StoreError("no_store", f"no store at {database}: the file does not exist (check --database-url "
                                             "or --data-dir; `arena-validator db upgrade` creates a store)")
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30}, json_serializer=_dumps, **kwargs)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(conn: Any, _record: Any) -> None:
            cursor = conn.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    if parsed.get_backend_name() != "postgresql":
        raise StoreError("bad_url", f"unsupported database {parsed.get_backend_name()!r}: use PostgreSQL or SQLite")
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return create_engine(parsed, pool_pre_ping=True, connect_args={"connect_timeout": 5}, json_serializer=_dumps,
                         **kwargs)


def wait_for(engine: Engine, *, attempts: int = 1, backoff: float = 1.0, max_backoff: float = 30.0,
             log: Any = None) -> None:
    """Connect once, retrying `attempts` times with exponential backoff; one `StoreError` naming the target if not."""
    where = engine.url.render_as_string(hide_password=True)
    delay = backoff
    for attempt in range(1, attempts + 1):
        try:
            with engine.connect() as conn:
                conn.exec_driver_sql("SELECT 1")
            return
        except OperationalError as error:
            reason = str(error.orig or error).strip().splitlines()[0] if (error.orig or error) else "no answer"
            if attempt == attempts:
                raise StoreError("unreachable", f"cannot reach the database at {where}: {reason}; check "
                                                "--database-url (or ARENA_DATABASE_URL) and that the server is "
                                                "running") from None
            if log is not None:
                log.warning("store.unreachable", target=where, attempt=attempt, retry_in=delay, error=reason)
            time.sleep(delay)
            delay = min(delay * 2, max_backoff)


def _dumps(value: Any) -> str:
    """JSON text for the store's JSON columns (orjson: several times faster than the stdlib on trajectory bodies)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


_EVENT_COLUMNS = ("run_id", "seq", "kind", "name", "arguments", "result", "started_at", "duration_ms", "tokens",
                  "cost", "error", "status")


def _event_row(event: TrajectoryEvent | dict[str, Any], run_id: str | None = None) -> dict[str, Any]:
    data = event if isinstance(event, dict) else event.__dict__  # pydantic keeps the fields there; no copy
    if data["started_at"].tzinfo is None:
        raise StoreError("bad_input", f"event {data['seq']} of run {run_id or data['run_id']}: started_at must be "
                                      "timezone-aware")
    return {
        "run_id": run_id or data["run_id"], "seq": int(data["seq"]), "kind": data["kind"], "name": data["name"],
        "arguments": data.get("arguments"), "result": data.get("result"), "started_at": data["started_at"],
        "duration_ms": float(data.get("duration_ms") or 0.0), "tokens": data.get("tokens") or {},
        "cost": float(data.get("cost") or 0.0), "error": data.get("error"), "status": int(data.get("status", 200)),
    }


def _copy_events(session: Session, rows: list[dict[str, Any]]) -> None:
    """Postgres: stream rows with COPY inside the session's transaction (the fastest bulk path psycopg offers)."""
    driver = session.connection().connection.driver_connection
    assert driver is not None
    with driver.cursor() as cursor:
        with cursor.copy(f"COPY trajectory_events ({', '.join(_EVENT_COLUMNS)}) FROM STDIN") as copy:
            for r in rows:
                copy.write_row((r["run_id"], r["seq"], r["kind"], r["name"],
                                None if r["arguments"] is None else _dumps(r["arguments"]),
                                None if r["result"] is None else _dumps(r["result"]), r["started_at"],
                                r["duration_ms"], _dumps(r["tokens"]), r["cost"], r["error"], r["status"]))


class Store(QualifyingStore, SubmissionsStore, ViewsStore):
    """The node's repository over one database (PostgreSQL or SQLite)."""

    def __init__(self, url: str, *, engine: Engine | None = None) -> None:
        self.engine = engine or make_engine(url)
        self.dialect = self.engine.dialect.name
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @classmethod
    def open(cls, url: str, *, attempts: int = 1, check_schema: bool = True, log: Any = None) -> Store:
        """A store whose database answers and whose schema is this code's (else `StoreError` / `SchemaError`)."""
        from validator.store.schema import check_current

        store = cls(url, engine=make_engine(url, create=not check_schema))  # a current schema must exist already
        wait_for(store.engine, attempts=attempts, log=log)
        if check_schema:
            check_current(store.engine)
        return store

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One transaction: committed when the block ends, rolled back on any error."""
        with self._sessions.begin() as session:
            yield session

    # --- miners -----------------------------------------------------------------------------------------------------

    def upsert_miners(self, neurons: Iterable[Any], *, block: int | None = None) -> int:
        """Record the metagraph's neurons (objects with `uid`, `hotkey`, `coldkey`); hotkeys no longer on it are
        marked unregistered. Returns how many hotkeys were new."""
        now = utcnow()
        seen: dict[str, Any] = {n.hotkey: n for n in neurons}
        new = 0
        with self.session() as s:
            known = {m.hotkey: m for m in s.scalars(select(Miner))}
            for hotkey, neuron in seen.items():
                miner = known.get(hotkey)
                if miner is None:
                    s.add(Miner(hotkey=hotkey, uid=neuron.uid, coldkey=neuron.coldkey, first_seen_at=now,
                                first_seen_block=block, last_seen_at=now, registered=True))
                    new += 1
                else:
                    miner.uid, miner.coldkey = neuron.uid, neuron.coldkey
                    miner.last_seen_at, miner.registered = now, True
            for hotkey, miner in known.items():
                if hotkey not in seen and miner.registered:
                    miner.registered, miner.uid = False, None
        return new

    def miners(self, *, registered_only: bool = True) -> list[Miner]:
        with self.session() as s:
            query = select(Miner).order_by(Miner.uid, Miner.hotkey)
            if registered_only:
                query = query.where(Miner.registered.is_(True))
            return list(s.scalars(query))

    # --- submissions ------------------------------------------------------------------------------------------------

    def add_submission(self, *, hotkey: str, sha256: str, commitment_block: int, source: str = "",
                       coldkey: str = "") -> tuple[Submission, bool]:
        """The submission for this commitment, created if new; returns (submission, created)."""
        with self.session() as s:
            found = s.scalar(select(Submission).where(Submission.hotkey == hotkey, Submission.sha256 == sha256,
                                                      Submission.commitment_block == commitment_block))
            if found is not None:
                return found, False
            if s.get(Miner, hotkey) is None:
                now = utcnow()
                s.add(Miner(hotkey=hotkey, uid=None, coldkey=coldkey, first_seen_at=now, last_seen_at=now))
                s.flush()
            sub = Submission(hotkey=hotkey, sha256=sha256, commitment_block=commitment_block, source=source)
            s.add(sub)
            s.flush()
            return sub, True

    def set_submission(self, submission_id: int, *, status: str, reason: str | None = None,
                       copy_of: int | None = None, normalized_sha256: str | None = None,
                       size_bytes: int | None = None) -> Submission:
        if status not in {"pending", "accepted", "rejected", "copy"}:
            raise StoreError("bad_input", f"unknown submission status {status!r}")
        with self.session() as s:
            sub = s.get(Submission, submission_id)
            if sub is None:
                raise StoreError("not_found", f"no submission {submission_id}")
            sub.status, sub.reason, sub.copy_of, sub.checked_at = status, reason, copy_of, utcnow()
            if normalized_sha256 is not None:
                sub.normalized_sha256 = normalized_sha256
            if size_bytes is not None:
                sub.size_bytes = size_bytes
            return sub

    def earliest_with(self, *, sha256: str | None = None, normalized_sha256: str | None = None,
                      exclude_id: int | None = None) -> Submission | None:
        """The accepted submission with this hash (or normalized hash) committed first (ties: hotkey)."""
        with self.session() as s:
            query = select(Submission).where(Submission.status == "accepted")
            if sha256 is not None:
                query = query.where(Submission.sha256 == sha256)
            if normalized_sha256 is not None:
                query = query.where(Submission.normalized_sha256 == normalized_sha256)
            if exclude_id is not None:
                query = query.where(Submission.id != exclude_id)
            return s.scalar(query.order_by(Submission.commitment_block, Submission.hotkey).limit(1))

    def latest_submissions(self, *, status: str = "accepted") -> list[Submission]:
        """Each hotkey's latest submission (by commitment block) that has `status`."""
        with self.session() as s:
            latest = (select(Submission.hotkey, func.max(Submission.commitment_block).label("block"))
                      .where(Submission.status == status).group_by(Submission.hotkey).subquery())
            query = (select(Submission).join(latest, (Submission.hotkey == latest.c.hotkey)
                                             & (Submission.commitment_block == latest.c.block))
                     .where(Submission.status == status).order_by(Submission.hotkey, Submission.id))
            out: dict[str, Submission] = {}
            for sub in s.scalars(query):
                out[sub.hotkey] = sub  # same block twice: the later row wins
            return list(out.values())

    def all_submissions(self) -> list[Submission]:
        with self.session() as s:
            return list(s.scalars(select(Submission).order_by(Submission.commitment_block, Submission.id)))

    def submission(self, submission_id: int) -> Submission | None:
        with self.session() as s:
            return s.get(Submission, submission_id)

    # --- packs and problems -----------------------------------------------------------------------------------------

    def add_pack(self, *, pack_id: str, name: str, digest: str, problems: Sequence[dict[str, Any]],
                 signer: str | None = None, catalog_digest: str | None = None,
                 rotation: dict[str, Any] | None = None, activate: bool = True) -> bool:
        """Store a pack and its problems once (idempotent by `pack_id`); optionally make it the only active one.
        Returns whether it was new."""
        with self.session() as s:
            existing = s.get(Pack, pack_id)
            if existing is not None and existing.digest != digest:
                raise StoreError("conflict", f"pack {pack_id} is already stored with digest {existing.digest[:12]}, "
                                             f"not {digest[:12]}")
            if existing is None:
                s.add(Pack(pack_id=pack_id, name=name, digest=digest, signer=signer, catalog_digest=catalog_digest,
                           rotation=rotation or {}, active=False))
                s.flush()
                rows = [{"problem_id": p["problem_id"], "pack_id": pack_id, "task": p["task"],
                         "split": p.get("split", "race"), "cluster_id": p.get("cluster_id") or p["problem_id"],
                         "difficulty": str(p.get("difficulty") or ""), "data": p} for p in problems]
                for start in range(0, len(rows), EVENT_BATCH):
                    s.execute(insert(ProblemRow.__table__), rows[start:start + EVENT_BATCH])
            if activate:
                s.execute(update(Pack).where(Pack.pack_id != pack_id).values(active=False))
                s.execute(update(Pack).where(Pack.pack_id == pack_id).values(active=True))
            return existing is None

    def add_problems(self, pack_id: str, problems: Sequence[dict[str, Any]]) -> int:
        """Store problems of a stored pack that were not in it when it was stored (a sealed batch, once opened);
        idempotent by problem id. Returns how many were new."""
        with self.session() as s:
            if s.get(Pack, pack_id) is None:
                raise StoreError("not_found", f"no pack {pack_id} in the store")
            stored = {row.problem_id: row for row in s.scalars(select(ProblemRow).where(
                ProblemRow.problem_id.in_([p["problem_id"] for p in problems])))}
            for p in problems:
                row = stored.get(p["problem_id"])
                if row is not None and (row.pack_id != pack_id or row.data != p):
                    raise StoreError("conflict", f"problem {p['problem_id']} is already stored with other content "
                                                 f"(pack {row.pack_id}); a pack gives its problems ids of their own")
            known = set(stored)
            rows = [{"problem_id": p["problem_id"], "pack_id": pack_id, "task": p["task"],
                     "split": p.get("split", "race"), "cluster_id": p.get("cluster_id") or p["problem_id"],
                     "difficulty": str(p.get("difficulty") or ""), "data": p}
                    for p in problems if p["problem_id"] not in known]
            if rows:
                s.execute(insert(ProblemRow.__table__), rows)
            return len(rows)

    def problem(self, problem_id: str) -> ProblemRow | None:
        with self.session() as s:
            return s.get(ProblemRow, problem_id)

    def active_pack(self) -> Pack | None:
        with self.session() as s:
            return s.scalar(select(Pack).where(Pack.active.is_(True)))

    def problems(self, pack_id: str, *, split: str | None = None) -> list[ProblemRow]:
        with self.session() as s:
            query = select(ProblemRow).where(ProblemRow.pack_id == pack_id).order_by(ProblemRow.problem_id)
            if split is not None:
                query = query.where(ProblemRow.split == split)
            return list(s.scalars(query))

    # --- races and runs ---------------------------------------------------------------------------------------------

    def create_race(self, *, race_id: str, pack_id: str, seed_block: int, seed_hash: str,
                    problem_ids: Sequence[str], kind: str = "race") -> tuple[Race, bool]:
        """The race, created if new (idempotent by `race_id`); returns (race, created). `kind`: "race" (a race of
        the rotation) or "qualifying" (`validator.qualifying`)."""
        with self.session() as s:
            race = s.get(Race, race_id)
            if race is not None:
                return race, False
            race = Race(race_id=race_id, pack_id=pack_id, seed_block=seed_block, seed_hash=seed_hash,
                        problem_ids=list(problem_ids), status="open", kind=kind)
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

    def set_race_status(self, race_id: str, status: str, *, reason: str | None = None) -> None:
        if status not in {"open", "running", "closed", "cancelled"}:
            raise StoreError("bad_input", f"unknown race status {status!r}")
        with self.session() as s:
            race = s.get(Race, race_id)
            if race is None:
                raise StoreError("not_found", f"no race {race_id}")
            race.status = status
            if reason is not None:
                race.reason = reason
            if status in {"closed", "cancelled"}:
                race.closed_at = utcnow()

    def create_runs(self, race_id: str, pairs: Iterable[tuple[Submission, str]]) -> int:
        """One pending run per (submission, problem id), skipping those that exist. Returns how many were made."""
        with self.session() as s:
            have = set(s.execute(select(Run.submission_id, Run.problem_id).where(Run.race_id == race_id)).all())
            rows = [{"run_id": uuid.uuid4().hex, "race_id": race_id, "submission_id": sub.id, "problem_id": pid,
                     "hotkey": sub.hotkey, "status": "pending", "created_at": utcnow()}
                    for sub, pid in pairs if (sub.id, pid) not in have]
            for start in range(0, len(rows), EVENT_BATCH):
                s.execute(insert(Run.__table__), rows[start:start + EVENT_BATCH])
            return len(rows)

    def run(self, run_id: str) -> Run | None:
        with self.session() as s:
            return s.get(Run, run_id)

    def runs(self, *, race_id: str | None = None, status: str | Sequence[str] | None = None,
             hotkey: str | None = None, ready_at: datetime | None = None, limit: int | None = None) -> list[Run]:
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

    @staticmethod
    def _not_final(max_attempts: int) -> Any:
        """The SQL condition of a run that is not final yet: neither finished nor errored for good (the agent's
        error, or the validator's on its last attempt); `Arena.final` in SQL."""
        errored_for_good = (Run.status == "errored") & ((func.coalesce(Run.blame, "") == "agent")
                                                        | (Run.attempt >= max_attempts))
        return ~((Run.status == "finished") | errored_for_good)

    def unfinal_runs(self, race_id: str, *, max_attempts: int) -> int:
        """How many of the race's runs are not final: a count on the (race, status) index while any run is not yet
        finished or errored (most of a race), the errored ones checked only after that. No run is read."""
        with self.session() as s:
            moving = s.scalar(select(func.count()).select_from(Run).where(
                Run.race_id == race_id, Run.status.not_in(("finished", "errored"))))
            if moving:
                return int(moving)
            return int(s.scalar(select(func.count()).select_from(Run).where(
                Run.race_id == race_id, Run.status == "errored", self._not_final(max_attempts))) or 0)

    def race_progress(self, race_id: str, *, max_attempts: int) -> tuple[int, datetime | None]:
        """How many of the race's runs are not final, and when any of its runs last moved: one aggregate query,
        no run read (closing and the health check ask this every few seconds of a race)."""
        moved = [func.max(c) for c in (Run.starting_at, Run.running_at, Run.scoring_at, Run.judged_at,
                                       Run.finished_at, Run.errored_at)]
        with self.session() as s:
            row = s.execute(select(func.count().filter(self._not_final(max_attempts)), *moved)
                            .where(Run.race_id == race_id)).one()
        times = [t for t in row[1:] if t is not None]  # UTC-aware: max() keeps the column's type
        return int(row[0] or 0), max(times) if times else None

    def race_rows(self, race_id: str) -> list[dict[str, Any]]:
        """The race's runs with their final score, as `race_scores` takes them (hotkey, submission_id, problem_id,
        status, blame, attempt, final, success): one query over runs and scores, when the race closes."""
        query = (select(Run.hotkey, Run.submission_id, Run.problem_id, Run.status, Run.blame, Run.attempt,
                        Score.final, Score.success)
                 .outerjoin(Score, Score.run_id == Run.run_id).where(Run.race_id == race_id)
                 .order_by(Run.created_at, Run.run_id))
        with self.session() as s:
            rows = s.execute(query).all()
        return [{"hotkey": r.hotkey, "submission_id": r.submission_id, "problem_id": r.problem_id,
                 "status": r.status, "blame": r.blame, "attempt": r.attempt,
                 "final": (r.final or 0.0) if r.status == "finished" else 0.0,
                 "success": bool(r.status == "finished" and r.success)} for r in rows]

    def _move(self, s: Session, run_id: str, status: str, fields: dict[str, Any]) -> Run:
        """A move of the ORM run in session `s` (`validator.store.moves.changes`: the status machine)."""
        check_status(status)
        run = s.get(Run, run_id, with_for_update=self.dialect == "postgresql")
        if run is None:
            raise StoreError("not_found", f"no run {run_id}")
        row = {"status": run.status, "blame": run.blame, "error_code": run.error_code, "attempt": run.attempt}
        for key, value in changes(run_id, row, status, fields).items():
            setattr(run, key, value)
        return run

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

    def add_events(self, events: Sequence[TrajectoryEvent | dict[str, Any]], *, run_id: str | None = None,
                   session: Session | None = None) -> int:
        """Append events in batches of `EVENT_BATCH` rows per INSERT; returns how many were written."""
        if session is None:
            with self.session() as s:
                return self.add_events(events, run_id=run_id, session=s)
        rows = [_event_row(e, run_id) for e in events]
        for start in range(0, len(rows), EVENT_BATCH):
            if self.dialect == "postgresql":
                _copy_events(session, rows[start:start + EVENT_BATCH])
            else:
                session.connection().execute(INSERT_EVENTS, rows[start:start + EVENT_BATCH])
        return len(rows)

    def record_run(self, run_id: str, status: str, events: Sequence[TrajectoryEvent | dict[str, Any]],
                   strict: tuple[float, dict[str, Any]] | None = None, judgment: dict[str, Any] | None = None,
                   **fields: Any) -> Run:
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
            return [TrajectoryEvent(run_id=e.run_id, seq=e.seq, kind=e.kind, name=e.name,  # type: ignore[arg-type]
                                    arguments=e.arguments, result=e.result, started_at=e.started_at,
                                    duration_ms=e.duration_ms, tokens=e.tokens or {}, cost=e.cost, error=e.error,
                                    status=e.status) for e in rows]

    # --- scores and results -----------------------------------------------------------------------------------------

    def save_score(self, run_id: str, *, success: float, strict: dict[str, Any], final: float | None = None,
                   judge_quality: float | None = None, judge_coefficient: float | None = None,
                   judge: dict[str, Any] | None = None, judge_evidence: list[int] | None = None,
                   status: str | None = None) -> Score:
        """Store (or replace) a run's verdicts; with `status`, move the run in the same transaction."""
        with self.session() as s:
            score = self._put_score(s, run_id, success=success, strict=strict, final=final,
                                    judge_quality=judge_quality, judge_coefficient=judge_coefficient, judge=judge,
                                    judge_evidence=judge_evidence)
            if status is not None:
                self._move(s, run_id, status, {})
            return score

    @staticmethod
    def _put_score(s: Session, run_id: str, *, success: float, strict: dict[str, Any], final: float | None = None,
                   judge_quality: float | None = None, judge_coefficient: float | None = None,
                   judge: dict[str, Any] | None = None, judge_evidence: list[int] | None = None) -> Score:
        score = s.get(Score, run_id)
        if score is None:
            score = Score(run_id=run_id, success=success, strict=strict)
            s.add(score)
        score.success, score.strict, score.final = success, strict, final
        score.ruleset, score.ruleset_version = strict.get("ruleset"), strict.get("ruleset_version")
        score.judge_quality, score.judge_coefficient = judge_quality, judge_coefficient
        score.judge, score.judge_evidence = judge, judge_evidence
        if judge is not None:
            score.judged_at = utcnow()
        return score

    def save_judgment(self, run_id: str, *, verdict: dict[str, Any], quality: float, coefficient: float,
                      final: float, evidence: list[int]) -> Score:
        """The judge's verdict and the final score, and the run's move scoring -> judged -> finished: one commit."""
        with self.session() as s:
            score = s.get(Score, run_id)
            if score is None:
                raise StoreError("not_found", f"run {run_id} has no strict score to judge")
            self._put_judgment(s, run_id, score, verdict=verdict, quality=quality, coefficient=coefficient,
                               final=final, evidence=evidence)
            return score

    def _put_judgment(self, s: Session, run_id: str, score: Score, *, verdict: dict[str, Any], quality: float,
                      coefficient: float, final: float, evidence: list[int]) -> Run:
        score.judge, score.judge_evidence, score.judged_at = verdict, evidence, utcnow()
        score.judge_quality, score.judge_coefficient, score.final = quality, coefficient, final
        self._move(s, run_id, "judged", {})
        return self._move(s, run_id, "finished", {"error": None})

    def defer_judging(self, run_id: str, *, delay: timedelta, error: str) -> Run:
        """The judge could not judge the run: it stays `scoring` and is judged again after `delay`."""
        with self.session() as s:
            run = s.get(Run, run_id)
            if run is None:
                raise StoreError("not_found", f"no run {run_id}")
            if run.status != "scoring":
                raise StoreError("bad_transition", f"run {run_id} is {run.status}, not waiting for its judge")
            run.not_before, run.error = utcnow() + delay, f"judge unavailable: {error}"
            return run

    def score(self, run_id: str) -> Score | None:
        with self.session() as s:
            return s.get(Score, run_id)

    def revise_score(self, run_id: str, *, success: float, strict: dict[str, Any], final: float | None,
                     judge_coefficient: float | None, reason: str) -> ScoreRevision:
        """Replace a run's strict verdict (and its final score) and keep the verdict it replaces as a revision, in
        one transaction. The judge's verdict and quality stay: they judge the trajectory, not the rules."""
        with self.session() as s:
            score = s.get(Score, run_id)
            if score is None:
                raise StoreError("not_found", f"run {run_id} has no score to revise")
            old = ScoreRevision(
                run_id=run_id, ruleset=score.ruleset, ruleset_version=score.ruleset_version,
                rubric_version=(score.judge or {}).get("rubric_version"), success=score.success, final=score.final,
                strict=score.strict, judge_quality=score.judge_quality, judge_coefficient=score.judge_coefficient,
                scored_at=score.scored_at, judged_at=score.judged_at, reason=reason)
            s.add(old)
            score.success, score.strict, score.final = success, strict, final
            score.ruleset, score.ruleset_version = strict.get("ruleset"), strict.get("ruleset_version")
            score.judge_coefficient = judge_coefficient
            score.scored_at = utcnow()
            return old

    def score_revisions(self, run_id: str) -> list[ScoreRevision]:
        """The verdicts a rescore replaced, oldest first."""
        with self.session() as s:
            return list(s.scalars(select(ScoreRevision).where(ScoreRevision.run_id == run_id)
                                  .order_by(ScoreRevision.id)))

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

    # --- weights ----------------------------------------------------------------------------------------------------

    def add_weight_set(self, *, policy: str, vector: dict[int, float], race_id: str | None = None,
                       shadow_policy: str | None = None, shadow_vector: dict[int, float] | None = None) -> WeightSet:
        """A pending weight set; with a shadow policy, its vector is stored beside the live one (never sent)."""
        with self.session() as s:
            ws = WeightSet(race_id=race_id, policy=policy, vector={str(k): v for k, v in sorted(vector.items())},
                           status="pending", shadow_policy=shadow_policy,
                           shadow_vector=None if shadow_vector is None else
                           {str(k): v for k, v in sorted(shadow_vector.items())})
            s.add(ws)
            s.flush()
            return ws

    def update_weight_set(self, weight_set_id: int, *, status: str, outcome: dict[str, Any],
                          block: int | None = None) -> WeightSet:
        if status not in {"pending", "set", "failed", "rate_limited"}:
            raise StoreError("bad_input", f"unknown weight-set status {status!r}")
        with self.session() as s:
            ws = s.get(WeightSet, weight_set_id)
            if ws is None:
                raise StoreError("not_found", f"no weight set {weight_set_id}")
            ws.status, ws.outcome, ws.attempts, ws.updated_at = status, outcome, ws.attempts + 1, utcnow()
            if block is not None:
                ws.block = block
            return ws

    def weight_sets(self, *, status: str | None = None) -> list[WeightSet]:
        with self.session() as s:
            query = select(WeightSet).order_by(WeightSet.id)
            if status is not None:
                query = query.where(WeightSet.status == status)
            return list(s.scalars(query))

    # --- corpus export reads (validator.corpus) ----------------------------------------------------------------------
    # Read-only. The export walks the selected final runs once, in run_id order, with a server-side cursor on
    # Postgres (yield_per) and one event query per batch of runs, so its memory does not grow with the store.

    def _export_selected(self, query: Any, *, since: datetime | None, until: datetime | None,
                         tasks: Sequence[str] = ()) -> Any:
        ended = func.coalesce(Run.finished_at, Run.errored_at)
        query = query.where(Run.status.in_(("finished", "errored")))
        # never a race still open: its problems are not public until it closes (qualifying rounds are not exported)
        query = query.where(Run.race_id.in_(select(Race.race_id).where(Race.status == "closed", Race.kind == "race")))
        if since is not None:
            query = query.where(ended >= since)
        if until is not None:
            query = query.where(ended < until)
        if tasks:
            query = query.where(ProblemRow.task.in_(list(tasks)))
        return query

    def export_counts(self, *, since: datetime | None = None, until: datetime | None = None,
                      tasks: Sequence[str] = ()) -> dict[str, Any]:
        """How many runs the store holds, how many are final, how many the window and tasks select, and when the
        final runs ended (first, last)."""
        ended = func.coalesce(Run.finished_at, Run.errored_at)
        with self.session() as s:
            total = int(s.scalar(select(func.count()).select_from(Run)) or 0)
            final_q = select(func.count(), func.min(ended), func.max(ended)).where(
                Run.status.in_(("finished", "errored")))
            final, first, last = s.execute(final_q).one()
            selected_q = self._export_selected(
                select(func.count()).select_from(Run).join(ProblemRow, ProblemRow.problem_id == Run.problem_id),
                since=since, until=until, tasks=tasks)
            selected = int(s.scalar(selected_q) or 0)
        return {"runs": total, "final": int(final or 0), "selected": selected, "first_ended": first,
                "last_ended": last}

    def export_runs(self, *, since: datetime | None = None, until: datetime | None = None,
                    tasks: Sequence[str] = (), after: str | None = None,
                    batch: int = 500) -> Iterator[tuple[list[Any], dict[str, list[tuple[Any, ...]]]]]:
        """The selected final runs after run id `after`, in run_id order, `batch` at a time, each batch with its
        events: run_id -> [(seq, kind, name, arguments JSON text, result JSON text, error, status)] in seq order.

        A run row has run_id, race_id, hotkey, problem_id, status, error_code, ended_at, sha256 (the agent's
        bundle), success, final, judge_quality, judge_gate and answer_products (the strict score's per-slot
        `answer_id`/`known`). One connection reads everything (REPEATABLE READ on Postgres: one snapshot)."""
        from sqlalchemy import Text, case, cast

        ended = func.coalesce(Run.finished_at, Run.errored_at).label("ended_at")
        query = (select(Run.run_id, Run.race_id, Run.hotkey, Run.problem_id, Run.status, Run.error_code, ended,
                        Submission.sha256, Score.success, Score.final, Score.judge_quality,
                        Score.judge["gate"].as_string().label("judge_gate"),
                        Score.strict["products"].label("answer_products"))
                 .join(ProblemRow, ProblemRow.problem_id == Run.problem_id)
                 .join(Submission, Submission.id == Run.submission_id)
                 .outerjoin(Score, Score.run_id == Run.run_id))
        query = self._export_selected(query, since=since, until=until, tasks=tasks)
        if after is not None:
            query = query.where(Run.run_id > after)
        query = query.order_by(Run.run_id)
        # an LLM call's arguments are the whole chat request (the conversation so far): not needed, not read
        arguments = case((Event.kind == "llm_call", None), else_=cast(Event.arguments, Text))
        events_q = select(Event.run_id, Event.seq, Event.kind, Event.name, arguments, cast(Event.result, Text),
                          Event.error, Event.status)
        with self.engine.connect() as conn:
            if self.dialect == "postgresql":
                conn = conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():
                result = conn.execution_options(yield_per=batch).execute(query)
                for part in result.partitions(batch):
                    runs = list(part)
                    events: dict[str, list[tuple[Any, ...]]] = {r.run_id: [] for r in runs}
                    rows = conn.execute(events_q.where(Event.run_id.in_(list(events)))
                                        .order_by(Event.run_id, Event.seq))
                    for row in rows:
                        events[row[0]].append(tuple(row[1:]))
                    yield runs, events

    def export_problems(self, problem_ids: Iterable[str]) -> list[ProblemRow]:
        """The problems with these ids (ground truth included: the export needs the answers to guard the split)."""
        ids = sorted(set(problem_ids))
        out: list[ProblemRow] = []
        with self.session() as s:
            for start in range(0, len(ids), EVENT_BATCH):
                out += s.scalars(select(ProblemRow).where(ProblemRow.problem_id.in_(ids[start:start + EVENT_BATCH])))
        return sorted(out, key=lambda p: p.problem_id)

    def held_out_answers(self) -> set[str]:
        """The gold product ids of every stored problem in the `held_out` split (any pack)."""
        answers: set[str] = set()
        with self.session() as s:
            for data in s.scalars(select(ProblemRow.data).where(ProblemRow.split == "held_out")
                                  .execution_options(yield_per=EVENT_BATCH)):
                for reward in (data or {}).get("reward") or []:
                    if isinstance(reward, dict) and reward.get("product_id") is not None:
                        answers.add(str(reward["product_id"]))
        return answers


__all__ = ["Store", "StoreError", "make_engine", "wait_for", "blame_of", "RUN_STATUSES", "FINAL_STATUSES",
           "EVENT_BATCH"]
