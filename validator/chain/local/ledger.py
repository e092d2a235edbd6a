"""The LocalChain file as this process uses it: its connection and its transactions, and the rows every call shares
(the extrinsic log, neurons, weight sets); the file's schema and creation are in `chainfile`. No chain rule lives
here: `LocalChain` decides what may be written; the ledger keeps it durably and consistently across processes."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path
from typing import Any

from validator.chain.local.chainfile import FORMAT, SCHEMA_VERSION, Genesis, init_hint
from validator.chain.port import Axon, ChainError, Neuron

BUSY_TIMEOUT_SECONDS = 30.0

CALL_WEIGHTS = "SubtensorModule.set_mechanism_weights"
CALL_PERMIT = "LocalChain.set_validator_permit"

NEURON_COLUMNS = (
    "uid, hotkey, coldkey, stake, validator_permit, axon_ip, axon_port, axon_protocol, last_update, "
    "block_at_registration"
)


class Ledger:
    """The chain file at `path` (which must already exist), shared by every process that opens it: one connection
    per process (a forked child opens its own), a read (one snapshot) or write (`BEGIN IMMEDIATE`, the file's write
    lock from the first statement) transaction per call."""

    def __init__(self, path: Path, busy_timeout: float = BUSY_TIMEOUT_SECONDS) -> None:
        self.path = path
        self.busy_timeout = busy_timeout  # seconds a call waits for another process's lock before `busy`
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._conn_pid = 0
        self._forked: list[sqlite3.Connection] = []  # a parent's connections: never touched (nor closed) in a child

    def genesis(self) -> Genesis:
        """The chain's settings, checking that the file is a LocalChain this code reads."""
        if not self.path.is_file():
            raise ChainError("no_chain", f"no LocalChain at {self.path}; create it with {init_hint(self.path)}")
        with self.read("open the chain") as conn:
            try:
                row = conn.execute(
                    "SELECT format, schema_version, netuid, block_time, weights_rate_limit, max_neurons, "
                    "genesis_time, genesis_id FROM chain WHERE id = 1"
                ).fetchone()
            except sqlite3.DatabaseError:
                row = None
        if row is None or row[0] != FORMAT:
            raise ChainError(
                "bad_chain",
                f"{self.path} is not a LocalChain file; point --localchain.path at one, or "
                f"create one at another path with {init_hint(Path('NEW.sqlite'))}",
            )
        if row[1] != SCHEMA_VERSION:
            raise ChainError(
                "bad_chain",
                f"LocalChain at {self.path} has format version {row[1]}, this node reads "
                f"version {SCHEMA_VERSION}; re-create it with "
                f"{init_hint(self.path, ' --overwrite')}",
            )
        return Genesis(
            netuid=int(row[2]),
            block_time=float(row[3]),
            weights_rate_limit=int(row[4]),
            max_neurons=int(row[5]),
            genesis_time=float(row[6]),
            genesis_id=str(row[7]),
        )

    def _connection(self) -> sqlite3.Connection:
        """This process's connection, opened on first use (read-write, never creating the file)."""
        if self._conn is not None and self._conn_pid == os.getpid():
            return self._conn
        if self._conn is not None:  # inherited across fork: SQLite forbids using (or closing) it here
            self._forked.append(self._conn)
            self._conn = None
        if not self.path.is_file():
            raise ChainError("no_chain", f"no LocalChain at {self.path}; create it with {init_hint(self.path)}")
        try:
            conn = sqlite3.connect(
                f"{self.path.resolve().as_uri()}?mode=rw",
                uri=True,
                isolation_level=None,
                timeout=self.busy_timeout,
                check_same_thread=False,
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            conn.execute("PRAGMA synchronous=FULL")  # WAL mode is already persistent in the file (set by init)
            conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as error:
            raise ChainError(
                "bad_chain",
                f"cannot open {self.path} as a LocalChain ({error}); point --localchain.path "
                f"at one, or create one at another path with "
                f"{init_hint(Path('NEW.sqlite'))}",
            ) from error
        self._conn, self._conn_pid = conn, os.getpid()
        return conn

    @contextmanager
    def _transaction(self, action: str, mode: str) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._connection()
            try:
                conn.execute(f"BEGIN {mode}")
            except sqlite3.Error as error:
                raise self._db_error(action, error) from error
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException as error:
                if conn.in_transaction:
                    with suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                if isinstance(error, sqlite3.Error):
                    raise self._db_error(action, error) from error
                raise

    def read(self, action: str) -> AbstractContextManager[sqlite3.Connection]:
        """A read transaction: every query inside sees one snapshot of the file."""
        return self._transaction(action, "DEFERRED")

    def write(self, action: str) -> AbstractContextManager[sqlite3.Connection]:
        """One write transaction, holding the file's write lock from its first statement (no lost updates)."""
        return self._transaction(action, "IMMEDIATE")

    def _db_error(self, action: str, error: sqlite3.Error) -> ChainError:
        if isinstance(error, sqlite3.OperationalError) and "locked" in str(error):
            return ChainError(
                "busy",
                f"cannot {action}: the LocalChain at {self.path} stayed locked by another "
                f"process for {self.busy_timeout:g}s; try again",
            )
        return ChainError("chain_error", f"cannot {action}: LocalChain at {self.path}: {error}")

    def stalls(self) -> list[tuple[int, float]]:
        """The chain's stalls in order, (the block each follows, seconds); read inside or outside a transaction."""
        with self._lock:
            try:
                rows = (
                    self._connection()
                    .execute("SELECT after_block, SUM(seconds) FROM stalls GROUP BY after_block ORDER BY after_block")
                    .fetchall()
                )
            except sqlite3.OperationalError as error:
                if "no such table" in str(error):
                    return []
                raise self._db_error("read the chain's stalls", error) from error
        return [(int(after), float(seconds)) for after, seconds in rows]

    def close(self) -> None:
        """Close this process's connection; the next call reopens it."""
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None and self._conn_pid == os.getpid():
                with suppress(sqlite3.Error):
                    conn.close()

    # --- rows -----------------------------------------------------------------------------------------------------

    @staticmethod
    def record(
        conn: sqlite3.Connection,
        block: int,
        call: str,
        signer: str | None,
        args: dict[str, Any],
        signature: str | None = None,
    ) -> str:
        """Append one extrinsic to the log; its id, `block-index` as on a real chain."""
        (idx,) = conn.execute("SELECT COUNT(*) FROM extrinsics WHERE block = ?", (block,)).fetchone()
        conn.execute(
            "INSERT INTO extrinsics (block, idx, call, signer, args, signature, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (block, idx, call, signer, json.dumps(args, sort_keys=True), signature, time.time()),
        )
        return f"{block}-{idx}"

    @staticmethod
    def neuron(row: sqlite3.Row | tuple[Any, ...]) -> Neuron:
        uid, hotkey, coldkey, stake, permit, ip, port, protocol, last_update, registered = row
        axon = Axon(ip=ip, port=port, protocol=protocol) if ip is not None and port is not None else None
        return Neuron(
            uid=uid,
            hotkey=hotkey,
            coldkey=coldkey,
            stake=stake,
            validator_permit=bool(permit),
            axon=axon,
            last_update=last_update or 0,
            block_at_registration=registered,
        )

    def neuron_by_hotkey(self, conn: sqlite3.Connection, hotkey: str) -> Neuron | None:
        row = conn.execute(f"SELECT {NEURON_COLUMNS} FROM neurons WHERE hotkey = ?", (hotkey,)).fetchone()
        return self.neuron(row) if row is not None else None

    def neurons(self, conn: sqlite3.Connection) -> list[Neuron]:
        rows = conn.execute(f"SELECT {NEURON_COLUMNS} FROM neurons ORDER BY uid").fetchall()
        return [self.neuron(row) for row in rows]

    @staticmethod
    def neurons_at(
        conn: sqlite3.Connection, neurons: list[Neuron], block: int, calls: tuple[str, str, str]
    ) -> list[Neuron]:
        """`neurons` as of `block`: those registered by then, with the stake and permit that the registration, permit
        and stake extrinsics (`calls`, in that order) at or before `block` left them."""
        register, permit, stake = calls
        state: dict[str, dict[str, Any]] = {}
        rows = conn.execute(
            "SELECT call, args FROM extrinsics WHERE call IN (?, ?, ?) AND block <= ? ORDER BY id",
            (register, permit, stake, block),
        ).fetchall()
        for call, raw in rows:
            args = json.loads(raw)
            if call == register:
                state[args["hotkey"]] = {
                    "stake": float(args["stake"]),
                    "validator_permit": bool(args["validator_permit"]),
                }
            elif args["hotkey"] in state:
                key = "validator_permit" if call == permit else "stake"
                state[args["hotkey"]][key] = bool(args["permit"]) if call == permit else float(args["stake"])
        return [n.model_copy(update=state[n.hotkey]) for n in neurons if n.hotkey in state]

    @staticmethod
    def commitments_at(conn: sqlite3.Connection, block: int, call: str) -> list[tuple[Any, ...]]:
        """(hotkey, uid, value, block) of each hotkey's last `call` extrinsic (a commitment) at or before `block`."""
        rows = conn.execute(
            "SELECT e.signer, n.uid, e.args, e.block FROM extrinsics e LEFT JOIN neurons n ON n.hotkey = e.signer "
            "WHERE e.id IN (SELECT MAX(id) FROM extrinsics WHERE call = ? AND block <= ? GROUP BY signer) "
            "ORDER BY n.uid, e.signer",
            (call, block),
        ).fetchall()
        out = []
        for signer, uid, args, at in rows:
            ((_field, value),) = json.loads(args)["info"]["fields"][0][0].items()
            out.append((signer, uid, value, at))
        return out

    def weight_rows(self, where: str) -> list[dict[str, Any]]:
        """Weight sets (uid, hotkey, block, uids, u16 weights, version_key, extrinsic_id), `where` choosing them."""
        with self.read("read the weights") as conn:
            rows = conn.execute(
                f"SELECT uid, hotkey, block, uids, weights, version_key, extrinsic_id FROM weights {where}"
            ).fetchall()
        return [
            {
                "uid": uid,
                "hotkey": hotkey,
                "block": block,
                "uids": json.loads(uids),
                "weights": json.loads(values),
                "version_key": version_key,
                "extrinsic_id": extrinsic_id,
            }
            for uid, hotkey, block, uids, values, version_key, extrinsic_id in rows
        ]

    @staticmethod
    def counts(conn: sqlite3.Connection) -> dict[str, int]:
        """How many neurons, validators, commitments, weight sets and extrinsics the file holds."""
        neurons, validators = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(validator_permit), 0) FROM neurons"
        ).fetchone()
        (commitments,) = conn.execute("SELECT COUNT(*) FROM commitments").fetchone()
        (weight_sets,) = conn.execute("SELECT COUNT(*) FROM weights").fetchone()
        (extrinsics,) = conn.execute("SELECT COUNT(*) FROM extrinsics").fetchone()
        return {
            "neurons": neurons,
            "validators": validators,
            "commitments": commitments,
            "weight_sets": weight_sets,
            "extrinsics": extrinsics,
        }
