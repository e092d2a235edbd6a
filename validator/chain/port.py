"""The chain port: everything the node and the miner's CLI need from a chain, and nothing else.

Two implementations share it: `BittensorChain` (the bittensor 11.x SDK against finney, test or a local subtensor)
and `LocalChain` (a dev chain kept in a SQLite file). Callers only ever see the models below, so a race, the weight
setter and `arena-miner submit` run the same code on both.

Signing calls take the `bittensor.Wallet` that signs: a validator's for weights, a miner's for its commitment.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from arena.errors import CodedError

# A commitment's `Raw<N>` field holds at most 128 bytes (subtensor's commitments pallet).
MAX_COMMITMENT_BYTES = 128


def commitment_info(data: str) -> dict[str, Any]:
    """The Commitments pallet's `info` for `data` as one plain `Raw<N>` field; `ChainError("bad_input")` unless it
    is 1..128 bytes of UTF-8. Shared by every chain, so both refuse the same commitments."""
    raw = data.encode("utf-8")
    if not raw or len(raw) > MAX_COMMITMENT_BYTES:
        raise ChainError(
            "bad_input", f"a commitment holds 1..{MAX_COMMITMENT_BYTES} bytes of UTF-8; this one has {len(raw)} bytes"
        )
    return {"fields": [[{f"Raw{len(raw)}": data}]]}


class ChainError(CodedError):
    """A chain call failed. `code` is short and stable (`unreachable`, `rate_limited`, `not_registered`, ...)."""

    def __init__(self, code: str, message: str, *, retry_in_blocks: int | None = None) -> None:
        super().__init__(code, message)
        self.retry_in_blocks = retry_in_blocks


class Axon(BaseModel):
    ip: str
    port: int
    protocol: int = 4

    @property
    def url(self) -> str:
        host = f"[{self.ip}]" if ":" in self.ip else self.ip
        return f"http://{host}:{self.port}"


class Neuron(BaseModel):
    uid: int
    hotkey: str
    coldkey: str
    stake: float = 0.0
    validator_permit: bool = False
    axon: Axon | None = None
    last_update: int = 0
    block_at_registration: int = 0


class Metagraph(BaseModel):
    netuid: int
    block: int
    neurons: list[Neuron] = Field(default_factory=list)

    @property
    def hotkeys(self) -> list[str]:
        return [n.hotkey for n in self.neurons]

    @property
    def uids(self) -> list[int]:
        return [n.uid for n in self.neurons]

    def by_hotkey(self, hotkey: str) -> Neuron | None:
        for neuron in self.neurons:
            if neuron.hotkey == hotkey:
                return neuron
        return None

    def by_uid(self, uid: int) -> Neuron | None:
        for neuron in self.neurons:
            if neuron.uid == uid:
                return neuron
        return None


class Commitment(BaseModel):
    """A hotkey's latest published commitment: its text and the block it was included in."""

    hotkey: str
    uid: int | None = None
    value: str
    block: int


class RateLimit(BaseModel):
    """Whether a hotkey may set weights now: the subnet's `weights_rate_limit` against blocks since its last update."""

    weights_rate_limit: int
    blocks_since_last_update: int | None  # None: never set weights (or not registered)
    block: int

    @property
    def ready(self) -> bool:
        return self.blocks_since_last_update is None or self.blocks_since_last_update >= self.weights_rate_limit

    @property
    def blocks_to_wait(self) -> int:
        if self.ready or self.blocks_since_last_update is None:
            return 0
        return self.weights_rate_limit - self.blocks_since_last_update


class ChainOutcome(BaseModel):
    """The outcome of one extrinsic, as the store keeps it."""

    success: bool
    message: str = ""
    call: str = ""  # e.g. "SubtensorModule.set_mechanism_weights"
    block: int | None = None
    block_hash: str | None = None
    extrinsic_id: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)


@runtime_checkable
class ChainPort(Protocol):
    """What ShopArena reads from and writes to a chain, for one subnet (`netuid`)."""

    netuid: int
    network: str

    def block(self) -> int:
        """The current block number."""
        ...

    def block_hash(self, block: int) -> str:
        """The hash of `block` as 0x-prefixed hex; a race's problems are drawn from it."""
        ...

    def block_timestamp(self, block: int) -> float:
        """When `block` was made (unix seconds: `Timestamp.Now` as of the block); a sealed batch's eligible
        commitments are those in blocks made before its drand round was out (`arena.problems.seal.eligible_before`)."""
        ...

    def metagraph(self, block: int | None = None) -> Metagraph:
        """The subnet's neurons (as of `block`, else now): what pooling weighs validators by is read as of its
        cut-off block, so every validator reads the same stakes and permits."""
        ...

    def commitments(self, block: int | None = None) -> dict[str, Commitment]:
        """Every hotkey's latest commitment on the subnet (as of `block`, else now), keyed by hotkey."""
        ...

    def weights(self, block: int | None = None) -> dict[int, dict[int, float]]:
        """Each validator uid's latest weight row (revealed, on a commit-reveal subnet) as of `block` (else now),
        normalized to sum to 1."""
        ...

    def set_commitment(self, wallet: Any, data: str) -> ChainOutcome:
        """Publish `data` (at most 128 bytes) as the wallet hotkey's commitment."""
        ...

    def rate_limit(self, hotkey: str) -> RateLimit: ...

    def set_weights(self, wallet: Any, weights: dict[int, float], *, version_key: int = 0) -> ChainOutcome:
        """Set the wallet hotkey's weights. Raises `ChainError("rate_limited", ...)` when it may not yet."""
        ...

    def close(self) -> None: ...
