"""A run's verdict: the one place that turns what a run did into what it earns.

Every path that decides a run's worth comes here: the node's race (`validator.races`), `arena-miner test`,
`arena-validator rescore` and the audit of another validator's published runs. Each gives the run's outcome as plain
values and gets the same `Verdict` back, so a miner sees exactly what a validator would give, and two validators
holding the same trajectory derive the same strict verdict.

The steps, each usable alone (the node scores a run when it lands and judges it later, maybe in another thread):

1. **Blame** (`error_of`): the outcome's error code by `arena.blame`'s table, or None for a run whose answer is to be
   scored. The node's own faults come first: its sandbox failing, its upstream LLM failing at any point of the run
   (whatever the agent did with the error; on a run's last try after the node found its upstream well, a 5xx met while
   the upstream was seen well is the agent's request's: `choked`), its gateway dying; then the agent's (1001-1008).
2. **Errored** (`errored`): an agent's error is final and counts 0; a validator's is retried (`retry`) and never
   scored: it is missing from the miner's race score, not a zero.
3. **Strict** (`strict_verdict`): the answer, read from the gateway's log (`arena.tasks.answer`), checked by the
   problem's family under the pack's ruleset. A failure of the checks is the node's own (2007, retried).
4. **Judge** (`judge_run`): the reasoning judge's reading of the log; the rubric makes the final score,
   `strict x coefficient`. A judge that cannot judge (`JudgeUnavailable`) is the node's fault (2004): the run is
   judged again later, never scored without its judge.

`decide` runs the four in order for a caller that has the whole outcome and a judge at hand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from arena import blame, tasks
from arena.blame import Blame
from arena.judge import Judge, JudgeUnavailable
from arena.judge import Verdict as JudgeVerdict
from arena.judge.rubric import Rubric
from arena.scoring.models import RunScore
from arena.tasks import ProblemBase
from arena.tasks.answer import answer_tools, final_recommendation, raw_answer
from arena.trajectory import TrajectoryEvent

Lookup = Callable[[str], Any]
Status = Literal["finished", "errored", "retry", "awaiting_judge"]
EndedBy = Literal["agent", "node"]


@dataclass(frozen=True)
class Outcome:
    """What a run did, as plain values: the gateway's log and the sandbox's own account of it.

    ``sandbox_code`` is the code of the sandbox's status (`arena.blame.for_harness_status`; None when the agent
    returned), ``contract``/``steps`` how an agent returned subnet-15 dialogue steps, ``gateway_alive`` whether the
    node's gateway still served when the run ended."""

    events: Sequence[TrajectoryEvent] = ()
    sandbox_code: int | None = None
    sandbox_error: str | None = None
    upstream_errors: Sequence[Mapping[str, Any]] = ()
    budget_refusals: int = 0
    unserved: Sequence[str] = field(default_factory=tuple)
    contract: str = "arena"
    steps: int | None = None
    gateway_alive: bool = True
    task: str | None = None  # the problem's task type: its family's answer tool is the run's answer
    payer: str = "validator"  # whose key the run's LLM calls went upstream with (`arena.spend.Payer`)
    #: the miner's own key refused (401, 403), out of credit (402) or over its quota (429) by its provider
    payer_errors: Sequence[Mapping[str, Any]] = ()
    #: the run's last try, given after the node's own check found its upstream well past the race's fault wait
    #: (`validator.races.closing.Closing.last_try`): an upstream 5xx it meets while that upstream is seen well is
    #: the agent's request's doing (`choked`)
    last_try: bool = False


class Judgment(BaseModel):
    """The judge's reading of a run and the final score the rubric makes of it."""

    model_config = ConfigDict(frozen=True)

    verdict: JudgeVerdict
    coefficient: float
    final: float

    @property
    def quality(self) -> float:
        return self.verdict.quality

    def stored(self) -> dict[str, Any]:
        """The judgment as the store keeps it (`Store.save_judgment`'s arguments)."""
        return {
            "verdict": self.verdict.model_dump(mode="json"),
            "quality": self.verdict.quality,
            "coefficient": self.coefficient,
            "final": self.final,
            "evidence": list(self.verdict.evidence),
        }


class Verdict(BaseModel):
    """A run's verdict. ``final`` is what the run counts in its race: strict x the judge's coefficient; 0 for an
    agent's error; None while it is undecided (``retry``: the validator's fault, run again; or awaiting its judge).
    ``strict`` is never changed by the judge: the judgment sits beside it."""

    model_config = ConfigDict(frozen=True)

    code: int | None = None
    error: str | None = None
    blame: Blame | None = None
    retry: bool = False
    strict: RunScore | None = None
    judgment: Judgment | None = None
    final: float | None = None

    @property
    def status(self) -> Status:
        """finished (final), errored (the agent's, final at 0), retry (the validator's: never scored), or
        awaiting_judge (strictly scored; the judge not yet asked)."""
        if self.retry:
            return "retry"
        if self.code is not None:
            return "errored"
        return "finished" if self.final is not None else "awaiting_judge"

    @property
    def success(self) -> bool:
        return bool(self.strict is not None and self.strict.success)

    @property
    def before_judge(self) -> float | None:
        """The family's score before the judge (ShoppingBench: success, 0 or 1)."""
        return None if self.strict is None else float(self.strict.final)


