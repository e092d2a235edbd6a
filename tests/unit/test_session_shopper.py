"""The scripted shopper of the session family as a pure function (docs/sessions.md), its tools and its family."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import tasks
from arena.tasks.session import shopper
from arena.tasks.session.problem import SessionProblem
from arena.tasks.session.tools import SessionState
from arena.tools.registry import ToolContext, ToolRegistry
from tests.conftest import make_product

PLAN: dict[str, Any] = {
    "problem_id": "s-test-1",
    "task": "session",
    "query": "I need an Arborea crash cymbal for my kit, nothing too pricey.",
    "profile": {
        "visible": {"age_range": "25-34", "hobbies": ["drumming", "hiking"]},
        "requirements": {"store_pref": "Only buys from official stores.", "pets": "Has two cats."},
    },
    "constraints": [
        {"cid": "c1", "src": "query", "rule": {"title": ["Arborea Crash Cymbal"]}},
        {"cid": "c2", "src": "query", "rule": {"price": [{"less than": [None, 3000]}]}},
        {"cid": "c3", "src": "profile", "rule": {"service": ["official"]}},
        {
            "cid": "c4",
            "src": "slot",
            "rule": {"attributes": [{"material": ["b20 bronze"]}]},
            "topics": ["material", "metal", "alloy", "made of"],
            "say": "It has to be B20 bronze.",
        },
        {
            "cid": "c6",
            "src": "slot",
            "rule": {"attributes": [{"finish": ["brilliant"]}]},
            "topics": ["finish", "shine", "look"],
            "say": "I like a brilliant shine.",
        },
        {
            "cid": "c7",
            "src": "slot",
            "rule": {"attributes": [{"weight": ["medium thin"]}]},
            "topics": ["weight", "heavy", "thickness"],
            "say": "Medium thin, please.",
        },
        {
            "cid": "c5",
            "src": "reject",
            "rule": {"sku_options": [{"size": "18 inch"}]},
            "say": "That one is {actual}; my stand needs the eighteen.",
        },
    ],
    "events": [
        {
            "update": {"cid": "c2", "rule": {"price": [{"less than": [None, 2500]}]}},
            "say": "Actually, my budget just dropped to twenty-five hundred.",
        }
    ],
    "style": {"patience": 4, "max_questions": 6, "skeptic": False},
    "limits": {"max_user_turns": 12},
    "gold": {"product_ids": ["G1"]},
}
#: the values a reply may carry only once their constraint is revealed (checked lowercase)
HIDDEN_VALUES = {"c4": ["b20", "bronze"], "c6": ["brilliant"], "c7": ["medium thin"], "c5": ["18 inch", "eighteen"]}


def cymbal(pid: str, price: float = 2400, **changes: Any) -> dict[str, Any]:
    attributes = {"material": ["b20 bronze"], "finish": ["brilliant"], "weight": ["medium thin"]}
    attributes.update(changes.pop("attributes", {}))
    return make_product(
        pid,
        changes.pop("title", "Arborea Crash Cymbal Pro"),
        price,
        service=changes.pop("service", ["official", "COD"]),
        attributes=attributes,
        sku_options=changes.pop("sku_options", {"1": {"size": "18 inch"}}),
    )


PRODUCTS = {
    p["product_id"]: p
    for p in [
        cymbal("G1"),
        cymbal("G2", 2450),
        cymbal("P16", 2300, sku_options={"1": {"size": "16 inch"}}),
        cymbal("MID", 2800),
        cymbal("EXP", 3500),
        cymbal("BRASS", 2200, attributes={"material": ["brass"]}),
        cymbal("DARK", 2200, attributes={"finish": ["dark"]}),
        cymbal("NOOFF", 2300, service=["COD"]),
        cymbal("RIDE", 2300, title="Zildo Ride Cymbal Pro"),
    ]
}
IDS = sorted(PRODUCTS)


def lookup(product_id: str) -> dict[str, Any] | None:
    return PRODUCTS.get(product_id)


def plan(**changes: Any) -> SessionProblem:
    data = copy.deepcopy(PLAN)
    for key, value in changes.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) else value
    return SessionProblem.model_validate(data)


PROBLEM = plan()


def ask(text: str) -> shopper.Action:
    return shopper.Action("ask", text)


def propose(*ids: str, message: str = "How about this one?") -> shopper.Action:
    return shopper.Action("respond", message, ids)


def commit(*ids: str) -> shopper.Action:
    return shopper.Action("commit", ",".join(ids), ids)


def replies(actions: list[shopper.Action], problem: SessionProblem = PROBLEM) -> list[shopper.Reply]:
    return shopper.play(problem, actions, lookup)[1]


# ------------------------------------------------------------------------------------------------ strategies

WORDS = ["material", "metal", "finish", "look", "weight", "heavy", "made of", "price", "brand", "size", "the", "?"]
questions = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join),
    st.text(min_size=161, max_size=400),
)
actions = st.one_of(
    questions.map(ask),
    st.tuples(questions, st.lists(st.sampled_from([*IDS, "nope", "", " G1 "]), max_size=5)).map(
        lambda t: shopper.Action("respond", t[0], tuple(t[1]))
    ),
    st.lists(st.sampled_from([*IDS, "nope"]), max_size=2).map(lambda ids: commit(*ids)),
)
styles = st.builds(dict, patience=st.integers(1, 6), max_questions=st.integers(0, 6), skeptic=st.booleans())


@settings(max_examples=60, deadline=None)
@given(st.lists(actions, max_size=10), actions, styles)
def test_the_reply_is_a_pure_function_of_the_problem_and_the_transcript(
    transcript: list[shopper.Action], action: shopper.Action, style: dict[str, Any]
) -> None:
    problem = plan(style=style)
    first = shopper.reply(problem, transcript, action, lookup)
    again = shopper.reply(problem, list(transcript), action, lookup)
    assert first == again
    assert first == shopper.play(problem, [*transcript, action], lookup)[1][-1]


@settings(max_examples=60, deadline=None)
@given(st.lists(actions, min_size=1, max_size=14), styles)
def test_each_reply_reveals_at_most_one_constraint_and_leaks_no_hidden_value(
    transcript: list[shopper.Action], style: dict[str, Any]
) -> None:
    problem = plan(style=style)
    state = shopper.start(problem)
    for action in transcript:
        before = set(state.known)
        answer = shopper.step(problem, state, action, lookup)
        fresh = state.known - before
        assert len(fresh) <= 1
        assert answer.revealed is None or fresh == {answer.revealed}
        words = answer.user.lower()
        for cid, values in HIDDEN_VALUES.items():
            if cid not in state.known:
                assert not [v for v in values if v in words], (cid, answer.user)
        assert set(answer.public()) == {"user", "turns_left", "closed"}
        for cid in ("c1", "c2", "c3", "c4", "c5", "c6", "c7"):
            assert cid not in words
        assert answer.turns_left >= 0


@settings(max_examples=40, deadline=None)
@given(questions)
def test_no_question_draws_out_a_hidden_value_but_its_own(question: str) -> None:
    answer = shopper.reply(PROBLEM, [], ask(question), lookup)
    words = answer.user.lower()
    for cid, values in HIDDEN_VALUES.items():
        if cid != answer.revealed:
            assert not [v for v in values if v in words]


def test_bad_input_is_answered_by_the_rules() -> None:
    def broken(product_id: str) -> dict[str, Any] | None:
        raise ValueError(product_id)

    assert shopper.reply(PROBLEM, [], propose("G1"), broken).outcome == "unknown"
    assert shopper.reply(PROBLEM, [], propose("nope", ""), lookup).outcome == "unknown"
    assert shopper.reply(PROBLEM, [], ask("x" * 161), lookup).outcome == "too_long"
    assert shopper.reply(PROBLEM, [], propose("G1", "G2", "P16", "MID"), lookup).outcome == "too_many"
    assert shopper.reply(PROBLEM, [], commit(), lookup).outcome == "commit"  # a commit with no proposal
    after = shopper.reply(PROBLEM, [commit("G1")], propose("G1"), lookup)
    assert after.closed and after.outcome == "closed"
    assert shopper.reply(PROBLEM, [commit("G1")], commit("G2"), lookup).outcome == "closed"
    assert shopper.reply(PROBLEM, [], propose(" G1 ", "G1"), lookup).product_id == "G1"


# ------------------------------------------------------------------------------------------------ questions


def test_a_question_reveals_one_slot_and_a_repeat_costs_patience() -> None:
    first, repeat = replies([ask("What material should it be?"), ask("Which metal again?")])
    assert (first.user, first.outcome, first.revealed, first.cost) == ("It has to be B20 bronze.", "reveal", "c4", 0)
    assert (repeat.user, repeat.outcome, repeat.revealed, repeat.cost) == (
        "It has to be B20 bronze.",
        "repeat",
        None,
        1,
    )


def test_two_topics_reveal_the_better_match_ties_the_earliest() -> None:
    assert replies([ask("Material or finish?")])[0].revealed == "c4"  # tie: the earlier constraint
    assert replies([ask("What finish and look, and what material?")])[0].revealed == "c6"  # two finish topics


def test_a_question_fishing_for_three_slots_is_a_spray() -> None:
    (answer,) = replies([ask("Tell me the material, the finish and the weight you want")])
    assert (answer.user, answer.outcome, answer.revealed, answer.cost) == (shopper.SAY_SPRAY, "spray", None, 1)
    # with one of them revealed, the same question matches two fresh slots and reveals one
    assert replies([ask("material?"), ask("material, finish or weight?")])[1].revealed == "c6"


def test_no_match_is_free_once_then_costs() -> None:
    first, second = replies([ask("Do you like pizza?"), ask("And the weather?")])
    assert (first.user, first.cost, second.cost) == (shopper.SAY_NO_PREFERENCE, 0, 1)


def test_past_the_question_cap_the_shopper_wants_options() -> None:
    problem = plan(style={"max_questions": 1, "patience": 9})
    first, second = replies([ask("material?"), ask("finish?")], problem)
    assert first.revealed == "c4" and (second.user, second.outcome, second.revealed) == (
        shopper.SAY_CAP,
        "question_cap",
        None,
    )


def test_patience_runs_out_and_the_shopper_leaves() -> None:
    problem = plan(style={"patience": 2})
    out = replies([ask("pizza?"), ask("weather?"), ask("rain?"), ask("material?")], problem)
    assert [r.cost for r in out[:3]] == [0, 1, 1] and not out[1].closed
    assert out[2].closed and out[2].user == f"{shopper.SAY_NO_PREFERENCE} {shopper.SAY_LEAVE}"
    assert out[3].outcome == "closed" and out[3].revealed is None
    assert shopper.play(problem, [ask("pizza?"), ask("weather?"), ask("rain?")], lookup)[0].ending == "user_exit"


def test_a_turn_past_the_limit_ends_the_session() -> None:
    problem = plan(limits={"max_user_turns": 2})
    out = replies([ask("material?"), ask("finish?"), ask("weight?"), commit("G1")], problem)
    assert [r.turns_left for r in out[:2]] == [1, 0]
    assert out[2].closed and out[2].outcome == "max_turns" and out[2].revealed is None
    assert out[3].outcome == "closed"


def test_a_message_without_products_is_a_question() -> None:
    assert replies([propose(message="What material do you want?")])[0].revealed == "c4"


# ------------------------------------------------------------------------------------------------ proposals


def test_a_proposal_breaking_a_known_constraint_is_rejected_naming_it() -> None:
    (answer,) = replies([propose("EXP")])
    assert answer.outcome == "reject" and answer.violated == "c2" and answer.revealed is None
    assert "3000" in answer.user and answer.cost == 1
    assert replies([propose("NOOFF")])[0].violated == "c3"
    # a title rule is named by kind, never by its text: the text is a catalog title, a search for the gold
    assert replies([propose("RIDE")])[0].user == "Not that one. It has to be the kind of product I described."


def test_a_proposal_breaking_a_hidden_constraint_reveals_exactly_it() -> None:
    (answer,) = replies([propose("P16")])
    assert answer.outcome == "reject_reveal" and answer.revealed == answer.violated == "c5"
    assert answer.user == "Not that one. That one is 16 inch; my stand needs the eighteen."
    assert replies([propose("BRASS")])[0].user == "Not that one. It has to be B20 bronze."


def test_a_rejected_product_again_is_named_as_such() -> None:
    out = replies([propose("P16"), propose("P16"), propose("P16", "BRASS")])
    assert out[1].user == shopper.SAY_AGAIN and out[1].cost == 1
    assert out[2].product_id == "BRASS"  # a fresh violation is answered before a repeat


def test_the_event_fires_on_the_first_acceptable_proposal_then_the_update_holds() -> None:
    out = replies([propose("P16", "MID"), propose("MID"), propose("G1")])
    assert out[0].outcome == "update" and out[0].product_id == "MID" and out[0].cost == 0
    assert "twenty-five hundred" in out[0].user
    assert out[1].outcome == "reject" and out[1].violated == "c2" and "2500" in out[1].user
    assert out[2].outcome == "confirm" and out[2].user == shopper.SAY_CONFIRM
    state, _ = shopper.play(PROBLEM, [propose("MID"), propose("G1")], lookup)
    assert state.confirmed == ["G1"] and list(state.superseded) == ["c2"]


def test_a_skeptic_wants_the_price_and_a_revealed_value_quoted() -> None:
    problem = plan(style={"skeptic": True}, events=[])
    bare = replies([ask("material?"), propose("G1")], problem)[1]
    assert bare.outcome == "unconvinced" and bare.cost == 1
    price_only = replies([ask("material?"), propose("G1", message="G1 costs 2,400.")], problem)[1]
    assert price_only.outcome == "unconvinced"
    quoted = replies([ask("material?"), propose("G1", message="G1: 2,400, B20 bronze.")], problem)[1]
    assert quoted.outcome == "confirm"


def test_the_commit_ends_the_session() -> None:
    state, out = shopper.play(PROBLEM, [commit("G1"), ask("material?")], lookup)
    assert state.ending == "agent_commit" and state.committed == ("G1",)
    assert out[1].outcome == "closed" and out[1].revealed is None


def test_the_public_view_is_the_opening_and_the_limits() -> None:
    assert PROBLEM.public() == {
        "problem_id": "s-test-1",
        "task": "session",
        "query": PLAN["query"],
        "difficulty": "medium",
        "limits": {"max_user_turns": 12, "question_chars": 160},
    }
    assert PROBLEM.gold_ids == ["G1"]


def test_a_malformed_plan_is_refused() -> None:
    with pytest.raises(ValueError):
        plan(events=[{"update": {"cid": "c99", "rule": {"service": ["COD"]}}, "say": "x"}])
    with pytest.raises(ValueError):
        SessionProblem.model_validate({**PLAN, "constraints": [{"cid": "c1", "src": "slot", "rule": {"title": ["x"]}}]})


# ------------------------------------------------------------------------------------------------ tools and family


class TinyCatalog:
    """The one catalog call the conversation tools make."""

    def get(self, product_id: str) -> dict[str, Any] | None:
        return PRODUCTS.get(product_id)


def test_the_tools_talk_through_the_run_state() -> None:
    family = tasks.family_for("session")
    registry = family.tools()
    assert isinstance(registry, ToolRegistry)
    kinds = {t.name: t.results for t in registry}
    assert kinds == {
        "find_product": "products",
        "view_product_information": "details",
        "get_user_profile": "other",
        "ask_user": "reply",
        "respond": "reply",
        "recommend_product": "answer",
        "terminate": "end",
    }
    state = family.run_state(PROBLEM)
    assert isinstance(state, SessionState)
    ctx = ToolContext(TinyCatalog(), state)
    profile = registry.call("get_user_profile", {}, ctx)
    assert profile == {"about": PLAN["profile"]["visible"], "notes": list(PLAN["profile"]["requirements"].values())}
    assert registry.call("ask_user", {"question": "material?"}, ctx) == {
        "user": "It has to be B20 bronze.",
        "turns_left": 11,
        "closed": False,
    }
    assert registry.call("respond", {"message": "this?", "product_ids": "MID"}, ctx)["user"].startswith("Actually")
    assert registry.call("respond", {"message": "this?", "product_ids": ["G1"]}, ctx)["user"] == shopper.SAY_CONFIRM
    registry.call("recommend_product", {"product_ids": "G1"}, ctx)
    assert state.answer == ["G1"] and state.shopper_state is not None
    assert state.shopper_state.ending == "agent_commit" and state.profile_reads == 1
    assert [r.outcome for r in state.replies] == ["reveal", "update", "confirm", "commit"]
    assert state.replies == replies(state.transcript)


def test_the_family_is_registered() -> None:
    assert "session" in tasks.all_tasks()
    problem = tasks.parse_problem(copy.deepcopy(PLAN))
    assert isinstance(problem, SessionProblem) and problem == PROBLEM


def test_the_conversation_tools_need_a_session() -> None:
    from arena.tools.registry import RunState, ToolError

    registry = tasks.family_for("session").tools()
    ctx = ToolContext(TinyCatalog(), RunState())
    for name, arguments in (("ask_user", {"question": "material?"}), ("respond", {"message": "hi"})):
        with pytest.raises(ToolError, match="no shopper"):
            registry.call(name, arguments, ctx)
    assert registry.call("recommend_product", {"product_ids": " , "}, ctx) == "No product recommended."
    assert ctx.state.answer == []


def test_the_plan_round_trips_and_its_truth_applies_the_events() -> None:
    again = SessionProblem.model_validate(PROBLEM.model_dump(mode="json"))
    assert again == PROBLEM and again.answer_spec() == PROBLEM.answer_spec()
    truth = PROBLEM.truth()
    assert truth.product_id == "G1" and [p.hi for p in truth.price] == [2500]
    assert PROBLEM.final_rules()["c2"] != PROBLEM.opening_rules()["c2"]
    assert truth.required_pairs() == [
        ("size", "18 inch"),
        ("material", "b20 bronze"),
        ("finish", "brilliant"),
        ("weight", "medium thin"),
    ]


def test_a_product_refused_for_a_need_the_shopper_then_changed_is_judged_anew() -> None:
    # the shopper's stand changes: the size it refused P16 for (c5, 18 inch) becomes 16 inch once it sees G1
    flip = plan(
        events=[
            {
                "update": {"cid": "c5", "rule": {"sku_options": [{"size": "16 inch"}]}},
                "say": "Oh wait, I just swapped stands: it should be the sixteen now.",
            }
        ]
    )
    first, update, again = replies([propose("P16"), propose("G1"), propose("P16")], flip)
    assert (first.outcome, first.violated) == ("reject_reveal", "c5") and update.outcome == "update"
    assert again.outcome == "confirm"  # not "shown already": what it was refused for no longer holds
    # a product refused for a need the update left alone stays refused
    _, _, refused = replies([propose("EXP"), propose("G1"), propose("EXP")], flip)
    assert refused.outcome == "again"


def test_a_question_naming_many_shopping_topics_is_a_spray_even_when_it_hits_one_slot() -> None:
    # one hidden slot (material) among common topics: fishing for everything at once reveals nothing
    (answer,) = replies([ask("Budget, official store, shipping, payment, material?")])
    assert (answer.outcome, answer.revealed) == ("spray", None)
    # the same slot asked about alone is revealed; two topics at once are still fine
    assert replies([ask("What material should it be?")])[0].revealed == "c4"
    assert replies([ask("Any budget in mind, and what material?")])[0].revealed == "c4"
