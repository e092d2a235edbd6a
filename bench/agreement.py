"""Do honest validators agree, and does the best miner win? A simulated population through the real pooling and weight
code (prints figures; asserts nothing).

    python bench/agreement.py                    # every setting, 300 races each (a few minutes on one core)
    python bench/agreement.py --races 40         # quick
    python bench/agreement.py --json rows.json   # one row per setting

The population (as docs/pooling.md describes it): 16 miners, skill ~ N(0, 1); each race's problems, difficulty
~ N(0, 1.2); a run succeeds with probability 1 / (1 + exp(-1.5 (skill - difficulty))); each validator draws its own
outcomes on the same problems (agents whose runs are not deterministic); commitment blocks random. Each simulated race
is a fresh population, raced W times (the window: the W races' runs, problem ids made distinct per race).

- Pooling off (`validators` 1): two honest validators race alone, each on its own outcomes, and rank by
  `arena.pooling.pool` over its own runs (one validator: the mean of its runs).
- Pooling on (`validators` V > 1): V validators race (every unit, or with `r` >= 2 their shard of it by
  `arena.pooling.shard`); two honest ones pool every validator's runs, the second given the bundles and runs in
  another order; `rule` "pool" is `arena.pooling.pool`. The rules decided against, for comparison: "mean", the
  pooled mean of every final score (`arena.sampling.standings` over all samples); "median-of-means", each
  validator's mean final score per miner, then the median across validators (`arena.pooling.weighted_median`);
  "pooled-strict", the strict verdicts pooled over every run times the median of the validators' judge
  coefficients.
- `forged` 1: the last validator publishes false verdicts for the truly second-best miner (its favoured). `forgery`
  "judge+withhold" is what re-derivation leaves a validator (strict verdicts are re-derived from trajectories): its
  judge zeroes every other miner's successes, lets the favoured's stand, and it leaves out as many of the favoured's
  failures as the rule lets pass (one, or 10% of its units); "withhold" leaves out all of them; "fabricate" is outside
  what re-derivation catches: it publishes the favoured's every run as a strict success and every other run as a
  failure (made-up trajectories), shown to say where the rule's protection ends.
- Weights: `arena.weights.compute_weights` with the policy (band reads the standings' intervals).

Columns: same_winner (the two honest validators rank the same miner first), tv (total variation between their weight
vectors), identical (their standings and vectors are byte-identical), best_wins (the truly best miner ranks first on
the first honest validator), runs_per_validator (runs per validator per race). A setting's problems per race are
chosen so runs_per_validator is today's 16 miners x 8 problems x 1 attempt = 128 unless the row says otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.pooling import PooledRun, Standing, pool, shard, weighted_median, wilson  # noqa: E402
from arena.pooling.rule import MAX_WITHHELD  # noqa: E402
from arena.sampling import Sample, standings  # noqa: E402
from arena.weights import MinerResult, compute_weights, parse_policy  # noqa: E402

MINERS = 16
SKILL_SD, DIFFICULTY_SD, SLOPE = 1.0, 1.2, 1.5
REPLICATES = 100  # P(rank 1) replicates per pooling: the weights do not read it


@dataclass(frozen=True)
class Setting:
    policy: str
    problems: int
    attempts: int = 1
    window: int = 1
    validators: int = 1
    r: int = 0
    forged: int = 0
    rule: str = "pool"
    forgery: str = ""

    def runs_per_validator(self) -> int:
        units = MINERS * self.problems * self.attempts
        return units * min(self.r, self.validators) // self.validators if self.r >= 2 else units


def settings() -> list[Setting]:
    """The rows: today's single validator first (it must reproduce the figures docs/pooling.md starts from)."""
    rows = [Setting(p, 8) for p in ("top_heavy", "sn15_top_half", "winner_take_all")]
    rows += [Setting("top_heavy", 32), Setting("top_heavy", 128)]
    rows += [
        Setting("top_heavy", 8, validators=4),
        Setting("top_heavy", 16, validators=4, r=2),
        Setting("top_heavy", 8, validators=4, window=4),
        Setting("top_heavy", 16, validators=4, r=2, window=4),
        Setting("top_heavy", 8, attempts=2, validators=4, r=2, window=4),
        Setting("top_heavy", 16, validators=4, r=2, window=8),
    ]
    jw = "judge+withhold"
    rows += [
        Setting("top_heavy", 16, validators=4, r=2, window=4, forged=1, forgery=jw),
        Setting("top_heavy", 16, validators=4, r=2, window=8, forged=1, forgery=jw),
        Setting("top_heavy", 16, validators=4, r=2, window=8, forged=1, forgery="withhold"),
        Setting("top_heavy", 16, validators=4, r=2, window=8, forged=1, forgery="fabricate"),
        Setting("top_heavy", 16, validators=4, r=2, window=8, rule="mean", forged=1, forgery=jw),
    ]
    for rule in ("median-of-means", "pooled-strict"):
        rows += [
            Setting("top_heavy", 16, validators=4, r=2, window=8, rule=rule),
            Setting("top_heavy", 16, validators=4, r=2, window=8, rule=rule, forged=1, forgery=jw),
            Setting("top_heavy", 16, validators=4, r=2, window=8, rule=rule, forged=1, forgery="fabricate"),
        ]
    rows += [
        Setting("band", 16, validators=4, r=2, window=8),
        Setting("band", 16, validators=4, r=2, window=8, forged=1, forgery=jw),
    ]
    return rows


