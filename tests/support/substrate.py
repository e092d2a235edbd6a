"""An in-memory subtensor at the bittensor SDK's substrate boundary, for tests.

`InMemorySubstrate` implements the `bittensor.Substrate` protocol (the seam `bittensor.Client(substrate=...)`
accepts) and holds the state of subnets: neurons (`Uids`, `Keys`, `Owner`, stakes, axons), the weight
hyperparameters (`WeightsSetRateLimit`, `CommitRevealWeightsEnabled`, `MaxWeightsLimit`, `MinAllowedWeights`,
`WeightsVersionKey`), `LastUpdate`, the epoch schedule the timelocked path reads, and the Commitments pallet.

It answers the way the RPC backend does: storage reads return plain decoded values (ValueQuery items fall back to
their defaults, OptionQuery items to None), the metagraph runtime API returns the decoded `Metagraph` record,
`compose` returns the transport's opaque `CallBytes`, and `submit` verifies the signature, includes the extrinsic
in a new block, runs a model of the pallet checks and returns a typed `ExtrinsicResult` (a failed dispatch is a
failed result, not an exception). Every composed call and every submitted extrinsic is recorded (`composed`,
`submitted`) so tests can assert on the exact call and its u16 arguments.

Not modelled: state history (a read pinned to an older block sees the current state), fees beyond a flat
estimate, the transaction pool, subscriptions, multisig and MEV-shield paths. Those methods raise
`NotImplementedError`, so an SDK path that starts depending on them fails loudly.
"""

from __future__ import annotations

import copy
import hashlib
import ipaddress
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import bittensor as bt
from bittensor._generated.errors import ERRORS
from bittensor._transport.contract import CallBytes
from bittensor.sp_core import Keypair

U16_MAX = 65535
RAO_PER_TAO = 10**9
GLOBAL_MAX_SUBNET_COUNT = 4096
BLOCK_HASH_COUNT = 4096  # frame_system keeps this many recent hashes in System.BlockHash
MAX_COMMITMENT_FIELDS = 3
FLAT_FEE_RAO = 125_000
SPEC_VERSION = 400
GENESIS_MS = 1_700_000_000_000
ZERO_HASH = "0x" + "00" * 32

_ERROR_DOCS = {info.name: info.docs or info.name for info in ERRORS.values()}

# Defaults of the ValueQuery items this fake models (what the node returns for a key never written).
DEFAULTS: dict[tuple[str, str], Any] = {
    ("SubtensorModule", "WeightsSetRateLimit"): 100,
    ("SubtensorModule", "CommitRevealWeightsEnabled"): False,
    ("SubtensorModule", "CommitRevealWeightsVersion"): 4,
    ("SubtensorModule", "MaxWeightsLimit"): U16_MAX,
    ("SubtensorModule", "MinAllowedWeights"): 0,
    ("SubtensorModule", "WeightsVersionKey"): 0,
    ("SubtensorModule", "LastUpdate"): [],
    ("SubtensorModule", "ValidatorPermit"): [],
    ("SubtensorModule", "SubnetEpochConsensus"): "Yuma",
    ("SubtensorModule", "Tempo"): 360,
    ("SubtensorModule", "RevealPeriodEpochs"): 1,
    ("SubtensorModule", "LastEpochBlock"): 0,
    ("SubtensorModule", "PendingEpochAt"): 0,
    ("SubtensorModule", "SubnetEpochIndex"): 0,
    ("SubtensorModule", "BlocksSinceLastStep"): 0,
    ("SubtensorModule", "SubnetworkN"): 0,
    ("SubtensorModule", "NetworksAdded"): False,
    ("System", "Number"): 0,
}

