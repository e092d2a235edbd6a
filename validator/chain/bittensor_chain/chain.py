"""`BittensorChain`: the `ChainPort` over the bittensor SDK (reads, commitments, weights)."""

from __future__ import annotations

import math
import threading
from typing import Any

import bittensor as bt
from bittensor.intents.weights import clip_to_max_weight, normalize
from bittensor.settings import default_archive_endpoints, default_fallback_endpoints, resolve_endpoint

from validator.chain.bittensor_chain.sdk import WEIGHT_CALLS, RecordingSubstrate, axon_of, call_name, hex_of, sdk_error
from validator.chain.bittensor_chain.wallets import check_hotkey_file
from validator.chain.port import ChainError, ChainOutcome, Commitment, Metagraph, Neuron, RateLimit, commitment_info

U16_MAX = 65535


class BittensorChain:
    """The `ChainPort` for one subnet on finney, test, a local subtensor or any ws(s):// endpoint."""

    def __init__(
        self, network: str, netuid: int, *, chain_endpoint: str | None = None, substrate: object | None = None
    ) -> None:
        self.network = network
        self.netuid = int(netuid)
        target = chain_endpoint or network
        try:
            self._label, self.endpoint = resolve_endpoint(target)
        except ValueError:
            raise ChainError(
                "bad_input",
                f"unknown subtensor network {target!r}: use finney, test, local, archive "
                "or a ws:// / wss:// endpoint (--subtensor.network / "
                "--subtensor.chain_endpoint)",
            ) from None
        self._pinned = chain_endpoint is not None
        self._substrate = substrate
        self._client: bt.SyncClient | None = None
        self._recorder: RecordingSubstrate | None = None
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"BittensorChain(network={self.network!r}, netuid={self.netuid}, endpoint={self.endpoint!r})"

    # --- plumbing -------------------------------------------------------------------------------------------------

    def _sdk(self) -> tuple[bt.SyncClient, RecordingSubstrate]:
        """The blocking SDK client, built on first use (it connects on its first call)."""
        with self._lock:
            if self._client is None or self._recorder is None:
                inner = self._substrate
                if inner is None:
                    fallbacks = [] if self._pinned else default_fallback_endpoints(self._label)
                    archives = [] if self._pinned else default_archive_endpoints(self._label)
                    inner = bt.RpcSubstrate(
                        self.endpoint,
                        fallback_endpoints=[url for url in fallbacks if url != self.endpoint],
                        archive_endpoints=archives,
                        retry_forever=False,
                    )
                self._recorder = RecordingSubstrate(inner)
                self._client = bt.SyncClient(self.endpoint, substrate=self._recorder)
            return self._client, self._recorder

    def _error(self, action: str, error: BaseException, *, invalid: str = "chain_error") -> ChainError:
        """One `ChainError` for a failure while doing `action`; `invalid` is the code for SDK argument errors."""
        return sdk_error(action, error, endpoint=self.endpoint, network=self.network, invalid=invalid)

    def _hotkey(self, wallet: Any, action: str) -> str:
        """The wallet's hotkey address, once its key file is checked (present, unencrypted)."""
        check_hotkey_file(wallet, action)
        try:
            return bt.public_view(wallet, "hotkey").ss58_address
        except Exception as error:
            raise self._error(action, error) from error

    # --- reads ----------------------------------------------------------------------------------------------------

    def block(self) -> int:
        client, _ = self._sdk()
        try:
            return int(client.block)
        except Exception as error:
            raise self._error("read the current block", error) from error

    def drand_pulse(self, round_: int) -> str | None:
        """The signature (hex) of drand quicknet round ``round_`` from the chain's Drand pallet (`Drand.Pulses`, which
        subtensor fills as the beacon publishes), or None while the chain does not hold it."""
        client, _ = self._sdk()
        try:
            pulse = client.query(bt.storage.Drand.Pulses, [int(round_)])
        except Exception as error:
            raise self._error(f"read drand round {round_}", error) from error
        if not pulse:
            return None
        signature = pulse.get("signature") if isinstance(pulse, dict) else getattr(pulse, "signature", None)
        if isinstance(signature, str):
            return signature.removeprefix("0x") or None
        if isinstance(signature, (bytes, bytearray, list, tuple)):
            return bytes(signature).hex() or None
        return None

    def block_hash(self, block: int) -> str:
        """`System.BlockHash[block]` (recent blocks), else the block's header (older ones)."""
        if block < 0:
            raise ChainError("bad_input", f"no block {block}: block numbers start at 0")
        client, _ = self._sdk()
        action = f"read the hash of block {block}"
        try:
            found = hex_of(client.query(bt.storage.System.BlockHash, [block]))
            if found is None or int(found, 16) == 0:
                info = client.block_info(block)
                found = hex_of(info.hash) if info is not None else None
        except Exception as error:
            raise self._error(action, error) from error
        if found is None or int(found, 16) == 0:
            raise ChainError(
                "not_found", f"cannot {action}: {self.endpoint} has no block {block} (not produced yet, or pruned)"
            )
        return found

    def block_timestamp(self, block: int) -> float:
        """`Timestamp.Now` as of `block` (the time its author stamped it), in unix seconds."""
        client, _ = self._sdk()
        try:
            return float(client.timestamp(block=int(block)).timestamp())
        except Exception as error:
            raise self._error(f"read the timestamp of block {block}", error) from error

    def metagraph(self, block: int | None = None) -> Metagraph:
        """The subnet's metagraph (as of `block` when given: an older block needs an archive node)."""
        client, _ = self._sdk()
        action = f"read the metagraph of netuid {self.netuid}" + (f" as of block {block}" if block is not None else "")
        try:
            graph = client.subnets.metagraph(self.netuid, block=block, commitments=False)
        except Exception as error:
            raise self._error(action, error) from error
        if graph is None:
            raise ChainError(
                "no_subnet",
                f"cannot {action}: subnet {self.netuid} does not exist on {self.endpoint} (network '{self.network}')",
            )
        axons = list(graph.raw.get("axons") or [])
        neurons = [
            Neuron(
                uid=n.uid,
                hotkey=n.hotkey,
                coldkey=n.coldkey,
                stake=float(n.total_stake.amount),
                validator_permit=n.validator_permit,
                axon=axon_of(axons[n.uid] if n.uid < len(axons) else None),
                last_update=n.last_update,
                block_at_registration=n.block_at_registration,
            )
            for n in graph.neurons
        ]
        return Metagraph(netuid=self.netuid, block=graph.block if block is None else int(block), neurons=neurons)

    def commitments(self, block: int | None = None) -> dict[str, Commitment]:
        """Readable commitments only: plain ones and revealed timelocked ones (sealed or failed ones are skipped); as
        of `block` when given (an older block needs an archive node)."""
        client, _ = self._sdk()
        try:
            found = client.subnets.commitments(self.netuid, block=block)
        except Exception as error:
            raise self._error(f"read the commitments of netuid {self.netuid}", error) from error
        out: dict[str, Commitment] = {}
        for hotkey, c in found.items():
            value = c.value
            if c.is_revealed and value is not None:
                out[hotkey] = Commitment(hotkey=hotkey, uid=c.uid, value=value, block=c.block)
        return out

    def weights(self, block: int | None = None) -> dict[int, dict[int, float]]:
        """Each validator uid's latest (revealed) weight row (as of `block`, else now), normalized to sum to 1."""
        client, _ = self._sdk()
        try:
            rows = client.weights.weights(self.netuid, block=block)
        except Exception as error:
            raise self._error(f"read the weights of netuid {self.netuid}", error) from error
        return {int(uid): {int(dest): float(w) for dest, w in row.items()} for uid, row in rows.items()}

    def rate_limit(self, hotkey: str) -> RateLimit:
        """`WeightsSetRateLimit` and blocks since `LastUpdate[uid]`, all read at one block."""
        client, _ = self._sdk()
        try:
            view = client.at()
            # bittensor 11.3's SyncSnapshot sets its namespaces with setattr and, unlike SyncClient, does not declare
            # them, so its types lack `hyperparameters` and `neurons` (both are there at run time)
            limit = int(view.hyperparameters.weights_rate_limit(self.netuid))  # type: ignore[attr-defined]
            uid = view.neurons.uid(hotkey, self.netuid)  # type: ignore[attr-defined]
            last = view.query(bt.storage.SubtensorModule.LastUpdate, [self.netuid]) if uid is not None else None
        except Exception as error:
            raise self._error(f"read the weights rate limit of {hotkey} on netuid {self.netuid}", error) from error
        since = None
        if uid is not None and isinstance(last, list | tuple) and uid < len(last) and int(last[uid]) > 0:
            since = view.block - int(last[uid])
        return RateLimit(weights_rate_limit=limit, blocks_since_last_update=since, block=view.block)

    # --- writes ---------------------------------------------------------------------------------------------------

    def set_commitment(self, wallet: Any, data: str) -> ChainOutcome:
        """Publish `data` as a plain `Raw<N>` commitment, signed by the wallet's hotkey."""
        info = commitment_info(data)
        (field,) = info["fields"][0][0]
        sent = {"field": field, "bytes": int(field.removeprefix("Raw"))}
        action = f"publish a commitment on netuid {self.netuid}"
        hotkey = self._hotkey(wallet, action)
        action += f" as {hotkey}"
        call = bt.calls.Commitments.set_commitment(netuid=self.netuid, info=info)
        client, _ = self._sdk()
        with self._lock:
            try:
                if client.neurons.uid(hotkey, self.netuid) is None:
                    raise ChainError(
                        "not_registered", f"cannot {action}: hotkey {hotkey} is not registered on netuid {self.netuid}"
                    )
                result = client.submit_call(
                    call, wallet, signer="hotkey", wait_for_inclusion=True, wait_for_finalization=False
                )
            except Exception as error:
                raise self._error(action, error, invalid="bad_input") from error
        return self._outcome(action, result, "Commitments.set_commitment", sent)

    def set_weights(self, wallet: Any, weights: dict[int, float], *, version_key: int = 0) -> ChainOutcome:
        """Set weights through `bittensor.SetWeights` (plain or timelocked, as the subnet runs).

        Raises `ChainError` when nothing could be sent (`rate_limited` with `retry_in_blocks`, `not_registered`,
        `bad_input`, `unreachable`, ...) or when the chain rejects the extrinsic as rate-limited or unregistered; any
        other on-chain failure is returned with `success=False`. `data` holds `uids`/`weights`, the u16 vector
        sent: read from the composed call on the plain path; on the timelocked path (encrypted in the call) as the
        SDK's public `clip_to_max_weight` + `normalize` conform it, plus `reveal_round`. Under a `MaxWeightsLimit`
        the vector is clipped with a rounding margin first (see `_within_max_weight`).
        """
        if not weights:
            raise ChainError("bad_input", f"no weights to set on netuid {self.netuid}")
        action = f"set weights on netuid {self.netuid}"
        hotkey = self._hotkey(wallet, action)
        action += f" as {hotkey}"
        client, recorder = self._sdk()
        with self._lock:
            try:
                vector = self._within_max_weight(client, {int(u): float(w) for u, w in weights.items()})
                intent = bt.SetWeights(netuid=self.netuid, weights=vector, version_key=int(version_key))
                recorder.composed.clear()
                recorder.recording = True
                try:
                    result = client.execute(intent, wallet, wait_for_inclusion=True, wait_for_finalization=False)
                finally:
                    recorder.recording = False
            except Exception as error:
                raise self._error(action, error, invalid="bad_input") from error
            sent = [c for c in recorder.composed if call_name(c) in WEIGHT_CALLS]
            recorder.composed.clear()
        call = sent[-1] if sent else None
        name = f"{call.module}.{call.function}" if call is not None else ""
        data: dict[str, Any] = {"netuid": self.netuid, "version_key": int(version_key)}
        if call is not None and call.function == "set_mechanism_weights":
            data["uids"] = [int(u) for u in call.params["dests"]]
            data["weights"] = [int(w) for w in call.params["weights"]]
        else:
            data["uids"], data["weights"] = self._conformed(client, hotkey, intent)
            if call is not None:
                data["reveal_round"] = int(call.params["reveal_round"])
                data["commit_reveal_version"] = int(call.params["commit_reveal_version"])
        if "reveal_round" in result.data:
            data["reveal_round"] = int(result.data["reveal_round"])
        return self._outcome(action, result, name, data)

    def close(self) -> None:
        """Close the connection; the next call reconnects."""
        with self._lock:
            client, self._client, self._recorder = self._client, None, None
        if client is not None:
            try:
                client.close()
            except Exception:  # closing is best-effort
                pass

    # --- helpers --------------------------------------------------------------------------------------------------

    def _within_max_weight(self, client: bt.SyncClient, weights: dict[int, float]) -> dict[int, float]:
        """`weights`, clipped so that the u16 vector the SDK derives from them passes the chain's `MaxWeightsLimit`.

        `SetWeights` clips the floats to exactly the limit and then rounds each value to u16; the rounding can shrink
        the sum by up to half a unit per uid, which leaves the largest share a hair above the limit, and the chain
        then rejects the extrinsic (`MaxWeightExceeded`) on every retry. Clipping first to a limit lowered by that
        rounding margin keeps the quantized vector within the limit; the SDK's own clip is then a no-op.
        """
        values = list(weights.values())
        if len(values) < 2 or not all(math.isfinite(w) and w >= 0 for w in values) or sum(values) <= 0:
            return weights  # a single (self-)weight is exempt; bad vectors are the SDK's to refuse
        limit = int(client.hyperparameters.max_weight_limit(self.netuid))
        if not 0 < limit < U16_MAX:
            return weights  # no limit (or one nothing can meet: the SDK and the chain say so)
        safe = 1.0 / (U16_MAX / limit + len(values) / (2 * U16_MAX))
        if len(values) * safe <= 1:
            return weights  # no vector of this length fits under the limit; the SDK spreads it uniformly
        return dict(zip(weights, clip_to_max_weight(values, safe), strict=True))

    def _conformed(self, client: bt.SyncClient, hotkey: str, intent: bt.SetWeights) -> tuple[list[int], list[int]]:
        """The u16 vector `SetWeights` derives from `intent` under the subnet's current `MaxWeightsLimit`."""
        uids = list(intent.uids or [])
        values = list(intent.weights or [])
        try:
            limit = int(client.hyperparameters.max_weight_limit(self.netuid))
            own = client.neurons.uid(hotkey, self.netuid)
        except Exception:  # the extrinsic is in; report what we can
            return [], []
        if uids != [own] and limit < U16_MAX:
            values = clip_to_max_weight(values, limit / U16_MAX)
        return normalize(uids, values)

    def _outcome(self, action: str, result: Any, call: str, data: dict[str, Any]) -> ChainOutcome:
        block = None
        if result.extrinsic_id and "-" in result.extrinsic_id:
            block = int(result.extrinsic_id.split("-", 1)[0])
        if not result.success:
            error = result.error or bt.ChainError(result.message or "extrinsic failed")
            failure = self._error(action, error)
            if failure.code in {"rate_limited", "not_registered"}:
                raise failure
            data = {**data, "error": {"code": error.code.value, "name": error.name}}
            return ChainOutcome(
                success=False,
                message=failure.message,
                call=call,
                block=block,
                block_hash=result.block_hash,
                extrinsic_id=result.extrinsic_id,
                data=data,
            )
        return ChainOutcome(
            success=True,
            message=result.message,
            call=call,
            block=block,
            block_hash=result.block_hash,
            extrinsic_id=result.extrinsic_id,
            data=data,
        )