def answered(events: Sequence[TrajectoryEvent], task: str | None = None) -> bool:
    """Whether the run answered: the gateway took a call of its family's answer tool (a tool error such as an
    unknown id is still an answer, for the ruleset to score; a call refused for budget, token or size is not)."""
    return final_recommendation(events, answer_tools(task)) is not None


def error_of(outcome: Outcome) -> tuple[int | None, str | None]:
    """The run's error code and message (`arena.blame`), or (None, None) for a run whose answer is to be scored.

    In order: the sandbox failing is the node's (2001); the upstream LLM failing at any point of the run is the
    node's (2005) whatever the agent did with the error, caught or not (the miner's own provider failing: nobody's,
    2011, retried alike), except on the run's last try where it is all the upstream choking on the agent's own
    requests (`choked`: the run is then scored as what it answered); the miner's key refused by its provider is the
    miner's (1009); then the agent's own outcome (1001-1005); an agent that returned without answering spent its
    budget (1007) or simply gave no answer (1006). A node whose gateway stopped serving during the run takes any
    agent's error (or answer) on itself (2002)."""
    code, error = _error_of(outcome)
    if not outcome.gateway_alive and blame.blame_of(code) != "validator":
        return blame.GATEWAY_FAULT, "the node's gateway stopped serving during the run"
    return code, error


def _error_of(outcome: Outcome) -> tuple[int | None, str | None]:
    code = outcome.sandbox_code
    if code is not None and blame.blame_of(code) == "validator":
        return code, outcome.sandbox_error
    if outcome.upstream_errors and not (outcome.last_try and choked(outcome.upstream_errors)):
        first = outcome.upstream_errors[0]
        if outcome.payer == "miner":
            return blame.PROVIDER_DOWN, (
                f"the miner's provider failed {len(outcome.upstream_errors)} time(s) during the run; "
                f"first: {first.get('error')}"
            )
        return blame.UPSTREAM_LLM_DOWN, (
            f"the node's upstream LLM failed {len(outcome.upstream_errors)} time(s) "
            f"during the run; first: {first.get('error')}"
        )
    if outcome.payer_errors:
        return blame.MINER_KEY_REFUSED, str(outcome.payer_errors[0].get("error"))
    if code is not None:
        return code, outcome.sandbox_error
    if answered(outcome.events, outcome.task):
        return None, None
    if outcome.budget_refusals:
        return blame.BUDGET_EXHAUSTED, (
            f"the agent's gateway budget was spent ({outcome.budget_refusals} call(s) "
            f"refused) and it never called {_answer_tool(outcome.task)}"
        )
    if outcome.unserved:
        routes = ", ".join(dict.fromkeys(outcome.unserved))
        return blame.NO_ANSWER, (
            f"the agent asked for {routes}, which the gateway does not serve, and never called "
            f"{_answer_tool(outcome.task)}"
        )
    if outcome.contract == "sn15":
        return blame.NO_ANSWER, (
            f"agent_main returned {outcome.steps} dialogue step(s) and none of them is a {_answer_tool(outcome.task)} "
            "call"
        )
    return blame.NO_ANSWER, f"agent_main returned without ever calling {_answer_tool(outcome.task)}"


def ended_by(sandbox_code: int | None) -> EndedBy:
    """Who ended a run, by its sandbox's code: the agent (it returned, raised, exited, ran out of memory, made a
    forbidden system call: no code, or any code of its own but the wall clock), or the node (the wall clock, 1003,
    and every fault of the node's: the run did not end by the agent's doing)."""
    if sandbox_code is None:
        return "agent"
    return "agent" if blame.blame_of(sandbox_code) == "agent" and sandbox_code != blame.TIMED_OUT else "node"


def stalled(*, ended: EndedBy, upstream_well: bool) -> bool:
    """Whether an LLM call still unanswered when its run ended is the upstream's failure (a stall: 2005, or 2011 at
    the miner's provider; nobody's fault, the run retried) rather than the agent's (docs/scoring.md, "An LLM call
    left unanswered").

    A call pending when the agent ended its run itself is the agent's: it gave the call up (its run is scored as
    what it answered), else an agent unsure of a problem could start a slow call and quit, to have the run retried or
    left out instead of scored. A call pending when the node ended the run (its wall clock, or a stop) is decided by
    the check the timeout rule uses (``upstream_well``: the upstream answered another call of that model within the
    probe's time, or a one-token probe): an upstream shown well was serving, and the call was the agent's long ask
    (abandoned); one not shown well was hanging, and no agent is charged for it (a stall)."""
    return ended == "node" and not upstream_well


