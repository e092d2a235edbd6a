"""The strict session check, its per-constraint attribution and the weighted rubric, from scripted gateway logs."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import tasks
from arena.scoring.models import RunScore
from arena.tasks.answer import raw_answer
from arena.tasks.session import rubric
from arena.tasks.session.scoring import score_session
from arena.trajectory import TrajectoryEvent
from tests.unit.test_session_shopper import IDS, PROBLEM, PRODUCTS, lookup, plan

T0 = datetime(2026, 12, 3, tzinfo=UTC)


def log(*calls: tuple[Any, ...]) -> list[TrajectoryEvent]:
    """A gateway log: (tool, arguments[, result[, error[, status]]]) per call, in order."""
    out = []
    for seq, call in enumerate(calls):
        name, arguments, result, error, status = _pad(call)
        out.append(
            TrajectoryEvent(
                run_id="r1",
                seq=seq,
                kind="tool_call",
                name=name,
                arguments=arguments,
                result=result,
                error=error,
                status=status if isinstance(status, int) else 200,
                started_at=T0,
            )
        )
    return out


def _pad(call: tuple[Any, ...]) -> tuple[Any, ...]:
    defaults = (None, None, None, None, 200)
    return (*call, *defaults[len(call) :])


def search(*ids: str) -> tuple[Any, ...]:
    return (
        "find_product",
        {"q": "arborea crash cymbal"},
        [{"product_id": i, "price": PRODUCTS[i]["price"]} for i in ids],
    )


PROFILE = ("get_user_profile", {})


def ask(question: str) -> tuple[Any, ...]:
    return ("ask_user", {"question": question})


def propose(*ids: str, message: str = "How about this one?") -> tuple[Any, ...]:
    return ("respond", {"message": message, "product_ids": list(ids)})


def commit(ids: str) -> tuple[Any, ...]:
    return ("recommend_product", {"product_ids": ids})


def score(events: list[TrajectoryEvent], problem: Any = PROBLEM) -> RunScore:
    return score_session(problem, raw_answer(events), lookup, events=events)


def check(result: RunScore, name: str) -> dict[str, Any]:
    (found,) = [c for c in result.checks if c.name == name]
    return {"passed": found.passed, **json.loads(found.evidence)} if found.evidence.startswith("{") else {}


def reasons(result: RunScore) -> dict[str, str | None]:
    return {
        c.name.split()[1]: json.loads(c.evidence)["reason"] for c in result.checks if c.name.startswith("constraint ")
    }


def rubric_passes(result: RunScore) -> dict[str, bool]:
    return {c.name.removeprefix("rubric "): c.passed for c in result.checks if c.name.startswith("rubric ")}


GOOD = [
    PROFILE,
    ask("What material should it be?"),
    ask("Which finish do you like?"),
    ask("What weight?"),
    search("G1", "MID", "P16"),
    propose("MID", message="The MID at 2,800?"),
    propose("G1", message="Then G1 at 2,400."),
    commit("G1"),
    ("terminate", {"status": "success"}, "done"),
]


def test_a_good_session_succeeds_with_every_rubric_item() -> None:
    result = score(log(*GOOD))
    assert result.task == "session" and result.success and result.answer == ["G1"] and result.extras.gt == 1.0
    assert result.extras.rule == 1.0 and result.extras.products[0].known
    assert all(rubric_passes(result).values()), rubric_passes(result)
    assert result.final == pytest.approx(1.0)
    assert set(reasons(result).values()) == {None}
    assert check(result, "score")["formula"] == rubric.FORMULA
    assert result.ruleset_version.endswith("+" + rubric.VERSION)
    record = check(result, "constraint c2")
    assert record["revealed_at"] == 0 and record["violating_proposals"] == [] and record["satisfied_final"]
    assert check(result, "constraint c4")["revealed_at"] == 1


def test_a_substitute_that_meets_the_final_truth_succeeds() -> None:
    events = log(*GOOD[:5], search("G2"), propose("MID"), propose("G2", message="G2 at 2,450"), commit("G2"))
    result = score(events)
    assert result.success and result.extras.gt == 0.0


def test_missed_hidden() -> None:
    result = score(log(search("DARK"), propose("DARK"), commit("DARK")))  # DARK was "confirmed"? no: c6 rejects it
    assert not result.success and reasons(result)["c6"] == "rejected_again"
    result = score(log(search("DARK"), commit("DARK")))
    assert not result.success
    assert reasons(result)["c6"] == "missed_hidden" and reasons(result)["c4"] is None


def test_ignored_revealed() -> None:
    result = score(log(ask("What material?"), search("BRASS"), commit("BRASS")))
    assert reasons(result)["c4"] == "ignored_revealed" and not result.success
    assert reasons(score(log(search("EXP"), commit("EXP"))))["c2"] == "ignored_revealed"


def test_stale_after_update() -> None:
    result = score(log(search("MID"), propose("MID"), commit("MID")))
    assert reasons(result)["c2"] == "stale_after_update" and not result.success
    assert not rubric_passes(result)["constraint updating"]
    # the event never fired (no proposal): the update was never said, so it was missed
    assert reasons(score(log(search("MID"), commit("MID"))))["c2"] == "missed_hidden"


def test_rejected_again() -> None:
    result = score(log(search("P16"), propose("P16"), commit("P16")))
    assert reasons(result)["c5"] == "rejected_again"
    assert check(result, "constraint c5")["violating_proposals"] == ["P16"]
    assert not rubric_passes(result)["no re-proposal"]


def test_user_exit() -> None:
    problem = plan(style={"patience": 1})
    result = score(log(ask("pizza?"), ask("weather?"), commit("G1")), problem)
    assert not result.success and result.final == 0.0
    assert set(reasons(result).values()) == {"user_exit"}
    assert check_end(result) == (False, "user_exit")


def check_end(result: RunScore) -> tuple[bool, str]:
    (end,) = [c for c in result.checks if c.name == "session end"]
    return end.passed, end.evidence


def test_no_commit() -> None:
    result = score(log(ask("material?"), search("G1")))
    assert not result.success and set(reasons(result).values()) == {"no_commit"}
    assert result.answer == [] and not result.extras.products[0].known
    # past the turn limit the session is over: a late commit is no commit
    problem = plan(limits={"max_user_turns": 1})
    late = score(log(ask("material?"), ask("finish?"), commit("G1")), problem)
    assert not late.success and check_end(late) == (False, "max_turns")
    assert set(reasons(late).values()) == {"no_commit"}


def test_a_commit_without_confirmation_can_succeed_but_loses_rubric() -> None:
    result = score(log(search("G1"), commit("G1")))
    assert result.success
    passes = rubric_passes(result)
    assert not passes["confirm before commit"]
    assert result.final == pytest.approx(0.8 + 0.2 * rubric.weighted_pass(_items(passes)))
    assert result.final < 1.0


def _items(passes: dict[str, bool]) -> list[rubric.Item]:
    tiers = {
        "state tracking": "required",
        "constraint updating": "required",
        "no re-proposal": "required",
        "confirm before commit": "required",
    }
    return [rubric.Item(name, tiers.get(name, "important"), ok, "") for name, ok in passes.items()]  # type: ignore[arg-type]


def test_rubric_state_tracking_and_personalisation() -> None:
    result = score(log(search("NOOFF", "G1"), propose("NOOFF"), PROFILE, propose("MID"), propose("G1"), commit("G1")))
    passes = rubric_passes(result)
    assert result.success and not passes["state tracking"] and not passes["personalisation"]
    no_profile = plan(constraints=[c for c in PROBLEM.model_dump()["constraints"] if c["src"] != "profile"])
    assert rubric_passes(score(log(search("G1"), propose("G1"), commit("G1")), no_profile))["personalisation"]


def test_rubric_clarification_efficiency() -> None:
    redundant = score(log(PROFILE, ask("material?"), ask("metal?"), search("G1"), propose("MID"), propose("G1")))
    assert not rubric_passes(redundant)["clarification efficiency"]
    fishing = score(log(PROFILE, ask("pizza?"), ask("rain?"), ask("material?"), search("G1"), commit("G1")))
    assert not rubric_passes(fishing)["clarification efficiency"]  # 1 reveal in 3 questions


def test_rubric_grounding() -> None:
    unseen = score(log(PROFILE, propose("MID"), propose("G1"), commit("G1")))
    assert unseen.success and not rubric_passes(unseen)["grounding"]
    misquoted = score(
        log(PROFILE, search("G1", "MID"), propose("MID"), propose("G1", message="G1 costs 1,999"), commit("G1"))
    )
    assert not rubric_passes(misquoted)["grounding"]
    unknown = score(log(PROFILE, search("G1", "MID"), propose("nope"), propose("MID"), propose("G1"), commit("G1")))
    assert not rubric_passes(unknown)["grounding"]


def test_rubric_pace() -> None:
    # plan minimum: 3 slots + 1 event + 1 = 5 turns; slack 3
    chatter = [ask(f"what about {w}?") for w in ("pizza", "rain", "snow", "sun")]
    slow = score(log(PROFILE, *GOOD[1:4], *chatter, search("G1", "MID"), propose("MID"), propose("G1"), commit("G1")))
    assert not rubric_passes(slow)["pace"]
    assert rubric_passes(score(log(*GOOD)))["pace"]


def test_two_scorings_are_byte_identical() -> None:
    events = log(*GOOD)
    assert score(events).model_dump_json() == score(list(reversed(events))).model_dump_json()


def test_the_family_scores_through_the_registry() -> None:
    events = log(*GOOD)
    via = tasks.score(PROBLEM, raw_answer(events), lookup, events=events)
    assert via.model_dump_json() == score(events).model_dump_json()


def test_malformed_logs_are_scored_never_raised() -> None:
    weird = log(
        ("ask_user", "not json"),
        ("ask_user", {"question": 42}),
        ("respond", {"message": "x", "product_ids": "G1, nope,,"}),
        ("respond", ["a list"]),
        ("respond", {"message": "x"}, None, "respond: missing required argument"),
        ("recommend_product", {"product_ids": 7}),
        ("recommend_product", {"product_ids": "G1"}, None, "refused", 429),
    )
    result = score(weird)
    assert not result.success and result.answer == []
    assert score_session(PROBLEM, ["nope"], lookup, events=[]).success is False
    assert score_session(PROBLEM, None, lookup).checks


tool_calls = st.tuples(
    st.sampled_from(["ask_user", "respond", "recommend_product", "get_user_profile", "find_product", "other"]),
    st.one_of(
        st.dictionaries(
            st.sampled_from(["question", "message", "product_ids", "q"]),
            st.one_of(st.text(max_size=200), st.lists(st.sampled_from([*IDS, "zz"]), max_size=4), st.integers()),
            max_size=3,
        ),
        st.text(max_size=20),
        st.none(),
    ),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(tool_calls, max_size=12))
def test_any_log_is_scored_deterministically(calls: list[tuple[str, Any]]) -> None:
    events = log(*calls)
    first = score(events)
    assert first.model_dump_json() == score(events).model_dump_json()
    assert 0.0 <= first.final <= 1.0
    assert first.success == (first.final > 0)
