"""`arena.sampling`: pass@k and pass^k, the Wilson interval over problems, P(rank 1) by a seeded bootstrap over
problems, and shards that give every run to r validators."""

from __future__ import annotations

import random

import pytest

from arena.sampling import Sample, pass_at_k, pass_hat_k, shard, standings, wilson, within_noise


def test_pass_at_k_and_pass_hat_k_of_k_samples() -> None:
    assert pass_at_k([True, False, False, False]) == 1.0  # one of four succeeded
    assert pass_hat_k([True, False, False, False]) == 0.0  # not all four
    assert pass_hat_k([1.0, 1.0]) == 1.0 and pass_at_k([0.0, 0.0]) == 0.0
    assert pass_at_k([True, False, False, False], k=1) == pytest.approx(0.25)  # the unbiased estimator
    assert pass_hat_k([True, True, False, False], k=2) == pytest.approx(1 / 6)
    assert pass_at_k([]) == 0.0 and pass_hat_k([]) == 0.0


def test_the_wilson_interval_narrows_with_problems_and_never_leaves_0_1() -> None:
    low8, high8 = wilson(0.5, 8)
    low64, high64 = wilson(0.5, 64)
    assert low8 < low64 < 0.5 < high64 < high8
    assert wilson(1.0, 8)[1] == 1.0 and wilson(1.0, 8)[0] < 1.0  # eight of eight is not certainty
    assert wilson(0.3, 0) == (0.0, 1.0)


def _samples(rates: dict[str, float], problems: int, k: int, seed: int) -> list[Sample]:
    rng = random.Random(seed)
    return [
        Sample(miner=m, problem=f"p{j}", score=float(rng.random() < rate))
        for m, rate in rates.items()
        for j in range(problems)
        for _ in range(k)
    ]


def test_standings_are_the_mean_with_an_interval_over_problems_and_p_rank1_sums_to_one() -> None:
    samples = _samples({"a": 0.9, "b": 0.5, "c": 0.1}, problems=20, k=4, seed=1)
    ranked = standings(samples, {"a": 3, "b": 2, "c": 1}, seed=7)
    assert [s.miner for s in ranked] == ["a", "b", "c"] and [s.rank for s in ranked] == [1, 2, 3]
    a = ranked[0]
    assert a.score == pytest.approx(sum(s.score for s in samples if s.miner == "a") / 80)
    assert (a.samples, a.problems) == (80, 20)
    assert (a.low, a.high) == wilson(a.score, 20)  # k samples of a problem do not narrow it: n is the problems
    assert sum(s.p_rank1 for s in ranked) == pytest.approx(1.0)
    assert a.p_rank1 > 0.95 and ranked[2].p_rank1 == 0.0
    assert within_noise(ranked) == []


def test_standings_are_the_same_in_any_order_and_seeded() -> None:
    wins = {"a": "11111000", "b": "00011110", "c": "10000001"}  # a leads b on problems b does not solve
    samples = [Sample(miner=m, problem=f"p{j}", score=float(c)) for m, row in wins.items() for j, c in enumerate(row)]
    one = standings(samples, {}, seed=11)
    shuffled = list(samples)
    random.Random(3).shuffle(shuffled)
    assert standings(shuffled, {}, seed=11) == one
    assert 0 < one[0].p_rank1 < 1 and len(within_noise(one)) >= 2  # 8 problems cannot tell them apart


def test_an_exact_tie_goes_to_the_earlier_commitment_in_rank_and_in_p_rank1() -> None:
    samples = [Sample(miner=m, problem=f"p{j}", score=1.0) for m in ("late", "early") for j in range(4)]
    ranked = standings(samples, {"late": 9, "early": 2}, seed=0)
    assert [s.miner for s in ranked] == ["early", "late"]
    assert (ranked[0].p_rank1, ranked[1].p_rank1) == (1.0, 0.0)
    assert within_noise(ranked) == ["early", "late"]


def test_sharding_with_r_2_gives_every_unit_to_two_distinct_validators_balanced() -> None:
    units = [(m, f"p{j}", a) for m in ("m1", "m2", "m3") for j in range(5) for a in range(2)]
    validators = ["v3", "v1", "v2", "v4"]
    shards = shard(units, validators, 2, seed=42)
    held: dict[tuple[str, str, int], list[str]] = {}
    for v, mine in shards.items():
        for unit in mine:
            held.setdefault(unit, []).append(v)
    assert set(held) == set(units) and all(len(set(vs)) == 2 == len(vs) for vs in held.values())
    sizes = sorted(len(mine) for mine in shards.values())
    assert sizes[-1] - sizes[0] <= 1 and sum(sizes) == 2 * len(units)
    assert shard(list(reversed(units)), list(reversed(validators)), 2, seed=42) == shards  # any order, same split
    assert shard(units, validators, 2, seed=43) != shards
    assert all(len(mine) == len(units) for mine in shard(units, ["v1"], 2, seed=1).values())  # one: it runs all
