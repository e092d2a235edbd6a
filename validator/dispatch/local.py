"""Local dispatch (the default): the run's sandbox on the node's own host, behind the node's own gateway."""

from __future__ import annotations

from pathlib import Path

from arena.tasks import ProblemBase
from sandbox.backends import Limits, Sandbox
from sandbox.gateway import Budgets, Gateway
from sandbox.run import RunOutcome, run_one

#: What the run's sandbox stats record as its worker when the node ran it itself.
LOCAL_WORKER = "local"


class LocalDispatcher:
    name = "local"

    def __init__(self, gateway: Gateway, sandbox: Sandbox) -> None:
        self.gateway, self.sandbox = gateway, sandbox

    def capacity(self, concurrency: int) -> int:
        return concurrency

    async def run(
        self,
        run_id: str,
        agent_dir: Path,
        sha256: str,
        socket_dir: Path,
        problem: ProblemBase,
        *,
        limits: Limits,
        budgets: Budgets,
    ) -> RunOutcome:
        outcome = await run_one(
            self.gateway, self.sandbox, agent_dir, socket_dir, problem, limits=limits, budgets=budgets, run_id=run_id
        )
        outcome.worker = LOCAL_WORKER
        return outcome

    def close(self) -> None:
        return None
