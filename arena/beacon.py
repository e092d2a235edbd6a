"""drand quicknet, the beacon sealed race batches (`arena.problems.seal`) are sealed to: its facts (chain hash,
genesis, period, which round is out when), and where a validator, or anyone opening a past batch, gets a round's
signature to open a batch.

In order: the chain it already reads (subtensor's Drand pallet; LocalChain's recorded pulses), then a drand HTTP
relay named in the settings (`--beacon.relay`, e.g. https://api.drand.sh). Nothing here is trusted: a signature that
is not the round's cannot open a batch (`open_batch` checks it), so a wrong source delays a race, never alters one.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

#: drand quicknet (unchained BLS on G1, a beacon every 3 s), the network timelock encryption targets.
QUICKNET_CHAIN_HASH = "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971"
QUICKNET_GENESIS = 1692803367
QUICKNET_PERIOD = 3
#: a real, public quicknet pulse, for offline tests and the LocalChain demo (no future pulse exists offline)
QUICKNET_ROUND_1000 = "b44679b9a59af2ec876b1a6b1ad52ea9b1615fc3982b19576350f93447cb1125e342b73a8dd2bacbe47e4b6b63ed5e39"


def round_at(unix_time: float) -> int:
    """The quicknet round published at or just before ``unix_time`` (round r is out at genesis + (r - 1) * 3)."""
    return max(1, 1 + math.floor((unix_time - QUICKNET_GENESIS) / QUICKNET_PERIOD))


def time_of_round(round_: int) -> float:
    return QUICKNET_GENESIS + (round_ - 1) * QUICKNET_PERIOD


def published_at(round_: int, *, chain: Any = None) -> float:
    """When round ``round_`` was (or will be) out, so anyone could open what is sealed to it: drand's schedule, or the
    chain's own story for a round it holds as a recorded pulse (LocalChain's ``round_time``)."""
    told = chain.round_time(round_) if chain is not None and hasattr(chain, "round_time") else None
    return float(told) if told is not None else float(time_of_round(round_))


class BeaconError(Exception):
    """No source could be asked (unreachable, refused, malformed); the message says which and why in one line."""


class DrandRelay:
    """A drand HTTP relay: ``GET {url}/{chain hash}/public/{round}`` answers ``{"round", "randomness", "signature"}``;
    a round not yet published is 404 (or 425 on some relays)."""

    def __init__(self, url: str, *, timeout: float = 10.0, transport: httpx.BaseTransport | None = None) -> None:
        import httpx  # here, not at import: sealing or reading a pack needs the facts above, never a client

        self.url = url.rstrip("/")
        self._client = httpx.Client(timeout=timeout, transport=transport)

    def signature(self, round_: int) -> str | None:
        import httpx

        where = f"{self.url}/{QUICKNET_CHAIN_HASH}/public/{round_}"
        try:
            response = self._client.get(where)
        except httpx.HTTPError as exc:
            raise BeaconError(
                f"drand relay {self.url} unreachable for round {round_}: {type(exc).__name__}: {exc}"
            ) from None
        if response.status_code in (404, 425):
            return None
        if response.status_code != 200:
            raise BeaconError(f"drand relay {self.url} answered {response.status_code} for round {round_}")
        try:
            body = response.json()
            signature = str(body["signature"])
            got = int(body.get("round", round_))
        except (ValueError, KeyError, TypeError):
            raise BeaconError(
                f"drand relay {self.url} sent something that is not a drand pulse for round {round_}"
            ) from None
        if got != round_:
            raise BeaconError(f"drand relay {self.url} sent round {got} when asked for {round_}")
        return signature

    def close(self) -> None:
        self._client.close()


def round_signature(round_: int, *, chain: Any = None, relay: DrandRelay | None = None) -> str | None:
    """The round's signature from the chain, else the relay; None while neither has it. `BeaconError` when no source
    could answer at all (the chain failing and no relay, or both failing)."""
    errors = []
    if chain is not None and hasattr(chain, "drand_pulse"):
        try:
            found = chain.drand_pulse(round_)
            if found:
                return str(found)
        except Exception as exc:  # noqa: BLE001 - any chain failure falls back to the relay
            errors.append(f"chain: {exc}")
    if relay is not None:
        try:
            return relay.signature(round_)
        except BeaconError as exc:
            errors.append(str(exc))
    if errors:
        raise BeaconError(f"drand round {round_} could not be read: " + "; ".join(errors))
    return None
