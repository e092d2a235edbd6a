"""A real PostgreSQL server for the tests: the one `scripts/postgres` starts (a private throwaway cluster), and a
fresh database per test created in it."""

from __future__ import annotations

import os
import re
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[2]


def server_url() -> str:
    """`ARENA_TEST_DATABASE_URL`, else the URL of the cluster `scripts/postgres start` starts (or finds running)."""
    url = os.environ.get("ARENA_TEST_DATABASE_URL")
    if url:
        return url
    done = subprocess.run(["bash", str(ROOT / "scripts" / "postgres"), "start"], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"cannot start the test PostgreSQL server: {done.stderr.strip()}")
    match = re.search(r"ARENA_TEST_DATABASE_URL=(\S+)", done.stdout)
    if not match:
        raise RuntimeError(f"scripts/postgres printed no URL: {done.stdout!r}")
    os.environ["ARENA_TEST_DATABASE_URL"] = match.group(1)
    return match.group(1)


@contextmanager
def fresh_database(prefix: str = "arena_test", *, keep: bool = False) -> Iterator[str]:
    """A new empty database on the test server (`server_url()`); dropped with its connections afterwards unless
    `keep`. Yields its URL. The tests and the benchmarks share it."""
    base = make_url(server_url())
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        yield base.set(database=name).render_as_string(hide_password=False)
    finally:
        if not keep:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
