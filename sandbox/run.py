"""One run, exactly as a validator runs it: open a gateway run, start the sandbox, collect the gateway's log.

Used by `arena-miner test` and by the validator, so a miner tests with the validator's harness."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import blame
from arena.tasks import ProblemBase
from arena.tasks.answer import answer_tools, raw_answer
from arena.trajectory import TrajectoryEvent
from sandbox.backends import Limits, Sandbox, SandboxResult, SandboxSpec
from sandbox.gateway import Budgets, Gateway


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

    @property
    def answered(self) -> bool:
        """The agent called its family's answer tool and the gateway took the call (a tool error such as an unknown
        id is still an answer, for the ruleset to score; a call refused for budget or rate is not)."""
        names = answer_tools()
        return any(e.kind == "tool_call" and e.name in names and e.status < 400 for e in self.events)

    def error_code(self) -> tuple[int | None, str | None]:
        """The run's error code and message (`arena.blame`), or (None, None) for a run whose answer is to be scored.

        In order: the sandbox failing is the node's (2001); the upstream LLM failing at any point of the run is the
        node's (2005) whatever the agent did with the error, caught or not; then the agent's own outcome (1001-1005);
        an agent that returned without answering spent its budget (1007) or simply gave no answer (1006)."""
        code = self.result.error_code
        if code is not None and blame.blame_of(code) == "validator":
            return code, self.result.error
        if self.upstream_errors:
            first = self.upstream_errors[0]
            return blame.UPSTREAM_LLM_DOWN, (
                f"the node's upstream LLM failed {len(self.upstream_errors)} time(s) "
                f"during the run; first: {first.get('error')}"
            )
        if code is not None:
            return code, self.result.error
        if not self.answered:
            if self.budget_refusals:
                return blame.BUDGET_EXHAUSTED, (
                    f"the agent's gateway budget was spent ({self.budget_refusals} call(s) "
                    "refused) and it never called recommend_product"
                )
            if self.unserved:
                routes = ", ".join(dict.fromkeys(self.unserved))
                return blame.NO_ANSWER, (
                    f"the agent asked for {routes}, which the gateway does not serve, and never "
                    "called recommend_product"
                )
            if self.result.contract == "sn15":
                return blame.NO_ANSWER, (
                    f"agent_main returned {self.result.steps} dialogue step(s) and none of them "
                    "is a recommend_product call"
                )
            return blame.NO_ANSWER, "agent_main returned without ever calling recommend_product"
        return None, None


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
) -> RunOutcome:
    """Run ``problem`` against the agent in ``bundle_dir``: only its public view enters the sandbox; the whole problem
    stays at the gateway for its family's tools (a dict is taken as the public view). The answer comes from the log.
    The agent is told the gateway's model (`Gateway.agent_model`) in ``ARENA_LLM_MODEL``."""
    run_id = run_id or uuid.uuid4().hex[:12]
    public = problem.public() if isinstance(problem, ProblemBase) else problem
    handle = gateway.open_run(run_id, budgets, wall_seconds=(limits or Limits()).wall_seconds, problem=problem)
    try:
        spec = SandboxSpec(
            run_id=run_id,
            bundle_dir=bundle_dir,
            problem=public,
            token=handle.token,
            socket_dir=socket_dir,
            limits=limits or Limits(),
            model=gateway.agent_model,
        )
        result = await sandbox.run(spec)
    finally:
        record = gateway.close_run(run_id)
    return RunOutcome(
        run_id,
        result,
        record.events,
        raw_answer(record.events),
        record.tool_calls,
        record.llm_calls,
        record.tokens,
        record.cost,
        list(record.upstream_errors),
        record.budget_refusals,
        list(record.unserved),
    )
