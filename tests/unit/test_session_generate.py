"""The session generator (docs/sessions.md, "The generator and its self-checks"): kept problems pass every self-check,
crafted bad problems are rejected by the check they fail, generation is deterministic by seed, and no value leaks
outside its own place."""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena.catalog import Catalog
from arena.catalog.build import build_catalog
from arena.catalog.rng import Rng
from arena.tasks.session.agents import Session, blind_agent, passes_truth
from arena.tasks.session.facts import Undrawable, draw_plan
from arena.tasks.session.generate import DRAW_CHECKS, generate_report, generate_sessions, neighbours, write
from arena.tasks.session.oracle import reference_agent
from arena.tasks.session.problem import Constraint, Rule, SessionProblem
from arena.tasks.session.selfcheck import CHECKS, check_session, opening_hits
from arena.tasks.shopping.render import mentions

SEED = 3


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    out = tmp_path_factory.mktemp("session-gen") / "cat"
    build_catalog(21, 8000, out, workers=1)
    return Catalog.open(out)


@pytest.fixture(scope="module")
def report(catalog):
    return generate_report(catalog, 6, seed=SEED)


def test_kept_problems_pass_every_check(catalog, report):
    assert len(report.problems) >= 3, report.summary()
    for problem in report.problems:
        verdict = check_session(problem, catalog)
        assert verdict.ok, (problem.problem_id, verdict.failed, verdict.reason)
        assert verdict.passed == list(CHECKS)
        assert problem.difficulty in ("easy", "medium", "hard")
        assert problem.meta["needed"] >= 5 and problem.meta["bites"] >= 1
        assert passes_truth(problem, ",".join(problem.gold_ids), catalog)
        assert len(problem.gold_ids) == problem.items
        assert set(problem.public()) == {"problem_id", "task", "query", "difficulty", "limits"}


def test_problem_shape_follows_the_recipe(report):
    # per item: 5-8 constraints (query 2-3, or the title alone when the opening is vague; profile 1; slot 1-2, up to 4
    # when vague; reject 0-1) and one change of mind; a late one is the first item's, said on the last item
    for problem in report.problems:
        vague = "vague" in problem.meta["features"]
        assert problem.difficulty == level_of(problem)
        for item in range(problem.items):
            mine = [c for c in problem.constraints if c.item == item]
            by_src = [c.src for c in mine]
            assert 5 <= len(by_src) <= 8
            assert by_src.count("query") == 1 if vague else 2 <= by_src.count("query") <= 3
            assert by_src.count("profile") == 1
            assert 1 <= by_src.count("slot") <= (4 if vague else 2) and by_src.count("reject") <= 1
            assert mine[0].rule.title, "the title is always stated in the item's opening"
        assert len(problem.events) == problem.items
        for event in problem.events:
            target = problem.constraint(event.update.cid)
            assert target.src != "reject"
            assert target.rule != event.update.rule
        late = [e for e in problem.events if e.on == "last_item"]
        assert ("late" in problem.meta["features"]) == bool(late)
        assert all(problem.constraint(e.update.cid).item == 0 for e in late)


def level_of(problem: SessionProblem) -> str:
    """The level the problem's stored features make (points: docs/sessions.md, "Difficulty")."""
    names = problem.meta["features"]
    points = sum(1 for n in names if n in ("vague", "veto", "late", "low_patience", "sceptical", "efficiency_first"))
    points += 2 * (problem.items - 1) + sum(1 for n in names if n.startswith("bundle"))
    return "easy" if points < 2 else "medium" if points < 4 else "hard"


def test_no_hidden_value_in_the_opening_and_each_line_says_its_own(report):
    for problem in report.problems:
        for c in problem.constraints:
            values = [v for a in c.rule.attributes for vs in a.values() for v in vs]
            values += [v for o in c.rule.sku_options for v in o.values()]
            if c.src != "query":
                assert not any(mentions(problem.query, v) for v in values), (problem.query, c)
            if c.src == "slot" and values:
                assert any(mentions(c.say, v) for v in values), c


