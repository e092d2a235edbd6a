"""The node's jobs on APScheduler 3.11 (`AsyncIOScheduler`): sync, open race, dispatch, judge, close race, pool
(results bundles committed and pooled with the other validators', `validator.races.pooling`), set weights, reap,
recover, and the janitor (`validator.upkeep`; open race opens nothing while the host is below a floor). Every job
is idempotent and reads its state from the store, so a node killed at any moment and started again resumes where
it stopped, and a node that lives through a fault (the store or the chain away for a
while, the gateway dying) heals itself without a restart: `Arena.recover`, at start and then every
`recover_seconds`, ends and retries the attempts of runs left `starting`/`running` with no sandbox behind them,
scores runs left `scoring` from their stored trajectory (the judge job judges them), finishes runs left `judged`,
and serves the gateway again if it died; a `finished` run is never run again.

A job that fails (database or chain unreachable, a bug) logs its error with the traceback and runs again at its next
interval; it never stops the node. `health()` reports, beside the chain and the scheduler, whether the node
progresses (`Arena.progress`: runs past their wall clock, a race that cannot close, weights not set) and which jobs
keep failing. SIGTERM and SIGINT stop the node gracefully (`Node.drain`): no new job and no new run starts, the runs in
flight finish and are recorded for up to `drain_seconds` (`--stop.drain_seconds`), then the sandboxes still running
are killed and their runs put back to pending for the next start (never an error of the miner's).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
import traceback
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from validator.races import Arena
from validator.upkeep.memory import freeze_held, thaw, trim


class Node:
    """A validator node: the race machinery (`Arena`) driven by scheduled jobs."""

    def __init__(
        self,
        arena: Arena,
        *,
        sync: Callable[[], Any] | None = None,
        block_time: float = 12.0,
        dispatch_seconds: float = 2.0,
        close_seconds: float = 3.0,
        sync_seconds: float | None = None,
        weights_seconds: float | None = None,
        reap_seconds: float = 60.0,
        recover_seconds: float = 15.0,
        stale_after: float | None = None,
        drain_seconds: float = 0.0,
        log: Any = None,
        host: Any = None,
        janitor: Any = None,
        janitor_seconds: float = 3600.0,
    ) -> None:
        self.arena = arena
        self.host = host  # `validator.upkeep.Host`: the host's checks, and the floors below which no race opens
        self.janitor = janitor  # `validator.upkeep.Janitor`: a pass every `janitor_seconds`
        self.floor_reason: str | None = None  # why no new race opens now (the host below a floor), None when one may
        self.sync = sync
        self.log = log
        self.intervals = {
            "sync": sync_seconds if sync_seconds is not None else max(block_time * 5, 5.0),
            "open_race": max(block_time, 1.0),
            "dispatch": dispatch_seconds,
            "judge": dispatch_seconds,
            "close_race": close_seconds,
            "set_weights": weights_seconds if weights_seconds is not None else max(block_time, 1.0),
            "pool": max(block_time, 0.5),
            "reap": reap_seconds,
            "recover": recover_seconds,
            "janitor": janitor_seconds,
        }
        #: how long the event loop may go without a tick, or the dispatch job without running, before health
        #: says the scheduler is stuck (a dispatch job awaiting its runs is running, however long they take)
        self.stale_after = stale_after if stale_after is not None else max(30.0, 10 * dispatch_seconds)
        self.drain_seconds = drain_seconds  # on stop, how long runs in flight may take to finish
        self.stopping = asyncio.Event()
        self.failures: dict[str, int] = {}
        self.last_ok: dict[str, float] = {}
        self.running_since: dict[str, float] = {}  # the jobs running now, since when
        self.beat: float | None = None  # the event loop's last tick (`run`)
        self._last_failure: dict[str, float] = {}

    # --- jobs (each one line in the log when it fails; the next interval tries again)

    def _guard(self, name: str, job: Callable[[], Any]) -> Callable[[], Awaitable[None]]:
        metrics = getattr(self.arena, "metrics", None)

        async def run() -> None:
            if self.stopping.is_set():
                return
            self.running_since[name] = time.time()
            try:
                result = job()
                if asyncio.iscoroutine(result):
                    await result
                self.last_ok[name] = time.time()
                if metrics is not None:
                    metrics.job_last_success.labels(job=name).set(self.last_ok[name])
            except asyncio.CancelledError:
                if self.stopping.is_set():
                    return  # the node is stopping: a job cut short is expected (not an error for the scheduler's log)
                raise
            except Exception as exc:  # noqa: BLE001 - a failing job must never stop the node
                self.failures[name] = self.failures.get(name, 0) + 1
                self._last_failure[name] = time.time()
                if metrics is not None:
                    metrics.job_failures.labels(job=name).inc()
                if self.log is not None:
                    self.log.error(
                        "job.failed",
                        job=name,
                        error=f"{type(exc).__name__}: {exc}",
                        failures=self.failures[name],
                        traceback=traceback.format_exc(),
                    )
            finally:
                self.running_since.pop(name, None)

        run.__name__ = f"job_{name}"
        return run

    def _sync(self) -> Awaitable[Any]:
        assert self.sync is not None
        return asyncio.to_thread(self.sync)

    def _open(self) -> Awaitable[Any]:
        async def open_race() -> None:
            if self.sync is not None and "sync" not in self.last_ok:
                return  # a race opens on synced submissions only (else a fresh node would race nobody)
            if self.host is not None and not await asyncio.to_thread(self._above_floor):
                return  # the host is below a floor: no race opens (nobody is charged), until the floor is met
            await asyncio.to_thread(self.arena.open_race)

        return open_race()

    def _close(self) -> Awaitable[Any]:
        async def close() -> None:
            closed = await asyncio.to_thread(self.arena.close_races)
            await asyncio.to_thread(self.arena.pooling.publish)  # a race closed now: its results bundle committed
            await asyncio.to_thread(self.arena.weigh)
            if closed:  # a race's garbage is freed: malloc's free pages go back to the kernel
                freed = await asyncio.to_thread(trim)
                if self.log is not None and freed is not None:
                    self.log.info("memory.trimmed", races=closed, freed_mb=round(freed / 2**20, 1))

        return close()

    def _pool(self) -> Awaitable[Any]:
        async def pool() -> None:
            await asyncio.to_thread(self.arena.pooling.publish)  # commitments the chain refused, tried again
            await asyncio.to_thread(self.arena.pooling.pool)

        return pool()

    def _above_floor(self) -> bool:
        """Whether the host is above its floors; logs once when it falls below one (why) and once when it is back."""
        why = self.host.floor()
        if why != self.floor_reason and self.log is not None:
            if why:
                self.log.warning("races.floor", reason=why)
            else:
                self.log.info("races.floor_met", was=self.floor_reason)
        self.floor_reason = why
        return why is None

    def _weights(self) -> Awaitable[Any]:
        return asyncio.to_thread(self.arena.set_weights)

    def _reap(self) -> Awaitable[Any]:
        return asyncio.to_thread(self.arena.reap)

    def _recover(self) -> Any:
        # on the event loop, not in a thread: no run moves in or out of flight while it decides which are lost
        return self.arena.recover()

    def scheduler(self) -> AsyncIOScheduler:
        scheduler = AsyncIOScheduler(
            timezone=UTC, job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None}
        )
        jobs: dict[str, Callable[[], Any]] = {
            "open_race": self._open,
            "dispatch": self.arena.dispatch,
            "judge": self.arena.judge_runs,
            "close_race": self._close,
            "set_weights": self._weights,
            "pool": self._pool,
            "reap": self._reap,
            "recover": self._recover,
        }
        if self.sync is not None:
            jobs = {"sync": self._sync, **jobs}
        if self.janitor is not None:
            jobs["janitor"] = lambda: asyncio.to_thread(self.janitor.run)
        now = datetime.now(UTC)
        for name, job in jobs.items():
            scheduler.add_job(
                self._guard(name, job), "interval", seconds=self.intervals[name], id=name, name=name, next_run_time=now
            )
        return scheduler

    def health(self) -> dict[str, tuple[Any, str]]:
        """The chain answers, the scheduler's dispatch job ran recently, and the node progresses: no run past its
        wall clock plus a grace, no race that cannot close, the latest closed race's weights set (for `/healthz`)."""
        checks: dict[str, tuple[Any, str]] = {}
        try:
            checks["chain"] = (True, f"{self.arena.chain.network} block {self.arena.chain.block()}")
        except Exception as exc:  # noqa: BLE001 - health reports any failure as data
            checks["chain"] = (False, str(exc)[:200])
        checks["scheduler"] = self._scheduler_check()
        checks.update(self._infrastructure())
        if self.host is not None:
            checks.update(self.host.checks())
        failing = {
            name: n
            for name, n in self.failures.items()
            if n and self.last_ok.get(name, 0.0) < self._last_failure.get(name, 0.0)
        }
        try:
            progress = self.arena.progress()
        except Exception as exc:  # noqa: BLE001 - health reports any failure as data
            checks["progress"] = (False, f"cannot read progress from the store: {type(exc).__name__}: {str(exc)[:200]}")
            return checks
        overdue, stalled, unset = progress["overdue_runs"], progress["stalled_races"], progress["weights_unset"]
        wall = self.arena.config.limits.wall_seconds + self.arena.config.stuck_grace
        checks["runs"] = (
            not overdue,
            f"{len(overdue)} run(s) in a sandbox for over {wall:g}s: {', '.join(overdue[:5])}"
            if overdue
            else "no run past its wall clock",
        )
        checks["races"] = (
            not stalled,
            f"race(s) that cannot close (no run moved for {self.arena.config.race_stall:g}s): {', '.join(stalled)}"
            if stalled
            else "every running race progresses",
        )
        checks["weights"] = (
            unset is None,
            f"weights of closed race {unset['race_id']} not set after "
            f"{unset['seconds']:g}s ({unset['status']}: {unset['error']})"
            if unset
            else "the latest closed race's weights are set",
        )
        for wait in progress.get("fault_waits", [])[:1]:
            left = max(0.0, self.arena.config.fault_wait - wait["seconds"])
            checks["faults"] = (
                "degraded",
                f"race {wait['race_id']} waits for a validator fault to clear ({wait['seconds']:.0f}s, voided in "
                f"{left:.0f}s if not): {wait['reason']}",
            )
        stuck = self.arena.batches_stuck() if hasattr(self.arena, "batches_stuck") else {}
        if stuck:
            slot, (seconds, why) = min(stuck.items())
            checks["batches"] = (False, f"sealed batch {slot} has waited {seconds:.0f}s to open: {why}")
        if failing:
            checks["jobs"] = (
                False,
                "failing: " + ", ".join(f"{name} ({n} failures)" for name, n in sorted(failing.items())),
            )
        return checks

    def _infrastructure(self) -> dict[str, tuple[Any, str]]:
        """The sandbox backend (this host's; a Ray cluster's workers have their own) and the upstream LLM, if any."""
        from validator.health import sandbox_check, upstream_check

        checks: dict[str, tuple[Any, str]] = {}
        if self.arena.sandbox is not None:
            checks["sandbox"] = sandbox_check(self.arena.sandbox)
        upstream = upstream_check(self.arena.gateway)
        if upstream is not None:
            checks["upstream"] = upstream
        return checks

    def _scheduler_check(self) -> tuple[bool, str]:
        """The scheduler is alive: its event loop ticks, and the dispatch job is running (awaiting the runs it
        started, however long agents take: the `runs` check watches those) or ran within `stale_after`."""
        now, limit = time.time(), self.stale_after
        if self.stopping.is_set():
            return False, "stopping"
        if self.beat is not None and now - self.beat > limit:
            return False, f"the event loop has not ticked for {now - self.beat:.0f}s"
        since = self.running_since.get("dispatch")
        if since is not None:
            return True, f"dispatch running for {now - since:.1f}s ({len(self.arena.in_flight)} run(s) in flight)"
        last = self.last_ok.get("dispatch")
        if last is None:
            return True, "starting"
        return now - last < limit, f"dispatch ran {now - last:.1f}s ago"

    # --- running

    async def run(
        self, *, until: Callable[[], bool] | None = None, poll: float = 0.5, handle_signals: bool = True
    ) -> None:
        """Run the jobs until SIGTERM/SIGINT, or until `until()` is true (checked every `poll` seconds)."""
        logging.getLogger("apscheduler").setLevel(logging.ERROR)  # our jobs log their own outcomes; skips are normal
        loop = asyncio.get_running_loop()
        if handle_signals:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self.stopping.set)
        self.arena.start()
        self.arena.dispatching.draining = False  # an arena a stopped node drained runs again under this one
        try:
            await asyncio.to_thread(self.arena.reap)  # sandboxes of runs a dead node left behind, then the runs
            await asyncio.to_thread(self.arena.recover)
            frozen = freeze_held()  # no full collection walks the node's catalog and imports with its runs waiting
            scheduler = self.scheduler()
            scheduler.start()
            if self.log is not None:
                self.log.info("node.started", jobs=sorted(j.id for j in scheduler.get_jobs()), gc_frozen=frozen)
            try:
                while not self.stopping.is_set():
                    self.beat = time.time()
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
            thaw()  # what the node froze once started, the collector's again (`freeze_held`)
            if handle_signals:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.remove_signal_handler(sig)
            if self.log is not None:
                self.log.info("node.stopped")

    async def _drain(self) -> None:
        """No run starts any more; the runs in flight get `drain_seconds` to finish (recorded as ever), then the
        sandboxes still running are killed and their runs put back to pending for the next start."""
        dispatching = self.arena.dispatching
        dispatching.draining = True
        tasks = dict(self.arena.in_flight)
        waiting = [t for run_id, t in tasks.items() if run_id not in dispatching.started]
        for task in waiting:  # past the dispatch job but not started: they stay pending, untouched
            task.cancel()
        running = [t for run_id, t in tasks.items() if run_id in dispatching.started]
        if running and self.drain_seconds > 0 and self.log is not None:
            self.log.info("node.draining", runs=len(running), deadline_s=self.drain_seconds)
        done: set[asyncio.Task[Any]] = set()
        if running and self.drain_seconds > 0:
            done, _ = await asyncio.wait(running, timeout=self.drain_seconds)
        late = [t for t in running if t not in done]
        for task in late:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks.values(), return_exceptions=True)
        if running and self.log is not None:
            self.log.info("node.drained", finished=len(done), put_back=len(late))
