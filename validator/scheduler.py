"""The node's jobs on APScheduler 3.11 (`AsyncIOScheduler`): sync, open race, dispatch, judge, close race, set
weights, reap. Every job is idempotent and reads its state from the store, so a node killed at any moment and
started again resumes where it stopped: `Arena.recover` puts runs it left `starting`/`running` back to pending,
runs left `scoring` are scored from their stored trajectory and then judged, and a `finished` run is never run
again.

A job that fails (database or chain unreachable, a bug) logs one line and runs again at its next interval; it never
stops the node. SIGTERM and SIGINT stop the node gracefully: no new job starts, running sandboxes are killed and
their runs put back to pending for the next start.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from validator.races import Arena


class Node:
    """A validator node: the race machinery (`Arena`) driven by scheduled jobs."""

    def __init__(self, arena: Arena, *, sync: Callable[[], Any] | None = None, block_time: float = 12.0,
                 dispatch_seconds: float = 2.0, close_seconds: float = 3.0, sync_seconds: float | None = None,
                 reap_seconds: float = 60.0, log: Any = None) -> None:
        self.arena = arena
        self.sync = sync
        self.log = log
        self.intervals = {
            "sync": sync_seconds if sync_seconds is not None else max(block_time * 5, 5.0),
            "open_race": max(block_time, 1.0),
            "dispatch": dispatch_seconds,
            "judge": dispatch_seconds,
            "close_race": close_seconds,
            "set_weights": max(block_time, 1.0),
            "reap": reap_seconds,
        }
        self.stopping = asyncio.Event()
        self.failures: dict[str, int] = {}
        self.last_ok: dict[str, float] = {}

    # --- jobs (each one line in the log when it fails; the next interval tries again)

    def _guard(self, name: str, job: Callable[[], Any]) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            if self.stopping.is_set():
                return
            try:
                result = job()
                if asyncio.iscoroutine(result):
                    await result
                self.last_ok[name] = time.time()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - a failing job must never stop the node
                self.failures[name] = self.failures.get(name, 0) + 1
                if self.log is not None:
                    self.log.error("job.failed", job=name, error=f"{type(exc).__name__}: {exc}",
                                   failures=self.failures[name])

        run.__name__ = f"job_{name}"
        return run

    def _sync(self) -> Awaitable[Any]:
        assert self.sync is not None
        return asyncio.to_thread(self.sync)

    def _open(self) -> Awaitable[Any]:
        async def open_race() -> None:
            if self.sync is not None and "sync" not in self.last_ok:
                return  # a race opens on synced submissions only (else a fresh node would race nobody)
            await asyncio.to_thread(self.arena.open_race)

        return open_race()

    def _close(self) -> Awaitable[Any]:
        async def close() -> None:
            await asyncio.to_thread(self.arena.close_races)
            await asyncio.to_thread(self.arena.weigh)

        return close()

    def _weights(self) -> Awaitable[Any]:
        return asyncio.to_thread(self.arena.set_weights)

    def _reap(self) -> Awaitable[Any]:
        return asyncio.to_thread(self.arena.reap)

    def scheduler(self) -> AsyncIOScheduler:
        scheduler = AsyncIOScheduler(timezone=UTC, job_defaults={"coalesce": True, "max_instances": 1,
                                                                 "misfire_grace_time": None})
        jobs: dict[str, Callable[[], Any]] = {
            "open_race": self._open, "dispatch": self.arena.dispatch, "judge": self.arena.judge_runs,
            "close_race": self._close,
            "set_weights": self._weights, "reap": self._reap,
        }
        if self.sync is not None:
            jobs = {"sync": self._sync, **jobs}
        now = datetime.now(UTC)
        for name, job in jobs.items():
            scheduler.add_job(self._guard(name, job), "interval", seconds=self.intervals[name], id=name, name=name,
                              next_run_time=now)
        return scheduler

    def health(self) -> dict[str, tuple[bool, str]]:
        """The chain answers, and the scheduler's dispatch job ran recently (for `/healthz`)."""
        checks: dict[str, tuple[bool, str]] = {}
        try:
            checks["chain"] = (True, f"{self.arena.chain.network} block {self.arena.chain.block()}")
        except Exception as exc:  # noqa: BLE001 - health reports any failure as data
            checks["chain"] = (False, str(exc)[:200])
        last = self.last_ok.get("dispatch")
        limit = max(30.0, 10 * self.intervals["dispatch"])
        if last is None:
            checks["scheduler"] = (not self.stopping.is_set(), "starting")
        else:
            age = time.time() - last
            checks["scheduler"] = (age < limit and not self.stopping.is_set(), f"dispatch ran {age:.1f}s ago")
        return checks

    # --- running

    async def run(self, *, until: Callable[[], bool] | None = None, poll: float = 0.5,
                  handle_signals: bool = True) -> None:
        """Run the jobs until SIGTERM/SIGINT, or until `until()` is true (checked every `poll` seconds)."""
        logging.getLogger("apscheduler").setLevel(logging.ERROR)  # our jobs log their own outcomes; skips are normal
        loop = asyncio.get_running_loop()
        if handle_signals:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self.stopping.set)
        self.arena.start()
        try:
            await asyncio.to_thread(self.arena.reap)  # sandboxes of runs a dead node left behind, then the runs
            await asyncio.to_thread(self.arena.recover)
            scheduler = self.scheduler()
            scheduler.start()
            if self.log is not None:
                self.log.info("node.started", jobs=sorted(j.id for j in scheduler.get_jobs()))
            try:
                while not self.stopping.is_set():
                    if until is not None and await asyncio.to_thread(until):
                        break
                    try:
                        await asyncio.wait_for(self.stopping.wait(), timeout=poll)
                    except TimeoutError:
                        pass
            finally:
                self.stopping.set()
                scheduler.shutdown(wait=False)
                await self._drain()
        finally:
            self.arena.stop()
            if handle_signals:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.remove_signal_handler(sig)
            if self.log is not None:
                self.log.info("node.stopped")

    async def _drain(self) -> None:
        """Kill running sandboxes (their runs go back to pending) and wait for the tasks to finish."""
        tasks = list(self.arena.in_flight.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
