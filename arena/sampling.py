"""Samples, standings that say how sure they are, and shards: pure and deterministic.

- ``pass_at_k`` / ``pass_hat_k``: of n samples of one (miner, problem) with c successes, the chance that at least one
  (pass@k) or all (pass^k, as tau2-bench reports it) of k samples drawn from them succeed (the unbiased estimators;
  k defaults to n).
- ``standings``: each miner's score is the mean of its samples (a race's score today: the mean final score); its 95%
  interval is the Wilson score interval over its *problems* (n = how many problems it ran, the score as the rate:
  samples of one problem are not independent, so they do not narrow it); P(rank 1) is the share of bootstrap
  replicates (problems drawn with replacement, the same draw for every miner) in which it ranks first, ties broken as
  the race breaks them (the earlier commitment, then the smaller hotkey). Seeded: the same input gives the same
  output in any order.
- ``within_noise``, ``shard``, ``Standing``, ``seed_of`` and the estimators live in ``arena.pooling`` (re-exported
  here): the pooled standings of many validators (``arena.pooling.pool``) and a lone validator's read alike.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from arena.pooling import BOOTSTRAP, Z95, Standing, Unit, pass_at_k, pass_hat_k, seed_of, shard, wilson, within_noise
from arena.ranking import ranked

__all__ = [
    "BOOTSTRAP",
    "Z95",
    "Sample",
    "Standing",
    "Unit",
    "pass_at_k",
    "pass_hat_k",
    "seed_of",
    "shard",
    "standings",
    "wilson",
    "within_noise",
]


class Sample(BaseModel):
    """One counted run of a miner: its problem (any string naming it, e.g. race and problem id) and final score."""

    model_config = ConfigDict(frozen=True)

    miner: str
    problem: str
    score: float


def standings(
    samples: Sequence[Sample], commitment_blocks: Mapping[str, int], *, seed: int, replicates: int = BOOTSTRAP
) -> list[Standing]:
    """The miners' standings from their samples, ranked (see the module docstring)."""
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for s in samples:
        sums[s.miner][s.problem].append(float(s.score))
    miners = sorted(sums)
    if not miners:
        return []
    problems = sorted({p for per in sums.values() for p in per})
    # per miner x problem: the sum of its scores and how many samples (0 where it did not run the problem)
    total = np.zeros((len(miners), len(problems)))
    count = np.zeros((len(miners), len(problems)))
    for i, m in enumerate(miners):
        for j, p in enumerate(problems):
            values = sums[m].get(p, [])
            total[i, j], count[i, j] = math.fsum(values), len(values)
    scores = {
        m: float(math.fsum(v for vs in sums[m].values() for v in vs) / count[i].sum()) for i, m in enumerate(miners)
    }
    order = ranked(scores, commitment_blocks)
    tiebreak = np.array([order.index(m) for m in miners], dtype=float)  # smaller wins an exact tie
    rng = np.random.Generator(np.random.PCG64(seed % 2**63))
    draws = rng.integers(0, len(problems), size=(replicates, len(problems)))
    wins = np.zeros(len(miners))
    for draw in draws:
        weight = np.bincount(draw, minlength=len(problems)).astype(float)
        n = count @ weight
        mean = np.where(n > 0, (total @ weight) / np.where(n > 0, n, 1), -1.0)
        best = mean.max()
        if best < 0:
            continue
        tied = np.flatnonzero(mean == best)
        wins[tied[np.argmin(tiebreak[tied])]] += 1
    out = []
    for rank, m in enumerate(order, start=1):
        i = miners.index(m)
        ran = int((count[i] > 0).sum())
        low, high = wilson(scores[m], ran)
        out.append(
            Standing(
                miner=m,
                score=scores[m],
                low=low,
                high=high,
                p_rank1=float(wins[i] / replicates),
                samples=int(count[i].sum()),
                problems=ran,
                rank=rank,
            )
        )
    return out
