"""`arena.pooling.pool`: standings from several validators' runs; property tests (order of bundles and runs,
duplicates, missing validators, determinism) and the attacker tests (one validator in four forging verdicts or
withholding bad runs earns its favoured miner less than the truly best miner)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.pooling import PooledRun, pool, wilson

PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
VALIDATORS = ["v1", "v2", "v3", "v4"]
REPLICATES = 200


def run(
    validator: str, miner: str, problem: str, score: float, attempt: int = 0, blame: str | None = None
) -> PooledRun:
    return PooledRun(
        validator=validator,
        miner=miner,
        submission="s" + miner,
        problem_id=problem,
        attempt=attempt,
        score=score,
        success=score,
        blame=blame,
    )


def race(rates: dict[str, float], problems: int, seed: int, validators: list[str] = VALIDATORS) -> dict:
    """Each validator's own coin flips at each miner's rate on the same problems."""
    rng = random.Random(seed)
    return {
        v: [run(v, m, f"p{j}", float(rng.random() < rate)) for m, rate in rates.items() for j in range(problems)]
        for v in validators
    }


def serialised(standings: list) -> bytes:
    return json.dumps([s.model_dump() for s in standings], sort_keys=True).encode()


RATES = {"best": 0.8, "good": 0.6, "fair": 0.45, "weak": 0.2}
BLOCKS = {"best": 40, "good": 10, "fair": 30, "weak": 20}


def test_one_validator_is_its_mean_with_a_wilson_interval_over_problems() -> None:
    runs = race(RATES, problems=10, seed=1, validators=["v1"])
    ranked = pool(runs, {"v1": 1.0}, seed=3, commitment_blocks=BLOCKS, replicates=REPLICATES)
    for s in ranked:
        mine = [r.score for r in runs["v1"] if r.miner == s.miner]
        assert s.score == pytest.approx(sum(mine) / len(mine))
        assert (s.low, s.high) == pytest.approx(wilson(s.score, 10))
        assert (s.samples, s.problems, s.validators) == (10, 10, 1)
    assert [s.rank for s in ranked] == [1, 2, 3, 4]
    assert sum(s.p_rank1 for s in ranked) == pytest.approx(1.0)


def test_the_score_is_the_stake_weighted_median_of_the_validators_means() -> None:
    means = {"v1": 0.2, "v2": 0.5, "v3": 0.6, "v4": 1.0}
    runs = {v: [run(v, "m", f"p{j}", float(j < means[v] * 10)) for j in range(10)] for v in VALIDATORS}
    assert pool(runs, dict.fromkeys(VALIDATORS, 1.0), seed=0, commitment_blocks={})[0].score == 0.55
    heavy = {"v1": 1.0, "v2": 1.0, "v3": 1.0, "v4": 5.0}  # v4 holds more than half the stake
    assert pool(runs, heavy, seed=0, commitment_blocks={})[0].score == 1.0
    no_stake = {"v1": 0.0, "v2": 3.0, "v3": 0.0, "v4": 0.0}  # only v2's runs count
    only = pool(runs, no_stake, seed=0, commitment_blocks={})[0]
    assert (only.score, only.validators, only.samples) == (0.5, 1, 10)
    assert pool(runs, {}, seed=0, commitment_blocks={})[0].score == 0.55  # no stake anywhere: all alike


def test_a_run_blamed_on_the_validator_is_missing_not_a_zero() -> None:
    runs = {"v1": [run("v1", "m", "p0", 1.0), run("v1", "m", "p1", 0.0, blame="validator")]}
    only = pool(runs, {"v1": 1.0}, seed=0, commitment_blocks={})[0]
    assert (only.score, only.samples, only.problems) == (1.0, 1, 1)
    agent = {"v1": [run("v1", "m", "p0", 1.0), run("v1", "m", "p1", 0.0, blame="agent")]}
    assert pool(agent, {"v1": 1.0}, seed=0, commitment_blocks={})[0].score == 0.5  # the agent's error is a 0
    assert pool({"v1": [run("v1", "m", "p0", 0.0, blame="validator")]}, {}, seed=0, commitment_blocks={}) == []


def test_a_run_published_under_another_validators_name_is_not_counted() -> None:
    runs = {"v1": [run("v1", "m", "p0", 0.0), run("v2", "m", "p1", 1.0)]}
    assert pool(runs, {}, seed=0, commitment_blocks={})[0].samples == 1


def test_an_exact_tie_goes_to_the_earlier_commitment_then_the_smaller_hotkey() -> None:
    runs = {v: [run(v, m, f"p{j}", 1.0) for m in ("late", "early", "also") for j in range(4)] for v in ("v1", "v2")}
    blocks = {"late": 9, "early": 2, "also": 9}
    ranked = pool(runs, {}, seed=0, commitment_blocks=blocks)
    assert [s.miner for s in ranked] == ["early", "also", "late"]
    assert [s.p_rank1 for s in ranked] == [1.0, 0.0, 0.0]


@st.composite
def races(draw: st.DrawFn) -> tuple[dict, dict, int]:
    seed = draw(st.integers(0, 2**32))
    validators = draw(st.lists(st.sampled_from(VALIDATORS), min_size=1, max_size=4, unique=True))
    rates = {m: draw(st.floats(0, 1)) for m in ("a", "b", "c")}
    problems = draw(st.integers(1, 6))
    stakes = {v: draw(st.sampled_from([0.0, 1.0, 2.5, 1e6])) for v in validators}
    return race(rates, problems, seed, validators), stakes, seed


@PROPS
@given(races(), st.randoms(use_true_random=False))
def test_same_runs_in_any_order_with_duplicates_give_byte_identical_standings(case: tuple, rnd: random.Random) -> None:
    runs, stakes, seed = case
    one = pool(runs, stakes, seed=seed, commitment_blocks={}, replicates=REPLICATES)
    shuffled: dict = {}
    for v in rnd.sample(sorted(runs), len(runs)):  # the bundles in another order
        mine = list(runs[v]) + rnd.sample(runs[v], min(3, len(runs[v])))  # some runs twice
        rnd.shuffle(mine)
        shuffled[v] = mine
    assert serialised(pool(shuffled, stakes, seed=seed, commitment_blocks={}, replicates=REPLICATES)) == serialised(one)
    assert sorted(s.rank for s in one) == list(range(1, len(one) + 1))
    assert all(0.0 <= s.low <= s.high <= 1.0 for s in one)


@PROPS
@given(races())
def test_a_validator_with_no_runs_changes_nothing(case: tuple) -> None:
    runs, stakes, seed = case
    one = pool(runs, stakes, seed=seed, commitment_blocks={}, replicates=REPLICATES)
    assert (
        pool(
            {**runs, "offline": []}, {**stakes, "offline": 5.0}, seed=seed, commitment_blocks={}, replicates=REPLICATES
        )
        == one
    )


def test_a_duplicated_run_with_another_score_counts_once_at_the_lower_score() -> None:
    runs = {"v1": [run("v1", "m", "p0", 0.0), run("v1", "m", "p0", 1.0), run("v1", "m", "p1", 1.0)]}
    only = pool(runs, {}, seed=0, commitment_blocks={})[0]
    assert (only.score, only.samples) == (0.5, 2)


def forge(runs: list[PooledRun], favoured: str, *, withhold: bool) -> list[PooledRun]:
    """A forger: the favoured miner's runs at 1.0 and everyone else's at 0, or (withhold) its bad runs left out."""
    if withhold:
        return [r for r in runs if r.miner != favoured or r.score > 0]
    return [r.model_copy(update={"score": float(r.miner == favoured)}) for r in runs]


@pytest.mark.parametrize("withhold", [False, True])
def test_one_forger_in_four_cannot_lift_its_miner_over_the_best(withhold: bool) -> None:
    """Attacker: a validator with a quarter of the stake publishes honest-looking but false verdicts for the miner it
    favours. Under a pooled mean the favoured miner would win; under the rule it earns no rank above the best miner."""
    rates = {"best": 0.75, "favoured": 0.55, "other": 0.5}
    wins = mean_pays_forger = 0
    for seed in range(20):
        runs = race(rates, problems=16, seed=seed)
        runs["v4"] = forge(runs["v4"], "favoured", withhold=withhold)
        ranked = pool(runs, dict.fromkeys(VALIDATORS, 1.0), seed=seed, commitment_blocks={}, replicates=0)
        wins += ranked[0].miner == "best"
        counted = [r for rs in runs.values() for r in rs]
        mean = {m: sum(r.score for r in counted if r.miner == m) / sum(r.miner == m for r in counted) for m in rates}
        mean_pays_forger += max(mean, key=lambda m: mean[m]) == "favoured"
    assert wins >= 18
    assert withhold or mean_pays_forger >= 15  # a pooled mean of every run would pay the forger's miner
