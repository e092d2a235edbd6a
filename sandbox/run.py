"""One run, exactly as a validator runs it: open a gateway run, start the sandbox, collect the gateway's log.

Used by `arena-miner test` and by the validator, so a miner tests with the validator's harness."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import verdict
from arena.spend import RunSpend, run_spend
from arena.tasks import ProblemBase
from arena.tasks.answer import raw_answer
from arena.trajectory import TrajectoryEvent
from sandbox.backends import Limits, Sandbox, SandboxResult, SandboxSpec
from sandbox.gateway import Budgets, Gateway, MinerRoute


@dataclass
class RunOutcome:
    run_id: str
    result: SandboxResult
    events: list[TrajectoryEvent] = field(default_factory=list)
    answer: Any = None  # the raw product_ids of the final answer-tool call (arena.tasks.answer)
    tool_calls: int = 0
    llm_calls: int = 0
    tokens: int = 0
    cost: float = 0.0
    upstream_errors: list[dict[str, Any]] = field(default_factory=list)
    budget_refusals: int = 0
    unserved: list[str] = field(default_factory=list)  # routes the agent asked for that the gateway does not serve
    worker: str | None = None  # where it ran: "local", or the Ray worker's node id (`validator.dispatch`)
    task: str | None = None  # the problem's task type: its family's answer tool is the answer (`arena.tasks.answer`)
    #: the miner's key refused, out of credit or over its quota (the miner's fault, `arena.blame.MINER_KEY_REFUSED`)
    payer_errors: list[dict[str, Any]] = field(default_factory=list)
    spend: RunSpend = field(default_factory=RunSpend)  # tokens in and out, cost, per model, and who paid

    @property
    def answered(self) -> bool:
        """Whether the run answered (`arena.verdict.answered`)."""
        return verdict.answered(self.events, self.task)

    def facts(self, *, gateway_alive: bool = True, last_try: bool = False) -> verdict.Outcome:
        """The outcome as the verdict reads it (`arena.verdict.Outcome`); ``last_try``: the run's last try after the
        node found its upstream well (`arena.verdict.Outcome.last_try`)."""
        return verdict.Outcome(
            events=self.events,
            sandbox_code=self.result.error_code,
            sandbox_error=self.result.error,
            upstream_errors=self.upstream_errors,
            budget_refusals=self.budget_refusals,
            unserved=tuple(self.unserved),
            contract=self.result.contract,
            steps=self.result.steps,
            gateway_alive=gateway_alive,
            task=self.task,
            payer=self.spend.payer,
            payer_errors=self.payer_errors,
            last_try=last_try,
        )

    def error_code(self, *, gateway_alive: bool = True, last_try: bool = False) -> tuple[int | None, str | None]:
        """The run's error code and message (`arena.verdict.error_of`), or (None, None) for a run whose answer is
        to be scored."""
        return verdict.error_of(self.facts(gateway_alive=gateway_alive, last_try=last_try))


async def run_one(
    gateway: Gateway,
    sandbox: Sandbox,
    bundle_dir: Path,
    socket_dir: Path,
    problem: ProblemBase | dict[str, Any],
    *,
    limits: Limits | None = None,
    budgets: Budgets | None = None,
    run_id: str | None = None,
    shown_id: str | None = None,
    route: MinerRoute | None = None,
) -> RunOutcome:
    """Run ``problem`` against the agent in ``bundle_dir``: only its public view enters the sandbox; the whole problem
    stays at the gateway for its family's tools (a dict is taken as the public view). The answer comes from the log.
    The agent is told the gateway's model (`Gateway.agent_model`) in ``ARENA_LLM_MODEL``; with ``shown_id`` it is
    shown that id for the problem (a validator's opaque per-race id, `arena.problems.alias`), never the stable one.
    With ``route`` the run's LLM calls go to the miner's own provider with its key (the miner pays)."""
    run_id = run_id or uuid.uuid4().hex[:12]
    public = problem.public() if isinstance(problem, ProblemBase) else problem
    if shown_id is not None:
        public = {**public, "problem_id": shown_id}
    handle = gateway.open_run(
        run_id, budgets, wall_seconds=(limits or Limits()).wall_seconds, problem=problem, route=route
    )
    result: SandboxResult | None = None
    try:
        spec = SandboxSpec(
            run_id=run_id,
            bundle_dir=bundle_dir,
            problem=public,
            token=handle.token,
            socket_dir=socket_dir,
            limits=limits or Limits(),
            model=gateway.model_for(handle),
        )
        result = await sandbox.run(spec)
    finally:
        record = await _close(gateway, run_id, result)
    return RunOutcome(
        run_id,
        result,
        record.events,
        raw_answer(record.events, _task(problem)),
        record.tool_calls,
        record.llm_calls,
        record.tokens,
        record.cost,
        list(record.upstream_errors),
        record.budget_refusals,
        list(record.unserved),
        task=_task(problem),
        payer_errors=list(record.payer_errors),
        spend=run_spend(record.events, payer=record.payer, provider=record.route.name if record.route else ""),
    )


async def _close(gateway: Gateway, run_id: str, result: SandboxResult | None) -> Any:
    """The run closed at the gateway. An LLM call still pending now is the agent's if it ended its run itself; if the
    node's wall clock ended it, the agent's only if the upstream is well (`arena.verdict.stalled`). A run whose sandbox
    failed is the node's fault anyway: no probe then."""
    ended = verdict.ended_by(result.error_code) if result is not None else "node"
    well: str | None = None
    try:
        if result is not None and ended == "node":
            well = await gateway.pending_well(run_id)
    finally:
        record = gateway.close_run(run_id, ended_by=ended, well=well)
    return record


def _task(problem: ProblemBase | dict[str, Any]) -> str | None:
    task = problem.task if isinstance(problem, ProblemBase) else problem.get("task")
    return task if isinstance(task, str) else None
