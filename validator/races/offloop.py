"""The run path's blocking work off the node's event loop, in one thread of its own, in order.

An attempt's claim, its agent's staging and its outcome's record (strict scoring, the offline judge, the trajectory's
commit) block: SQLite commits, file writes, CPU. On the event loop they held up every other run's progress (a Ray
reply waited for them); here they run one at a time in the order submitted, so two runs' commits never wait on each
other in SQLite's lock and two stagings of one agent never meet. The awaiting run goes on only once its work is done
(what it stored is durable before anything that depends on it runs, as before), and work begun is never cut short:
a caller cancelled meanwhile (the node stops) waits for it to end before it is cancelled; if that work failed, its
failure is handed to the loop's `dropped` (the node logs it with its run), as no caller is left to take it.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


Dropped = Callable[[Callable[..., Any], tuple[Any, ...], BaseException], None]


class OffLoop:
    """One thread for the run path's blocking work (`submit`, `run`), made when first used, ended by `close`;
    `dropped(fn, args, exc)` is told of work that failed once its caller was cancelled (`finish`)."""

    def __init__(self, dropped: Dropped | None = None) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self.dropped = dropped

    def submit(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> asyncio.Future[T]:
        """`fn` queued on the thread, after the work submitted before it; the running loop's future of its result."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-path")
            pool = self._pool
        return asyncio.get_running_loop().run_in_executor(pool, functools.partial(fn, *args, **kwargs))

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn`'s result, run on the thread (`finish`)."""
        return await finish(self.submit(fn, *args, **kwargs), self.told(fn, *args))

    def told(self, fn: Callable[..., Any], *args: Any) -> Callable[[BaseException], None] | None:
        """What `finish` calls with the failure of `fn(*args)` once its caller was cancelled: `dropped`, if set."""
        return None if self.dropped is None else functools.partial(self.dropped, fn, args)

    def close(self) -> None:
        """The thread ended once the work queued on it is done (the node stops)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)


async def finish(future: asyncio.Future[T], dropped: Callable[[BaseException], None] | None = None) -> T:
    """The future's result. A caller cancelled while it waits waits on for the work to end (stored or failed), then
    is cancelled: work on the thread is never left half done by its caller going away. The work's failure then has no
    caller to take it: it goes to `dropped` (else it would be lost unseen)."""
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        await asyncio.wait({future})
        failure = None if future.cancelled() else future.exception()
        if failure is not None and dropped is not None:
            dropped(failure)
        raise
