"""What pooled standings are computed from, read from the chain one way for the node (`validator.races.pooling`) and
for `arena-validator audit` (`validator.audit`), so both find the same standings and weights byte for byte:

- the block the pool is pinned at (`pin_block`): the race's cut-off block once it has passed; before it (a node with
  `--pool.early`, or an audit, once every permit holder committed) the block of the last commitment of that set;
- the permit holders and their stakes as of that block (`holders_at`): a stake or permit changed after it changes
  nothing, whenever a validator pools;
- each miner's agent commitment block as of the race's start (`commitment_blocks`): exact ties go to the earliest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arena.pooling import PooledRun, Standing, pool, seed_of
from validator.chain.commitment import parse_commitment
from validator.chain.port import ChainPort, Neuron

NEVER = 2**62  # the commitment block of a miner whose raced agent is not the one committed at the race's start


def pin_block(cutoff: int, now: int, committed_blocks: Iterable[int]) -> int:
    """The block stakes and permits are read at: the cut-off once passed, else the last commitment of the set."""
    blocks = list(committed_blocks)
    return int(cutoff) if now > cutoff or not blocks else min(int(cutoff), max(blocks))


def holders_at(chain: ChainPort, block: int | None) -> dict[str, Neuron]:
    """The validator-permit holders (hotkey -> neuron, with its stake) as of `block` (else now)."""
    return {n.hotkey: n for n in chain.metagraph(block).neurons if n.validator_permit}


def commitment_blocks(chain: ChainPort, start: int, runs: Mapping[str, Sequence[PooledRun]]) -> dict[str, int]:
    """Each pooled miner's agent commitment block as of the race's start (ties go to the earliest), from the
    miners' `sa1` commitments on chain; a miner whose raced agent is not the one committed then: after every other."""
    agents = {}
    for hotkey, commitment in chain.commitments(start).items():
        parsed = parse_commitment(commitment.value)
        if parsed is not None:
            agents[hotkey] = (parsed[0], commitment.block)
    blocks: dict[str, int] = {}
    for pooled in runs.values():
        for run in pooled:
            sha, block = agents.get(run.miner, ("", NEVER))
            blocks[run.miner] = min(blocks.get(run.miner, NEVER), block if sha == run.submission else NEVER)
    return blocks


def pooled_standings(
    chain: ChainPort,
    runs: Mapping[str, Sequence[PooledRun]],
    holders: Mapping[str, Any],
    *,
    start: int,
    seed_hash: str,
    assigned: Mapping[str, Sequence[tuple[str, str, int]]] | None = None,
) -> tuple[list[Standing], dict[str, int]]:
    """The pooled standings of the verified runs (`arena.pooling.pool`) weighed by the holders' stakes as pinned,
    and each miner's commitment block (the weights' tie-break)."""
    ordered = {h: list(rows) for h, rows in sorted(runs.items())}
    blocks = commitment_blocks(chain, start, ordered)
    stakes = {h: float(holders[h].stake) if h in holders else 0.0 for h in ordered}
    standings = pool(ordered, stakes, seed=seed_of(seed_hash), commitment_blocks=blocks, assigned=assigned)
    return standings, blocks


__all__ = ["NEVER", "commitment_blocks", "holders_at", "pin_block", "pooled_standings"]
