"""`arena.pooling`: shards (every unit to exactly r distinct validators, balanced, whole problems per validator,
deterministic) and tau2-bench's per-task estimators pass@k and pass^k."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.pooling import pass_at_k, pass_hat_k, shard


def units(miners: int, problems: int, samples: int) -> list[tuple[str, str, int]]:
    return [(f"m{m}", f"p{p}", a) for m in range(miners) for p in range(problems) for a in range(samples)]


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 6), st.integers(1, 9), st.integers(1, 3), st.integers(1, 7), st.integers(1, 4), st.integers(0, 2**64)
)
def test_every_unit_goes_to_exactly_min_r_v_distinct_validators_balanced(
    miners: int, problems: int, samples: int, validators: int, r: int, seed: int
) -> None:
    work = units(miners, problems, samples)
    names = [f"v{i}" for i in range(validators)]
    split = shard(work, names, r, seed)
    assert set(split) == set(names)
    held = Counter(u for mine in split.values() for u in mine)
    assert set(held) == set(work)
    assert set(held.values()) == {min(r, validators)}  # exactly r copies, on distinct validators
    assert all(len(set(mine)) == len(mine) for mine in split.values())
    sizes = [len(mine) for mine in split.values()]
    assert max(sizes) - min(sizes) <= 1
    assert shard(list(reversed(work)), list(reversed(names)), r, seed) == split  # any order, same split


def test_a_validator_runs_every_miner_on_the_same_problems() -> None:
    work = units(miners=16, problems=16, samples=1)
    split = shard(work, ["a", "b", "c", "d"], 2, seed=7)
    for mine in split.values():
        assert len(mine) == 128  # today's cost per validator: 8 problems x 16 miners
        problems_of = {m: {p for mm, p, _ in mine if mm == m} for m, _, _ in mine}
        assert len({frozenset(ps) for ps in problems_of.values()}) == 1 and len(next(iter(problems_of.values()))) == 8
    assert shard(work, ["a", "b", "c", "d"], 2, seed=8) != split  # the race's seed decides


def test_one_validator_runs_everything_and_none_gets_nothing() -> None:
    work = units(3, 2, 2)
    assert shard(work, ["only"], 2, seed=1) == {"only": sorted(work)}
    assert shard(work, [], 2, seed=1) == {}
    assert shard([], ["a", "b"], 2, seed=1) == {"a": [], "b": []}


def test_pass_at_k_and_pass_hat_k_are_tau2_bench_estimators() -> None:
    # n samples, c successes: pass@k = 1 - C(n-c, k)/C(n, k); pass^k = C(c, k)/C(n, k)
    outcomes = [1.0, 0.0, 1.0, 1.0, 0.0]
    for k in range(1, 6):
        assert pass_at_k(outcomes, k) == pytest.approx(1 - math.comb(2, k) / math.comb(5, k))
        assert pass_hat_k(outcomes, k) == pytest.approx(math.comb(3, k) / math.comb(5, k))
    assert pass_at_k(outcomes, 1) == pass_hat_k(outcomes, 1) == pytest.approx(0.6)  # k = 1: both the success rate
    assert pass_at_k(outcomes) == 1.0 and pass_hat_k(outcomes) == 0.0  # k defaults to n
    assert pass_hat_k([0.5, 1.0]) == 0.0 and pass_at_k([0.5]) == 0.0  # a partial score is not a success
    assert pass_at_k([True, False], k=3) == 0.0 and pass_hat_k([], k=1) == 0.0  # k beyond the samples