_FIELDS = frozenset(PooledRun.model_fields)


def _run(**fields: object) -> PooledRun:
    """A PooledRun without validation (what `model_construct` makes, in a tenth of its time): the bench makes 10^7
    of them, every field right by construction."""
    run = PooledRun.__new__(PooledRun)
    object.__setattr__(run, "__dict__", fields)
    object.__setattr__(run, "__pydantic_fields_set__", set(_FIELDS))
    object.__setattr__(run, "__pydantic_extra__", None)
    object.__setattr__(run, "__pydantic_private__", None)
    return run


def _runs(
    validator: str, units: list[tuple[str, str, int]], rate: dict[tuple[str, str], float], rng: np.random.Generator
) -> list[PooledRun]:
    draws = rng.random(len(units))
    out = []
    for (miner, problem, attempt), draw in zip(units, draws, strict=True):
        outcome = float(draw < rate[miner, problem])
        out.append(
            _run(
                validator=validator,
                miner=miner,
                submission=miner,
                problem_id=problem,
                attempt=attempt,
                score=outcome,
                success=outcome,
                error_code=None,
                blame=None,
            )
        )
    return out


def _forge(runs: list[PooledRun], favoured: str, forgery: str) -> list[PooledRun]:
    """The forger's bundle (see the module docstring)."""
    if forgery == "fabricate":
        return [
            r.model_copy(update={"score": float(r.miner == favoured), "success": float(r.miner == favoured)})
            for r in runs
        ]
    failures = [r for r in runs if r.miner == favoured and r.success == 0]
    if forgery == "judge+withhold":
        expected = sum(r.miner == favoured for r in runs)
        failures = failures[: int(max(1.0, MAX_WITHHELD * expected))]  # as many as the rule lets pass
        runs = [r if r.miner == favoured else r.model_copy(update={"score": 0.0}) for r in runs]
    left_out = {(r.problem_id, r.attempt) for r in failures}
    return [r for r in runs if r.miner != favoured or (r.problem_id, r.attempt) not in left_out]


def race(setting: Setting, seed: int) -> tuple[dict[str, list[PooledRun]], dict[str, int], str, str]:
    """One simulated race (with its window): every validator's published runs, the commitment blocks, the truly best
    and second-best miners."""
    rng = np.random.default_rng(seed)
    miners = [f"m{i:02d}" for i in range(MINERS)]
    skill = rng.normal(0, SKILL_SD, MINERS)
    ranked = [miners[i] for i in np.argsort(-skill, kind="stable")]
    blocks = {m: int(b) for m, b in zip(miners, rng.choice(100_000, MINERS, replace=False) + 1, strict=True)}
    names = [f"v{j}" for j in range(max(2, setting.validators))]
    runs: dict[str, list[PooledRun]] = {v: [] for v in names}
    for w in range(setting.window):
        difficulty = rng.normal(0, DIFFICULTY_SD, setting.problems)
        problems = [f"r{w}:p{j}" for j in range(setting.problems)]
        rate = {
            (m, p): 1 / (1 + math.exp(-SLOPE * (skill[i] - difficulty[j])))
            for i, m in enumerate(miners)
            for j, p in enumerate(problems)
        }
        units = [(m, p, a) for m in miners for p in problems for a in range(setting.attempts)]
        split = shard(units, names, setting.r, seed * 1000 + w) if setting.r >= 2 else dict.fromkeys(names, units)
        for v in names:
            runs[v] += _runs(v, split[v], rate, rng)
    if setting.forged:
        runs[names[-1]] = _forge(runs[names[-1]], ranked[1], setting.forgery)
    return runs, blocks, ranked[0], ranked[1]


