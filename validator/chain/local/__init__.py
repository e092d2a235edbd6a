"""`LocalChain`: a real dev chain for one subnet, kept in one SQLite file.

What it keeps, durably: the subnet's settings, the registered neurons (uid, hotkey, coldkey, stake, validator permit,
axon, `LastUpdate`, registration block), each hotkey's latest commitment, every weight extrinsic, and a log of every
write. Several processes may use one file at once (the validator node, miners' `arena-miner submit`, the
`arena-validator localchain` commands): the file is in WAL mode, every write is one `BEGIN IMMEDIATE` transaction
(so a read-check-write such as "next free uid" or "rate limit, then store" cannot interleave with another
process's), and readers see a consistent snapshot.

How it behaves like subtensor:
- Blocks advance with wall time: `block = floor((now - genesis_time) / block_time)`. The hash of block `n` is
  `sha256(genesis_id || n as 8 big-endian bytes)`, as 0x-hex: the same in every process that reads the file, and
  different for every chain (`genesis_id` is 32 random bytes chosen at `init`).
- Signed writes (`set_commitment`, `set_weights`, `serve_axon`) are signed with the wallet's hotkey and the
  signature is verified against the hotkey's ss58 address before anything is stored, as an extrinsic is.
- `set_weights` requires registration and a validator permit, enforces `WeightsSetRateLimit` against
  `LastUpdate[uid]` exactly as the chain does (allowed when `block - last_update >= weights_rate_limit`), and stores
  the vector as the SDK sends it: `bittensor.intents.weights.normalize` (max-upscale to u16, zeros dropped) over the
  uid-sorted pairs. There is no `MaxWeightsLimit` clip (subtensor's default is u16::MAX, under which the SDK does
  not clip either) and no commit-reveal.

What it does not model: emissions, consensus, deregistration and pruning (a full subnet refuses registration),
stake movements, serving and commitment rate limits.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import math
import os
import secrets
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from bittensor.intents.weights import normalize
from bittensor.sp_core import Keypair

from validator.chain.port import (
    Axon,
    ChainError,
    ChainOutcome,
    Commitment,
    Metagraph,
    Neuron,
    RateLimit,
    commitment_info,
)

FORMAT = "shoparena-localchain"
SCHEMA_VERSION = 1
U16_MAX = 65535
BUSY_TIMEOUT_SECONDS = 30.0

CALL_REGISTER = "SubtensorModule.burned_register"
CALL_SERVE_AXON = "SubtensorModule.serve_axon"
CALL_COMMITMENT = "Commitments.set_commitment"
CALL_WEIGHTS = "SubtensorModule.set_mechanism_weights"
CALL_PERMIT = "LocalChain.set_validator_permit"

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


def _init_hint(path: Path, extra: str = "") -> str:
    return f"`arena-validator localchain init --localchain.path {path}{extra}`"


def _is_localchain(path: Path) -> bool:
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


class LocalChain:
    """The `ChainPort` over a dev chain kept in the SQLite file at `path` (which must already exist)."""

    network = "localchain"

    def __init__(self, path: str | Path, *, clock: Callable[[], float] = time.time,
                 busy_timeout: float = BUSY_TIMEOUT_SECONDS) -> None:
        self.path = Path(path).expanduser()
        self._clock = clock
        self.busy_timeout = busy_timeout  # seconds a call waits for another process's lock before `busy`
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._conn_pid = 0
        self._forked: list[sqlite3.Connection] = []  # a parent's connections: never touched (nor closed) in a child
        if not self.path.is_file():
            raise ChainError("no_chain", f"no LocalChain at {self.path}; create it with {_init_hint(self.path)}")
        with self._read("open the chain") as conn:
            try:
                row = conn.execute(
                    "SELECT format, schema_version, netuid, block_time, weights_rate_limit, max_neurons, "
                    "genesis_time, genesis_id FROM chain WHERE id = 1"
                ).fetchone()
            except sqlite3.DatabaseError:
                row = None
        if row is None or row[0] != FORMAT:
            raise ChainError("bad_chain", f"{self.path} is not a LocalChain file; point --localchain.path at one, or "
                                          f"create one at another path with {_init_hint(Path('NEW.sqlite'))}")
        if row[1] != SCHEMA_VERSION:
            raise ChainError("bad_chain", f"LocalChain at {self.path} has format version {row[1]}, this node reads "
                                          f"version {SCHEMA_VERSION}; re-create it with "
                                          f"{_init_hint(self.path, ' --overwrite')}")
        self.netuid = int(row[2])
        self.block_time = float(row[3])
        self.weights_rate_limit = int(row[4])
        self.max_neurons = int(row[5])
        self.genesis_time = float(row[6])
        self._genesis_id = str(row[7])

    def __repr__(self) -> str:
        return f"LocalChain(path={str(self.path)!r}, netuid={self.netuid})"

    # --- creating a chain -----------------------------------------------------------------------------------------

    @classmethod
    def init(
        cls,
        path: str | Path,
        *,
        netuid: int = 1,
        block_time: float = 12.0,
        weights_rate_limit: int = 100,
        max_neurons: int = 256,
        overwrite: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> LocalChain:
        """Create a new chain file at `path` (genesis now), atomically: a complete file appears, or nothing."""
        target = Path(path).expanduser()
        problems = []
        if not 0 <= int(netuid) <= U16_MAX:
            problems.append(f"netuid must be 0..{U16_MAX} (got {netuid})")
        if not (math.isfinite(block_time) and block_time > 0):
            problems.append(f"block_time must be a positive number of seconds (got {block_time})")
        if int(weights_rate_limit) < 0:
            problems.append(f"weights_rate_limit must be >= 0 blocks (got {weights_rate_limit})")
        if not 1 <= int(max_neurons) <= U16_MAX:
            problems.append(f"max_neurons must be 1..{U16_MAX} (got {max_neurons})")
        if problems:
            raise ChainError("bad_input", f"cannot create a LocalChain at {target}: {'; '.join(problems)}")
        if target.is_dir():
            raise ChainError("bad_input", f"cannot create a LocalChain at {target}: it is a directory; pass a file "
                                          "path such as var/localchain.sqlite")
        exists = ChainError("exists", f"a LocalChain already exists at {target}; use it as it is, or start a new "
                                      f"chain with {_init_hint(target, ' --overwrite')}")
        if target.exists() and not overwrite:
            raise exists
        if target.exists() and not _is_localchain(target):
            raise ChainError("not_a_chain", f"{target} exists and is not a LocalChain; refusing to overwrite it: "
                                            "choose another --localchain.path, or move the file away yourself")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        except OSError as error:
            raise ChainError("bad_input", f"cannot create a LocalChain at {target}: {error}") from error
        os.close(fd)
        tmp = Path(tmp_name)
        os.chmod(tmp, 0o644)  # readable like an ordinary new file, not mkstemp's 0600
        try:
            conn = sqlite3.connect(tmp, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("BEGIN IMMEDIATE")
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(
                    "INSERT INTO chain (id, format, schema_version, netuid, block_time, weights_rate_limit, "
                    "max_neurons, genesis_time, genesis_id) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (FORMAT, SCHEMA_VERSION, int(netuid), float(block_time), int(weights_rate_limit),
                     int(max_neurons), float(clock()), secrets.token_hex(32)),
                )
                conn.execute("COMMIT")
            finally:
                conn.close()  # the last connection: checkpoints and removes the temp file's -wal/-shm
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
        return cls(target, clock=clock)

    # --- plumbing -------------------------------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        """This process's connection, opened on first use (read-write, never creating the file)."""
        if self._conn is not None and self._conn_pid == os.getpid():
            return self._conn
        if self._conn is not None:  # inherited across fork: SQLite forbids using (or closing) it here
            self._forked.append(self._conn)
            self._conn = None
        if not self.path.is_file():
            raise ChainError("no_chain", f"no LocalChain at {self.path}; create it with {_init_hint(self.path)}")
        try:
            conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=rw", uri=True, isolation_level=None,
                                   timeout=self.busy_timeout, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            conn.execute("PRAGMA synchronous=FULL")  # WAL mode is already persistent in the file (set by init)
            conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as error:
            raise ChainError("bad_chain", f"cannot open {self.path} as a LocalChain ({error}); point --localchain.path "
                                          f"at one, or create one at another path with "
                                          f"{_init_hint(Path('NEW.sqlite'))}") from error
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

    def _read(self, action: str) -> Any:
        """A read transaction: every query inside sees one snapshot of the file."""
        return self._transaction(action, "DEFERRED")

    def _write(self, action: str) -> Any:
        """One write transaction, holding the file's write lock from its first statement (no lost updates)."""
        return self._transaction(action, "IMMEDIATE")

    def _db_error(self, action: str, error: sqlite3.Error) -> ChainError:
        if isinstance(error, sqlite3.OperationalError) and "locked" in str(error):
            return ChainError("busy", f"cannot {action}: the LocalChain at {self.path} stayed locked by another "
                                      f"process for {self.busy_timeout:g}s; try again")
        return ChainError("chain_error", f"cannot {action}: LocalChain at {self.path}: {error}")

    def _now(self) -> int:
        return max(0, math.floor((self._clock() - self.genesis_time) / self.block_time))

    def _hash(self, block: int) -> str:
        return "0x" + hashlib.sha256(bytes.fromhex(self._genesis_id) + int(block).to_bytes(8, "big")).hexdigest()

    def _register_hint(self, wallet: Any = None) -> str:
        names = ""
        if wallet is not None:
            names = (f" --wallet.name {getattr(wallet, 'name', 'NAME')} --wallet.hotkey "
                     f"{getattr(wallet, 'hotkey_str', 'HOTKEY')}")
        return f"`arena-validator localchain register --localchain.path {self.path}{names}`"

    def _not_registered(self, action: str, hotkey: str, wallet: Any = None) -> ChainError:
        return ChainError("not_registered", f"cannot {action}: hotkey {hotkey} is not registered on LocalChain "
                                            f"netuid {self.netuid}; register it with {self._register_hint(wallet)}")

    def _wallet_hotkey(self, wallet: Any, action: str) -> str:
        """The wallet hotkey's ss58 address, reading the key file without ever prompting for a password."""
        name, hotkey_name = getattr(wallet, "name", "?"), getattr(wallet, "hotkey_str", "?")
        hotkey_file = getattr(wallet, "hotkey_file", None)
        if hotkey_file is not None:
            if not Path(hotkey_file.path).is_file():
                raise ChainError("no_wallet", f"cannot {action}: wallet {name!r} hotkey {hotkey_name!r} not found "
                                              f"(no file {hotkey_file.path}); create it with `btcli wallet "
                                              f"new-hotkey --wallet.name {name} --wallet.hotkey {hotkey_name}`")
            try:
                encrypted = hotkey_file.is_encrypted()
            except Exception:  # unreadable: reported below when the key is loaded
                encrypted = False
            if encrypted:
                raise ChainError("bad_wallet", f"cannot {action}: wallet {name!r} hotkey {hotkey_name!r} at "
                                               f"{hotkey_file.path} is password-encrypted; ShopArena signs with "
                                               "unencrypted hotkeys (btcli's default)")
        try:
            return str(wallet.hotkey.ss58_address)
        except Exception as error:
            raise ChainError("bad_wallet", f"cannot {action}: cannot read wallet {name!r} hotkey {hotkey_name!r}: "
                                           f"{error}") from error

    def _sign(self, wallet: Any, hotkey: str, action: str, call: str, args: dict[str, Any]) -> str:
        """Sign a description of the write with the wallet's hotkey and verify it against `hotkey`; the signature."""
        message = json.dumps(
            {"chain": FORMAT, "genesis": self._genesis_id, "netuid": self.netuid, "call": call, "signer": hotkey,
             "args": args},
            sort_keys=True, separators=(",", ":"),
        ).encode("utf-8")
        try:
            keypair = wallet.hotkey
            signature = bytes(keypair.sign(message))
            verifier = Keypair(ss58_address=hotkey, crypto_type=keypair.crypto_type)
            valid = verifier.verify(message, signature)
        except Exception as error:
            raise ChainError("bad_wallet", f"cannot {action}: signing with the wallet's hotkey failed: "
                                           f"{error}") from error
        if not valid:
            raise ChainError("bad_signature", f"cannot {action}: the wallet's signature does not verify against "
                                              f"hotkey {hotkey}")
        return signature.hex()

    def _record(self, conn: sqlite3.Connection, block: int, call: str, signer: str | None, args: dict[str, Any],
                signature: str | None = None) -> str:
        """Append one extrinsic to the log; its id, `block-index` as on a real chain."""
        (idx,) = conn.execute("SELECT COUNT(*) FROM extrinsics WHERE block = ?", (block,)).fetchone()
        conn.execute(
            "INSERT INTO extrinsics (block, idx, call, signer, args, signature, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (block, idx, call, signer, json.dumps(args, sort_keys=True), signature, time.time()),
        )
        return f"{block}-{idx}"

    def _outcome(self, call: str, block: int, extrinsic_id: str, data: dict[str, Any]) -> ChainOutcome:
        return ChainOutcome(success=True, message=f"included in block {block} of LocalChain {self.path}", call=call,
                            block=block, block_hash=self._hash(block), extrinsic_id=extrinsic_id, data=data)

    @staticmethod
    def _neuron(row: sqlite3.Row | tuple[Any, ...]) -> Neuron:
        uid, hotkey, coldkey, stake, permit, ip, port, protocol, last_update, registered = row
        axon = Axon(ip=ip, port=port, protocol=protocol) if ip is not None and port is not None else None
        return Neuron(uid=uid, hotkey=hotkey, coldkey=coldkey, stake=stake, validator_permit=bool(permit), axon=axon,
                      last_update=last_update or 0, block_at_registration=registered)

    _NEURON_COLUMNS = ("uid, hotkey, coldkey, stake, validator_permit, axon_ip, axon_port, axon_protocol, last_update, "
                       "block_at_registration")

    def _neuron_by_hotkey(self, conn: sqlite3.Connection, hotkey: str) -> Neuron | None:
        row = conn.execute(f"SELECT {self._NEURON_COLUMNS} FROM neurons WHERE hotkey = ?", (hotkey,)).fetchone()
        return self._neuron(row) if row is not None else None

    # --- reads ----------------------------------------------------------------------------------------------------

    def block(self) -> int:
        return self._now()

    def block_hash(self, block: int) -> str:
        block = int(block)
        if block < 0:
            raise ChainError("bad_input", f"no block {block}: block numbers start at 0")
        current = self._now()
        if block > current:
            raise ChainError("not_found", f"cannot read the hash of block {block}: LocalChain {self.path} is at "
                                          f"block {current} (block {block} is not produced yet)")
        return self._hash(block)

    def metagraph(self) -> Metagraph:
        with self._read(f"read the metagraph of LocalChain netuid {self.netuid}") as conn:
            block = self._now()
            rows = conn.execute(f"SELECT {self._NEURON_COLUMNS} FROM neurons ORDER BY uid").fetchall()
        return Metagraph(netuid=self.netuid, block=block, neurons=[self._neuron(row) for row in rows])

    def commitments(self) -> dict[str, Commitment]:
        with self._read(f"read the commitments of LocalChain netuid {self.netuid}") as conn:
            rows = conn.execute(
                "SELECT c.hotkey, n.uid, c.value, c.block FROM commitments c LEFT JOIN neurons n ON n.hotkey = "
                "c.hotkey ORDER BY n.uid, c.hotkey"
            ).fetchall()
        return {hotkey: Commitment(hotkey=hotkey, uid=uid, value=value, block=block) for hotkey, uid, value, block
                in rows}

    # --- drand pulses: the dev chain's stand-in for subtensor's Drand pallet -------------------------------------
    #
    # Subtensor stores drand quicknet pulses as the beacon publishes them. A dev chain cannot make future pulses (no
    # one can), so it is given real recorded ones, each with the block from which it shows it: a faithful stand-in
    # for the chain revealing a round, with the reveal tied to block height instead of wall time. The table is made
    # on first use, so chains made before it existed work unchanged.

    def publish_pulse(self, round_: int, signature: str, *, reveal_block: int) -> None:
        """Hold a recorded drand quicknet pulse and show it from ``reveal_block`` on."""
        with self._write(f"store drand round {round_}") as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS drand_pulses (round INTEGER PRIMARY KEY, signature TEXT NOT "
                         "NULL, reveal_block INTEGER NOT NULL)")
            conn.execute("INSERT OR REPLACE INTO drand_pulses (round, signature, reveal_block) VALUES (?, ?, ?)",
                         (int(round_), signature.removeprefix("0x"), int(reveal_block)))

    def drand_pulse(self, round_: int) -> str | None:
        """The signature of drand round ``round_`` once the chain shows it (hex), else None."""
        with self._read(f"read drand round {round_}") as conn:
            block = self._now()
            try:
                row = conn.execute("SELECT signature, reveal_block FROM drand_pulses WHERE round = ?",
                                   (int(round_),)).fetchone()
            except sqlite3.OperationalError:  # no pulse was ever given to this chain
                return None
        return str(row[0]) if row is not None and block >= int(row[1]) else None

    def rate_limit(self, hotkey: str) -> RateLimit:
        with self._read(f"read the weights rate limit of {hotkey}") as conn:
            block = self._now()
            row = conn.execute("SELECT last_update FROM neurons WHERE hotkey = ?", (hotkey,)).fetchone()
        since = None if row is None or row[0] is None else max(0, block - int(row[0]))
        return RateLimit(weights_rate_limit=self.weights_rate_limit, blocks_since_last_update=since, block=block)

    def weights(self) -> dict[int, dict[int, float]]:
        """Each validator uid's latest weight row, normalized to sum to 1 (as the chain's epoch reads it)."""
        out: dict[int, dict[int, float]] = {}
        for entry in self._latest_weights():
            total = sum(entry["weights"])
            out[entry["uid"]] = {dest: value / total for dest, value in zip(entry["uids"], entry["weights"],
                                                                            strict=True)}
        return out

    def _latest_weights(self) -> list[dict[str, Any]]:
        return self._weight_rows("WHERE id IN (SELECT MAX(id) FROM weights GROUP BY uid) ORDER BY uid")

    def weight_history(self) -> list[dict[str, Any]]:
        """Every weight extrinsic in order: uid, hotkey, block, uids, u16 weights, version_key, extrinsic_id."""
        return self._weight_rows("ORDER BY id")

    def _weight_rows(self, where: str) -> list[dict[str, Any]]:
        with self._read("read the weights") as conn:
            rows = conn.execute(
                f"SELECT uid, hotkey, block, uids, weights, version_key, extrinsic_id FROM weights {where}"
            ).fetchall()
        return [
            {"uid": uid, "hotkey": hotkey, "block": block, "uids": json.loads(uids), "weights": json.loads(values),
             "version_key": version_key, "extrinsic_id": extrinsic_id}
            for uid, hotkey, block, uids, values, version_key, extrinsic_id in rows
        ]

    def info(self) -> dict[str, Any]:
        with self._read("read the chain's state") as conn:
            block = self._now()
            neurons, validators = conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(validator_permit), 0) FROM neurons").fetchone()
            (commitments,) = conn.execute("SELECT COUNT(*) FROM commitments").fetchone()
            (weight_sets,) = conn.execute("SELECT COUNT(*) FROM weights").fetchone()
            (extrinsics,) = conn.execute("SELECT COUNT(*) FROM extrinsics").fetchone()
        return {
            "path": str(self.path),
            "network": self.network,
            "netuid": self.netuid,
            "block_time": self.block_time,
            "weights_rate_limit": self.weights_rate_limit,
            "max_neurons": self.max_neurons,
            "genesis_time": self.genesis_time,
            "genesis_hash": self._hash(0),
            "block": block,
            "neurons": neurons,
            "validators": validators,
            "commitments": commitments,
            "weight_sets": weight_sets,
            "extrinsics": extrinsics,
        }

    # --- registration and admin -----------------------------------------------------------------------------------

    def register(self, wallet: Any, *, validator_permit: bool = False, stake: float = 0.0) -> Neuron:
        """Register the wallet's hotkey (owned by its coldkey) at the next uid.

        Idempotent: an already-registered hotkey gets its neuron back unchanged, except that `validator_permit=True`
        grants a permit it lacks (a permit is never revoked here: see `set_validator_permit`).
        """
        action = f"register on LocalChain netuid {self.netuid}"
        hotkey = self._wallet_hotkey(wallet, action)
        try:
            coldkey = str(wallet.coldkeypub.ss58_address)
        except FileNotFoundError:
            name = getattr(wallet, "name", "?")
            raise ChainError("no_wallet", f"cannot {action}: wallet {name!r} has no coldkeypub.txt under "
                                          f"{getattr(wallet, 'path', '?')}; create it with `btcli wallet new-coldkey "
                                          f"--wallet.name {name}`") from None
        except Exception as error:
            raise ChainError("bad_wallet", f"cannot {action}: cannot read the wallet's coldkeypub: {error}") from error
        return self.register_hotkey(hotkey, coldkey, validator_permit=validator_permit, stake=stake)

    def register_hotkey(self, hotkey: str, coldkey: str, *, validator_permit: bool = False,
                        stake: float = 0.0) -> Neuron:
        """Register `hotkey` (owned by `coldkey`) at the next uid; idempotent for an already-registered hotkey."""
        action = f"register hotkey {hotkey} on LocalChain netuid {self.netuid}"
        for role, address in (("hotkey", hotkey), ("coldkey", coldkey)):
            try:
                Keypair(ss58_address=address)
            except Exception:
                raise ChainError("bad_input", f"cannot {action}: {role} {address!r} is not an ss58 address") from None
        if not (math.isfinite(stake) and stake >= 0):
            raise ChainError("bad_input", f"cannot {action}: stake must be a non-negative number (got {stake})")
        with self._write(action) as conn:
            existing = self._neuron_by_hotkey(conn, hotkey)
            if existing is not None:
                if existing.coldkey != coldkey:
                    raise ChainError("bad_input", f"cannot {action}: it is already registered as uid {existing.uid} "
                                                  f"under coldkey {existing.coldkey}, not {coldkey}")
                if validator_permit and not existing.validator_permit:  # asked for a permit it lacks: grant it
                    self._grant(conn, hotkey, True)
                    existing = existing.model_copy(update={"validator_permit": True})
                return existing
            (count,) = conn.execute("SELECT COUNT(*) FROM neurons").fetchone()
            if count >= self.max_neurons:
                raise ChainError("subnet_full", f"cannot {action}: the subnet is full ({count} of {self.max_neurons} "
                                                "neurons; LocalChain does not prune); start a chain with a larger "
                                                f"max_neurons with {_init_hint(self.path, ' --overwrite')}")
            block = self._now()
            (uid,) = conn.execute("SELECT COALESCE(MAX(uid) + 1, 0) FROM neurons").fetchone()
            conn.execute(
                "INSERT INTO neurons (uid, hotkey, coldkey, stake, validator_permit, block_at_registration) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (uid, hotkey, coldkey, float(stake), int(bool(validator_permit)), block),
            )
            self._record(conn, block, CALL_REGISTER, None, {"hotkey": hotkey, "coldkey": coldkey, "uid": uid,
                                                             "validator_permit": bool(validator_permit),
                                                             "stake": float(stake)})
            neuron = self._neuron_by_hotkey(conn, hotkey)
        assert neuron is not None
        return neuron

    def set_validator_permit(self, hotkey: str, permit: bool) -> None:
        """Grant or revoke a registered hotkey's validator permit (the dev chain's stand-in for stake ranking)."""
        action = f"set the validator permit of {hotkey} on LocalChain netuid {self.netuid}"
        with self._write(action) as conn:
            if not self._grant(conn, hotkey, permit):
                raise self._not_registered(action, hotkey)

    def _grant(self, conn: sqlite3.Connection, hotkey: str, permit: bool) -> bool:
        cursor = conn.execute("UPDATE neurons SET validator_permit = ? WHERE hotkey = ?", (int(bool(permit)), hotkey))
        if cursor.rowcount == 0:
            return False
        self._record(conn, self._now(), CALL_PERMIT, None, {"hotkey": hotkey, "permit": bool(permit)})
        return True

    # --- signed writes --------------------------------------------------------------------------------------------

    def serve_axon(self, wallet: Any, ip: str, port: int, protocol: int = 4) -> ChainOutcome:
        """Publish the wallet hotkey's axon (ip, port, protocol)."""
        action = f"serve an axon on LocalChain netuid {self.netuid}"
        try:
            address = ipaddress.ip_address(str(ip).strip("[]"))
        except ValueError:
            raise ChainError("bad_input", f"cannot {action}: {ip!r} is not an IPv4 or IPv6 address") from None
        if not 1 <= int(port) <= U16_MAX:
            raise ChainError("bad_input", f"cannot {action}: port must be 1..{U16_MAX} (got {port})")
        if not 0 <= int(protocol) <= 255:
            raise ChainError("bad_input", f"cannot {action}: protocol must be 0..255 (got {protocol})")
        hotkey = self._wallet_hotkey(wallet, action)
        action += f" as {hotkey}"
        args = {"netuid": self.netuid, "ip": str(address), "ip_type": address.version, "port": int(port),
                "protocol": int(protocol)}
        signature = self._sign(wallet, hotkey, action, CALL_SERVE_AXON, args)
        with self._write(action) as conn:
            if self._neuron_by_hotkey(conn, hotkey) is None:
                raise self._not_registered(action, hotkey, wallet)
            block = self._now()
            conn.execute("UPDATE neurons SET axon_ip = ?, axon_port = ?, axon_protocol = ? WHERE hotkey = ?",
                         (str(address), int(port), int(protocol), hotkey))
            extrinsic_id = self._record(conn, block, CALL_SERVE_AXON, hotkey, args, signature)
        return self._outcome(CALL_SERVE_AXON, block, extrinsic_id, args)

    def set_commitment(self, wallet: Any, data: str) -> ChainOutcome:
        """Publish `data` (1..128 UTF-8 bytes) as the wallet hotkey's commitment; the latest one is kept."""
        info = commitment_info(data)
        (field,) = info["fields"][0][0]
        sent = {"field": field, "bytes": int(field.removeprefix("Raw"))}
        action = f"publish a commitment on LocalChain netuid {self.netuid}"
        hotkey = self._wallet_hotkey(wallet, action)
        action += f" as {hotkey}"
        args = {"netuid": self.netuid, "info": info}
        signature = self._sign(wallet, hotkey, action, CALL_COMMITMENT, args)
        with self._write(action) as conn:
            if self._neuron_by_hotkey(conn, hotkey) is None:
                raise self._not_registered(action, hotkey, wallet)
            block = self._now()
            conn.execute(
                "INSERT INTO commitments (hotkey, value, block) VALUES (?, ?, ?) "
                "ON CONFLICT (hotkey) DO UPDATE SET value = excluded.value, block = excluded.block",
                (hotkey, data, block),
            )
            extrinsic_id = self._record(conn, block, CALL_COMMITMENT, hotkey, args, signature)
        return self._outcome(CALL_COMMITMENT, block, extrinsic_id, sent)

    def set_weights(self, wallet: Any, weights: dict[int, float], *, version_key: int = 0) -> ChainOutcome:
        """Set the wallet hotkey's weights, as `SubtensorModule.set_mechanism_weights` with the SDK's u16 vector.

        Raises `ChainError`: `not_registered`, `no_permit`, `rate_limited` (with `retry_in_blocks`), `bad_input`
        (empty, negative or non-finite weights, all zero, unknown uids). Nothing is stored when it raises.
        """
        action = f"set weights on LocalChain netuid {self.netuid}"
        if not weights:
            raise ChainError("bad_input", f"cannot {action}: no weights to set")
        try:
            pairs = sorted((int(uid), float(value)) for uid, value in weights.items())
        except (TypeError, ValueError) as error:
            raise ChainError("bad_input", f"cannot {action}: weights must map integer uids to numbers "
                                          f"({error})") from None
        uids = [uid for uid, _ in pairs]
        if len(set(uids)) != len(uids):
            raise ChainError("bad_input", f"cannot {action}: duplicate uids in the weights")
        if any(not math.isfinite(value) or value < 0 for _, value in pairs):
            raise ChainError("bad_input", f"cannot {action}: weights must be finite and non-negative")
        if any(not 0 <= uid <= U16_MAX for uid in uids):
            raise ChainError("bad_input", f"cannot {action}: uids must be 0..{U16_MAX}")
        if not 0 <= int(version_key) < 2**64:
            raise ChainError("bad_input", f"cannot {action}: version_key must be a u64 (got {version_key})")
        u16_uids, u16_values = normalize(uids, [value for _, value in pairs])
        if not u16_uids:
            raise ChainError("bad_input", f"cannot {action}: all weights are zero; nothing to set")
        hotkey = self._wallet_hotkey(wallet, action)
        action += f" as {hotkey}"
        args = {"netuid": self.netuid, "mecid": 0, "dests": u16_uids, "weights": u16_values,
                "version_key": int(version_key)}
        signature = self._sign(wallet, hotkey, action, CALL_WEIGHTS, args)
        with self._write(action) as conn:
            neuron = self._neuron_by_hotkey(conn, hotkey)
            if neuron is None:
                raise self._not_registered(action, hotkey, wallet)
            if not neuron.validator_permit:
                raise ChainError("no_permit", f"cannot {action}: uid {neuron.uid} has no validator permit; grant it "
                                              f"with {self._register_hint(wallet)} --validator-permit")
            block = self._now()
            (last_update,) = conn.execute("SELECT last_update FROM neurons WHERE uid = ?", (neuron.uid,)).fetchone()
            if last_update is not None and self.weights_rate_limit:
                since = max(0, block - int(last_update))
                if since < self.weights_rate_limit:
                    remaining = self.weights_rate_limit - since
                    raise ChainError(
                        "rate_limited",
                        f"cannot {action}: weights were last set {since} blocks ago (block {last_update}); the rate "
                        f"limit is {self.weights_rate_limit} blocks. Retry in {remaining} blocks "
                        f"(~{int(remaining * self.block_time)}s)",
                        retry_in_blocks=remaining,
                    )
            known = {uid for (uid,) in conn.execute("SELECT uid FROM neurons")}
            unknown = [uid for uid in uids if uid not in known]
            if unknown:
                raise ChainError("bad_input", f"cannot {action}: uids {unknown} are not in the metagraph of netuid "
                                              f"{self.netuid} ({len(known)} neurons)")
            extrinsic_id = self._record(conn, block, CALL_WEIGHTS, hotkey, args, signature)
            conn.execute(
                "INSERT INTO weights (uid, hotkey, block, uids, weights, version_key, extrinsic_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (neuron.uid, hotkey, block, json.dumps(u16_uids), json.dumps(u16_values), int(version_key),
                 extrinsic_id),
            )
            conn.execute("UPDATE neurons SET last_update = ? WHERE uid = ?", (block, neuron.uid))
        data = {"netuid": self.netuid, "version_key": int(version_key), "uids": u16_uids, "weights": u16_values}
        return self._outcome(CALL_WEIGHTS, block, extrinsic_id, data)

    def close(self) -> None:
        """Close this process's connection; the next call reopens it."""
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None and self._conn_pid == os.getpid():
                with suppress(sqlite3.Error):
                    conn.close()
