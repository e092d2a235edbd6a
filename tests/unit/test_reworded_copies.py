"""Copies that reword their searches, against an attacker: the offline template with ``sort="default"`` spelled out,
a query word repeated, or a word no product has added to every query (`tests/support/behaviour_copies.py`,
``REWORDED``), each scoring a hair above the template (as the attack that was paid did), raced in-process against
the real tools by two pooled validators on 24 problems, 2 of which the template answers wrongly. Judged on
behaviour alone, as a copy whose code is hidden by a syntax-tree rewrite is (code similarity under the threshold):
the first two ask what the template asks (the canonical form drops a default spelled out and a repeated word), the
third finds other results for some searches but gives the template's answers, its two wrong ones included. Each
earns nothing and no more than the template; honestly different agents are not copies of one another."""

from __future__ import annotations

from typing import Any

import pytest

from arena.copies.behaviour import behaviour_of, compare_behaviour
from arena.pooling import PooledRun, pool
from arena.weights import MinerResult, compute_weights, parse_policy
from tests.support.behaviour_copies import REWORDED, make_world, race_runs
from validator.pool.copies import find_copies

POLICY = parse_policy("top_heavy")
VALIDATORS = ("validator-a", "validator-b")
ATTEMPTS = 2  # per validator
ORDER = list(REWORDED)  # commitment order: the template first
COPIES = ("defaulted", "repeated", "nonsense")
HAIR = 0.002  # how far above the template a copy scores on every run


