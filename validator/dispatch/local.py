"""Local dispatch (the default): the run's sandbox on the node's own host, behind the node's own gateway."""

from __future__ import annotations

from collections.abc import Sequence

from arena import blame
from sandbox.backends import Limits, Sandbox
from sandbox.gateway import Gateway
from sandbox.run import RunOutcome, run_one
from validator.dispatch import AgentBundle, Attempt, DispatchError

#: What the run's sandbox stats record as its worker when the node ran it itself.
LOCAL_WORKER = "local"


class LocalDispatcher:
    name = "local"

    def __init__(self, gateway: Gateway, sandbox: Sandbox) -> None:
        self.gateway, self.sandbox = gateway, sandbox

    def capacity(self, concurrency: int) -> int:
        return concurrency

    def prepare(self, bundles: Sequence[AgentBundle]) -> None:
        return None  # the node stages each agent once, in its first run (a bundle that fails is that run's)

    async def run(self, attempt: Attempt) -> RunOutcome:
        a = attempt
        outcome = await run_one(
            self.gateway,
            self.sandbox,
            a.agent_dir,
            a.socket_dir,
            a.problem,
            limits=a.limits,
            budgets=a.budgets,
            run_id=a.run_id,
            shown_id=a.shown_id,
            route=a.route,
        )
        outcome.worker = LOCAL_WORKER
        return outcome

    def held(self, live: set[str]) -> set[str]:
        return set()  # a local run's sandbox never outlives its node

    async def reattach(self, run_id: str, limits: Limits) -> RunOutcome:
        raise DispatchError(blame.NODE_INTERRUPTED, "the node lost the run: a local sandbox ends with its node")

    def close(self) -> None:
        return None
