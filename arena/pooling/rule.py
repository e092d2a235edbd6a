"""The pooling rule: one race's standings from the runs several validators published.

A run's final score is its strict verdict times the judge's coefficient. Every pooling validator re-derives each
published run's strict verdict from its trajectory (a bundle whose verdicts do not re-derive is refused), so what a
dishonest validator can still bend is the judge's coefficient and which runs it publishes (and, beyond what
re-derivation sees, the trajectories themselves). The rule splits the score along that line:

1. **Samples.** A validator's runs are read under its own hotkey (a run naming another validator is left out); a run
   blamed on the validator is missing, not a 0; the same (miner, problem, sample) listed twice by one validator counts
   once, at the lower verdicts; a final score above its strict verdict is read as the strict verdict (a coefficient
   is at most 1). A validator without stake counts nothing while any validator has stake; with no stake anywhere
   every validator counts alike.
2. **Withholding.** A validator's expected units of a miner are the units it was given (`assigned`, the race's
   shards) or, without them, every (problem, sample) it published for any miner that the miner ran somewhere (a shard
   holds whole problems: a validator runs every miner on its problems). A validator that leaves out more than one of
   a miner's expected units (unpublished, or blamed on itself) has none of that miner's runs counted: leaving out a
   favoured miner's failures, or a rival's successes, gains at most one run; one honest infrastructure failure costs
   nothing, and an outage that costs a validator many runs costs only its own evidence (every miner's alike).
3. **Strict rate**: per validator, the mean of the miner's strict verdicts over its counted runs (an exact
   `math.fsum`); then the stake-weighted median of those across the validators with a counted run of the miner
   (when the two middle validators split the stake exactly in half: the mean of the two).
4. **Judge coefficient**: per validator, the sum of the miner's final scores over the sum of its strict verdicts (the
   share of strict success its judge let stand); then the stake-weighted median across the validators with a strict
   success of the miner. Split so, a minority of stake that zeroes a rival's successes or lets every favoured run
   stand moves only the coefficient's median, which honest judges keep close together (a judge reads an agent's
   habits, which do not change from one validator to the next), and leaves the strict median untouched; one that
   makes up whole trajectories (outside what re-derivation catches) moves the strict median no further than the
   honest validators' own spread.
5. **Score** = strict rate x judge coefficient, rounded to `DIGITS` decimals before ranking (a sum that differs in
   its last bit cannot reorder or untie two miners). Ranked by score, then the earlier commitment block, then the
   smaller hotkey.
6. **Interval**: the Wilson 95% interval of the score over the miner's problems (n = distinct problems it has a
   counted run of). Wilson rather than a bootstrap percentile: with 8 problems a bootstrap interval of a miner that
   solved all of them is [1, 1], which would call a miner that solved 7 of 8 surely worse; Wilson never has width 0
   and is what the single-validator standings (`arena.sampling`) report. Samples of one problem are not independent
   draws of the miner's skill, so they do not narrow it.
7. **P(rank 1)**: the share of bootstrap replicates (problems drawn with replacement, the same draw for every miner and
   validator; steps 3-5 re-run on each) in which the miner ranks first, ties broken as the ranking breaks them; the
   generator is PCG64 seeded with the race's seed.

A window of W races is pooled by passing the runs of all W races with problem ids made distinct per race (e.g.
``"<race>:<problem>"``). Same input in any order (of validators, of runs, duplicates included) gives the same
output, equal field for field and byte for byte once serialised.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence

import numpy as np

from arena.pooling.estimators import wilson
from arena.pooling.models import PooledRun, Standing
from arena.pooling.sharding import Unit
from arena.ranking import ranked

DIGITS = 12
BOOTSTRAP = 2000
MAX_WITHHELD = 0.0  # a share of the expected units left out beyond the one always allowed (bench/agreement.py)
_TOLERANCE = 1e-9  # relative: a cumulative stake this close to half the total is exactly half

Key = tuple[str, str, str, int]  # (validator, miner, problem id, sample index)


def _stake(stakes: Mapping[str, float], validator: str) -> float:
    value = float(stakes.get(validator, 0.0))
    return value if math.isfinite(value) and value > 0 else 0.0


def _read(
    runs_by_validator: Mapping[str, Sequence[PooledRun]], stakes: Mapping[str, float]
) -> tuple[dict[Key, tuple[float, float]], set[Key], dict[str, float]]:
    """The counted runs ((strict, final) per key), every published key, and the counted validators' weights."""
    cells: dict[Key, tuple[float, float]] = {}
    published: set[Key] = set()
    for validator, runs in runs_by_validator.items():
        for run in runs:
            if run.validator != validator:
                continue
            key = (validator, run.miner, run.problem_id, run.attempt)
            published.add(key)
            if run.blame == "validator":
                continue
            strict = float(run.success)
            final = min(float(run.score), strict)
            earlier = cells.get(key)
            cells[key] = (strict, final) if earlier is None else (min(earlier[0], strict), min(earlier[1], final))
    staked = {v: _stake(stakes, v) for v in sorted({k[0] for k in published}) if _stake(stakes, v) > 0}
    weights = staked or dict.fromkeys(sorted({k[0] for k in published}), 1.0)
    return cells, published, weights


