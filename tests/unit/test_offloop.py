"""The run path's thread (`validator.races.offloop`): work whose caller is cancelled meanwhile still runs to its end,
and its failure, which no caller is left to take, is handed to `dropped` rather than lost unseen."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from validator.races.offloop import OffLoop


def test_a_failure_on_the_thread_after_its_caller_was_cancelled_goes_to_dropped() -> None:
    told: list[tuple[str, tuple[Any, ...], BaseException]] = []
    loop_of = OffLoop(dropped=lambda fn, args, exc: told.append((fn.__name__, args, exc)))
    go = threading.Event()

    def record(run_id: str) -> None:
        go.wait()
        raise RuntimeError(f"record of {run_id} failed")

    async def stopped() -> BaseException | None:
        task = asyncio.ensure_future(loop_of.run(record, "r-1"))
        await asyncio.sleep(0)  # the task runs up to its wait on the thread
        task.cancel()  # the node stops while the record waits on the thread
        go.set()
        outcome = (await asyncio.gather(task, return_exceptions=True))[0]
        return outcome if isinstance(outcome, BaseException) else None

    try:
        outcome = asyncio.run(stopped())
    finally:
        loop_of.close()
    assert isinstance(outcome, asyncio.CancelledError)
    assert [(name, args, str(exc)) for name, args, exc in told] == [("record", ("r-1",), "record of r-1 failed")]


def test_a_failure_its_caller_waits_for_is_the_caller_s_alone() -> None:
    told: list[BaseException] = []
    loop_of = OffLoop(dropped=lambda fn, args, exc: told.append(exc))

    def record() -> None:
        raise RuntimeError("the store went away")

    async def waited() -> BaseException | None:
        outcome = (await asyncio.gather(loop_of.run(record), return_exceptions=True))[0]
        return outcome if isinstance(outcome, BaseException) else None

    try:
        outcome = asyncio.run(waited())
    finally:
        loop_of.close()
    assert isinstance(outcome, RuntimeError) and told == []
