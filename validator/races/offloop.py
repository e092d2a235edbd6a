"""The run path's blocking work off the node's event loop, in one thread of its own, in order.

An attempt's claim, its agent's staging and its outcome's record (strict scoring, the offline judge, the trajectory's
commit) block: SQLite commits, file writes, CPU. On the event loop they held up every other run's progress (a Ray
reply waited for them); here they run one at a time in the order submitted, so two runs' commits never wait on each
other in SQLite's lock and two stagings of one agent never meet. The awaiting run goes on only once its work is done
(what it stored is durable before anything that depends on it runs, as before), and work begun is never cut short:
a caller cancelled meanwhile (the node stops) waits for it to end before it is cancelled.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class OffLoop:
    """One thread for the run path's blocking work (`submit`, `run`), made when first used, ended by `close`."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> asyncio.Future[T]:
        """`fn` queued on the thread, after the work submitted before it; the running loop's future of its result."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-path")
            pool = self._pool
        return asyncio.get_running_loop().run_in_executor(pool, functools.partial(fn, *args, **kwargs))

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn`'s result, run on the thread (`finish`)."""
        return await finish(self.submit(fn, *args, **kwargs))

    def close(self) -> None:
        """The thread ended once the work queued on it is done (the node stops)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)


async def finish(future: asyncio.Future[T]) -> T:
    """The future's result. A caller cancelled while it waits waits on for the work to end (stored or failed), then
    is cancelled: work on the thread is never left half done by its caller going away."""
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        await asyncio.wait({future})
        if not future.cancelled():
            future.exception()  # retrieved: its failure is the cancelled caller's no more
        raise
