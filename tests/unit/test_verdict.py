"""The one verdict (`arena.verdict`): who is to blame for an outcome, what is retried, and a judgment that sits beside
the strict verdict without changing it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from arena import blame, verdict
from arena.judge import Verdict as JudgeVerdict
from arena.judge.rubric import SN15_RUBRIC
from arena.scoring.models import RunScore
from arena.trajectory import TrajectoryEvent

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def call(seq: int, name: str, status: int = 200, **arguments: Any) -> TrajectoryEvent:
    return TrajectoryEvent(
        run_id="r1", seq=seq, kind="tool_call", name=name, arguments=arguments, status=status, started_at=NOW
    )


ANSWER = [call(0, "search_products", q="kettle"), call(1, "recommend_product", product_ids="p1")]
DOWN = [{"status": 502, "error": "upstream answered 502"}]


@pytest.mark.parametrize(
    ("outcome", "code"),
    [
        (verdict.Outcome(events=ANSWER), None),
        (verdict.Outcome(events=ANSWER[:1]), blame.NO_ANSWER),
        (verdict.Outcome(events=ANSWER[:1], budget_refusals=2), blame.BUDGET_EXHAUSTED),
        # the upstream LLM failing is the node's, even when the agent caught it and answered, or raised
        (verdict.Outcome(events=ANSWER, upstream_errors=DOWN), blame.UPSTREAM_LLM_DOWN),
        (verdict.Outcome(sandbox_code=blame.RAISED, upstream_errors=DOWN), blame.UPSTREAM_LLM_DOWN),
        (verdict.Outcome(sandbox_code=blame.SANDBOX_FAILED, upstream_errors=DOWN), blame.SANDBOX_FAILED),
        (verdict.Outcome(sandbox_code=blame.TIMED_OUT, events=ANSWER), blame.TIMED_OUT),
        # a gateway that died under the run takes the agent's error (or answer) on the node
        (verdict.Outcome(sandbox_code=blame.TIMED_OUT, gateway_alive=False), blame.GATEWAY_FAULT),
        (verdict.Outcome(events=ANSWER, gateway_alive=False), blame.GATEWAY_FAULT),
        # a call the gateway refused (budget spent) is no answer
        (verdict.Outcome(events=[call(0, "recommend_product", 429, product_ids="p1")]), blame.NO_ANSWER),
    ],
)
def test_blame_of_an_outcome(outcome: verdict.Outcome, code: int | None) -> None:
    assert verdict.error_of(outcome)[0] == code


@pytest.mark.parametrize(
    ("code", "ended"),
    [
        (None, "agent"),  # returned
        (blame.RAISED, "agent"),  # raised, or its process exited
        (blame.OUT_OF_MEMORY, "agent"),
        (blame.BAD_RETURN, "agent"),
        (blame.IMPORT_FAILED, "agent"),
        (blame.SYSCALL_DENIED, "agent"),
        (blame.TIMED_OUT, "node"),  # the wall clock
        (blame.SANDBOX_FAILED, "node"),
    ],
)
def test_who_ended_a_run(code: int | None, ended: str) -> None:
    assert verdict.ended_by(code) == ended


@pytest.mark.parametrize(
    ("ended", "well", "stall"),
    [
        ("agent", True, False),  # the quitter: a slow call started, then the run ended at once
        ("agent", False, False),  # even with the upstream hanging: the agent gave the call up
        ("node", True, False),  # the waiter: the wall clock ran out on its long ask while the upstream served
        ("node", False, True),  # an outage: the upstream hung (nothing answered, nor the probe), whatever the wait
    ],
)
def test_an_unanswered_call_is_a_stall_only_when_the_node_ended_the_run_and_the_upstream_is_not_well(
    ended: verdict.EndedBy, well: bool, stall: bool
) -> None:
    assert verdict.stalled(ended=ended, upstream_well=well) is stall


CHOKED = [{"status": 500, "error": "upstream answered 500", "well": "answered a probe"}]


@pytest.mark.parametrize(
    ("outcome", "code"),
    [
        # the last try after the node found its upstream well: a 5xx met while the upstream was seen well is the
        # agent's request's doing, and the run is what it answered
        (verdict.Outcome(events=ANSWER, upstream_errors=CHOKED, last_try=True), None),
        (verdict.Outcome(events=ANSWER[:1], upstream_errors=CHOKED, last_try=True), blame.NO_ANSWER),
        (verdict.Outcome(upstream_errors=CHOKED, last_try=True, payer="miner"), blame.NO_ANSWER),
        # an earlier try: the upstream's, retried
        (verdict.Outcome(events=ANSWER, upstream_errors=CHOKED), blame.UPSTREAM_LLM_DOWN),
        (verdict.Outcome(events=ANSWER, upstream_errors=CHOKED, payer="miner"), blame.PROVIDER_DOWN),
        # on the last try, a failure met while the upstream was not seen well (a real outage) stays the upstream's
        (verdict.Outcome(events=ANSWER, upstream_errors=DOWN, last_try=True), blame.UPSTREAM_LLM_DOWN),
        (verdict.Outcome(events=ANSWER, upstream_errors=[*CHOKED, *DOWN], last_try=True), blame.UPSTREAM_LLM_DOWN),
        # not a 5xx (unreachable, not JSON: the gateway's own 502 carries no well) stays the upstream's
        (
            verdict.Outcome(upstream_errors=[{"status": 429, "error": "x", "well": "answered a probe"}], last_try=True),
            blame.UPSTREAM_LLM_DOWN,
        ),
    ],
)
def test_an_upstream_5xx_on_the_last_try_while_the_upstream_is_well_is_the_agents(
    outcome: verdict.Outcome, code: int | None
) -> None:
    assert verdict.error_of(outcome)[0] == code


def test_no_answer_names_the_runs_own_answer_tool() -> None:
    """A family whose answer tool has another name (the mock family's ``commit_code``) is told to call that one."""
    from tests.support import mock_family

    searched = [call(0, "lookup_code", q="name0")]
    code, error = verdict.error_of(verdict.Outcome(events=searched, task=mock_family.Mock.tasks[0]))
    assert code == blame.NO_ANSWER and error is not None and "commit_code" in error and "recommend" not in error
    code, error = verdict.error_of(verdict.Outcome(events=ANSWER[:1], task="product"))
    assert code == blame.NO_ANSWER and error is not None and error.endswith("calling recommend_product")


def test_an_agents_error_is_final_at_zero_and_the_validators_is_retried_never_scored() -> None:
    theirs = verdict.errored(blame.NO_ANSWER, "no answer")
    assert (theirs.status, theirs.blame, theirs.retry, theirs.final) == ("errored", "agent", False, 0.0)
    ours = verdict.errored(blame.UPSTREAM_LLM_DOWN, "502")
    assert (ours.status, ours.blame, ours.retry, ours.final) == ("retry", "validator", True, None)


def strict(success: bool) -> RunScore:
    return RunScore(task="product", answer=["p1"], success=success, gt=1.0, rule=1.0, final=float(success))


def reading(quality: float) -> JudgeVerdict:
    return JudgeVerdict(judge="offline", rubric_version="v", gate="g", quality=quality, coefficient=0, explanation="")


def test_a_judgment_makes_the_final_score_beside_an_unchanged_strict_verdict() -> None:
    before = strict(True)
    judged = verdict.judged(before, verdict.judgment_of(reading(0.5), 1.0, SN15_RUBRIC))
    assert judged.final == pytest.approx(0.3 + 0.875 * 0.5) and judged.status == "finished"
    assert judged.strict == before and before.final == 1.0 and before.judge_quality is None
    assert judged.before_judge == 1.0 and judged.judgment is not None and judged.judgment.quality == 0.5


def test_a_judge_that_cannot_judge_leaves_the_run_unscored_for_a_retry() -> None:
    unjudged = verdict.unjudged(strict(True), "connection refused")
    assert (unjudged.status, unjudged.code, unjudged.final, unjudged.success) == (
        "retry",
        blame.JUDGE_UNAVAILABLE,
        None,
        True,
    )