@pytest.fixture(scope="module")
def pooled(tmp_path_factory: pytest.TempPathFactory) -> list[PooledRun]:
    catalog, problems = make_world(tmp_path_factory.mktemp("reworded") / "cat", problems=24)
    runs = race_runs(catalog, problems, ATTEMPTS * len(VALIDATORS), REWORDED)
    return [
        PooledRun(
            validator=VALIDATORS[i // ATTEMPTS],
            miner=name,
            submission=f"{name}-sha",
            problem_id=problem_id,
            attempt=i % ATTEMPTS,
            score=0.5 * run.success + (HAIR if name in COPIES else 0.0),
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


def by_problem(runs: list[PooledRun], miner: str, field: str = "behaviour") -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for r in runs:
        if r.miner == miner:
            out.setdefault(r.problem_id, []).append(getattr(r, field))
    return out


def test_the_world_has_wrong_answers_to_share(pooled: list[PooledRun]) -> None:
    """The evidence the rule rests on is there: the template fails some problems, and the copies score above it."""
    wrong = {r.problem_id for r in pooled if r.miner == "template" and r.success < 1}
    assert len(wrong) >= 2
    results = {r.hotkey: r.score for r in standings(pooled)}
    assert all(results[c] > results["template"] for c in COPIES)


@pytest.mark.parametrize("copy", COPIES)
def test_a_reworded_copy_earns_nothing_and_no_more_than_the_template(copy: str, pooled: list[PooledRun]) -> None:
    results = standings(pooled)
    kept, verdicts = find_copies(results, pooled, lambda _sha: None)
    verdict = next((v for v in verdicts if v.hotkey == copy), None)
    assert verdict is not None and verdict.copy_ and verdict.copy_of == "template", verdicts
    weights = compute_weights(kept, {name: uid for uid, name in enumerate(ORDER)}, POLICY)
    assert weights.get(ORDER.index(copy), 0.0) == 0.0
    assert weights.get(ORDER.index("template"), 0.0) > 0


def test_a_copy_by_its_answers_says_so_and_on_which_problems(pooled: list[PooledRun]) -> None:
    """The copy whose searches find other results is caught by its answers: the evidence names the problems answered
    alike, and the wrong answers it shares are among them."""
    match = compare_behaviour(
        by_problem(pooled, "template"), by_problem(pooled, "nonsense"), by_problem(pooled, "template", "success")
    )
    assert match.copy_ and match.kind == "answers"
    assert len(match.same_wrong) >= 2 and set(match.same_wrong) <= set(match.problems)
    _, verdicts = find_copies(standings(pooled), pooled, lambda _sha: None)
    verdict = next(v for v in verdicts if v.hotkey == "nonsense")
    assert verdict.kind == "answers" and "answers similarity" in verdict.reason


def test_honestly_different_agents_are_not_copies_even_with_answer_evidence(pooled: list[PooledRun]) -> None:
    """The template, the top hit and the cheapest hit, in either order: answers alike on some problems (the right
    ones), never enough, and never their calls."""
    honest = ["template", "blind", "cheapest"]
    for a in honest:
        for b in honest:
            if a != b:
                match = compare_behaviour(
                    by_problem(pooled, a), by_problem(pooled, b), by_problem(pooled, a, "success")
                )
                assert not match.copy_, (a, b, match)
    _, verdicts = find_copies(standings(pooled), pooled, lambda _sha: None)
    assert {v.hotkey for v in verdicts} == set(COPIES)


def test_no_op_rewordings_read_as_the_same_call_and_honest_differences_do_not() -> None:
    def token(**arguments: object) -> str:
        return behaviour_of([{"kind": "tool_call", "name": "find_product", "arguments": arguments}])[0]

    plain = token(q="red running shoes")
    assert token(q="red running shoes", sort="default", page=1, price=None) == plain
    assert token(q="red red running shoes") == plain
    assert token(q="red running shoes", sort="priceasc") != plain
    assert token(q="red running shoes", page=2) != plain
    assert token(q="red running boots") != plain
    assert token(q="red running shoes", price="default") != plain  # not the declared default (None)


def test_searches_that_found_the_same_results_are_the_same_call_and_others_are_not() -> None:
    def run(*searches: tuple[str, list[str]]) -> tuple[str, ...]:
        return behaviour_of(
            [
                *(
                    {"kind": "tool_call", "name": "find_product", "arguments": {"q": q}, "result": found}
                    for q, found in searches
                ),
                {"kind": "tool_call", "name": "recommend_product", "arguments": {"product_ids": "p1"}},
            ]
        )

    earlier = {p: [run(("red shoes", ["p1", "p2"]), ("shoes", ["p3"]))] for p in "ab"}
    same_found = {p: [run(("red shoes zqxv", ["p1", "p2"]), ("shoes qq", ["p3"]))] for p in "ab"}
    other_found = {p: [run(("red shoes zqxv", ["p9"]), ("shoes qq", ["p8"]))] for p in "ab"}
    assert compare_behaviour(earlier, same_found).copy_
    assert not compare_behaviour(earlier, other_found).copy_


def test_another_page_that_found_the_same_is_another_call() -> None:
    """Only wording is absorbed by what a search found: an agent that pages differently asks something else, even
    where the pages it got read alike."""

    def run(page: int) -> tuple[str, ...]:
        return behaviour_of(
            [
                {
                    "kind": "tool_call",
                    "name": "find_product",
                    "arguments": {"q": "shoes", "page": page},
                    "result": ["p1"],
                },
                {"kind": "tool_call", "name": "recommend_product", "arguments": {"product_ids": "p1"}},
            ]
        )

    assert not compare_behaviour({p: [run(2)] for p in "ab"}, {p: [run(3)] for p in "ab"}).copy_


def test_errored_runs_are_no_wrong_answers_for_an_honest_agent_that_answers_alike(pooled: list[PooledRun]) -> None:
    """An honest later agent that gives the template's right answers (the one whose searches differ, on the problems
    the template answers rightly) is no copy; nor once the template timed out on two problems (runs ended in error
    pool as strict 0, yet answered nothing wrong), nor when a lying validator publishes the template's runs again with
    an agent error code to manufacture "the same wrong answers". Only an error-free run whose strict verdict failed
    is a wrong answer."""
    from arena.blame import TIMED_OUT

    right = sorted(
        {r.problem_id for r in pooled if r.miner == "template"}
        - {r.problem_id for r in pooled if r.miner == "template" and r.success < 1}
    )
    honest = [r for r in pooled if r.problem_id in right and r.miner in ("template", "nonsense")]
    results = standings(honest)
    assert find_copies(results, honest, lambda _sha: None)[1] == []

    def errored(run: PooledRun, **changes: Any) -> PooledRun:
        return run.model_copy(
            update={"score": 0.0, "success": 0.0, "error_code": TIMED_OUT, "blame": "agent", **changes}
        )

    timed_out = [errored(r) if r.miner == "template" and r.problem_id in right[:2] else r for r in honest]
    liar = [
        errored(r, validator="validator-liar")
        for r in honest
        if r.miner == "template" and r.validator == VALIDATORS[0] and r.problem_id in right[:4]
    ]
    for runs in (timed_out, honest + liar + liar_attempts(liar)):
        _, verdicts = find_copies(results, runs, lambda _sha: None)
        assert verdicts == [], verdicts
        calls = by_problem(runs, "template"), by_problem(runs, "nonsense")
        counted_as_failures = compare_behaviour(*calls, by_problem(runs, "template", "success"))
        assert counted_as_failures.copy_ and len(counted_as_failures.same_wrong) >= 2  # what the attack rests on
        strict = {
            p: [
                None if r.error_code is not None else r.success
                for r in runs
                if r.miner == "template" and r.problem_id == p
            ]
            for p in right
        }
        match = compare_behaviour(*calls, strict)
        assert len(match.answered) == len(right) and not match.same_wrong and not match.copy_


def liar_attempts(liar: list[PooledRun]) -> list[PooledRun]:
    """The liar's runs once more under other sample numbers: as many errored runs as the honest validators' runs."""
    return [r.model_copy(update={"attempt": r.attempt + ATTEMPTS}) for r in liar]
