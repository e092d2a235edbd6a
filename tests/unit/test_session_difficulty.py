"""What makes a generated session hard (docs/sessions.md, "Difficulty"): for each feature the generator gives a
problem, a generated problem with it that the reference agent (the oracle: it sees only what the tools return) solves,
and the offline template's typical mistake on it, played through the real shopper, fails. The levels and the mix are
read from the features; how often each agent succeeds is a bench row (bench/sessions.py), not asserted here."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from arena.catalog import Catalog
from arena.catalog.build import build_catalog
from arena.catalog.rng import Rng
from arena.tasks.session import shopper, truth
from arena.tasks.session.agents import Session, passes_truth
from arena.tasks.session.facts import Undrawable
from arena.tasks.session.features import MIX, Features, level, pick_level
from arena.tasks.session.generate import draft
from arena.tasks.session.oracle import reference_agent
from arena.tasks.session.problem import SessionProblem
from arena.tasks.session.selfcheck import check_session, opening_hits

pytestmark = pytest.mark.slow  # an 8,000-product catalog, and the self-checks' agents per draw


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    out = tmp_path_factory.mktemp("session-difficulty") / "cat"
    build_catalog(21, 8000, out, workers=1)
    return Catalog.open(out)


_kept: dict[Features, SessionProblem] = {}


def kept(catalog: Catalog, features: Features) -> SessionProblem:
    """The first draft with ``features`` that passes every self-check (the oracle solves it, a blind agent fails)."""
    if features not in _kept:
        for attempt in range(40):
            try:
                problem = draft(catalog, Rng("difficulty-test", str(features), attempt), features)
            except Undrawable:
                continue
            if check_session(problem, catalog).ok:
                _kept[features] = problem
                break
        else:
            pytest.fail(f"no problem with {features} kept in 40 draws")
    return _kept[features]


def oracle_solves(problem: SessionProblem, catalog: Catalog) -> None:
    out = reference_agent(problem, catalog)
    assert out.success and out.ending == "agent_commit", out
    assert out.committed is not None and len(out.committed.split(",")) == problem.items


def pitch(doc: dict[str, Any], quote: bool = True) -> str:
    values = ", ".join(f"{k} {v}" for k, vs in sorted(doc["attributes"].items()) for v in vs)
    return f"How about {doc['title']}? It costs {float(doc['price']):.2f}; {values}." if quote else "How about this?"


def propose(session: Session, doc: dict[str, Any], quote: bool = True) -> dict[str, Any]:
    answer: dict[str, Any] = session.call("respond", message=pitch(doc, quote), product_ids=[doc["product_id"]])
    return answer


def commit(session: Session, ids: list[str]) -> bool:
    session.call("recommend_product", product_ids=",".join(ids))
    return session.outcome(",".join(ids)).success


def wrong_hit(problem: SessionProblem, catalog: Catalog, item: int = 0) -> dict[str, Any]:
    """A hit of the item's opening that meets everything the opening says and fails the final truth."""
    final = list(problem.item_rules(item).values())
    said = list(problem.opening_rules(item).values())
    for doc in opening_hits(problem, catalog, item):
        if truth.check(said, doc).rule >= 1 and truth.check(final, doc).rule < 1:
            return doc
    raise AssertionError("a kept problem has wrong candidates for its opening (the needed check)")


def test_levels_follow_the_features_and_the_mix() -> None:
    assert level(Features()) == "easy" and level(Features(vague=True)) == "easy"
    assert level(Features(vague=True, veto=True)) == "medium" and level(Features(items=2)) == "medium"
    assert level(Features(items=2, bundle=True, late=True)) == "hard"
    levels = Counter(pick_level(i, 0.25) for i in range(100))
    assert all(abs(levels[name] - 100 * share) <= 2 for name, share in MIX.items()), levels


def test_a_vague_opening_needs_the_conversation(catalog: Catalog) -> None:
    problem = kept(catalog, Features(vague=True))
    assert [c.src for c in problem.constraints].count("query") == 1  # the kind of product alone
    oracle_solves(problem, catalog)
    # the mistake: take the opening at its word and commit a product of the kind asked for, asking nothing
    session = Session(problem, catalog)
    assert not commit(session, [wrong_hit(problem, catalog)["product_id"]])