def _median_of_means(runs: dict[str, list[PooledRun]], blocks: dict[str, int]) -> list[Standing]:
    """The rule decided against: each validator's mean final score per miner, the median across validators."""
    validators = sorted(runs)
    miners = sorted({r.miner for rs in runs.values() for r in rs})
    means = np.full((len(miners), len(validators)), np.nan)
    problems: dict[str, set[str]] = {m: set() for m in miners}
    for v, validator in enumerate(validators):
        mine: dict[str, list[float]] = {}
        for r in runs[validator]:
            mine.setdefault(r.miner, []).append(r.score)
            problems[r.miner].add(r.problem_id)
        for miner, scores in mine.items():
            means[miners.index(miner), v] = math.fsum(scores) / len(scores)
    median = weighted_median(means, np.ones(len(validators)))
    return _ranked({m: float(median[i]) for i, m in enumerate(miners)}, blocks, {m: len(problems[m]) for m in miners})


def _pooled_strict(runs: dict[str, list[PooledRun]], blocks: dict[str, int]) -> list[Standing]:
    """A rule decided against: the strict verdicts pooled over every run (one run one vote), times the median of the
    validators' judge coefficients."""
    validators = sorted(runs)
    miners = sorted({r.miner for rs in runs.values() for r in rs})
    strict: dict[str, list[float]] = {m: [] for m in miners}
    ratios = np.full((len(miners), len(validators)), np.nan)
    for v, validator in enumerate(validators):
        sums: dict[str, list[float]] = {}
        for r in runs[validator]:
            strict[r.miner].append(r.success)
            pair = sums.setdefault(r.miner, [0.0, 0.0])
            pair[0], pair[1] = pair[0] + r.success, pair[1] + r.score
        for miner, (s, f) in sums.items():
            if s > 0:
                ratios[miners.index(miner), v] = f / s
    coefficient = np.nan_to_num(weighted_median(ratios, np.ones(len(validators))))
    scores = {m: math.fsum(strict[m]) / len(strict[m]) * coefficient[i] for i, m in enumerate(miners)}
    return _ranked(scores, blocks, {m: len(strict[m]) for m in miners})


def _ranked(scores: dict[str, float], blocks: dict[str, int], problems: dict[str, int]) -> list[Standing]:
    score = {m: round(float(s), 12) for m, s in scores.items()}
    order = sorted(score, key=lambda m: (-score[m], blocks[m], m))
    return [
        Standing(
            miner=m,
            score=score[m],
            low=wilson(score[m], problems[m])[0],
            high=wilson(score[m], problems[m])[1],
            p_rank1=0.0,
            samples=0,
            problems=problems[m],
            rank=rank,
        )
        for rank, m in enumerate(order, start=1)
    ]


def _standings(setting: Setting, runs: dict[str, list[PooledRun]], blocks: dict[str, int], seed: int) -> list[Standing]:
    if setting.rule == "median-of-means":
        return _median_of_means(runs, blocks)
    if setting.rule == "pooled-strict":
        return _pooled_strict(runs, blocks)
    if setting.rule == "mean":
        samples = [Sample(miner=r.miner, problem=r.problem_id, score=r.score) for rs in runs.values() for r in rs]
        return standings(samples, blocks, seed=seed, replicates=REPLICATES)
    return pool(runs, dict.fromkeys(runs, 1.0), seed=seed, commitment_blocks=blocks, replicates=REPLICATES)


