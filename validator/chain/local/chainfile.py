"""The LocalChain file: its SQLite schema, its format and version, and its atomic creation with the chain's genesis
settings. Using a file once it exists is the `Ledger`'s."""

from __future__ import annotations

import os
import secrets
import sqlite3
import tempfile
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from validator.chain.port import ChainError

FORMAT = "shoparena-localchain"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE chain (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    format TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    netuid INTEGER NOT NULL,
    block_time REAL NOT NULL,
    weights_rate_limit INTEGER NOT NULL,
    max_neurons INTEGER NOT NULL,
    genesis_time REAL NOT NULL,
    genesis_id TEXT NOT NULL
);
CREATE TABLE neurons (
    uid INTEGER PRIMARY KEY,
    hotkey TEXT NOT NULL UNIQUE,
    coldkey TEXT NOT NULL,
    stake REAL NOT NULL DEFAULT 0,
    validator_permit INTEGER NOT NULL DEFAULT 0,
    axon_ip TEXT,
    axon_port INTEGER,
    axon_protocol INTEGER,
    last_update INTEGER,            -- NULL: never set weights
    block_at_registration INTEGER NOT NULL
);
CREATE TABLE commitments (
    hotkey TEXT PRIMARY KEY REFERENCES neurons (hotkey),
    value TEXT NOT NULL,
    block INTEGER NOT NULL
);
CREATE TABLE extrinsics (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    block INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    call TEXT NOT NULL,
    signer TEXT,
    args TEXT NOT NULL,
    signature TEXT,
    at REAL NOT NULL,
    UNIQUE (block, idx)
);
CREATE TABLE weights (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    uid INTEGER NOT NULL REFERENCES neurons (uid),
    hotkey TEXT NOT NULL,
    block INTEGER NOT NULL,
    uids TEXT NOT NULL,
    weights TEXT NOT NULL,
    version_key INTEGER NOT NULL,
    extrinsic_id TEXT NOT NULL
);
CREATE INDEX weights_by_uid ON weights (uid, id);
"""


def init_hint(path: Path, extra: str = "") -> str:
    return f"`arena-validator localchain init --localchain.path {path}{extra}`"


def is_localchain(path: Path) -> bool:
    """Whether `path` is a LocalChain file of any version (read-only: the file is not touched)."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        row = conn.execute("SELECT format FROM chain WHERE id = 1").fetchone()
    except sqlite3.Error:
        return False
    finally:
        conn.close()
    return row is not None and row[0] == FORMAT


@dataclass(frozen=True)
class Genesis:
    """A chain's settings, fixed when the file is created."""

    netuid: int
    block_time: float
    weights_rate_limit: int
    max_neurons: int
    genesis_time: float
    genesis_id: str  # 32 random bytes, hex


def create_file(target: Path, genesis: Genesis, *, overwrite: bool) -> None:
    """Write a new chain file at `target` holding `genesis`, atomically: a complete file appears, or nothing. Never
    replaces a file that is not a LocalChain, nor a chain unless `overwrite`."""
    if target.is_dir():
        raise ChainError(
            "bad_input",
            f"cannot create a LocalChain at {target}: it is a directory; pass a file "
            "path such as var/localchain.sqlite",
        )
    exists = ChainError(
        "exists",
        f"a LocalChain already exists at {target}; use it as it is, or start a new "
        f"chain with {init_hint(target, ' --overwrite')}",
    )
    if target.exists() and not overwrite:
        raise exists
    if target.exists() and not is_localchain(target):
        raise ChainError(
            "not_a_chain",
            f"{target} exists and is not a LocalChain; refusing to overwrite it: "
            "choose another --localchain.path, or move the file away yourself",
        )
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise ChainError("bad_input", f"cannot create a LocalChain at {target}: {error}") from error
    os.close(fd)
    tmp = Path(tmp_name)
    os.chmod(tmp, 0o644)  # readable like an ordinary new file, not mkstemp's 0600
    try:
        _write_genesis(tmp, genesis)
        if overwrite:
            # A stale write-ahead log next to the new file would be replayed into it: remove the old chain's.
            for suffix in ("-wal", "-shm"):
                with suppress(FileNotFoundError):
                    os.unlink(f"{target}{suffix}")
            os.replace(tmp, target)
        else:
            try:
                os.link(tmp, target)  # atomic create-if-absent: never replaces a chain made meanwhile
            except FileExistsError:
                raise exists from None
            except OSError:  # no hard links on this filesystem
                if target.exists():
                    raise exists from None
                os.replace(tmp, target)
    except sqlite3.Error as error:
        raise ChainError("chain_error", f"cannot create a LocalChain at {target}: {error}") from error
    except OSError as error:
        raise ChainError("bad_input", f"cannot create a LocalChain at {target}: {error}") from error
    finally:
        with suppress(FileNotFoundError):
            tmp.unlink()


def _write_genesis(path: Path, genesis: Genesis) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("BEGIN IMMEDIATE")
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(
            "INSERT INTO chain (id, format, schema_version, netuid, block_time, weights_rate_limit, "
            "max_neurons, genesis_time, genesis_id) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                FORMAT,
                SCHEMA_VERSION,
                genesis.netuid,
                genesis.block_time,
                genesis.weights_rate_limit,
                genesis.max_neurons,
                genesis.genesis_time,
                genesis.genesis_id,
            ),
        )
        conn.execute("COMMIT")
    finally:
        conn.close()  # the last connection: checkpoints and removes the temp file's -wal/-shm


def new_genesis_id() -> str:
    return secrets.token_hex(32)
