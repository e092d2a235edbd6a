"""What every `LocalChain` call shares: the chain file opened (its `Ledger`) with its genesis settings and clock,
block numbers and hashes, the hints of its errors, signing a write and the outcome of one; and its drand pulses."""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from validator.chain.local.chainfile import FORMAT
from validator.chain.local.keys import sign
from validator.chain.local.ledger import BUSY_TIMEOUT_SECONDS, Ledger
from validator.chain.port import ChainError, ChainOutcome


class LocalChainBase:
    """The base of `LocalChain`: the chain file at `path` (which must already exist), opened."""

    def __init__(
        self, path: str | Path, *, clock: Callable[[], float] = time.time, busy_timeout: float = BUSY_TIMEOUT_SECONDS
    ) -> None:
        self.path = Path(path).expanduser()
        self._clock = clock
        self._ledger = Ledger(self.path, busy_timeout)
        genesis = self._ledger.genesis()
        self.netuid = genesis.netuid
        self.block_time = genesis.block_time
        self.weights_rate_limit = genesis.weights_rate_limit
        self.max_neurons = genesis.max_neurons
        self.genesis_time = genesis.genesis_time
        self._genesis_id = genesis.genesis_id

    @property
    def busy_timeout(self) -> float:
        """Seconds a call waits for another process's lock before `busy`."""
        return self._ledger.busy_timeout

    # --- helpers --------------------------------------------------------------------------------------------------

    def _now(self) -> int:
        """The current block: the last whose timestamp (`block_timestamp`) has come."""
        elapsed = self._clock() - self.genesis_time
        late = 0.0
        for after, seconds in self._ledger.stalls():
            if math.floor((elapsed - late) / self.block_time) <= after:
                break
            if math.floor((elapsed - late - seconds) / self.block_time) <= after:
                return after  # inside the stall: no block since `after`
            late += seconds
        return max(0, math.floor((elapsed - late) / self.block_time))

    def _timestamp(self, block: int) -> float:
        stalled = sum(seconds for after, seconds in self._ledger.stalls() if after < block)
        return self.genesis_time + block * self.block_time + stalled

    def _hash(self, block: int) -> str:
        return "0x" + hashlib.sha256(bytes.fromhex(self._genesis_id) + int(block).to_bytes(8, "big")).hexdigest()

    def _register_hint(self, wallet: Any = None) -> str:
        names = ""
        if wallet is not None:
            names = (
                f" --wallet.name {getattr(wallet, 'name', 'NAME')} --wallet.hotkey "
                f"{getattr(wallet, 'hotkey_str', 'HOTKEY')}"
            )
        return f"`arena-validator localchain register --localchain.path {self.path}{names}`"

    def _not_registered(self, action: str, hotkey: str, wallet: Any = None) -> ChainError:
        return ChainError(
            "not_registered",
            f"cannot {action}: hotkey {hotkey} is not registered on LocalChain "
            f"netuid {self.netuid}; register it with {self._register_hint(wallet)}",
        )

    def _sign(self, wallet: Any, hotkey: str, action: str, call: str, args: dict[str, Any]) -> str:
        """Sign a description of the write with the wallet's hotkey and verify it against `hotkey`; the signature."""
        message = json.dumps(
            {
                "chain": FORMAT,
                "genesis": self._genesis_id,
                "netuid": self.netuid,
                "call": call,
                "signer": hotkey,
                "args": args,
            },
            sort_keys=True,
            separators=(",", ":"),
        ).encode("utf-8")
        return sign(wallet, hotkey, action, message)

    def _outcome(self, call: str, block: int, extrinsic_id: str, data: dict[str, Any]) -> ChainOutcome:
        return ChainOutcome(
            success=True,
            message=f"included in block {block} of LocalChain {self.path}",
            call=call,
            block=block,
            block_hash=self._hash(block),
            extrinsic_id=extrinsic_id,
            data=data,
        )

    # --- stalls: a chain that stops producing blocks for a while ----------------------------------------------------
    #
    # Block `n` comes at `genesis_time + n * block_time`, plus the length of every stall before it. A stall is stored
    # as (the block it follows, seconds); the table is made on first use, so chains made before it existed work
    # unchanged.

    def stall(self, seconds: float) -> int:
        """Hold block production: the block after the current one comes `seconds` late (as when subtensor's authors
        stop). Returns the block the chain stays at."""
        if not seconds > 0:
            raise ChainError("bad_input", f"a stall lasts a positive number of seconds, not {seconds}")
        block = self._now()
        with self._ledger.write(f"stall LocalChain after block {block}") as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS stalls (after_block INTEGER NOT NULL, seconds REAL NOT NULL)")
            conn.execute("INSERT INTO stalls (after_block, seconds) VALUES (?, ?)", (block, float(seconds)))
        return block

    def block_timestamp(self, block: int) -> float:
        """When `block` came (unix seconds), as subtensor's `Timestamp.Now` at that block."""
        block = int(block)
        current = self._now()
        if not 0 <= block <= current:
            raise ChainError(
                "not_found", f"cannot read the timestamp of block {block}: LocalChain {self.path} is at block {current}"
            )
        return self._timestamp(block)

    # --- drand pulses: the dev chain's stand-in for subtensor's Drand pallet -------------------------------------
    #
    # Subtensor stores drand quicknet pulses as the beacon publishes them. A dev chain cannot make future pulses (no
    # one can), so it is given real recorded ones, each published (in this chain's story) when block `reveal_block`
    # was due: at `genesis_time + reveal_block * block_time`. Like drand's, that time does not wait for the chain: a
    # chain that stalls shows the pulse from its first block made at or after it, and a slot whose block comes later
    # than the pulse is cut early (`arena.problems.seal.eligible_before`). The table is made on first use, so chains
    # made before it existed work unchanged.

    def publish_pulse(self, round_: int, signature: str, *, reveal_block: int) -> None:
        """Hold a recorded drand quicknet pulse, published when block ``reveal_block`` was due."""
        with self._ledger.write(f"store drand round {round_}") as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS drand_pulses (round INTEGER PRIMARY KEY, signature TEXT NOT "
                "NULL, reveal_block INTEGER NOT NULL)"
            )
            conn.execute(
                "INSERT OR REPLACE INTO drand_pulses (round, signature, reveal_block) VALUES (?, ?, ?)",
                (int(round_), signature.removeprefix("0x"), int(reveal_block)),
            )

    def _pulse(self, round_: int) -> tuple[str, float] | None:
        """A recorded pulse: its signature and when it was published."""
        with self._ledger.read(f"read drand round {round_}") as conn:
            try:
                row = conn.execute(
                    "SELECT signature, reveal_block FROM drand_pulses WHERE round = ?", (int(round_),)
                ).fetchone()
            except sqlite3.OperationalError:  # no pulse was ever given to this chain
                return None
        return None if row is None else (str(row[0]), self.genesis_time + int(row[1]) * self.block_time)

    def drand_pulse(self, round_: int) -> str | None:
        """The signature of drand round ``round_`` once the chain shows it (hex): from its first block made at or
        after the pulse's publication; else None."""
        pulse = self._pulse(round_)
        if pulse is None or self._timestamp(self._now()) < pulse[1]:
            return None
        return pulse[0]

    def round_time(self, round_: int) -> float | None:
        """When drand round ``round_`` was published in this chain's story (a recorded pulse), else None: drand's own
        schedule (`arena.beacon.time_of_round`) holds."""
        pulse = self._pulse(round_)
        return None if pulse is None else pulse[1]