def _withholders(
    cells: Mapping[Key, object], published: set[Key], assigned: Mapping[str, Collection[Unit]] | None
) -> set[tuple[str, str]]:
    """The (validator, miner) pairs whose runs do not count: more than MAX_WITHHELD of the expected units missing."""
    expected: dict[tuple[str, str], set[tuple[str, int]]] = defaultdict(set)
    if assigned is not None:
        for validator, units in assigned.items():
            for miner, problem, sample in units:
                expected[validator, miner].add((problem, sample))
    else:
        columns: dict[str, set[tuple[str, int]]] = defaultdict(set)
        raced: dict[str, set[tuple[str, int]]] = defaultdict(set)
        for validator, miner, problem, sample in published:
            columns[validator].add((problem, sample))
            raced[miner].add((problem, sample))
        for validator, mine in columns.items():
            for miner, ran in raced.items():
                expected[validator, miner] = mine & ran
    counted: dict[tuple[str, str], int] = defaultdict(int)
    for validator, miner, problem, sample in cells:
        if (problem, sample) in expected.get((validator, miner), ()):
            counted[validator, miner] += 1
    return {
        pair for pair, units in expected.items() if len(units) - counted[pair] > max(1.0, MAX_WITHHELD * len(units))
    }


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
    assigned: Mapping[str, Collection[Unit]] | None = None,
    replicates: int = BOOTSTRAP,
) -> list[Standing]:
    """The pooled standings, ranked (see the module docstring); a miner without a counted run has none. `assigned`
    (validator -> its shard's units) sharpens the withholding check; without it each validator's own problems are
    read as its shard."""
    cells, published, weighted = _read(runs_by_validator, stakes)
    dropped = _withholders(cells, published, assigned)
    kept = sorted((k, v) for k, v in cells.items() if k[0] in weighted and (k[0], k[1]) not in dropped)
    validators = sorted(weighted)
    miners = sorted({k[1] for k, _ in kept})
    problems = sorted({k[2] for k, _ in kept})
    if not miners:
        return []
    arrays, judged = _tally(kept, validators, miners, problems)
    rates = np.full((len(miners), len(validators)), np.nan)
    ratios = np.full_like(rates, np.nan)
    for (v, m), (ss, fs) in judged.items():
        rates[m, v] = math.fsum(ss) / len(ss)
        if math.fsum(ss) > 0:
            ratios[m, v] = math.fsum(fs) / math.fsum(ss)
    weights = np.array([weighted[v] for v in validators])
    strict_rate = weighted_median(rates, weights)
    coefficient = np.nan_to_num(weighted_median(ratios, weights))
    scores = [_round(strict_rate[m] * coefficient[m]) for m in range(len(miners))]
    position = {m: i for i, m in enumerate(miners)}
    order = [position[m] for m in ranked(dict(zip(miners, scores, strict=True)), commitment_blocks)]
    wins = _rank1_wins(arrays, weights, order, seed, replicates)
    count = arrays[2]
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


def _tally(
    kept: Sequence[tuple[Key, tuple[float, float]]],
    validators: Sequence[str],
    miners: Sequence[str],
    problems: Sequence[str],
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], dict[tuple[int, int], tuple[list[float], list[float]]]]:
    """The (strict, final, count) sums per validator x miner x problem, and each (validator, miner)'s verdicts."""
    vi, mi, pi = ({x: i for i, x in enumerate(xs)} for xs in (validators, miners, problems))
    shape = (len(validators), len(miners), len(problems))
    at = np.array([(vi[k[0]], mi[k[1]], pi[k[2]]) for k, _ in kept], dtype=np.int64).reshape(-1, 3)
    flat = np.ravel_multi_index((at[:, 0], at[:, 1], at[:, 2]), shape)
    verdicts = np.array([v for _, v in kept], dtype=float).reshape(-1, 2)
    size = shape[0] * shape[1] * shape[2]
    arrays = tuple(
        np.bincount(flat, weights=w, minlength=size).reshape(shape)
        for w in (verdicts[:, 0], verdicts[:, 1], np.ones(len(kept)))
    )
    judged: dict[tuple[int, int], tuple[list[float], list[float]]] = {}
    for (v, m, _), (strict, final) in zip(at.tolist(), verdicts.tolist(), strict=True):
        pair = judged.setdefault((v, m), ([], []))
        pair[0].append(strict)
        pair[1].append(final)
    return (arrays[0], arrays[1], arrays[2]), judged


def _rank1_wins(
    arrays: tuple[np.ndarray, np.ndarray, np.ndarray], weights: np.ndarray, order: list[int], seed: int, replicates: int
) -> np.ndarray:
    """How many bootstrap replicates each miner wins (problems resampled, the rule re-run, ties as ranked)."""
    strict, final, count = arrays
    miners, problems = strict.shape[1], strict.shape[2]
    wins = np.zeros(miners, dtype=np.int64)
    if replicates <= 0:
        return wins
    tiebreak = np.empty(miners)
    tiebreak[order] = np.arange(miners)
    rng = np.random.Generator(np.random.PCG64(seed % 2**63))
    draws = rng.integers(0, problems, size=(replicates, problems))
    drawn = np.zeros((replicates, problems))
    np.add.at(drawn, (np.repeat(np.arange(replicates), problems), draws.ravel()), 1.0)
    s = np.einsum("vmp,bp->bmv", strict, drawn)
    f = np.einsum("vmp,bp->bmv", final, drawn)
    n = np.einsum("vmp,bp->bmv", count, drawn)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = np.where(n > 0, s / np.where(n > 0, n, 1), np.nan)
        ratios = np.where(s > 0, f / np.where(s > 0, s, 1), np.nan)
    product = weighted_median(rates, weights) * np.nan_to_num(weighted_median(ratios, weights))
    scores = np.where(np.isnan(product), -1.0, np.round(product, DIGITS))
    best = scores.max(axis=1, keepdims=True)
    winner = np.argmin(np.where(scores == best, tiebreak, np.inf), axis=1)
    np.add.at(wins, winner, 1)
    return wins