def test_reference_agent_meets_the_update_and_commits_the_truth(catalog, report):
    for problem in report.problems:
        session = Session(problem, catalog)
        outcome = reference_agent(problem, catalog, session.tools)
        assert outcome.success and outcome.ending == "agent_commit", outcome
        assert blind_agent(problem, catalog).success is False
    for problem in report.problems:
        out = reference_agent(problem, catalog)
        assert out.proposals >= 2, "the first acceptable proposal meets the update, a later one is confirmed"
        assert out.user_turns <= problem.limits.max_user_turns


def test_report_counts_every_attempt(report):
    assert report.attempts == len(report.problems) + sum(report.rejected.values())
    assert set(report.rejected) <= set(CHECKS) | set(DRAW_CHECKS)
    assert 0 < report.accepted_share <= 1
    assert sum(report.by_difficulty.values()) == len(report.problems)


def test_generation_is_deterministic_by_seed(catalog, report):
    again = generate_sessions(catalog, 6, seed=SEED)
    assert [p.model_dump() for p in again] == [p.model_dump() for p in report.problems]
    other = generate_sessions(catalog, 3, seed=SEED + 1)
    assert {p.problem_id for p in other}.isdisjoint({p.problem_id for p in report.problems})


def _gold(problem: SessionProblem, catalog: Catalog) -> dict:
    doc = catalog.get(problem.gold_ids[0])
    assert doc is not None
    return doc


def test_an_infeasible_problem_is_rejected(catalog, report):
    problem = report.problems[0]
    gold = _gold(problem, catalog)
    missing = Rule(attributes=[{"no_such_field": ["nothing"]}])
    broken = problem.model_copy(
        update={"constraints": [*problem.constraints, Constraint(cid="cx", src="profile", rule=missing)]}
    )
    verdict = check_session(broken, catalog)
    assert verdict.failed == "feasible" and not verdict.ok
    assert gold["product_id"] == broken.gold_ids[0]


def test_a_trivial_problem_is_rejected(catalog, report):
    # the opening's top hit as gold, every constraint stated up front: nothing needs the conversation
    problem = report.problems[0]
    top = opening_hits(problem, catalog)[0]
    trivial = SessionProblem(
        problem_id="trivial",
        query=problem.query,
        constraints=[Constraint(cid="c1", src="query", rule=Rule(title=[top["title"]]))],
        gold={"product_ids": [top["product_id"]]},
    )
    assert check_session(trivial, catalog).failed == "needed"
    verdict = check_session(trivial, catalog, min_needed=0)
    assert verdict.failed == "not_trivial", verdict.reason
    assert verdict.blind is not None and verdict.blind.success


def test_an_update_that_changes_nothing_is_rejected(catalog, report):
    # the constraint already holds the updated value: the update tells no product apart
    problem = report.problems[0]
    event = problem.events[0]
    constraints = [
        c.model_copy(update={"rule": event.update.rule}) if c.cid == event.update.cid else c
        for c in problem.constraints
    ]
    toothless = problem.model_copy(update={"constraints": constraints})
    assert check_session(toothless, catalog, min_needed=0).failed == "bites"


def test_a_problem_the_reference_cannot_solve_is_rejected(catalog, report):
    # one user turn: the update fires on the first acceptable proposal, so no confirmation can follow
    problem = report.problems[0]
    short = problem.model_copy(update={"limits": problem.limits.model_copy(update={"max_user_turns": 1})})
    verdict = check_session(short, catalog)
    assert verdict.failed == "solved", verdict.reason
    assert verdict.reference is not None and not verdict.reference.success


def test_an_opening_that_names_a_hidden_value_is_a_leak(catalog):
    for attempt in range(20):
        rng = Rng("leak-test", attempt)
        gold = catalog.product_at(rng.below(catalog.num_products))
        try:
            plan = draw_plan(gold, neighbours(catalog, gold), rng)
        except Undrawable:
            continue
        hidden = next((f for f in plan.facts if f.src != "query" and f.kind in ("attribute", "sku")), None)
        if hidden is not None:
            break
    else:
        pytest.fail("no plan with a hidden attribute drawn")
    write(plan, Rng("leak-test-text"))  # the plan as drawn says each value in its own place
    # the same plan stating the hidden value up front too: the opening now names it, and the plan is refused
    leaky = replace(plan, facts=[*plan.facts, replace(hidden, src="query")])
    with pytest.raises(Undrawable, match=f"leak: the opening names the {hidden.src} value"):
        write(leaky, Rng("leak-test-text"))
