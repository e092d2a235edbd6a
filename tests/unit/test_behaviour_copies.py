"""Copies by behaviour against an attacker: copies of the offline template that pad their queries with a space,
write them in capitals, add a no-op search at random, or are made more deterministic than a sampled original
(`tests/support/behaviour_copies.py`), raced in-process against the real tools by two pooled validators. Judged on
behaviour alone (no code evidence: the code check would catch these too), each earns no more than the agent it
copies, and nothing; honestly different deterministic agents are not copies of each other; two pooled validators
reading the same runs in any order reach the same verdicts."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from arena.copies.behaviour import behaviour_of, canonical, compare_behaviour
from arena.pooling import PooledRun, pool
from arena.weights import MinerResult, compute_weights, parse_policy
from tests.support.behaviour_copies import AGENTS, make_world, race_runs
from validator.pool.copies import find_copies

POLICY = parse_policy("top_heavy")
VALIDATORS = ("validator-a", "validator-b")
ATTEMPTS = 2  # per validator
ORDER = list(AGENTS)  # commitment order: the template first, each copy after what it copies


@pytest.fixture(scope="module")
def pooled(tmp_path_factory: pytest.TempPathFactory) -> list[PooledRun]:
    catalog, problems = make_world(tmp_path_factory.mktemp("behaviour") / "cat")
    runs = race_runs(catalog, problems, ATTEMPTS * len(VALIDATORS))
    return [
        PooledRun(
            validator=VALIDATORS[i // ATTEMPTS],
            miner=name,
            submission=f"{name}-sha",
            problem_id=problem_id,
            attempt=i % ATTEMPTS,
            score=run.success,
            success=run.success,
            behaviour=behaviour_of(run.events),
        )
        for name, by_problem in runs.items()
        for problem_id, samples in by_problem.items()
        for i, run in enumerate(samples)
    ]


def standings(runs: list[PooledRun]) -> list[MinerResult]:
    blocks = {name: 10 + i for i, name in enumerate(ORDER)}
    by_validator = {v: [r for r in runs if r.validator == v] for v in VALIDATORS}
    ranked = pool(by_validator, dict.fromkeys(VALIDATORS, 1.0), seed=7, commitment_blocks=blocks)
    return [
        MinerResult(hotkey=s.miner, score=s.score, commitment_block=blocks[s.miner], low=s.low, high=s.high)
        for s in ranked
    ]


def by_problem(runs: list[PooledRun], miner: str) -> dict[str, list[tuple[str, ...]]]:
    out: dict[str, list[tuple[str, ...]]] = {}
    for r in runs:
        if r.miner == miner and r.behaviour is not None:
            out.setdefault(r.problem_id, []).append(r.behaviour)
    return out


def test_arguments_are_compared_by_what_they_ask_not_how_they_are_written() -> None:
    assert canonical({"q": " Red  Shoes! ", "page": 1.0}) == canonical({"page": "1", "q": "red shoes"})
    assert canonical({"product_ids": ["b", "a"]}) == canonical({"product_ids": ["a", "b"]})
    assert canonical({"q": "red shoes"}) != canonical({"q": "blue shoes"})
    assert canonical({"price": "10-20"}) != canonical({"price": "10-30"})


@pytest.mark.parametrize(
    ("copy", "original"), [("padded", "template"), ("cased", "template"), ("noop", "template"), ("fixed", "rephrasing")]
)
def test_a_perturbed_copy_earns_nothing_and_no_more_than_what_it_copies(
    copy: str, original: str, pooled: list[PooledRun]
) -> None:
    results = standings(pooled)
    kept, verdicts = find_copies(results, pooled, lambda _sha: None)
    verdict = next(v for v in verdicts if v.hotkey == copy)
    assert verdict.copy_ and verdict.kind == "behaviour" and verdict.copy_of == original, verdict.reason
    weights = compute_weights(kept, {name: uid for uid, name in enumerate(ORDER)}, POLICY)
    assert weights.get(ORDER.index(copy), 0.0) == 0.0
    assert weights.get(ORDER.index(copy), 0.0) <= weights.get(ORDER.index(original), 0.0)
    assert weights.get(ORDER.index("template"), 0.0) > 0


def test_honestly_different_deterministic_agents_are_not_copies(pooled: list[PooledRun]) -> None:
    """In either order; but the template is one draw of the sampled agent (`rephrasing`) that follows it, so only
    the later of those two is compared with the earlier."""
    honest = ["template", "rephrasing", "blind", "cheapest"]
    for a in honest:
        for b in honest:
            if a != b and (a, b) != ("rephrasing", "template"):
                match = compare_behaviour(by_problem(pooled, a), by_problem(pooled, b))
                assert not match.copy_, (a, b, match)
    _, verdicts = find_copies(standings(pooled), pooled, lambda _sha: None)
    assert not {v.hotkey for v in verdicts} & set(honest)


def test_two_pooled_orderings_give_the_same_verdicts(pooled: list[PooledRun]) -> None:
    """Each validator reads the pooled runs in its own order (and one miner's runs name two bundles, one raced by
    each validator): the same verdicts, the same agent read for the miner."""
    two_bundles = [
        r.model_copy(update={"submission": "other-sha"}) if r.miner == "blind" and r.validator == VALIDATORS[1] else r
        for r in pooled
    ]
    results = standings(two_bundles)
    verdicts, asked = [], []
    for seed in range(6):
        shuffled: list[Any] = two_bundles[:]
        random.Random(seed).shuffle(shuffled)
        seen: list[str] = []

        def folder_of(sha: str, seen: list[str] = seen) -> Path | None:
            seen.append(sha)
            return None  # no code evidence: behaviour alone

        verdicts.append(find_copies(results, shuffled, folder_of)[1])
        asked.append(sorted(seen))
    assert all(v == verdicts[0] for v in verdicts) and verdicts[0]
    assert all(a == asked[0] for a in asked)
    assert ("blind-sha" in asked[0]) != ("other-sha" in asked[0])  # one bundle read for the miner, always the same