def choked(upstream_errors: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a run's upstream failures are all the upstream choking on the agent's own requests: each an answer 5xx
    given while the gateway saw that upstream well (it answered another call of the same model 2xx within its probe
    time, or a probe: the failure's ``well``). On a run's last try such a run is scored as what it answered, not
    retried or left out (docs/scoring.md, "An LLM call the upstream chokes on"); a failure of any other kind
    (unreachable, timed out, a 2xx not JSON) or met while the upstream was not seen well keeps the run the upstream's.
    The gateway tags ``well`` on every failure the agent's request can cause: a 5xx whatever its body, a dropped
    connection (recorded as a 502)."""
    return bool(upstream_errors) and all(
        isinstance(e.get("status"), int) and e["status"] >= 500 and bool(e.get("well")) for e in upstream_errors
    )


def _answer_tool(task: str | None) -> str:
    """The name(s) of the answer tool of the family of task type ``task`` (every family's when unknown)."""
    return " or ".join(sorted(answer_tools(task))) or "an answer tool"


def errored(code: int, error: str | None) -> Verdict:
    """The verdict on a run that ended with error ``code``: the agent's is final at 0, the validator's retried."""
    retry = blame.retried(code)
    return Verdict(code=code, error=error, blame=blame.blame_of(code), retry=retry, final=None if retry else 0.0)


def strict_verdict(
    problem: ProblemBase,
    events: Sequence[TrajectoryEvent],
    lookup: Lookup,
    *,
    ruleset: Any,
    gold_vectors: Sequence[Any] | None = None,
) -> RunScore:
    """The strict verdict on a run of ``problem`` from its gateway log: the answer read from the log
    (`arena.tasks.answer.raw_answer`), checked by the problem's family under ``ruleset`` (a name or a ruleset)
    with the pack's ``gold_vectors``. The same log gives the same verdict on every validator."""
    score: RunScore = tasks.score(
        problem,
        raw_answer(events, problem.task),
        lookup,
        events=list(events),
        gold_vectors=None if gold_vectors is None else list(gold_vectors),
        ruleset=ruleset,
    )
    return score


def scored(strict: RunScore) -> Verdict:
    """A run strictly scored, its judge not yet asked."""
    return Verdict(strict=strict)


def final_score(before_judge: float, quality: float, rubric: Rubric) -> float:
    """The final score: the family's score before the judge times the rubric's coefficient of the judged quality."""
    return rubric.final(before_judge, quality)


def judge_run(judge: Judge, problem: ProblemBase, events: Sequence[TrajectoryEvent], before_judge: float) -> Judgment:
    """The judge's reading of a run (it sees the problem's `Family.judge_context` and the log) and the final score
    its rubric makes of ``before_judge`` (the strict score: `Verdict.before_judge`, or a stored one). Raises
    `JudgeUnavailable` when the judge could not judge."""
    reading = judge.judge(tasks.judge_context(problem), list(events))
    return judgment_of(reading, before_judge, judge.rubric)


def judgment_of(reading: JudgeVerdict, before_judge: float, rubric: Rubric) -> Judgment:
    """A judge's reading made into a judgment by ``rubric`` (rescoring makes it again with another rubric)."""
    return Judgment(
        verdict=reading,
        coefficient=rubric.coefficient(reading.quality),
        final=final_score(before_judge, reading.quality, rubric),
    )


def judged(strict: RunScore, judgment: Judgment) -> Verdict:
    """The final verdict of a strictly scored run once judged."""
    return Verdict(strict=strict, judgment=judgment, final=judgment.final)


def unjudged(strict: RunScore, error: str) -> Verdict:
    """A strictly scored run its judge could not judge: the node's fault (2004), judged again later."""
    return Verdict(
        code=blame.JUDGE_UNAVAILABLE, error=f"judge unavailable: {error}", blame="validator", retry=True, strict=strict
    )


def decide(
    problem: ProblemBase,
    outcome: Outcome,
    lookup: Lookup,
    *,
    ruleset: Any,
    gold_vectors: Sequence[Any] | None = None,
    judge: Judge | None,
) -> Verdict:
    """The whole verdict on one run: blame, strict checks, the judge, the final score. ``judge`` None leaves the
    run strictly scored (`Verdict.status` awaiting_judge: a validator always judges)."""
    code, error = error_of(outcome)
    if code is not None:
        return errored(code, error)
    try:
        strict = strict_verdict(problem, outcome.events, lookup, ruleset=ruleset, gold_vectors=gold_vectors)
    except Exception as exc:  # noqa: BLE001 - a fault of the checks is the node's own (2007), never the agent's zero
        return errored(blame.SCORING_FAILED, f"scoring failed: {type(exc).__name__}: {exc}")
    if judge is None:
        return scored(strict)
    try:
        judgment = judge_run(judge, problem, outcome.events, float(strict.final))
    except JudgeUnavailable as exc:
        return unjudged(strict, str(exc))
    return judged(strict, judgment)


__all__ = [
    "Judgment",
    "Outcome",
    "Verdict",
    "answered",
    "choked",
    "decide",
    "ended_by",
    "error_of",
    "errored",
    "final_score",
    "judge_run",
    "judged",
    "judgment_of",
    "scored",
    "stalled",
    "strict_verdict",
    "unjudged",
]
