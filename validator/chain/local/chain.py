"""`LocalChain`'s chain calls: the `ChainPort` reads and signed writes, registration and the dev chain's admin
calls, over the chain file its `Ledger` keeps (see the package's docstring for how it behaves like subtensor)."""

from __future__ import annotations

import json
import math
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bittensor.sp_core import Keypair

from arena.wallet import btcli
from validator.chain.local.base import LocalChainBase
from validator.chain.local.chainfile import Genesis, create_file, init_hint, new_genesis_id
from validator.chain.local.keys import wallet_hotkey
from validator.chain.local.rules import axon_address, settings_problems, u16_weights
from validator.chain.port import ChainError, ChainOutcome, Commitment, Metagraph, Neuron, RateLimit, commitment_info

CALL_REGISTER = "SubtensorModule.burned_register"
CALL_SERVE_AXON = "SubtensorModule.serve_axon"
CALL_COMMITMENT = "Commitments.set_commitment"
CALL_WEIGHTS = "SubtensorModule.set_mechanism_weights"
CALL_PERMIT = "LocalChain.set_validator_permit"
CALL_STAKE = "LocalChain.set_stake"


class LocalChain(LocalChainBase):
    """The `ChainPort` over a dev chain kept in the SQLite file at `path` (which must already exist)."""

    network = "localchain"

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
        problems = settings_problems(netuid, block_time, weights_rate_limit, max_neurons)
        if problems:
            raise ChainError("bad_input", f"cannot create a LocalChain at {target}: {'; '.join(problems)}")
        genesis = Genesis(
            netuid=int(netuid),
            block_time=float(block_time),
            weights_rate_limit=int(weights_rate_limit),
            max_neurons=int(max_neurons),
            genesis_time=float(clock()),
            genesis_id=new_genesis_id(),
        )
        create_file(target, genesis, overwrite=overwrite)
        return cls(target, clock=clock)

    # --- reads ----------------------------------------------------------------------------------------------------

    def block(self) -> int:
        return self._now()

    def block_hash(self, block: int) -> str:
        block = int(block)
        if block < 0:
            raise ChainError("bad_input", f"no block {block}: block numbers start at 0")
        current = self._now()
        if block > current:
            raise ChainError(
                "not_found",
                f"cannot read the hash of block {block}: LocalChain {self.path} is at "
                f"block {current} (block {block} is not produced yet)",
            )
        return self._hash(block)

    def metagraph(self, block: int | None = None) -> Metagraph:
        """The subnet's neurons now; as of `block` (its end) when given: those registered by then, each with the stake
        and validator permit its last extrinsic at or before `block` gave it (axon and last update as now)."""
        with self._ledger.read(f"read the metagraph of LocalChain netuid {self.netuid}") as conn:
            now = self._now()
            neurons = self._ledger.neurons(conn)
            if block is not None:
                neurons = self._ledger.neurons_at(conn, neurons, int(block), (CALL_REGISTER, CALL_PERMIT, CALL_STAKE))
        return Metagraph(netuid=self.netuid, block=now if block is None else min(int(block), now), neurons=neurons)

    def commitments(self, block: int | None = None) -> dict[str, Commitment]:
        """The latest commitment of every hotkey; as of `block` (its end), from the extrinsic log, when given."""
        with self._ledger.read(f"read the commitments of LocalChain netuid {self.netuid}") as conn:
            if block is None:
                rows = conn.execute(
                    "SELECT c.hotkey, n.uid, c.value, c.block FROM commitments c LEFT JOIN neurons n ON n.hotkey = "
                    "c.hotkey ORDER BY n.uid, c.hotkey"
                ).fetchall()
            else:
                rows = self._ledger.commitments_at(conn, int(block), CALL_COMMITMENT)
        return {
            hotkey: Commitment(hotkey=hotkey, uid=uid, value=value, block=block) for hotkey, uid, value, block in rows
        }

    def rate_limit(self, hotkey: str) -> RateLimit:
        with self._ledger.read(f"read the weights rate limit of {hotkey}") as conn:
            block = self._now()
            row = conn.execute("SELECT last_update FROM neurons WHERE hotkey = ?", (hotkey,)).fetchone()
        since = None if row is None or row[0] is None else max(0, block - int(row[0]))
        return RateLimit(weights_rate_limit=self.weights_rate_limit, blocks_since_last_update=since, block=block)

    def weights(self, block: int | None = None) -> dict[int, dict[int, float]]:
        """Each validator uid's latest weight row (as of `block`, else now), normalized to sum to 1 (as the chain's
        epoch reads it)."""
        out: dict[int, dict[int, float]] = {}
        rows = (
            self._latest_weights()
            if block is None
            else self._ledger.weight_rows(
                f"WHERE id IN (SELECT MAX(id) FROM weights WHERE block <= {int(block)} GROUP BY uid) ORDER BY uid"
            )
        )
        for entry in rows:
            total = sum(entry["weights"])
            out[entry["uid"]] = {
                dest: value / total for dest, value in zip(entry["uids"], entry["weights"], strict=True)
            }
        return out

    def _latest_weights(self) -> list[dict[str, Any]]:
        return self._ledger.weight_rows("WHERE id IN (SELECT MAX(id) FROM weights GROUP BY uid) ORDER BY uid")

    def weight_history(self) -> list[dict[str, Any]]:
        """Every weight extrinsic in order: uid, hotkey, block, uids, u16 weights, version_key, extrinsic_id."""
        return self._ledger.weight_rows("ORDER BY id")

    def info(self) -> dict[str, Any]:
        with self._ledger.read("read the chain's state") as conn:
            block = self._now()
            counts = self._ledger.counts(conn)
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
            **counts,
        }

    # --- registration and admin -----------------------------------------------------------------------------------

    def register(self, wallet: Any, *, validator_permit: bool = False, stake: float = 0.0) -> Neuron:
        """Register the wallet's hotkey (owned by its coldkey) at the next uid.

        Idempotent: an already-registered hotkey gets its neuron back unchanged, except that `validator_permit=True`
        grants a permit it lacks (a permit is never revoked here: see `set_validator_permit`).
        """
        action = f"register on LocalChain netuid {self.netuid}"
        hotkey = wallet_hotkey(wallet, action)
        try:
            coldkey = str(wallet.coldkeypub.ss58_address)
        except FileNotFoundError:
            name, path = getattr(wallet, "name", "?"), getattr(wallet, "path", None)
            raise ChainError(
                "no_wallet",
                f"cannot {action}: wallet {name!r} has no coldkeypub.txt under "
                f"{path or '?'}; create it with "
                f"{btcli('wallet new-coldkey', wallet=name, path=path)}",
            ) from None
        except Exception as error:
            raise ChainError("bad_wallet", f"cannot {action}: cannot read the wallet's coldkeypub: {error}") from error
        return self.register_hotkey(hotkey, coldkey, validator_permit=validator_permit, stake=stake)

    def register_hotkey(
        self, hotkey: str, coldkey: str, *, validator_permit: bool = False, stake: float = 0.0
    ) -> Neuron:
        """Register `hotkey` (owned by `coldkey`) at the next uid; idempotent for an already-registered hotkey."""
        action = f"register hotkey {hotkey} on LocalChain netuid {self.netuid}"
        for role, address in (("hotkey", hotkey), ("coldkey", coldkey)):
            try:
                Keypair(ss58_address=address)
            except Exception:
                raise ChainError("bad_input", f"cannot {action}: {role} {address!r} is not an ss58 address") from None
        if not (math.isfinite(stake) and stake >= 0):
            raise ChainError("bad_input", f"cannot {action}: stake must be a non-negative number (got {stake})")
        with self._ledger.write(action) as conn:
            existing = self._ledger.neuron_by_hotkey(conn, hotkey)
            if existing is not None:
                if existing.coldkey != coldkey:
                    raise ChainError(
                        "bad_input",
                        f"cannot {action}: it is already registered as uid {existing.uid} "
                        f"under coldkey {existing.coldkey}, not {coldkey}",
                    )
                if validator_permit and not existing.validator_permit:  # asked for a permit it lacks: grant it
                    self._grant(conn, hotkey, True)
                    existing = existing.model_copy(update={"validator_permit": True})
                return existing
            (count,) = conn.execute("SELECT COUNT(*) FROM neurons").fetchone()
            if count >= self.max_neurons:
                raise ChainError(
                    "subnet_full",
                    f"cannot {action}: the subnet is full ({count} of {self.max_neurons} "
                    "neurons; LocalChain does not prune); start a chain with a larger "
                    f"max_neurons with {init_hint(self.path, ' --overwrite')}",
                )
            block = self._now()
            (uid,) = conn.execute("SELECT COALESCE(MAX(uid) + 1, 0) FROM neurons").fetchone()
            conn.execute(
                "INSERT INTO neurons (uid, hotkey, coldkey, stake, validator_permit, block_at_registration) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (uid, hotkey, coldkey, float(stake), int(bool(validator_permit)), block),
            )
            self._ledger.record(
                conn,
                block,
                CALL_REGISTER,
                None,
                {
                    "hotkey": hotkey,
                    "coldkey": coldkey,
                    "uid": uid,
                    "validator_permit": bool(validator_permit),
                    "stake": float(stake),
                },
            )
            neuron = self._ledger.neuron_by_hotkey(conn, hotkey)
        assert neuron is not None
        return neuron

    def set_validator_permit(self, hotkey: str, permit: bool) -> None:
        """Grant or revoke a registered hotkey's validator permit (the dev chain's stand-in for stake ranking)."""
        action = f"set the validator permit of {hotkey} on LocalChain netuid {self.netuid}"
        with self._ledger.write(action) as conn:
            if not self._grant(conn, hotkey, permit):
                raise self._not_registered(action, hotkey)

    def set_stake(self, hotkey: str, stake: float) -> None:
        """Set a registered hotkey's stake (the dev chain's stand-in for staking and unstaking), from this block on."""
        action = f"set the stake of {hotkey} on LocalChain netuid {self.netuid}"
        if not (math.isfinite(stake) and stake >= 0):
            raise ChainError("bad_input", f"cannot {action}: stake must be a non-negative number (got {stake})")
        with self._ledger.write(action) as conn:
            cursor = conn.execute("UPDATE neurons SET stake = ? WHERE hotkey = ?", (float(stake), hotkey))
            if cursor.rowcount == 0:
                raise self._not_registered(action, hotkey)
            self._ledger.record(conn, self._now(), CALL_STAKE, None, {"hotkey": hotkey, "stake": float(stake)})

    def _grant(self, conn: sqlite3.Connection, hotkey: str, permit: bool) -> bool:
        cursor = conn.execute("UPDATE neurons SET validator_permit = ? WHERE hotkey = ?", (int(bool(permit)), hotkey))
        if cursor.rowcount == 0:
            return False
        self._ledger.record(conn, self._now(), CALL_PERMIT, None, {"hotkey": hotkey, "permit": bool(permit)})
        return True

    # --- signed writes --------------------------------------------------------------------------------------------

    def serve_axon(self, wallet: Any, ip: str, port: int, protocol: int = 4) -> ChainOutcome:
        """Publish the wallet hotkey's axon (ip, port, protocol)."""
        action = f"serve an axon on LocalChain netuid {self.netuid}"
        address = axon_address(action, ip, port, protocol)
        hotkey = wallet_hotkey(wallet, action)
        action += f" as {hotkey}"
        args = {
            "netuid": self.netuid,
            "ip": str(address),
            "ip_type": address.version,
            "port": int(port),
            "protocol": int(protocol),
        }
        signature = self._sign(wallet, hotkey, action, CALL_SERVE_AXON, args)
        with self._ledger.write(action) as conn:
            if self._ledger.neuron_by_hotkey(conn, hotkey) is None:
                raise self._not_registered(action, hotkey, wallet)
            block = self._now()
            conn.execute(
                "UPDATE neurons SET axon_ip = ?, axon_port = ?, axon_protocol = ? WHERE hotkey = ?",
                (str(address), int(port), int(protocol), hotkey),
            )
            extrinsic_id = self._ledger.record(conn, block, CALL_SERVE_AXON, hotkey, args, signature)
        return self._outcome(CALL_SERVE_AXON, block, extrinsic_id, args)

    def set_commitment(self, wallet: Any, data: str) -> ChainOutcome:
        """Publish `data` (1..128 UTF-8 bytes) as the wallet hotkey's commitment; the latest one is kept."""
        info = commitment_info(data)
        (field,) = info["fields"][0][0]
        sent = {"field": field, "bytes": int(field.removeprefix("Raw"))}
        action = f"publish a commitment on LocalChain netuid {self.netuid}"
        hotkey = wallet_hotkey(wallet, action)
        action += f" as {hotkey}"
        args = {"netuid": self.netuid, "info": info}
        signature = self._sign(wallet, hotkey, action, CALL_COMMITMENT, args)
        with self._ledger.write(action) as conn:
            if self._ledger.neuron_by_hotkey(conn, hotkey) is None:
                raise self._not_registered(action, hotkey, wallet)
            block = self._now()
            conn.execute(
                "INSERT INTO commitments (hotkey, value, block) VALUES (?, ?, ?) "
                "ON CONFLICT (hotkey) DO UPDATE SET value = excluded.value, block = excluded.block",
                (hotkey, data, block),
            )
            extrinsic_id = self._ledger.record(conn, block, CALL_COMMITMENT, hotkey, args, signature)
        return self._outcome(CALL_COMMITMENT, block, extrinsic_id, sent)

    def set_weights(self, wallet: Any, weights: dict[int, float], *, version_key: int = 0) -> ChainOutcome:
        """Set the wallet hotkey's weights, as `SubtensorModule.set_mechanism_weights` with the SDK's u16 vector.

        Raises `ChainError`: `not_registered`, `no_permit`, `rate_limited` (with `retry_in_blocks`), `bad_input`
        (empty, negative or non-finite weights, all zero, unknown uids). Nothing is stored when it raises.
        """
        action = f"set weights on LocalChain netuid {self.netuid}"
        uids, u16_uids, u16_values = u16_weights(action, weights, version_key)
        hotkey = wallet_hotkey(wallet, action)
        action += f" as {hotkey}"
        args = {
            "netuid": self.netuid,
            "mecid": 0,
            "dests": u16_uids,
            "weights": u16_values,
            "version_key": int(version_key),
        }
        signature = self._sign(wallet, hotkey, action, CALL_WEIGHTS, args)
        with self._ledger.write(action) as conn:
            neuron = self._ledger.neuron_by_hotkey(conn, hotkey)
            if neuron is None:
                raise self._not_registered(action, hotkey, wallet)
            if not neuron.validator_permit:
                raise ChainError(
                    "no_permit",
                    f"cannot {action}: uid {neuron.uid} has no validator permit; grant it "
                    f"with {self._register_hint(wallet)} --validator-permit",
                )
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
                raise ChainError(
                    "bad_input",
                    f"cannot {action}: uids {unknown} are not in the metagraph of netuid "
                    f"{self.netuid} ({len(known)} neurons)",
                )
            extrinsic_id = self._ledger.record(conn, block, CALL_WEIGHTS, hotkey, args, signature)
            conn.execute(
                "INSERT INTO weights (uid, hotkey, block, uids, weights, version_key, extrinsic_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    neuron.uid,
                    hotkey,
                    block,
                    json.dumps(u16_uids),
                    json.dumps(u16_values),
                    int(version_key),
                    extrinsic_id,
                ),
            )
            conn.execute("UPDATE neurons SET last_update = ? WHERE uid = ?", (block, neuron.uid))
        data = {"netuid": self.netuid, "version_key": int(version_key), "uids": u16_uids, "weights": u16_values}
        return self._outcome(CALL_WEIGHTS, block, extrinsic_id, data)

    def close(self) -> None:
        """Close this process's connection; the next call reopens it."""
        self._ledger.close()
