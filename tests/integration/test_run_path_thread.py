"""The run path's blocking work (claim, staging, record) on its own thread, off the node's event loop
(`validator.races.offloop`), on a running node with the real pieces (LocalChain, SQLite, bubblewrap, the gateway):
what a run stores is committed before anything that reads it runs, the event loop goes on while that work waits, and
a node stopping while it waits neither loses it nor runs it twice."""

from __future__ import annotations

import asyncio
import gc
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.judge.offline import OfflineJudge
from arena.trajectory import TrajectoryEvent
from tests.support.race import build_arena_inputs, make_chain, place_submission, start_node, write_agent
from validator.scheduler import Node
from validator.store.repository import Store

pytestmark = pytest.mark.slow  # races in bubblewrap

MINERS = ["offline", "lite"]
WAIT = 120.0  # a bound for a test that fails (the event loop blocked), never a timing under test


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("arena"))


def node_on(tmp_path: Path, inputs: tuple[Path, Path, str], **config: Any) -> tuple[Any, Store, str]:
    """A started node (`Arena`) on SQLite with the two miners' submissions; its url."""
    url = f"sqlite:///{tmp_path / 'node.sqlite'}"
    setup = make_chain(tmp_path, MINERS)
    data_dir = tmp_path / "node"
    arena = start_node(url, setup.chain, setup.validators[0], inputs, data_dir, **config)
    for i, name in enumerate(MINERS):
        agent = write_agent(tmp_path / "agents" / name, name)
        place_submission(arena.store, data_dir, setup.miners[name].hotkey.ss58_address, agent, block=10 + i)
    return arena, arena.store, url


class Witness:
    """A judge with I/O (judged once the run is recorded, `Judging.judge_waiting`) that reads, through a store of its
    own on the node's database, what the node committed of the run it is given."""

    name = "witness"

    def __init__(self, url: str) -> None:
        self.inner, self.url, self.seen = OfflineJudge(), url, {}
        self.rubric = self.inner.rubric

    def judge(self, problem: dict[str, Any], events: list[TrajectoryEvent]) -> Any:
        other = Store(self.url)
        try:
            run_id = events[0].run_id
            run, score = other.run(run_id), other.score(run_id)
            stored = len(other.events(run_id))
        finally:
            other.close()
        self.seen[run_id] = (run.status if run else None, stored, len(events), score is not None and score.strict)
        return self.inner.judge(problem, events)


def test_a_run_is_committed_with_its_strict_score_before_its_judge_reads_it(inputs: Any, tmp_path: Path) -> None:
    """The record goes to the run path's thread; the run's task waits for it, so its judge (the next step) finds the
    trajectory and strict score committed, read through another connection."""
    arena, store, url = node_on(tmp_path, inputs)
    witness = Witness(url)
    arena.judging.judge = witness
    try:
        race_id = arena.open_race()
        asyncio.run(arena.dispatch())
    finally:
        arena.stop()
    runs = store.runs(race_id=race_id)
    judged = [r for r in runs if r.status == "finished"]
    assert judged and {r.run_id for r in judged} == set(witness.seen)
    for run_id, (status, stored, given, strict) in witness.seen.items():
        assert status == "scoring" and stored == given > 0 and strict, (run_id, status, stored, given)
    store.close()


class HeldJudge(OfflineJudge):
    """The offline judge (run as its run is recorded, its verdict in the trajectory's commit) holding the first run it
    judges until the node, told to stop from this thread, has cancelled that run's task: possible only while the
    event loop runs."""

    def __init__(self) -> None:
        super().__init__()
        self.node: Node | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.held: str | None = None
        self.cancelled_while_held = False
        self.frozen = 0  # objects the running node froze out of the collector's way (`freeze_held`)

    def judge(self, problem: dict[str, Any], events: list[TrajectoryEvent]) -> Any:
        if self.held is None and self.node is not None and self.loop is not None:
            self.held, self.frozen = events[0].run_id, gc.get_freeze_count()
            node, tasks = self.node, self.node.arena.in_flight
            self.loop.call_soon_threadsafe(node.stopping.set)  # a SIGTERM, as its handler sets it
            deadline = time.monotonic() + WAIT  # a bound for a failing test (the loop blocked), nothing timed
            while time.monotonic() < deadline and not self.cancelled_while_held:
                task = dict(tasks).get(self.held)
                self.cancelled_while_held = task is not None and task.cancelling() > 0
                threading.Event().wait(0.01)
        return super().judge(problem, events)