HYPERPARAMETERS = {
    "weights_rate_limit": "WeightsSetRateLimit",
    "commit_reveal": "CommitRevealWeightsEnabled",
    "max_weights_limit": "MaxWeightsLimit",
    "min_allowed_weights": "MinAllowedWeights",
    "weights_version_key": "WeightsVersionKey",
    "tempo": "Tempo",
    "reveal_period": "RevealPeriodEpochs",
    "last_epoch_block": "LastEpochBlock",
    "blocks_since_last_step": "BlocksSinceLastStep",
}


@dataclass
class ComposedCall:
    """A generated call as it reached `compose`, with the opaque bytes handed back to the SDK."""

    module: str
    function: str
    params: dict[str, Any]
    call: CallBytes

    @property
    def name(self) -> str:
        return f"{self.module}.{self.function}"


@dataclass
class SubmittedExtrinsic:
    """One signed extrinsic: who signed it, whether the signature verified, where it landed, how it ended."""

    call: ComposedCall
    signer: str
    nonce: int
    signature_valid: bool
    block: int
    index: int
    success: bool
    error: str | None = None
    wait_for_inclusion: bool = True
    wait_for_finalization: bool = True


@dataclass
class FakeNeuron:
    uid: int
    hotkey: str
    coldkey: str
    stake_rao: int = 0
    validator_permit: bool = False
    axon: tuple[str, int, int] | None = None  # (ip, port, protocol)
    registered_at: int = 0
    active: bool = True


@dataclass
class FakeSubnet:
    netuid: int
    name: str = "shoparena"
    symbol: str = "\u03b1"
    registered_at: int = 1
    neurons: list[FakeNeuron] = field(default_factory=list)


def block_hash_of(number: int) -> str:
    """The fake chain's deterministic hash for block `number`."""
    return "0x" + hashlib.blake2b(f"in-memory-subtensor:{number}".encode(), digest_size=32).hexdigest()


def ss58_for(seed: str) -> str:
    """A valid ss58 address derived from `seed` (for neurons no test signs with)."""
    return bt.sp_core.ss58_encode(hashlib.blake2b(seed.encode(), digest_size=32).digest(), 42)