def _weights(setting: Setting, ranked: list[Standing], blocks: dict[str, int]) -> dict[int, float]:
    results = [
        MinerResult(hotkey=s.miner, score=s.score, commitment_block=blocks[s.miner], low=s.low, high=s.high)
        for s in ranked
    ]
    uids = {f"m{i:02d}": i + 1 for i in range(MINERS)}
    return compute_weights(results, uids, parse_policy(setting.policy))


def _shuffled(runs: dict[str, list[PooledRun]], seed: int) -> dict[str, list[PooledRun]]:
    rnd = random.Random(seed)
    out = {}
    for v in rnd.sample(sorted(runs), len(runs)):
        mine = list(runs[v])
        rnd.shuffle(mine)
        out[v] = mine
    return out


def trial(setting: Setting, seed: int) -> tuple[bool, float, bool, bool]:
    """(same winner, total variation, byte-identical, best miner wins) of one simulated race."""
    runs, blocks, best, _ = race(setting, seed)
    if setting.validators <= 1:  # two validators, each alone on its own runs
        views = [{v: runs[v]} for v in ("v0", "v1")]
    else:  # both pool every published bundle, the second in another order
        views = [runs, _shuffled(runs, seed)]
    ranked = [_standings(setting, view, blocks, seed) for view in views]
    vectors = [_weights(setting, r, blocks) for r in ranked]
    uids = set(vectors[0]) | set(vectors[1])
    tv = 0.5 * sum(abs(vectors[0].get(u, 0.0) - vectors[1].get(u, 0.0)) for u in uids)
    as_bytes = [
        json.dumps([[s.model_dump() for s in r], sorted(w.items())]).encode()
        for r, w in zip(ranked, vectors, strict=True)
    ]
    winners = [r[0].miner if r else "" for r in ranked]
    return winners[0] == winners[1], tv, as_bytes[0] == as_bytes[1], winners[0] == best


def measure(setting: Setting, races: int, seed: int) -> dict[str, object]:
    outcomes = [trial(setting, seed + i) for i in range(races)]
    row = {k: v for k, v in asdict(setting).items()}
    return {
        **row,
        "same_winner": round(sum(o[0] for o in outcomes) / races, 4),
        "tv": round(sum(o[1] for o in outcomes) / races, 4),
        "identical": round(sum(o[2] for o in outcomes) / races, 4),
        "best_wins": round(sum(o[3] for o in outcomes) / races, 4),
        "runs_per_validator": setting.runs_per_validator(),
        "races": races,
    }


HEADER = (
    f"{'policy':<16}{'rule':<16}{'problems':>9}{'attempts':>9}{'window':>7}{'validators':>11}{'r':>3}"
    f"{'forged':>16}{'same_winner':>12}{'tv':>6}{'identical':>10}{'best_wins':>10}{'runs/val':>9}"
)


def line(row: dict[str, object]) -> str:
    return (
        f"{row['policy']!s:<16}{row['rule']!s:<16}{row['problems']!s:>9}{row['attempts']!s:>9}{row['window']!s:>7}"
        f"{row['validators']!s:>11}{row['r']!s:>3}{row['forgery'] or row['forged']!s:>16}"
        f"{row['same_winner']:>12.0%}{row['tv']:>6.2f}"
        f"{row['identical']:>10.0%}{row['best_wins']:>10.0%}{row['runs_per_validator']!s:>9}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--races", type=int, default=300, help="simulated races per setting (default 300)")
    parser.add_argument("--seed", type=int, default=2026, help="the first race's seed; race i uses seed + i")
    parser.add_argument("--json", type=Path, help="write one row per setting to this file")
    args = parser.parse_args()
    if args.races < 1:
        parser.error("--races must be at least 1")
    print(f"{args.races} simulated races per setting, 16 miners; seeds {args.seed}..{args.seed + args.races - 1}")
    print(HEADER)
    rows = []
    started, cpu = time.perf_counter(), time.process_time()
    for setting in settings():
        rows.append(measure(setting, args.races, args.seed))
        print(line(rows[-1]), flush=True)
    print(f"{time.perf_counter() - started:.0f} s ({time.process_time() - cpu:.0f} s of CPU)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
        print(f"wrote {len(rows)} rows to {args.json}")


if __name__ == "__main__":
    main()
