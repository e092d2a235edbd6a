"""A run cancelled while its sandbox starts (a node stopping drains the runs just starting) ends, on every backend, at
whatever moment of the start the cancellation comes, and leaves no process of its sandbox behind."""

from __future__ import annotations

import asyncio

import psutil

from sandbox.backends import Limits
from sandbox.run import run_one
from tests.conformance.conftest import RUNS, bundle

AGENT = """
def agent_main(problem):
    return None
"""


def test_a_run_cancelled_at_any_moment_of_its_start_ends_and_leaves_nothing(node) -> None:
    gw, root, backend = node
    agent_dir = bundle(root, f"cancelled-{next(RUNS)}", AGENT)
    problem = {"problem_id": "cancelled", "task": "product", "query": "desk lamp", "n_products": 1}

    async def cancelled_after(delay: float) -> bool:
        run = asyncio.ensure_future(
            run_one(
                gw, backend, agent_dir, root / "gw", problem, limits=Limits(wall_seconds=20), run_id=f"c{next(RUNS)}"
            )
        )
        await asyncio.sleep(delay)
        run.cancel()
        done, _ = await asyncio.wait([run], timeout=120)  # a hang detector, far beyond any start
        return bool(done)

    async def every_moment() -> list[float]:  # every 10 ms of the start and past it
        return [ms for ms in range(0, 300, 10) if not await cancelled_after(ms / 1000)]

    assert asyncio.run(every_moment()) == []  # the moments (ms) after which a cancelled run never ended
    me = psutil.Process()
    left = [p for p in me.children(recursive=True) if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    psutil.wait_procs(left, timeout=30)
    assert not [p.cmdline() for p in left if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