def test_a_vetoed_product_must_not_return(catalog: Catalog) -> None:
    problem = kept(catalog, Features(veto=True))
    vetoed = catalog.get(problem.vetoes[0].product_id)
    assert vetoed is not None and truth.check(list(problem.final_rules().values()), vetoed).rule >= 1
    oracle_solves(problem, catalog)
    # the mistake: the vetoed product meets every rule, so it is proposed, refused, and proposed or committed again
    session = Session(problem, catalog)
    session.call("get_user_profile")
    first = propose(session, vetoed)
    assert first["user"].startswith(shopper.SAY_REJECT) and "exact one" in first["user"]
    assert propose(session, vetoed)["user"].startswith(shopper.SAY_AGAIN)
    assert not commit(session, [vetoed["product_id"]])
    assert not passes_truth(problem, vetoed["product_id"], catalog)


def test_a_budget_cut_rules_out_what_fitted_the_first_budget(catalog: Catalog) -> None:
    problem = next(
        p
        for attempt in range(60)
        if (p := _drawn(catalog, Features(), attempt)) is not None and p.events and p.events[0].update.rule.price
    )
    oracle_solves(problem, catalog)
    # the mistake: propose a product within the budget first said, hear the budget drop, and commit it anyway
    first_rules = {c.cid: c.rule for c in problem.constraints}
    first = list(problem.item_rules(0, first_rules).values())
    final = list(problem.item_rules(0).values())
    stale = next(
        d
        for d in opening_hits(problem, catalog, 0)
        if truth.check(first, d).rule >= 1 and truth.check(final, d).rule < 1
    )
    assert float(stale["price"]) > float(catalog.get(problem.gold_ids[0])["price"])  # type: ignore[index]
    session = Session(problem, catalog)
    session.call("get_user_profile")
    assert problem.events[0].say in propose(session, stale)["user"]
    assert not commit(session, [stale["product_id"]])


def _drawn(catalog: Catalog, features: Features, attempt: int) -> SessionProblem | None:
    """The draft of ``attempt`` if the self-checks keep it."""
    try:
        problem = draft(catalog, Rng("difficulty-test", str(features), attempt), features)
    except Undrawable:
        return None
    return problem if check_session(problem, catalog).ok else None


@pytest.mark.parametrize("persona", ["sceptical", "low_patience", "efficiency_first"])
def test_a_persona_changes_the_pace(catalog: Catalog, persona: str) -> None:
    problem = kept(catalog, Features(persona=persona))  # type: ignore[arg-type]
    assert problem.style.persona == persona
    oracle_solves(problem, catalog)
    gold = catalog.get(problem.gold_ids[0])
    assert gold is not None
    session = Session(problem, catalog)
    if persona == "sceptical":
        # the mistake: proposing without the price and the values asked for, again and again
        replies = [propose(session, gold, quote=False) for _ in range(problem.style.patience + 1)]
        assert not any(r["user"].startswith(shopper.SAY_CONFIRM) for r in replies)
    else:
        # the mistake: questions about what the shopper has no need of; a plain shopper answers five of them
        replies = [session.call("ask_user", question=q) for q in OFF_TOPIC]
        assert [r["closed"] for r in replies].index(True) < 4, [r["user"] for r in replies]
    assert replies[-1]["closed"], [r["user"] for r in replies]
    assert not commit(session, problem.gold_ids)  # the shopper has left: nothing counts


OFF_TOPIC = ["Is it for yourself?", "Is it a gift?", "Anything else on your mind?", "Is it urgent?", "Is it for work?"]


def test_several_intents_need_one_product_each(catalog: Catalog) -> None:
    problem = kept(catalog, Features(items=2))
    assert problem.items == 2 and problem.bundle_budget is None
    oracle_solves(problem, catalog)
    # the mistake: commit as soon as the shopper says "That one works for me", with one item settled
    out = reference_agent(problem, catalog)
    assert out.committed is not None
    session = Session(problem, catalog)
    assert not commit(session, out.committed.split(",")[:1])
    assert passes_truth(problem, ",".join(problem.gold_ids), catalog)


