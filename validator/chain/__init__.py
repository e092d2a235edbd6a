"""Chain access behind one port: BittensorChain (bittensor 11.x) and LocalChain (a dev chain in a file).

`open_chain` picks the implementation the settings name; `our_neuron` is the check a node makes before it works:
its hotkey is on the subnet's metagraph (and, for a validator, holds a permit). Nothing here connects at import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.chain.port import ChainError, ChainPort, Metagraph, Neuron

if TYPE_CHECKING:
    from validator.settings import Settings


def open_chain(settings: Settings) -> ChainPort:
    """The chain the settings name (`--chain subtensor|localchain`); connects lazily, on the first call."""
    if settings.chain == "localchain":
        from validator.chain.local import LocalChain

        return LocalChain(settings.localchain_path.expanduser())
    if settings.netuid is None:
        raise ChainError("bad_input", "--netuid (or ARENA_NETUID) is required with --chain subtensor")
    from validator.chain.bittensor_chain import BittensorChain

    return BittensorChain(settings.subtensor_network, settings.netuid,
                          chain_endpoint=settings.subtensor_chain_endpoint)


def our_neuron(chain: ChainPort, hotkey: str, *, validator: bool = True,
               metagraph: Metagraph | None = None) -> Neuron:
    """Our hotkey's neuron on the subnet; one `ChainError` line when it is absent or lacks a validator permit."""
    graph = metagraph if metagraph is not None else chain.metagraph()
    neuron = graph.by_hotkey(hotkey)
    where = f"netuid {chain.netuid} on {chain.network}"
    if neuron is None:
        hint = ("arena-validator localchain register" if chain.network == "localchain"
                else f"btcli subnet register --netuid {chain.netuid}")
        raise ChainError("not_registered", f"hotkey {hotkey} is not on the metagraph of {where} "
                                           f"({len(graph.neurons)} neurons); register it first with `{hint}`")
    if validator and not neuron.validator_permit:
        raise ChainError("no_permit", f"hotkey {hotkey} (uid {neuron.uid}) has no validator permit on {where}; "
                                      "a validator needs enough stake to hold one")
    return neuron


__all__ = ["ChainError", "ChainPort", "Metagraph", "Neuron", "open_chain", "our_neuron"]
