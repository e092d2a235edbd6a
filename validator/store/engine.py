"""Connecting to the store's database: the engine for a URL (PostgreSQL or SQLite, with the same code), waiting for
the server to answer, the JSON columns' serializer, and how many rows one bulk statement takes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, OperationalError

from validator.store.errors import StoreError

#: Events per INSERT statement; large enough to amortize round trips, small enough to bound memory.
EVENT_BATCH = 1000


def make_engine(url: str, *, create: bool = True, own_dir: Path | None = None, **kwargs: Any) -> Engine:
    """An engine for `url`; SQLite gets foreign keys, WAL and a busy timeout so several processes can share it.

    With `create=False` (read-only commands) a SQLite file that does not exist is a `StoreError` (`no_store`), so a
    mistyped path never leaves a new database or folder behind. With `create=True` a SQLite file's folder must exist,
    or lie inside `own_dir` (the node's data folder), the only place where missing folders are made (`no_folder`)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(
            "bad_url",
            f"{url!r} is not a database URL; use postgresql+psycopg://user:pass@host/db or sqlite:///path/file.sqlite",
        ) from None
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:":
            if not create and not Path(database).expanduser().is_file():
                raise StoreError(
                    "no_store",
                    f"no store at {database}: the file does not exist (check --database-url "
                    "or --data-dir; `arena-validator db upgrade` creates a store)",
                )
            _store_folder(Path(database).expanduser(), own_dir)
        engine = create_engine(url, connect_args={"timeout": 30}, json_serializer=dumps, **kwargs)

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
    return create_engine(
        parsed, pool_pre_ping=True, connect_args={"connect_timeout": 5}, json_serializer=dumps, **kwargs
    )


def _store_folder(database: Path, own_dir: Path | None) -> None:
    """Make a new SQLite store's folder only inside the node's own data folder; elsewhere it must exist already."""
    folder = database.parent
    if folder.is_dir():
        return
    if folder.exists():
        raise StoreError("no_folder", f"cannot create the store {database}: {folder} is not a folder")
    if own_dir is not None and folder.resolve().is_relative_to(own_dir.expanduser().resolve()):
        folder.mkdir(parents=True, exist_ok=True)
        return
    raise StoreError(
        "no_folder",
        f"cannot create the store {database}: the folder {folder} does not exist (check --database-url; "
        f"create the folder first if the path is right)",
    )


def wait_for(
    engine: Engine, *, attempts: int = 1, backoff: float = 1.0, max_backoff: float = 30.0, log: Any = None
) -> None:
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
                raise StoreError(
                    "unreachable",
                    f"cannot reach the database at {where}: {reason}; check "
                    "--database-url (or ARENA_DATABASE_URL) and that the server is "
                    "running",
                ) from None
            if log is not None:
                log.warning("store.unreachable", target=where, attempt=attempt, retry_in=delay, error=reason)
            time.sleep(delay)
            delay = min(delay * 2, max_backoff)
        except DatabaseError as error:  # SQLite: a file that is no database (never worth a retry)
            reason = str(error.orig or error).strip().splitlines()[0]
            raise StoreError(
                "not_a_database",
                f"{engine.url.database or where} is not a usable store ({reason}): check --database-url "
                "or --data-dir; a new path gets a new store from `arena-validator db upgrade`",
            ) from None


def dumps(value: Any) -> str:
    """JSON text for the store's JSON columns (orjson: several times faster than the stdlib on trajectory bodies)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
