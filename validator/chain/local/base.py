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
        return max(0, math.floor((self._clock() - self.genesis_time) / self.block_time))

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

    # --- drand pulses: the dev chain's stand-in for subtensor's Drand pallet -------------------------------------
    #
    # Subtensor stores drand quicknet pulses as the beacon publishes them. A dev chain cannot make future pulses (no
    # one can), so it is given real recorded ones, each with the block from which it shows it: a faithful stand-in
    # for the chain revealing a round, with the reveal tied to block height instead of wall time. The table is made
    # on first use, so chains made before it existed work unchanged.

    def publish_pulse(self, round_: int, signature: str, *, reveal_block: int) -> None:
        """Hold a recorded drand quicknet pulse and show it from ``reveal_block`` on."""
        with self._ledger.write(f"store drand round {round_}") as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS drand_pulses (round INTEGER PRIMARY KEY, signature TEXT NOT "
                "NULL, reveal_block INTEGER NOT NULL)"
            )
            conn.execute(
                "INSERT OR REPLACE INTO drand_pulses (round, signature, reveal_block) VALUES (?, ?, ?)",
                (int(round_), signature.removeprefix("0x"), int(reveal_block)),
            )

    def drand_pulse(self, round_: int) -> str | None:
        """The signature of drand round ``round_`` once the chain shows it (hex), else None."""
        with self._ledger.read(f"read drand round {round_}") as conn:
            block = self._now()
            try:
                row = conn.execute(
                    "SELECT signature, reveal_block FROM drand_pulses WHERE round = ?", (int(round_),)
                ).fetchone()
            except sqlite3.OperationalError:  # no pulse was ever given to this chain
                return None
        return str(row[0]) if row is not None and block >= int(row[1]) else None
