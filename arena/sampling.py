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
- ``within_noise``: the miners whose interval overlaps the leader's.
- ``shard``: a race's (miner, problem, sample) units split among validators, each unit to r of them, balanced and
  deterministic by the race's seed.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

Z95 = 1.959963984540054  # the normal quantile of 0.975
BOOTSTRAP = 2000

Unit = tuple[str, str, int]  # (miner, problem id, sample index)


def _choose(n: int, k: int) -> int:
    return math.comb(n, k) if 0 <= k <= n else 0


def pass_at_k(successes: Sequence[bool | float], k: int | None = None) -> float:
    """The chance at least one of k samples (drawn from these, without replacement) succeeds; 0 with no sample."""
    n = len(successes)
    k = n if k is None else k
    if n == 0 or not 1 <= k <= n:
        return 0.0
    c = sum(1 for s in successes if s)
    return 1.0 - _choose(n - c, k) / _choose(n, k)


def pass_hat_k(successes: Sequence[bool | float], k: int | None = None) -> float:
    """The chance all k samples (drawn from these, without replacement) succeed: pass^k; 0 with no sample."""
    n = len(successes)
    k = n if k is None else k
    if n == 0 or not 1 <= k <= n:
        return 0.0
    c = sum(1 for s in successes if s)
    return _choose(c, k) / _choose(n, k)


def wilson(rate: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a rate observed over n trials ((0, 1) with none)."""
    if n <= 0:
        return 0.0, 1.0
    p = min(1.0, max(0.0, rate))
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


class Sample(BaseModel):
    """One counted run of a miner: its problem (any string naming it, e.g. race and problem id) and final score."""

    model_config = ConfigDict(frozen=True)

    miner: str
    problem: str
    score: float


class Standing(BaseModel):
    """A miner's standing: score, 95% interval, P(rank 1), how many samples and problems it rests on, its rank."""

    model_config = ConfigDict(frozen=True)

    miner: str
    score: float
    low: float
    high: float
    p_rank1: float
    samples: int
    problems: int
    rank: int


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
    order = sorted(miners, key=lambda m: (-scores[m], commitment_blocks.get(m, 0), m))
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


def within_noise(ranked: Sequence[Standing]) -> list[str]:
    """The miners whose 95% interval overlaps the leader's (the leader first); one miner alone is no band."""
    if not ranked:
        return []
    leader = ranked[0]
    band = [s.miner for s in ranked if s.high >= leader.low]
    return band if len(band) > 1 else []


def seed_of(text: str) -> int:
    """A race's seed (its block hash, or its drand round) as an integer for `standings` and `shard`."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def shard(units: Sequence[Unit], validators: Sequence[str], r: int, seed: int) -> dict[str, list[Unit]]:
    """Each unit to min(r, len(validators)) distinct validators: units in an order shuffled by `seed`, dealt round
    the validators (sorted) so each validator holds the same number of units, give or take one. Every validator
    gets an entry (maybe empty)."""
    chosen = sorted(set(validators))
    out: dict[str, list[Unit]] = {v: [] for v in chosen}
    if not chosen:
        return out
    copies = min(max(1, r), len(chosen))
    ordered = sorted(set(units))
    rng = np.random.Generator(np.random.PCG64(seed % 2**63))
    shuffled = [ordered[i] for i in rng.permutation(len(ordered))]
    for i, unit in enumerate(shuffled):
        for c in range(copies):
            out[chosen[(i * copies + c) % len(chosen)]].append(unit)
    return {v: sorted(us) for v, us in out.items()}
