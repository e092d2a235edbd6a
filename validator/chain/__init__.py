"""Chain access behind one port: BittensorChain (bittensor 11.x) and LocalChain (a dev chain in a file).

`connect` picks the implementation a command names, from explicit parameters (`open_chain`: the one the node's
settings name); `our_neuron` is the check a node makes before it works: its hotkey is on the subnet's metagraph (and,
for a validator, holds a permit). Nothing here connects at import.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from arena.wallet import btcli
from validator.chain.port import ChainError, ChainPort, Metagraph, Neuron

if TYPE_CHECKING:
    from validator.settings import Settings


def connect(
    chain: str,
    *,
    network: str = "finney",
    netuid: int | None = None,
    endpoint: str | None = None,
    localchain_path: Path = Path("var/localchain.sqlite"),
) -> ChainPort:
    """The chain port `chain` names: "subtensor" (the bittensor SDK on `network`, or at the ws(s):// `endpoint`,
    subnet `netuid` required) or "localchain" (the dev chain in the file `localchain_path`, `~` expanded). Connects
    lazily, on the first call."""
    if chain == "localchain":
        from validator.chain.local import LocalChain

        return LocalChain(localchain_path.expanduser())
    if netuid is None:
        raise ChainError("bad_input", "--netuid (or ARENA_NETUID) is required with --chain subtensor")
    from validator.chain.bittensor_chain import BittensorChain

    return BittensorChain(network, netuid, chain_endpoint=endpoint)


def open_chain(settings: Settings) -> ChainPort:
    """The chain the settings name (`--chain subtensor|localchain`): `connect` with the settings' chain fields."""
    return connect(
        settings.chain,
        network=settings.subtensor_network,
        netuid=settings.netuid,
        endpoint=settings.subtensor_chain_endpoint,
        localchain_path=settings.localchain_path,
    )


def register_hint(chain: ChainPort) -> str:
    """The command that registers a hotkey on `chain`'s subnet, in backticks."""
    if chain.network == "localchain":
        return "`arena-validator localchain register`"
    return btcli("subnets register", netuid=chain.netuid)


def our_neuron(chain: ChainPort, hotkey: str, *, validator: bool = True, metagraph: Metagraph | None = None) -> Neuron:
    """Our hotkey's neuron on the subnet; one `ChainError` line when it is absent or lacks a validator permit."""
    graph = metagraph if metagraph is not None else chain.metagraph()
    neuron = graph.by_hotkey(hotkey)
    where = f"netuid {chain.netuid} on {chain.network}"
    if neuron is None:
        raise ChainError(
            "not_registered",
            f"hotkey {hotkey} is not on the metagraph of {where} "
            f"({len(graph.neurons)} neurons); register it first with "
            f"{register_hint(chain)}",
        )
    if validator and not neuron.validator_permit:
        raise ChainError(
            "no_permit",
            f"hotkey {hotkey} (uid {neuron.uid}) has no validator permit on {where}; "
            "a validator needs enough stake to hold one",
        )
    return neuron


__all__ = ["ChainError", "ChainPort", "Metagraph", "Neuron", "connect", "open_chain", "our_neuron", "register_hint"]
