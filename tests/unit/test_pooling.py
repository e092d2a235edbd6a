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


def judged(validator: str, miner: str, problem: str, strict: float, coefficient: float) -> PooledRun:
    return run(validator, miner, problem, strict * coefficient).model_copy(update={"success": strict})


def test_the_score_is_the_median_strict_rate_times_the_median_judge_coefficient() -> None:
    solved = {"v1": 2, "v2": 5, "v3": 6, "v4": 10}  # strict successes of 10 problems each
    coefficient = {"v1": 0.5, "v2": 0.6, "v3": 0.8, "v4": 1.0}  # the share of strict success each judge let stand
    runs = {v: [judged(v, "m", f"p{j}", float(j < solved[v]), coefficient[v]) for j in range(10)] for v in VALIDATORS}
    # strict: the median of 0.2, 0.5, 0.6, 1.0 = 0.55; coefficient: the median of 0.5, 0.6, 0.8, 1.0 = 0.7
    even = pool(runs, dict.fromkeys(VALIDATORS, 1.0), seed=0, commitment_blocks={})[0]
    assert even.score == pytest.approx(0.55 * 0.7) and (even.samples, even.validators) == (40, 4)
    heavy = {"v1": 1.0, "v2": 1.0, "v3": 1.0, "v4": 5.0}  # v4 holds more than half the stake: it decides
    assert pool(runs, heavy, seed=0, commitment_blocks={})[0].score == 1.0
    tilted = {"v1": 1.0, "v2": 1.0, "v3": 3.0, "v4": 1.0}  # v3 holds the middle of the stake
    assert pool(runs, tilted, seed=0, commitment_blocks={})[0].score == pytest.approx(0.6 * 0.8)
    no_stake = {"v1": 0.0, "v2": 3.0, "v3": 0.0, "v4": 0.0}  # only v2's runs count
    only = pool(runs, no_stake, seed=0, commitment_blocks={})[0]
    assert (only.score, only.validators, only.samples) == (pytest.approx(0.5 * 0.6), 1, 10)
    assert pool(runs, {}, seed=0, commitment_blocks={})[0].score == even.score  # no stake anywhere: all alike


def test_a_validator_that_withholds_a_miners_runs_has_none_of_them_counted() -> None:
    runs = race({"a": 0.5, "b": 0.5}, problems=20, seed=4)
    failures = [r for r in runs["v4"] if r.miner == "a" and r.score == 0]
    assert len(failures) >= 3
    kept = [r for r in runs["v4"] if r not in failures[:3]]  # three of a's twenty: more than one and 10%
    ranked = {s.miner: s for s in pool({**runs, "v4": kept}, {}, seed=0, commitment_blocks={})}
    assert (ranked["a"].validators, ranked["a"].samples) == (3, 60) and ranked["b"].validators == 4
    one = [r for r in runs["v4"] if r != failures[0]]  # one unit missing (an infrastructure failure) costs nothing
    assert {s.miner: s.validators for s in pool({**runs, "v4": one}, {}, seed=0, commitment_blocks={})}["a"] == 4
    # with the shards given, a unit the validator never published counts as left out too
    assigned = {v: [(m, f"p{j}", 0) for m in "ab" for j in range(20)] for v in VALIDATORS}
    short = {**runs, "v4": [r for r in runs["v4"] if r.problem_id not in {"p0", "p1", "p2"}]}
    assert pool(short, {}, seed=0, commitment_blocks={})[0].validators == 4  # its own problems: nothing withheld
    assert pool(short, {}, seed=0, commitment_blocks={}, assigned=assigned)[0].validators == 3


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
    """A forger: its judge zeroes every other miner's successes and lets the favoured miner's stand; withholding, it
    also leaves out the favoured miner's failures (all, or as many as the rule lets pass)."""
    zeroed = [r if r.miner == favoured else r.model_copy(update={"score": 0.0}) for r in runs]
    if not withhold:
        return zeroed
    failures = [r for r in zeroed if r.miner == favoured and r.success == 0]
    return [r for r in zeroed if r not in failures[: max(1, len(failures) // 10)]]


@pytest.mark.parametrize("withhold", [False, True])
def test_one_forger_in_four_cannot_lift_its_miner_over_the_best(withhold: bool) -> None:
    """Attacker: a validator with a quarter of the stake publishes honest-looking but false judge verdicts (every
    rival's success zeroed, the favoured miner's left standing) and withholds what the rule lets it withhold. Its
    favoured miner gains at most one run's worth (nothing at all without withholding), while a pooled
    mean of the final scores would rank it first in half the races or more."""
    rates = {"best": 0.65, "favoured": 0.55, "other": 0.5}
    mean_pays_forger = 0
    for seed in range(20):
        runs = race(rates, problems=16, seed=seed)
        honest = {s.miner: s.score for s in pool(runs, {}, seed=seed, commitment_blocks={}, replicates=0)}
        forged_runs = {**runs, "v4": forge(runs["v4"], "favoured", withhold=withhold)}
        forged = {s.miner: s.score for s in pool(forged_runs, {}, seed=seed, commitment_blocks={}, replicates=0)}
        gain = forged["favoured"] - honest["favoured"]
        # withholding one failure of its 16 runs moves the forger's own strict mean by at most 1/15, the median less
        assert gain == 0 if not withhold else 0 <= gain <= 1 / 15
        assert forged["best"] == honest["best"] and forged["other"] == honest["other"]
        counted = [r for rs in forged_runs.values() for r in rs]
        mean = {m: sum(r.score for r in counted if r.miner == m) / sum(r.miner == m for r in counted) for m in rates}
        mean_pays_forger += max(mean, key=lambda m: mean[m]) == "favoured"
    assert mean_pays_forger >= 10  # a pooled mean of every final score would pay the forger's miner
