"""The export's scratch folder: the survivors of steps 1-7, the counts and the checkpoint, in a SQLite file."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from arena import owner
from validator.corpus.options import CorpusError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS funnel (step TEXT NOT NULL, reason TEXT NOT NULL, n INTEGER NOT NULL,
                                   PRIMARY KEY (step, reason));
CREATE TABLE IF NOT EXISTS examples (step TEXT NOT NULL, reason TEXT NOT NULL, run_id TEXT NOT NULL,
                                     PRIMARY KEY (step, reason, run_id));
CREATE TABLE IF NOT EXISTS rows (
    chat_hash TEXT PRIMARY KEY, run_id TEXT NOT NULL, problem_id TEXT NOT NULL, hotkey TEXT NOT NULL,
    race_id TEXT NOT NULL, agent_sha256 TEXT NOT NULL, axis TEXT NOT NULL, quality REAL NOT NULL,
    gate TEXT, final REAL NOT NULL, tokens INTEGER NOT NULL, messages INTEGER NOT NULL, tools TEXT NOT NULL,
    code_calls INTEGER NOT NULL, recommended TEXT NOT NULL, order_key TEXT NOT NULL, chat BLOB NOT NULL,
    drop_step TEXT, drop_reason TEXT, side TEXT, cluster TEXT);
CREATE INDEX IF NOT EXISTS rows_problem ON rows (problem_id);
"""


class Workspace:
    """The export's scratch folder next to `out`: `work.sqlite` (survivors of steps 1-7, counts, checkpoint) and
    `out/` (the files being written). Locked while an export uses it."""

    def __init__(self, out: Path, digest: str) -> None:
        self.out = out
        self.path = out.parent / f".{out.name}.partial"
        self.digest = digest
        self.files = self.path / "out"
        self._lock_fh: Any = None
        self.db: sqlite3.Connection | None = None
        self.resumed = False

    def open(self) -> Workspace:
        self.path.mkdir(parents=True, exist_ok=True)
        try:
            self._lock_fh = owner.claim(self.path / "lock")  # held for the export's whole life
        except FileNotFoundError:  # the janitor took a stale workspace away between the two (`corpus_workspaces`)
            raise CorpusError(
                f"the workspace {self.path} was removed as {self.out}'s export opened it (the janitor cleared it as "
                "stale); run the export again"
            ) from None
        if self._lock_fh is None:
            raise CorpusError(
                f"another export is writing {self.out} (its workspace {self.path} is locked); wait "
                "for it or choose another --out"
            )
        os.utime(self.path / "lock")  # in use again: the janitor's `corpus_days` count from now
        db_path = self.path / "work.sqlite"
        if db_path.exists():
            db = sqlite3.connect(db_path)
            row = None
            try:
                row = db.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()
            except sqlite3.DatabaseError:
                pass
            if row is not None and row[0] == self.digest:
                self.db, self.resumed = db, True
            else:  # another export's leftovers (other options or store): start afresh
                db.close()
                for child in self.path.iterdir():
                    if child.name != "lock":
                        shutil.rmtree(child) if child.is_dir() else child.unlink()
        if self.db is None:
            self.db = sqlite3.connect(db_path)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)
        with self.db:
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('digest', ?)", (self.digest,))
        return self

    def get(self, key: str) -> str | None:
        assert self.db is not None
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set(self, key: str, value: str) -> None:
        assert self.db is not None
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None
        if self._lock_fh is not None:
            self._lock_fh.close()
            self._lock_fh = None

    def finish(self) -> None:
        """Move the written files into place (one rename) and remove the workspace."""
        self.close()
        if self.out.exists():
            raise CorpusError(f"{self.out} appeared while exporting; the export is kept in {self.files}")
        os.replace(self.files, self.out)
        shutil.rmtree(self.path, ignore_errors=True)