def test_a_bundle_keeps_to_one_budget(catalog: Catalog) -> None:
    problem = kept(catalog, Features(items=2, bundle=True))
    assert problem.bundle_budget is not None and problem.query.split(".")[0].count(f"{problem.bundle_budget:g}")
    oracle_solves(problem, catalog)
    golds = [catalog.get(pid) for pid in problem.gold_ids]
    assert sum(float(g["price"]) for g in golds if g) <= problem.bundle_budget
    # the mistake: one item's product chosen without the others' prices; whatever meets the item's rules but not
    # the total is refused, and a commit over the total fails
    over = problem.model_copy(update={"bundle_budget": float(golds[0]["price"]) + 1.0})  # type: ignore[index]
    session = Session(over, catalog)
    assert not commit(session, problem.gold_ids)
    assert not passes_truth(over, ",".join(problem.gold_ids), catalog)
    assert passes_truth(problem, ",".join(problem.gold_ids), catalog)


def test_a_late_change_of_mind_reopens_a_settled_item(catalog: Catalog) -> None:
    problem = kept(catalog, Features(items=2, late=True))
    late = next(e for e in problem.events if e.on == "last_item")
    assert problem.constraint(late.update.cid).item == 0
    oracle_solves(problem, catalog)
    # the mistake: settle the first item with a product the change of mind rules out, then commit it anyway
    first_rules = {c.cid: c.rule for c in problem.constraints}
    first = list(problem.item_rules(0, first_rules).values())
    final = list(problem.item_rules(0).values())
    stale = next(
        d
        for d in opening_hits(problem, catalog, 0)
        if truth.check(first, d).rule >= 1 and truth.check(final, d).rule < 1
    )
    changing = next(  # a product of the second item the first rules admit: its own change of mind fires on it
        d
        for d in opening_hits(problem, catalog, 1)
        if truth.check(list(problem.item_rules(1, first_rules).values()), d).rule >= 1
    )
    session = Session(problem, catalog)
    session.call("get_user_profile")
    assert propose(session, stale)["user"].startswith(shopper.SAY_SETTLED)
    assert propose(session, changing)["user"] == problem.events[1].say
    second = catalog.get(problem.gold_ids[1])
    assert second is not None
    words = propose(session, second)["user"]
    assert words.startswith(late.say) and shopper.SAY_BACK in words, words
    assert not commit(session, [stale["product_id"], second["product_id"]])


@pytest.mark.parametrize("features", [Features(items=2, bundle=True), Features(items=3, late=True)])
def test_the_strict_check_scores_several_items_from_the_gateway_log(catalog: Catalog, features: Features) -> None:
    from arena import tasks
    from arena.tasks.answer import raw_answer
    from tests.e2e.dashboard_history import play_session

    problem = kept(catalog, features)
    outcome, events = play_session(problem, catalog)
    assert outcome.success
    score = tasks.score(problem, raw_answer(events), catalog.get, events=events)
    checks = {c.name: c.passed for c in score.checks}
    assert score.success and checks["one product per item"] and checks["rubric confirm before commit"], checks
    assert len(score.extras.products) == problem.items and score.final > 0.8
    # the same conversation with the first item's product alone committed fails: one product per item
    first = raw_answer(events)
    assert first is not None
    short = tasks.score(problem, first.split(",")[0], catalog.get, events=events)
    assert not short.success and not {c.name: c.passed for c in short.checks}["one product per item"]
    # and with more products than items (the right ones among them) too: the attacker's shotgun earns nothing
    extra = ",".join(d["product_id"] for d in opening_hits(problem, catalog, 0)[:4])
    many = tasks.score(problem, f"{first},{extra}", catalog.get, events=events)
    assert not many.success and many.final == 0


def test_committing_more_products_than_items_earns_nothing(catalog: Catalog) -> None:
    """The attacker: with several items the commit is placed on the items, so an agent might commit every candidate
    and hope each item finds its product among them. A commit holds one product per item, or it fails."""
    problem = kept(catalog, Features(items=2))
    golds = list(problem.gold_ids)
    shotgun = [d["product_id"] for item in range(problem.items) for d in opening_hits(problem, catalog, item)[:5]]
    for ids in (golds + shotgun, golds[:1], golds[:1] * 2, shotgun):
        assert not commit(Session(problem, catalog), ids), ids
    assert commit(Session(problem, catalog), golds[::-1])  # one product per item, in any order
