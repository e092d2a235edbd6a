"""The pooling rule: one race's standings from the runs several validators published.

1. **Samples.** A validator's runs are read under its own hotkey (a run naming another validator is left out); a run
   blamed on the validator is missing, not a 0; the same (miner, problem, sample) listed twice by one validator counts
   once, at the lower score.
2. **Per-validator means.** For each miner, each validator's mean final score over the runs it published of that
   miner (an exact `math.fsum`, so the order of the runs cannot change a bit).
3. **Stake-weighted median across validators.** A miner's score is the stake-weighted median of those means over the
   validators that published runs of it (when the two middle validators split the stake exactly in half: the mean of
   the two). A minority of stake (below half) that inflates a favoured miner, zeroes the others or withholds bad runs
   moves a median no further than the honest validators' own spread; a pooled mean would move with it. A validator
   without stake counts nothing while any validator has stake; with no stake anywhere every validator counts alike.
4. **Canonical floats.** Scores are rounded to `DIGITS` decimals before ranking and reported as rounded, so a sum
   that differs in its last bit cannot reorder or untie two miners. Ranked by score, then the earlier commitment
   block, then the smaller hotkey.
5. **Interval**: the Wilson 95% interval of the score over the miner's problems (n = distinct problems it has a
   sample of, pooled). Wilson rather than a bootstrap percentile: with 8 problems a bootstrap interval of a miner that
   solved all of them is [1, 1], which would call a miner that solved 7 of 8 surely worse; Wilson never has width 0
   and is what the single-validator standings (`arena.sampling`) report, so a pooled and a lone standing read alike.
   Samples of one problem are not independent draws of the miner's skill, so they do not narrow it.
6. **P(rank 1)**: the share of bootstrap replicates (problems drawn with replacement, the same draw for every miner and
   validator; the whole rule re-run on each) in which the miner ranks first, ties broken as the ranking breaks them;
   the generator is PCG64 seeded with the race's seed.

A window of W races is pooled by passing the runs of all W races with problem ids made distinct per race (e.g.
``"<race>:<problem>"``). Same input in any order (of validators, of runs, duplicates included) gives the same
output, equal field for field and byte for byte once serialised.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from arena.pooling.estimators import wilson
from arena.pooling.models import PooledRun, Standing

DIGITS = 12
BOOTSTRAP = 2000
_TOLERANCE = 1e-9  # relative: a cumulative stake this close to half the total is exactly half

Key = tuple[str, str, str, int]  # (validator, miner, problem id, sample index)


def _samples(runs_by_validator: Mapping[str, Sequence[PooledRun]]) -> dict[Key, float]:
    cells: dict[Key, float] = {}
    for validator, runs in runs_by_validator.items():
        for run in runs:
            if run.validator != validator or run.blame == "validator":
                continue
            key = (validator, run.miner, run.problem_id, run.attempt)
            score = float(run.score)
            cells[key] = min(cells.get(key, score), score)
    return cells


def _stake(stakes: Mapping[str, float], validator: str) -> float:
    value = float(stakes.get(validator, 0.0))
    return value if math.isfinite(value) and value > 0 else 0.0


def _counted(cells: dict[Key, float], stakes: Mapping[str, float]) -> dict[str, float]:
    """The validators whose runs count, with their weights: those with stake, or all alike when none has any."""
    published = sorted({v for v, _, _, _ in cells})
    staked = {v: _stake(stakes, v) for v in published if _stake(stakes, v) > 0}
    return staked or dict.fromkeys(published, 1.0)


def weighted_median(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The weighted median along the last axis of `values` (NaN = missing, left out); NaN where all are missing.
    `weights` (one per position of the last axis, all > 0) are the validators' stakes. When the cumulative weight
    reaches exactly half at a value, the median is the mean of it and the next value."""
    missing = np.isnan(values)
    order = np.argsort(np.where(missing, np.inf, values), axis=-1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=-1)
    held = np.take_along_axis(np.where(missing, 0.0, np.broadcast_to(weights, values.shape)), order, axis=-1)
    cumulative = np.cumsum(held, axis=-1)
    total = cumulative[..., -1:]
    half = total / 2
    at = np.argmax(cumulative >= half * (1 - _TOLERANCE), axis=-1)[..., None]
    lower = np.take_along_axis(ordered, at, axis=-1)
    reached = np.take_along_axis(cumulative, at, axis=-1)
    following = np.take_along_axis(ordered, np.minimum(at + 1, values.shape[-1] - 1), axis=-1)
    exact = (np.abs(reached - half) <= half * _TOLERANCE) & (reached < total * (1 - _TOLERANCE))
    median = np.where(exact, (lower + following) / 2, lower)[..., 0]
    return np.where(total[..., 0] > 0, median, np.nan)


