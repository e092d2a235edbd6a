"""Shards: a race's (miner, problem, sample) units split among validators, each unit to r of them.

The units are laid out column by column (a column is one (problem, sample): every miner's unit of it, miners in
order), the columns in an order shuffled by the race's seed, and the validators in an order shuffled by the same
seed. The layout is repeated r times and cut into one contiguous piece per validator, as equal as whole units allow.
So:

- every unit goes to min(r, V) distinct validators (its copies lie a whole layout apart, and no piece is longer than
  one layout);
- each validator holds the same number of units, give or take one;
- a validator holds whole columns (save at most one at each end of its piece): it runs every miner on the same
  problems, so its per-miner means compare miners on equal terms (what the pooling rule's median of per-validator
  means needs);
- who pairs with whom changes from race to race with the seed; the split depends on nothing but the set of units,
  the set of validators, r and the seed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Unit = tuple[str, str, int]  # (miner, problem id, sample index)


def _rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed % 2**63))


def shard(units: Sequence[Unit], validators: Sequence[str], r: int, seed: int) -> dict[str, list[Unit]]:
    """Each unit to min(r, len(validators)) distinct validators, balanced, deterministic by `seed` (see the module
    docstring). Every validator gets an entry (maybe empty), its units sorted."""
    chosen = sorted(set(validators))
    out: dict[str, list[Unit]] = {v: [] for v in chosen}
    distinct = sorted(set(units))
    if not chosen or not distinct:
        return out
    copies = min(max(1, r), len(chosen))
    rng = _rng(seed)
    columns = sorted({(problem, sample) for _, problem, sample in distinct})
    column_order = {columns[i]: rank for rank, i in enumerate(rng.permutation(len(columns)))}
    layout = sorted(distinct, key=lambda u: (column_order[(u[1], u[2])], u[0]))
    dealt = [chosen[i] for i in rng.permutation(len(chosen))]
    total = len(layout) * copies
    for piece, validator in enumerate(dealt):
        start, end = piece * total // len(dealt), (piece + 1) * total // len(dealt)
        out[validator] = sorted({layout[i % len(layout)] for i in range(start, end)})
    return out
