"""One run, exactly as a validator runs it: open a gateway run, start the sandbox, collect the gateway's log.

Used by `arena-miner test` and by the validator, so a miner tests with the validator's harness."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.trajectory import TrajectoryEvent, answer_of
from sandbox.backends import Limits, Sandbox, SandboxResult, SandboxSpec
from sandbox.gateway import Budgets, Gateway


@dataclass
class RunOutcome:
    run_id: str
    result: SandboxResult
    events: list[TrajectoryEvent] = field(default_factory=list)
    answer: list[str] = field(default_factory=list)
    tool_calls: int = 0
    llm_calls: int = 0
    tokens: int = 0
    cost: float = 0.0


async def run_one(gateway: Gateway, sandbox: Sandbox, bundle_dir: Path, socket_dir: Path, problem: dict[str, Any],
                  *, limits: Limits | None = None, budgets: Budgets | None = None,
                  run_id: str | None = None) -> RunOutcome:
    """Run ``problem`` (its public view only) against the agent in ``bundle_dir``; the answer comes from the log.
    The agent is told the gateway's model (`Gateway.agent_model`) in ``ARENA_LLM_MODEL``."""
    run_id = run_id or uuid.uuid4().hex[:12]
    handle = gateway.open_run(run_id, budgets)
    try:
        spec = SandboxSpec(run_id=run_id, bundle_dir=bundle_dir, problem=problem, token=handle.token,
                           socket_dir=socket_dir, limits=limits or Limits(), model=gateway.agent_model)
        result = await sandbox.run(spec)
    finally:
        record = gateway.close_run(run_id)
    return RunOutcome(run_id, result, record.events, answer_of(record.events), record.tool_calls, record.llm_calls,
                      record.tokens, record.cost)
