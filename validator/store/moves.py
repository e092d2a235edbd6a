"""A run's status machine (its blame: `arena.blame`), and its moves and scores written as plain statements.

`changes` is the machine itself: the column values of one move from a run's current row, or a `StoreError` for an
illegal one; `move` (the ORM run in a session) and `advance` both apply it. `advance` and `put_score` are the hot
path of a race (`Store.claim`, `Store.record_run`): one SELECT and one UPDATE of the run per commit, one upsert of
its score, with no ORM object loaded or flushed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from validator.store.errors import StoreError
from validator.store.models import Event, Run, Score, utcnow

#: Run statuses in order, and the moves allowed between them.
RUN_STATUSES = ("pending", "starting", "running", "scoring", "judged", "finished", "errored")
FINAL_STATUSES = frozenset({"finished", "errored"})
NEXT = {
    "pending": {"starting", "errored"},
    "starting": {"running", "errored", "pending"},
    "running": {"scoring", "errored", "pending"},
    "scoring": {"judged", "finished", "errored"},
    "judged": {"finished", "errored"},
    "finished": set(),
    "errored": {"pending"},  # a validator-blamed error is retried
}
PHASE_COLUMN = {
    "starting": "starting_at",
    "running": "running_at",
    "scoring": "scoring_at",
    "judged": "judged_at",
    "finished": "finished_at",
    "errored": "errored_at",
}

_RUNS = Run.__table__
_SCORES = Score.__table__
_EVENTS = Event.__table__
# statements built once (building one costs more than running it): the run's row, locked on PostgreSQL; its update
# (the columns are the parameters' keys); the score's upsert per dialect, with and without `judged_at`
_RUN = select(_RUNS).where(_RUNS.c.run_id == bindparam("the_run"))
_RUN_LOCKED = _RUN.with_for_update()
_UPDATE_RUN = update(_RUNS).where(_RUNS.c.run_id == bindparam("the_run"))
_SCORE_COLUMNS = (
    "success",
    "strict",
    "final",
    "ruleset",
    "ruleset_version",
    "judge_quality",
    "judge_coefficient",
    "judge",
    "judge_evidence",
)
_UPSERTS: dict[tuple[str, bool], Any] = {}
_DELETE_EVENTS = delete(_EVENTS).where(_EVENTS.c.run_id == bindparam("the_run"))
#: the events' multi-row INSERT (SQLite; PostgreSQL takes them by COPY)
INSERT_EVENTS = insert(_EVENTS)


def check_status(status: str) -> None:
    if status not in NEXT:
        raise StoreError("bad_input", f"unknown run status {status!r}; one of {', '.join(RUN_STATUSES)}")


def changes(run_id: str, row: Mapping[str, Any], status: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The columns a move of the run (`row`: its status, blame, error_code and attempt) to `status` sets, with
    `fields` (the writable columns; `error_code` for `errored`, `not_before` for `pending`; popped from it)."""
    check_status(status)
    if status not in NEXT[row["status"]]:
        raise StoreError("bad_transition", f"run {run_id} cannot move from {row['status']} to {status}")
    if status == "pending" and row["status"] == "errored" and row["blame"] != "validator":
        raise StoreError("bad_transition", f"run {run_id} errored by the agent ({row['error_code']}); it is final")
    out: dict[str, Any] = {"status": status}
    if status in PHASE_COLUMN:
        out[PHASE_COLUMN[status]] = utcnow()
    if status == "starting":  # a new attempt starts clean; earlier attempts' errors stay in sandbox.attempts
        out.update(attempt=row["attempt"] + 1, error_code=None, blame=None, error=None)
    if status == "errored":
        from arena.blame import blame_of

        code = fields.pop("error_code", None)
        if code is None:
            raise StoreError("bad_input", f"run {run_id}: an errored run needs an error_code")
        try:
            out["error_code"], out["blame"] = int(code), blame_of(int(code))
        except (TypeError, ValueError) as exc:
            raise StoreError("bad_input", f"run {run_id}: {exc}") from None
    elif status == "pending":
        out["not_before"] = fields.pop("not_before", None)
    for key, value in fields.items():
        if not hasattr(Run, key) or key in {"run_id", "race_id", "status"}:
            raise StoreError("bad_input", f"run has no writable field {key!r}")
        out[key] = value
    return out