class InMemorySubstrate:
    """A small subtensor held in memory, speaking the SDK's `Substrate` protocol."""

    def __init__(self, *, block: int = 5000, block_time: float = 12.0) -> None:
        self.head = block
        self.block_time_s = block_time
        self.token_symbols: dict[int, str] = {}
        self.subnets: dict[int, FakeSubnet] = {}
        self.storage: dict[tuple[str, str], dict[tuple[Any, ...], Any]] = {}
        self.composed: list[ComposedCall] = []
        self.submitted: list[SubmittedExtrinsic] = []
        self.nonces: dict[str, int] = {}
        self.extrinsics: dict[int, list[dict[str, Any]]] = {}
        self.block_events: dict[int, list[dict[str, Any]]] = {}
        self.connects = 0
        self.closes = 0
        self.reads: list[tuple[str, str]] = []
        self._by_bytes: dict[bytes, ComposedCall] = {}

    # --- building state -----------------------------------------------------------------------------------------

    def add_subnet(self, netuid: int, **hyperparameters: Any) -> FakeSubnet:
        subnet = FakeSubnet(netuid=netuid)
        self.subnets[netuid] = subnet
        self.put("SubtensorModule", "NetworksAdded", [netuid], True)
        self.put("SubtensorModule", "TokenSymbol", [netuid], "0x" + subnet.symbol.encode().hex())
        self.set_hyperparameters(netuid, **hyperparameters)
        return subnet

    def set_hyperparameters(self, netuid: int, **values: Any) -> None:
        for key, value in values.items():
            self.put("SubtensorModule", HYPERPARAMETERS[key], [netuid], value)

    def add_neuron(
        self,
        netuid: int,
        hotkey: str,
        coldkey: str,
        *,
        stake_rao: int = 0,
        validator_permit: bool = False,
        axon: tuple[str, int, int] | None = None,
        registered_at: int | None = None,
        last_update: int = 0,
    ) -> FakeNeuron:
        subnet = self.subnets[netuid]
        uid = len(subnet.neurons)
        neuron = FakeNeuron(
            uid,
            hotkey,
            coldkey,
            stake_rao,
            validator_permit,
            axon,
            self.head if registered_at is None else registered_at,
        )
        subnet.neurons.append(neuron)
        self.put("SubtensorModule", "Uids", [netuid, hotkey], uid)
        self.put("SubtensorModule", "Keys", [netuid, uid], hotkey)
        self.put("SubtensorModule", "Owner", [hotkey], coldkey)
        self.put("SubtensorModule", "SubnetworkN", [netuid], len(subnet.neurons))
        self.put("SubtensorModule", "ValidatorPermit", [netuid], [n.validator_permit for n in subnet.neurons])
        updates = list(self.get("SubtensorModule", "LastUpdate", [netuid]))
        updates.append(last_update)
        self.put("SubtensorModule", "LastUpdate", [netuid], updates)
        return neuron

    def set_last_update(self, netuid: int, uid: int, block: int) -> None:
        updates = list(self.get("SubtensorModule", "LastUpdate", [netuid]))
        updates[uid] = block
        self.put("SubtensorModule", "LastUpdate", [netuid], updates)

    def put_commitment(self, netuid: int, hotkey: str, text: str, *, block: int) -> None:
        """A plain commitment as the pallet stores it (`Raw<N>` bytes as 0x-hex)."""
        raw = text.encode()
        record = {"deposit": 0, "block": block, "info": {"fields": [{f"Raw{len(raw)}": "0x" + raw.hex()}]}}
        self.put("Commitments", "CommitmentOf", [netuid, hotkey], record)

    def put_sealed_commitment(self, netuid: int, hotkey: str, *, block: int, reveal_round: int) -> None:
        """A timelocked commitment the chain has not decrypted yet."""
        sealed = {"TimelockEncrypted": {"encrypted": "0x" + "ab" * 48, "reveal_round": reveal_round}}
        self.put(
            "Commitments",
            "CommitmentOf",
            [netuid, hotkey],
            {"deposit": 0, "block": block, "info": {"fields": [sealed]}},
        )

    def put_revealed_commitment(self, netuid: int, hotkey: str, text: str, *, reveal_block: int) -> None:
        """A fully revealed timelocked commitment: the pallet drops `CommitmentOf` and keeps the plaintext."""
        raw = text.encode()
        assert len(raw) < 64, "single-byte compact prefix only"
        scale = bytes([len(raw) << 2]) + raw
        self.put("Commitments", "RevealedCommitments", [netuid, hotkey], [("0x" + scale.hex(), reveal_block)])

    def advance(self, blocks: int = 1) -> int:
        self.head += blocks
        return self.head

    # --- raw storage ----------------------------------------------------------------------------------------------

    def put(self, module: str, name: str, keys: list[Any], value: Any) -> None:
        self.storage.setdefault((module, name), {})[tuple(keys)] = value

    def get(self, module: str, name: str, keys: list[Any] | None = None) -> Any:
        key = tuple(keys or [])
        if module == "System" and name == "Number":
            return self.head
        if module == "System" and name == "BlockHash":
            # frame_system writes BlockHash[n - 1] when block n initializes and prunes entries older than
            # BlockHashCount, keeping genesis: at the head's state the head's own hash is not stored yet.
            number = int(key[0])
            if number == 0 or 1 <= self.head - number <= BLOCK_HASH_COUNT:
                return block_hash_of(number)
            return ZERO_HASH
        if module == "Timestamp" and name == "Now":
            return GENESIS_MS + int(self.head * self.block_time_s * 1000)
        items = self.storage.get((module, name), {})
        if key in items:
            return copy.deepcopy(items[key])
        return copy.deepcopy(DEFAULTS.get((module, name)))

    def _check_hash(self, block_hash: str | None) -> None:
        if block_hash is not None and self._number_of(block_hash) is None:
            raise bt.ChainError(f"Block {block_hash} not found")

    def _number_of(self, block_hash: str) -> int | None:
        for number in range(self.head, -1, -1):
            if block_hash_of(number) == block_hash:
                return number
        return None

    # --- Substrate protocol: display and lifecycle ------------------------------------------------------------------

    def balance(self, rao: int, netuid: int = 0) -> bt.Balance:
        return bt.Balance(int(rao), netuid, self.token_symbols.get(netuid) if netuid else None)

    async def connect(self) -> None:
        self.connects += 1

    async def close(self) -> None:
        self.closes += 1

    # --- reads ----------------------------------------------------------------------------------------------------

    async def block_hash(self, block: int | None = None) -> str:
        number = self.head if block is None else int(block)
        if not 0 <= number <= self.head:
            raise bt.ChainError(f"Block {number} not found")
        return block_hash_of(number)

    async def block_number(self) -> int:
        return self.head

    async def finalized_block_number(self) -> int:
        return self.head

    async def block_time(self) -> float:
        return int(await self.constant("Aura", "SlotDuration")) / 1000.0

    async def spec_version(self) -> int:
        return SPEC_VERSION

    async def get_block(self, block_number: int | None = None, block_hash: str | None = None) -> dict | None:
        number = self.head if block_number is None and block_hash is None else block_number
        if block_hash is not None:
            number = self._number_of(block_hash)
        if number is None or not 0 <= number <= self.head:
            return None
        stamp = GENESIS_MS + int(number * self.block_time_s * 1000)
        inherent = {
            "call": {
                "call_module": "Timestamp",
                "call_function": "set",
                "call_args": [{"name": "now", "type": "Moment", "value": stamp}],
            }
        }
        header = {
            "number": number,
            "hash": block_hash_of(number),
            "parentHash": block_hash_of(number - 1) if number else ZERO_HASH,
        }
        return {"header": header, "extrinsics": [inherent, *self.extrinsics.get(number, [])]}

    async def query(
        self, module: str, storage_function: str, params: list | None = None, block_hash: str | None = None
    ) -> Any:
        self._check_hash(block_hash)
        self.reads.append((module, storage_function))
        if (module, storage_function) == ("Timestamp", "Now") and block_hash is not None:
            return GENESIS_MS + int((self._number_of(block_hash) or 0) * self.block_time_s * 1000)
        return self.get(module, storage_function, params)

    async def map_has_entries(
        self, module: str, storage_function: str, params: list, block_hash: str | None = None
    ) -> bool:
        return bool(await self.query_map(module, storage_function, params, block_hash))

    async def query_map(
        self, module: str, storage_function: str, params: list | None = None, block_hash: str | None = None
    ) -> list[tuple[Any, Any]]:
        self._check_hash(block_hash)
        self.reads.append((module, storage_function))
        prefix = tuple(params or [])
        rows = []
        for key, value in self.storage.get((module, storage_function), {}).items():
            if key[: len(prefix)] == prefix:
                rest = key[len(prefix) :]
                rows.append((rest[0] if len(rest) == 1 else rest, copy.deepcopy(value)))
        return rows

    async def query_batch(
        self, module: str, storage_function: str, param_sets: list[list], block_hash: str | None = None
    ) -> list[Any]:
        return [await self.query(module, storage_function, params, block_hash) for params in param_sets]

    async def runtime_call(self, api: str, method: str, params: list, block_hash: str | None = None) -> Any:
        self._check_hash(block_hash)
        self.reads.append((api, method))
        if (api, method) == ("SubnetInfoRuntimeApi", "get_metagraph"):
            return self._metagraph(int(params[0]))
        raise NotImplementedError(f"InMemorySubstrate does not model runtime API {api}.{method}")

    async def constant(self, module: str, name: str) -> Any:
        if (module, name) == ("Aura", "SlotDuration"):
            return int(self.block_time_s * 1000)
        raise NotImplementedError(f"InMemorySubstrate does not model constant {module}.{name}")

    async def decode_scale(self, type_string: str, data: Any) -> Any:
        raise NotImplementedError("InMemorySubstrate does not decode SCALE")

    def blocks(self, *, finalized: bool = False) -> AsyncIterator[dict]:
        raise NotImplementedError("InMemorySubstrate does not stream blocks")

    async def events(self, block_hash: str | None = None) -> list[dict]:
        number = self.head if block_hash is None else self._number_of(block_hash)
        return list(self.block_events.get(number, [])) if number is not None else []

    # --- calls and fees -------------------------------------------------------------------------------------------

    async def compose(self, call: Any) -> CallBytes:
        module, function, params = call
        self._check_encodable(module, function, params)
        data = json.dumps([module, function, params], sort_keys=True, default=_encode_bytes).encode()
        composed = CallBytes(data=data, spec_version=SPEC_VERSION)
        record = ComposedCall(module, function, copy.deepcopy(params), composed)
        self.composed.append(record)
        self._by_bytes[data] = record
        return composed

    async def estimate_fee(self, call: Any, keypair: Any) -> bt.Balance:
        return bt.Balance.from_rao(FLAT_FEE_RAO)

    async def estimate_weight(self, call: Any, keypair: Any) -> dict:
        return {"ref_time": 1_000_000, "proof_size": 0}

    async def account_next_index(self, address: str) -> int:
        return self.nonces.get(address, 0)

    # --- writes ---------------------------------------------------------------------------------------------------

    async def mev_next_key(self) -> bytes | None:
        return None

    async def submit(
        self,
        call: Any,
        keypair: Any,
        *,
        nonce: int | None = None,
        period: int | None = 128,
        wait_for_inclusion: bool = True,
        wait_for_finalization: bool = True,
    ) -> bt.ExtrinsicResult:
        composed = self._by_bytes.get(call.data) if isinstance(call, CallBytes) else None
        if composed is None:
            raise bt.ChainError("InMemorySubstrate can only submit calls it composed")
        signer = keypair.ss58_address
        nonce = self.nonces.get(signer, 0) if nonce is None else nonce
        payload = call.data + nonce.to_bytes(8, "little") + block_hash_of(0).encode()
        try:
            signature = bytes(keypair.sign(payload))
        except Exception as error:  # the RPC backend surfaces signing failures as ChainError too
            raise bt.ChainError(str(error)) from error
        valid = Keypair(ss58_address=signer).verify(payload, signature)
        if not valid:
            return bt.ExtrinsicResult(
                success=False,
                message="Invalid Transaction: BadProof",
                error=bt.ChainError("Invalid Transaction: BadProof", "BadProof"),
            )
        self.head += 1
        block, index = self.head, 1 + len(self.extrinsics.get(self.head, []))
        self.nonces[signer] = nonce + 1
        error, events = self._dispatch(composed, signer, block)
        self.submitted.append(
            SubmittedExtrinsic(
                composed,
                signer,
                nonce,
                valid,
                block,
                index,
                error is None,
                error,
                wait_for_inclusion,
                wait_for_finalization,
            )
        )
        self.extrinsics.setdefault(block, []).append(
            {
                "address": signer,
                "nonce": nonce,
                "call": {
                    "call_module": composed.module,
                    "call_function": composed.function,
                    "call_args": [{"name": k, "value": v} for k, v in composed.params.items()],
                },
            }
        )
        outcome = (
            {"module_id": "System", "event_id": "ExtrinsicSuccess", "attributes": {}}
            if error is None
            else {"module_id": "System", "event_id": "ExtrinsicFailed", "attributes": {"dispatch_error": error}}
        )
        records = [{"phase": {"ApplyExtrinsic": index}, "event": e} for e in [*events, outcome]]
        self.block_events.setdefault(block, []).extend(records)
        if not (wait_for_inclusion or wait_for_finalization):
            return bt.ExtrinsicResult(success=True, message="Submitted (not waiting).")
        extrinsic_id = f"{block}-{index:04d}"
        if error is None:
            return bt.ExtrinsicResult(
                success=True,
                message="Success",
                block_hash=block_hash_of(block),
                extrinsic_id=extrinsic_id,
                fee=bt.Balance.from_rao(FLAT_FEE_RAO),
                events=records,
            )
        text = _ERROR_DOCS.get(error, error)
        return bt.ExtrinsicResult(
            success=False,
            message=text,
            block_hash=block_hash_of(block),
            extrinsic_id=extrinsic_id,
            error=bt.ChainError(text, error),
        )

    async def sign_extrinsic(self, call: Any, keypair: Any, *, nonce: int, period: int) -> tuple[bytes, str]:
        raise NotImplementedError("InMemorySubstrate does not model MEV-shielded submission")

    async def find_extrinsic(self, extrinsic_hash: str, block_hash: str) -> Any:
        raise NotImplementedError("InMemorySubstrate does not model MEV-shielded submission")

    async def prepare(self, call: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("InMemorySubstrate does not model out-of-process signing")

    async def submit_signature(self, unsigned: Any, signature: Any, **kwargs: Any) -> bt.ExtrinsicResult:
        raise NotImplementedError("InMemorySubstrate does not model out-of-process signing")

    async def submit_signed(self, extrinsic: Any, keypair: Any, **kwargs: Any) -> bt.ExtrinsicResult:
        raise NotImplementedError("InMemorySubstrate does not model pre-signed extrinsics")

    def multisig_account(self, signatories: list[str], threshold: int) -> Any:
        raise NotImplementedError("InMemorySubstrate does not model multisig")

    async def submit_multisig(self, call: Any, keypair: Any, multisig_account: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("InMemorySubstrate does not model multisig")

    # --- the model of the runtime -----------------------------------------------------------------------------------

    def _check_encodable(self, module: str, function: str, params: dict[str, Any]) -> None:
        """What SCALE encoding would refuse for the calls this fake models (others are not modelled at all)."""
        if (module, function) == ("SubtensorModule", "set_mechanism_weights"):
            for name in ("dests", "weights"):
                values = params[name]
                if not all(isinstance(v, int) and 0 <= v <= U16_MAX for v in values):
                    raise ValueError(f"cannot encode {name}={values!r} as Vec<u16>")
            _require_ints(params, "netuid", "mecid", "version_key")
        elif (module, function) == ("SubtensorModule", "commit_timelocked_mechanism_weights"):
            if not isinstance(params["commit"], bytes | bytearray) or not params["commit"]:
                raise ValueError("cannot encode commit as BoundedVec<u8>")
            _require_ints(params, "netuid", "mecid", "reveal_round", "commit_reveal_version")
        elif (module, function) == ("Commitments", "set_commitment"):
            _require_ints(params, "netuid")
            for entry in _commitment_fields(params["info"]):
                for variant, value in entry.items():
                    if not variant.startswith("Raw"):
                        raise ValueError(f"InMemorySubstrate models Raw<N> commitment fields only, not {variant}")
                    size = int(variant[3:])
                    raw = value.encode() if isinstance(value, str) else bytes(value)
                    if size > 128 or len(raw) != size:
                        raise ValueError(f"cannot encode {len(raw)} bytes as Data::{variant}")
        else:
            raise NotImplementedError(f"InMemorySubstrate does not model the call {module}.{function}")

    def _dispatch(self, call: ComposedCall, signer: str, block: int) -> tuple[str | None, list[dict[str, Any]]]:
        """Run the pallet's checks and effects; returns (error name or None, events)."""
        params = call.params
        netuid = int(params["netuid"])
        if netuid not in self.subnets:
            return "SubnetNotExists", []
        uid = self.get("SubtensorModule", "Uids", [netuid, signer])
        if call.module == "Commitments":
            if uid is None:
                return "AccountNotAllowedCommit", []
            fields = _commitment_fields(params["info"])
            if len(fields) > MAX_COMMITMENT_FIELDS:
                return "TooManyFieldsInCommitmentInfo", []
            stored = [
                {v: "0x" + (x.encode() if isinstance(x, str) else bytes(x)).hex() for v, x in f.items()} for f in fields
            ]
            self.put(
                "Commitments",
                "CommitmentOf",
                [netuid, signer],
                {"deposit": 0, "block": block, "info": {"fields": stored}},
            )
            return None, [
                {"module_id": "Commitments", "event_id": "Commitment", "attributes": {"netuid": netuid, "who": signer}}
            ]
        if uid is None:
            return "HotKeyNotRegisteredInSubNet", []
        index = int(params["mecid"]) * GLOBAL_MAX_SUBNET_COUNT + netuid
        commit_reveal = bool(self.get("SubtensorModule", "CommitRevealWeightsEnabled", [netuid]))
        rate = int(self.get("SubtensorModule", "WeightsSetRateLimit", [netuid]))
        updates = list(self.get("SubtensorModule", "LastUpdate", [index]))
        last = updates[uid] if uid < len(updates) else 0
        too_fast = rate and last and block - last < rate
        if call.function == "set_mechanism_weights":
            if commit_reveal:
                return "CommitRevealEnabled", []
            if too_fast:
                return "SettingWeightsTooFast", []
            error = self._check_weights(netuid, uid, params)
            if error:
                return error, []
            self.put(
                "SubtensorModule", "Weights", [index, uid], list(zip(params["dests"], params["weights"], strict=True))
            )
            event = {"module_id": "SubtensorModule", "event_id": "WeightsSet", "attributes": [netuid, uid]}
        else:
            if not commit_reveal:
                return "CommitRevealDisabled", []
            if int(params["commit_reveal_version"]) != int(self.get("SubtensorModule", "CommitRevealWeightsVersion")):
                return "IncorrectCommitRevealVersion", []
            if too_fast:
                return "CommittingWeightsTooFast", []
            commits = self.storage.setdefault(("SubtensorModule", "TimelockedWeightCommits"), {})
            commits.setdefault((index, signer), []).append((block, bytes(params["commit"]), params["reveal_round"]))
            event = {
                "module_id": "SubtensorModule",
                "event_id": "TimelockedWeightsCommitted",
                "attributes": [signer, netuid, params["reveal_round"]],
            }
        while len(updates) <= uid:
            updates.append(0)
        updates[uid] = block
        self.put("SubtensorModule", "LastUpdate", [index], updates)
        return None, [event]

    def _check_weights(self, netuid: int, uid: int, params: dict[str, Any]) -> str | None:
        dests, values = list(params["dests"]), list(params["weights"])
        if int(params["version_key"]) < int(self.get("SubtensorModule", "WeightsVersionKey", [netuid])):
            return "IncorrectWeightVersionKey"
        if len(dests) != len(values):
            return "WeightVecNotEqualSize"
        if len(set(dests)) != len(dests):
            return "DuplicateUids"
        if any(d >= len(self.subnets[netuid].neurons) for d in dests):
            return "UidVecContainInvalidOne"
        if dests == [uid]:
            return None  # a self-weight is exempt from the count and max-weight checks
        if len(dests) < int(self.get("SubtensorModule", "MinAllowedWeights", [netuid])):
            return "WeightVecLengthIsLow"
        limit = int(self.get("SubtensorModule", "MaxWeightsLimit", [netuid]))
        if limit < U16_MAX and values and not _max_limited(values, limit):
            return "MaxWeightExceeded"
        return None

    def _metagraph(self, netuid: int) -> dict[str, Any] | None:
        """The decoded `SubnetInfoRuntimeApi.get_metagraph` record, or None for a subnet that does not exist."""
        subnet = self.subnets.get(netuid)
        if subnet is None:
            return None
        neurons = subnet.neurons
        n = len(neurons)
        owner = neurons[0] if neurons else None
        return {
            "netuid": netuid,
            "name": list(subnet.name.encode()),
            "symbol": list(subnet.symbol.encode()),
            "identity": None,
            "network_registered_at": subnet.registered_at,
            "owner_hotkey": owner.hotkey if owner else ss58_for("owner-hotkey"),
            "owner_coldkey": owner.coldkey if owner else ss58_for("owner-coldkey"),
            "block": self.head,
            "tempo": self.get("SubtensorModule", "Tempo", [netuid]),
            "last_step": self.get("SubtensorModule", "LastEpochBlock", [netuid]),
            "blocks_since_last_step": self.get("SubtensorModule", "BlocksSinceLastStep", [netuid]),
            "subnet_emission": 0,
            "alpha_in": 10 * RAO_PER_TAO,
            "alpha_out": 0,
            "tao_in": 5 * RAO_PER_TAO,
            "moving_price": {"bits": 0},
            "num_uids": n,
            "max_uids": 256,
            "hotkeys": [x.hotkey for x in neurons],
            "coldkeys": [x.coldkey for x in neurons],
            "identities": [None] * n,
            "axons": [_axon_info(x.axon, x.registered_at) for x in neurons],
            "active": [x.active for x in neurons],
            "validator_permit": [x.validator_permit for x in neurons],
            "pruning_score": [0] * n,
            "last_update": list(self.get("SubtensorModule", "LastUpdate", [netuid])),
            "emission": [0] * n,
            "dividends": [0] * n,
            "incentives": [0] * n,
            "consensus": [0] * n,
            "trust": [0] * n,
            "rank": [0] * n,
            "block_at_registration": [x.registered_at for x in neurons],
            "alpha_stake": [x.stake_rao for x in neurons],
            "tao_stake": [0] * n,
            "total_stake": [x.stake_rao for x in neurons],
        }


def _axon_info(axon: tuple[str, int, int] | None, block: int) -> dict[str, int]:
    """A runtime `AxonInfo` (ip as an integer; all zeros when nothing is served)."""
    if axon is None:
        return {
            "block": 0,
            "version": 0,
            "ip": 0,
            "port": 0,
            "ip_type": 0,
            "protocol": 0,
            "placeholder1": 0,
            "placeholder2": 0,
        }
    ip, port, protocol = axon
    address = ipaddress.ip_address(ip)
    return {
        "block": block,
        "version": 1,
        "ip": int(address),
        "port": port,
        "ip_type": address.version,
        "protocol": protocol,
        "placeholder1": 0,
        "placeholder2": 0,
    }


def _commitment_fields(info: Any) -> list[dict[str, Any]]:
    """`CommitmentInfo.fields` as a list of `Data` variants; each may come wrapped in a 1-tuple, as the SDK sends."""
    out = []
    for entry in info["fields"]:
        while isinstance(entry, list | tuple) and len(entry) == 1:
            entry = entry[0]
        if not isinstance(entry, dict) or len(entry) != 1:
            raise ValueError(f"cannot encode commitment field {entry!r} as Data")
        out.append(entry)
    return out


def _max_limited(values: list[int], limit: int) -> bool:
    """subtensor's `check_vec_max_limited` in I32F32 fixed point (32 fractional bits, divisions truncate): after
    normalizing the vector to sum 1, its largest share is at most `limit / 65535`."""
    total = sum(values)
    if total == 0:
        return True
    return (max(values) << 32) // total <= (limit << 32) // U16_MAX


def _require_ints(params: dict[str, Any], *names: str) -> None:
    for name in names:
        if not isinstance(params[name], int) or params[name] < 0:
            raise ValueError(f"cannot encode {name}={params[name]!r} as an unsigned integer")


def _encode_bytes(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        return "0x" + bytes(value).hex()
    raise TypeError(f"cannot encode {type(value).__name__}")