def test_a_stop_while_a_run_is_recorded_keeps_the_record_and_never_runs_it_again(inputs: Any, tmp_path: Path) -> None:
    """The node is told to stop while its first run's record is on the run path's thread (its judge holding it):
    the event loop goes on meanwhile (it takes the stop and cancels the run's task, drain_seconds 0), the record is
    committed all the same, the run is not put back to pending, and the next start finishes the race without
    running it again. The node it runs on froze what it held once started (no full collection walks it) and handed it
    back to the collector once stopped."""
    arena, store, _ = node_on(tmp_path, inputs)
    judge = HeldJudge()
    arena.judging.judge = judge
    arena.stop()  # `Node.run` starts it
    node = Node(arena, block_time=0.5, dispatch_seconds=0.2, close_seconds=0.5, drain_seconds=0.0)
    judge.node = node

    async def stopped() -> None:
        judge.loop = asyncio.get_running_loop()
        await asyncio.wait_for(node.run(poll=0.1, handle_signals=False), timeout=WAIT)

    before = gc.get_freeze_count()  # process-wide: what another node of this process froze is thawed already
    asyncio.run(stopped())
    assert judge.held is not None and judge.cancelled_while_held and judge.frozen > before
    assert gc.get_freeze_count() <= before, (gc.get_freeze_count(), before)
    held = store.run(judge.held)
    assert held is not None and held.status == "finished" and held.attempt == 1, held and held.status
    assert judge.held not in arena.dispatching.lost
    others = [r for r in store.runs() if r.run_id != judge.held]
    assert all(r.status in {"pending", "finished"} or r.blame == "agent" for r in others), [
        (r.status, r.error) for r in others
    ]
    again = Node(arena, block_time=0.5, dispatch_seconds=0.2, close_seconds=0.5)
    judge.node = None

    def done() -> bool:
        return bool(store.races(status="closed"))

    asyncio.run(asyncio.wait_for(again.run(until=done, poll=0.2, handle_signals=False), timeout=600))
    held = store.run(judge.held)
    assert held is not None and held.status == "finished" and held.attempt == 1
    assert all(r.status in {"finished", "errored"} for r in store.runs())
    store.close()


@dataclass
class Waiting:
    """A node's dispatch job with two attempts past the gate, their claims waiting on the run path's thread for the
    store's write lock, which another connection (`lock`) holds."""

    arena: Any
    race_id: str
    job: asyncio.Future[Any]
    begun: list[str]
    lock: sqlite3.Connection


def claims_waiting(
    tmp_path: Path, inputs: tuple[Path, Path, str], then: Callable[[Waiting], Awaitable[None]]
) -> tuple[Any, Store, list[str]]:
    """A node (concurrency 2) whose first two attempts' claims wait on the store's write lock; `then` is awaited on the
    event loop meanwhile (it lets the lock go, `ROLLBACK`, and ends the dispatch job). Returns the node, stopped, its
    store and the runs begun."""
    arena, store, url = node_on(tmp_path, inputs, concurrency=2)
    try:
        race_id = arena.open_race()
        assert race_id is not None
        lock = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")  # the write lock: every claim waits for it (the store's busy timeout)

        async def waiting() -> list[str]:
            job = asyncio.ensure_future(arena.dispatch())
            while len(arena.dispatching.started) < 2:  # past the gate: their claims are on the run path's thread
                await asyncio.sleep(0.01)
            begun = sorted(arena.dispatching.started)
            await then(Waiting(arena, race_id, job, begun, lock))
            return begun

        begun = asyncio.run(asyncio.wait_for(waiting(), timeout=WAIT))
        lock.close()
    finally:
        arena.stop()
    return arena, store, begun


def test_a_dispatch_cancelled_while_its_claim_waits_on_the_store_puts_the_run_back(inputs: Any, tmp_path: Path) -> None:
    """Another connection holds the store's write lock, so the attempts' claims wait on the run path's thread; the
    event loop goes on, the dispatch is cancelled (the node stops) while they wait, the lock is let go: each claim
    lands and is given back, or is never made (the node drains): its run is pending again, its attempt not counted,
    never errored nor lost."""

    async def cancelled(held: Waiting) -> None:
        pending = {r.run_id for r in held.arena.store.runs(race_id=held.race_id, status="pending")}
        assert set(held.begun) <= pending  # read while the lock holds: no claim landed yet
        held.arena.dispatching.draining = True
        for task in list(held.arena.in_flight.values()):
            task.cancel()
        held.lock.execute("ROLLBACK")  # the claims go on now, their callers cancelled
        await asyncio.gather(held.job, return_exceptions=True)

    arena, store, begun = claims_waiting(tmp_path, inputs, cancelled)
    for run_id in begun:
        run = store.run(run_id)
        assert run is not None and run.status == "pending" and run.attempt == 0, run and (run.status, run.attempt)
        assert run.errored_at is None and run_id not in arena.dispatching.lost
    store.close()


def test_a_drain_while_the_claims_wait_on_the_store_starts_no_sandbox(inputs: Any, tmp_path: Path) -> None:
    """Two runs are past the gate, their claims waiting on the run path's thread (another connection holds the store's
    write lock), when the node starts draining (`Node._drain`: runs past the gate are given drain_seconds, not
    cancelled); the lock is let go. No sandbox starts: each run is pending again with no event stored, never errored
    nor lost, its attempt not counted (a claim that landed is given back, the one queued behind it never made)."""

    async def drained(held: Waiting) -> None:
        held.arena.dispatching.draining = True  # what `Node._drain` does first
        held.lock.execute("ROLLBACK")
        await asyncio.gather(held.job)  # the runs past the gate are waited for, as drain_seconds waits for them

    arena, store, begun = claims_waiting(tmp_path, inputs, drained)
    runs = [store.run(run_id) for run_id in begun]
    assert all(r is not None and r.status == "pending" for r in runs), [r and (r.status, r.attempt) for r in runs]
    assert all(r is not None and r.errored_at is None and r.scoring_at is None for r in runs)
    assert all(store.events(run_id) == [] and run_id not in arena.dispatching.lost for run_id in begun)
    assert all(r is not None and r.attempt == 0 for r in runs)  # claimed and given back, or never claimed
    store.close()