def move(s: Session, run_id: str, status: str, fields: dict[str, Any]) -> Run:
    """A move of the ORM run in session `s` (`changes`: the status machine); the run read FOR UPDATE on PostgreSQL."""
    check_status(status)
    run = s.get(Run, run_id, with_for_update=s.get_bind().dialect.name == "postgresql")
    if run is None:
        raise StoreError("not_found", f"no run {run_id}")
    row = {"status": run.status, "blame": run.blame, "error_code": run.error_code, "attempt": run.attempt}
    for key, value in changes(run_id, row, status, fields).items():
        setattr(run, key, value)
    return run


def advance(conn: Connection, run_id: str, moves: Sequence[tuple[str, dict[str, Any]]]) -> Run:
    """The run's `moves` (status, fields) in turn, each checked by `changes`, written as one UPDATE; the run read
    first (FOR UPDATE on PostgreSQL). Returns the run as it now is (a transient `Run`)."""
    for status, _ in moves:
        check_status(status)
    found = (
        conn.execute(_RUN_LOCKED if conn.dialect.name == "postgresql" else _RUN, {"the_run": run_id}).mappings().first()
    )
    if found is None:
        raise StoreError("not_found", f"no run {run_id}")
    row, changed = dict(found), {}
    for status, fields in moves:
        delta = changes(run_id, row, status, dict(fields))
        row.update(delta)
        changed.update(delta)
    conn.execute(_UPDATE_RUN, {**changed, "the_run": run_id})
    return Run(**row)


def put_score(
    conn: Connection, run_id: str, *, success: float, strict: dict[str, Any], judgment: dict[str, Any] | None = None
) -> None:
    """Store (or replace) a run's strict score, with no final score; with `judgment` (`Store.save_judgment`'s
    arguments), the judge's verdict and the final score too. One upsert: the same row `Store.save_score` and
    `save_judgment` leave (a replaced score keeps its `scored_at`, and its `judged_at` unless judged now)."""
    values: dict[str, Any] = {
        "run_id": run_id,
        "scored_at": utcnow(),
        "success": success,
        "strict": strict,
        "final": None,
        "ruleset": strict.get("ruleset"),
        "ruleset_version": strict.get("ruleset_version"),
        "judge_quality": None,
        "judge_coefficient": None,
        "judge": None,
        "judge_evidence": None,
    }
    if judgment is not None:
        values.update(
            judge=judgment["verdict"],
            judge_evidence=judgment["evidence"],
            judged_at=utcnow(),
            judge_quality=judgment["quality"],
            judge_coefficient=judgment["coefficient"],
            final=judgment["final"],
        )
    conn.execute(_upsert(conn.dialect.name, judgment is not None), values)


def _upsert(dialect: str, judged: bool) -> Any:
    """The score's upsert: INSERT ... ON CONFLICT (run_id) DO UPDATE every column but `scored_at` (and
    `judged_at` unless `judged`)."""
    key = (dialect, judged)
    if key not in _UPSERTS:
        statement = (postgresql if dialect == "postgresql" else sqlite).insert(_SCORES)
        columns = _SCORE_COLUMNS + (("judged_at",) if judged else ())
        _UPSERTS[key] = statement.on_conflict_do_update(
            index_elements=[_SCORES.c.run_id], set_={c: statement.excluded[c] for c in columns}
        )
    return _UPSERTS[key]


def replace_events(conn: Connection, run_id: str) -> None:
    """Delete the events stored for the run (an earlier attempt's), before its trajectory is written."""
    conn.execute(_DELETE_EVENTS, {"the_run": run_id})