def _round(value: float) -> float:
    return round(float(value), DIGITS) + 0.0  # + 0.0: no negative zero


def pool(
    runs_by_validator: Mapping[str, Sequence[PooledRun]],
    stakes: Mapping[str, float],
    *,
    seed: int,
    commitment_blocks: Mapping[str, int],
    replicates: int = BOOTSTRAP,
) -> list[Standing]:
    """The pooled standings, ranked (see the module docstring); a miner without a counted sample has none."""
    cells = _samples(runs_by_validator)
    counted = _counted(cells, stakes)
    cells = {key: score for key, score in cells.items() if key[0] in counted}
    validators = sorted(counted)
    miners = sorted({m for _, m, _, _ in cells})
    problems = sorted({p for _, _, p, _ in cells})
    if not miners:
        return []
    vi = {v: i for i, v in enumerate(validators)}
    mi = {m: i for i, m in enumerate(miners)}
    pi = {p: i for i, p in enumerate(problems)}
    by_cell: dict[tuple[int, int], list[float]] = defaultdict(list)
    total = np.zeros((len(validators), len(miners), len(problems)))
    count = np.zeros_like(total)
    for (validator, miner, problem, _), score in sorted(cells.items()):
        by_cell[vi[validator], mi[miner]].append(score)
        total[vi[validator], mi[miner], pi[problem]] += score
        count[vi[validator], mi[miner], pi[problem]] += 1
    means = np.full((len(miners), len(validators)), np.nan)
    for (v, m), values in by_cell.items():
        means[m, v] = math.fsum(values) / len(values)
    weights = np.array([counted[v] for v in validators])
    scores = [_round(s) for s in weighted_median(means, weights)]
    order = sorted(range(len(miners)), key=lambda i: (-scores[i], commitment_blocks.get(miners[i], 0), miners[i]))
    wins = _rank1_wins(total, count, weights, order, seed, replicates)
    ran = (count.sum(axis=0) > 0).sum(axis=1)
    out = []
    for rank, i in enumerate(order, start=1):
        low, high = wilson(scores[i], int(ran[i]))
        out.append(
            Standing(
                miner=miners[i],
                score=scores[i],
                low=_round(low),
                high=_round(high),
                p_rank1=float(wins[i]) / max(1, replicates),
                samples=int(count[:, i].sum()),
                problems=int(ran[i]),
                rank=rank,
                validators=int((count[:, i].sum(axis=-1) > 0).sum()),
            )
        )
    return out


def _rank1_wins(
    total: np.ndarray, count: np.ndarray, weights: np.ndarray, order: list[int], seed: int, replicates: int
) -> np.ndarray:
    """How many bootstrap replicates each miner wins (problems resampled, the whole rule re-run, ties as ranked)."""
    miners, problems = total.shape[1], total.shape[2]
    wins = np.zeros(miners, dtype=np.int64)
    if replicates <= 0:
        return wins
    tiebreak = np.empty(miners)
    tiebreak[order] = np.arange(miners)
    rng = np.random.Generator(np.random.PCG64(seed % 2**63))
    draws = rng.integers(0, problems, size=(replicates, problems))
    drawn = np.zeros((replicates, problems))
    np.add.at(drawn, (np.repeat(np.arange(replicates), problems), draws.ravel()), 1.0)
    sums = np.einsum("vmp,bp->bmv", total, drawn)
    counts = np.einsum("vmp,bp->bmv", count, drawn)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.where(counts > 0, counts, 1), np.nan)
    medians = np.round(weighted_median(means, weights), DIGITS)
    medians = np.where(np.isnan(medians), -1.0, medians)
    best = medians.max(axis=1, keepdims=True)
    candidates = np.where(medians == best, tiebreak, np.inf)
    winner = np.argmin(candidates, axis=1)
    np.add.at(wins, winner, 1)
    return wins
