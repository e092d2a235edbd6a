"""Pooling: many validators' runs of one race -> one ranking every honest validator computes byte for byte. Pure.

- `pool` (`arena.pooling.rule`): standings from the runs each validator published (the strict rate pooled over
  every counted run, times the stake-weighted median of the validators' judge coefficients; a validator that
  withholds a miner's runs has none of them counted), a Wilson 95% interval over problems and P(rank 1) by a seeded
  bootstrap over problems.
- `shard` (`arena.pooling.sharding`): a race's (miner, problem, sample) units split among validators, each unit to r
  of them, balanced, whole problems per validator, deterministic by the race's seed.
- `pass_at_k`, `pass_hat_k`, `wilson` (`arena.pooling.estimators`): tau2-bench's per-task estimators and the interval.
- `PooledRun`, `Standing`, `within_noise` (`arena.pooling.models`).

`docs/pooling.md` ("The pooling rule") explains the rule and the figures of `bench/agreement.py` that chose it.
"""

from __future__ import annotations

import hashlib

from arena.pooling.estimators import Z95, pass_at_k, pass_hat_k, wilson
from arena.pooling.models import PooledRun, Standing, within_noise
from arena.pooling.rule import BOOTSTRAP, DIGITS, pool, weighted_median
from arena.pooling.sharding import Unit, shard


def seed_of(text: str) -> int:
    """A race's seed (its block hash, or its drand round) as an integer for `pool`, `shard` and the standings."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


__all__ = [
    "BOOTSTRAP",
    "DIGITS",
    "Z95",
    "PooledRun",
    "Standing",
    "Unit",
    "pass_at_k",
    "pass_hat_k",
    "pool",
    "seed_of",
    "shard",
    "weighted_median",
    "wilson",
    "within_noise",
]
