"""A node that lives through faults of its own infrastructure heals itself, without a restart: its PostgreSQL stopped
and started again mid-race (a private throwaway cluster, started as `scripts/postgres` starts one), and its chain
(a LocalChain) locked by another process past the old retry budget, then free again. Real pieces throughout: the
store, LocalChain, the bubblewrap sandbox, the gateway, the scheduler's jobs."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client import generate_latest

from arena import blame
from arena.catalog import Catalog
from arena.problems.pack import load_pack
from demo.agents import MINER_TEMPLATE, write_template
from sandbox.backends import Limits
from sandbox.backends.process import ProcessSandbox
from tests.support.race import build_arena_inputs, make_chain, place_submission
from validator.api import create_app
from validator.chain.local import LocalChain
from validator.metrics import Metrics
from validator.races import Arena, ArenaConfig
from validator.scheduler import Node
from validator.store.repository import Store, make_engine
from validator.store.schema import upgrade

pytestmark = pytest.mark.slow  # a node against its own PostgreSQL cluster, bubblewrap, the gateway

ROOT = Path(__file__).resolve().parents[2]


class Log:
    """The node's log, kept (the same calls a structlog logger takes)."""

    def __init__(self) -> None:
        self.records: list[tuple[str, str, dict[str, Any]]] = []

    def _add(self, level: str, event: str, **kw: Any) -> None:
        self.records.append((level, event, kw))

    def info(self, event: str, **kw: Any) -> None:
        self._add("info", event, **kw)

    def warning(self, event: str, **kw: Any) -> None:
        self._add("warning", event, **kw)

    def error(self, event: str, **kw: Any) -> None:
        self._add("error", event, **kw)


def slow_agent(folder: Path, name: str, seconds: float) -> Path:
    return write_template(
        folder,
        MINER_TEMPLATE.read_text() + f"\n\nMINER = {name!r}\n\n_solve_now = agent_main\n\n\n"
        f"def agent_main(problem):\n    time.sleep({seconds})\n    return _solve_now(problem)\n",
    )


def wait_until(predicate: Any, what: str, timeout: float = 300.0) -> None:
    deadline = time.time() + timeout
    while not predicate():
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


class PrivatePostgres:
    """A throwaway cluster of our own (scripts/postgres with its own folder and port), so stopping it touches no
    other test's server."""

    def __init__(self) -> None:
        self.dir = Path(f"/var/lib/shoparena/pg-faults-{uuid.uuid4().hex[:8]}")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.env = {**os.environ, "ARENA_PG_DIR": str(self.dir), "ARENA_PG_PORT": str(self.port)}

    def start(self) -> str:
        done = subprocess.run(
            ["bash", str(ROOT / "scripts" / "postgres"), "start"], capture_output=True, text=True, env=self.env
        )
        assert done.returncode == 0, done.stderr
        match = re.search(r"ARENA_TEST_DATABASE_URL=(\S+)", done.stdout)
        assert match, done.stdout
        return match.group(1)

    def stop(self) -> None:
        subprocess.run(
            ["bash", str(ROOT / "scripts" / "postgres"), "stop"], capture_output=True, env=self.env, check=True
        )


@pytest.fixture
def postgres() -> Iterator[PrivatePostgres]:
    # scripts/test installs PostgreSQL: its absence is a broken set-up, never a skipped test
    assert shutil.which("pg_ctl") or list(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")), (
        "PostgreSQL server is not installed (bash scripts/system-packages --tests)"
    )
    server = PrivatePostgres()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("arena"), problems=16, per_race=3, cadence=100_000)


def open_store(url: str) -> Store:
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    return Store.open(url)


def make_arena(
    store: Store,
    chain: LocalChain,
    wallet: Any,
    inputs: tuple[Path, Path, str],
    data_dir: Path,
    metrics: Metrics | None = None,
    **config: Any,
) -> Arena:
    catalog_dir, pack_path, signer = inputs
    catalog = Catalog.open(catalog_dir)
    pack = load_pack(pack_path, catalog_digest=catalog.digest, trusted_signers={signer})
    settings = {"concurrency": 2, "max_attempts": 3, "retry_backoff": 0.2, "limits": Limits(wall_seconds=60), **config}
    return Arena(
        store=store,
        chain=chain,
        wallet=wallet,
        pack=pack,
        catalog=catalog,
        sandbox=ProcessSandbox("bwrap"),
        config=ArenaConfig(data_dir=data_dir, **settings),
        log=Log(),
        metrics=metrics,
    )


class RunningNode:
    """A node's jobs running in a thread of their own until `stop()`."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self.node.run(until=self.done.is_set, poll=0.2, handle_signals=False))
        except BaseException as exc:  # noqa: BLE001 - reported by stop()
            self.error = exc

    def __enter__(self) -> RunningNode:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join(120)
        assert not self.thread.is_alive(), "the node did not stop"
        assert self.error is None, repr(self.error)


def test_the_store_stopped_and_started_mid_race_every_run_ends_once_and_the_race_closes(
    postgres: PrivatePostgres, inputs: Any, tmp_path: Path
) -> None:
    url = postgres.start()
    names = ["slow-a", "slow-b"]
    setup = make_chain(tmp_path, names)
    store = open_store(url)
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    for i, name in enumerate(names):
        place_submission(
            store,
            data_dir,
            setup.miners[name].hotkey.ss58_address,
            slow_agent(tmp_path / "agents" / name, name, 3.0),
            block=10 + i,
        )
    arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir)
    node = Node(arena, block_time=0.5, dispatch_seconds=0.5, close_seconds=0.5, recover_seconds=1.0, log=arena.log)

    def count(*statuses: str) -> int:
        return sum(1 for r in store.runs() if r.status in statuses)

    with RunningNode(node) as running:
        wait_until(lambda: count("running") >= 1, "a run to be in its sandbox")
        in_flight = set(arena.in_flight)
        postgres.stop()
        # the node lives on: its jobs fail (and say so), and the runs in flight end in their sandboxes with
        # nowhere to store their outcome
        wait_until(
            lambda: sum(node.failures.values()) >= 3 and not (in_flight & set(arena.in_flight)),
            "the node to meet the outage and the runs in flight to end",
        )
        assert running.thread.is_alive()
        postgres.start()
        wait_until(lambda: [r.status for r in store.races()] == ["closed"], "the race to close", timeout=600)
    runs = store.runs()
    assert len(runs) == 6 and all(r.status == "finished" for r in runs), [(r.status, r.error) for r in runs]
    lost = [r for r in runs if any(a["code"] == blame.STORE_FAULT for a in r.sandbox.get("attempts") or [])]
    assert lost and {r.run_id for r in lost} <= in_flight  # the runs the outage caught were tried again
    assert all(r.attempt >= 2 for r in lost)
    for run in runs:  # each ended once: one score, one whole trajectory
        score = store.score(run.run_id)
        assert score is not None and score.final is not None
        seqs = [e.seq for e in store.events(run.run_id)]
        assert seqs and seqs == list(range(len(seqs)))
    assert len(store.race_results(store.races()[0].race_id)) == 2
    failed = [kw for level, event, kw in arena.log.records if event == "job.failed"]
    assert failed and all("Traceback (most recent call last)" in kw["traceback"] for kw in failed)
    assert any("OperationalError" in kw["traceback"] for kw in failed)
    store.close()


def test_an_unreachable_chain_is_retried_past_the_old_budget_until_the_weights_land(
    inputs: Any, tmp_path: Path
) -> None:
    setup = make_chain(tmp_path, ["offline"], rate_limit=0)
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    place_submission(
        store,
        data_dir,
        setup.miners["offline"].hotkey.ss58_address,
        slow_agent(tmp_path / "agents" / "offline", "offline", 0.0),
        block=10,
    )
    chain = LocalChain(setup.path, busy_timeout=0.2)
    arena = make_arena(
        store,
        chain,
        setup.validators[0],
        inputs,
        data_dir,
        weights_retry=0.05,
        weights_retry_max=0.3,
        weights_grace=0.0,
        metrics=Metrics(store, run_timeout=60),
    )
    node = Node(arena, block_time=0.5, dispatch_seconds=0.5, close_seconds=0.5, weights_seconds=0.2, log=arena.log)
    client = TestClient(create_app(store, health=node.health, metrics=arena.metrics))
    holder = sqlite3.connect(setup.path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process holds the chain's write lock: every extrinsic fails
    try:
        with RunningNode(node):
            wait_until(
                lambda: any(int((ws.outcome or {}).get("failures") or 0) > 10 for ws in store.weight_sets()),
                "the weight set to fail more than 10 times",
            )
            (ws,) = store.weight_sets()
            assert ws.status == "pending" and ws.outcome["error"] == "busy"  # never given up
            health = client.get("/healthz")
            assert health.status_code == 503 and not health.json()["checks"]["weights"]["ok"]
            assert "not set" in health.json()["checks"]["weights"]["detail"]
            scraped = generate_latest(arena.metrics.registry).decode()
            unset = re.search(r"^shoparena_weights_unset_seconds (\S+)$", scraped, re.M)
            assert unset and float(unset.group(1)) > 0
            holder.execute("ROLLBACK")  # the chain is free again
            wait_until(lambda: store.weight_sets()[-1].status == "set", "the weights to land")
            assert client.get("/healthz").json()["checks"]["weights"]["ok"]
    finally:
        holder.close()
    (ws,) = store.weight_sets()
    validator_uid = {n.hotkey: n.uid for n in setup.chain.metagraph().neurons}[setup.validators[0].hotkey.ss58_address]
    on_chain = setup.chain.weights()[validator_uid]
    assert set(on_chain) == {int(uid) for uid in ws.vector}
    store.close()


def test_a_weight_set_the_chain_never_took_is_superseded_by_the_next_races(inputs: Any, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, ["offline"], rate_limit=0)
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    store.upsert_miners(setup.chain.metagraph().neurons)
    chain = LocalChain(setup.path, busy_timeout=0.1)
    arena = make_arena(store, chain, setup.validators[0], inputs, tmp_path / "node", weights_retry=0.0)
    arena.start()
    holder = sqlite3.connect(setup.path, isolation_level=None)
    try:
        miner = setup.miners["offline"].hotkey.ss58_address
        submission = place_submission(
            store, tmp_path / "node", miner, slow_agent(tmp_path / "agents" / "offline", "offline", 0.0), block=1
        )

        def closed_race(race_id: str, score: float) -> None:
            store.create_race(race_id=race_id, pack_id=arena.pack.pack_id, seed_block=0, seed_hash="", problem_ids=[])
            store.save_race_results(
                race_id,
                [
                    {
                        "hotkey": miner,
                        "uid": 1,
                        "submission_id": submission.id,
                        "commitment_block": 1,
                        "score": score,
                        "success_rate": score,
                        "runs": 1,
                        "errored": 0,
                        "rank": 1,
                        "per_task": {},
                    }
                ],
            )

        closed_race("r1", 0.5)
        first = arena.weigh()
        holder.execute("BEGIN EXCLUSIVE")
        assert arena.set_weights() == "pending" and arena.set_weights() == "pending"
        closed_race("r2", 0.9)
        second = arena.weigh()
        holder.execute("ROLLBACK")
        assert arena.set_weights() == "set"
        sets = {ws.id: ws for ws in store.weight_sets()}
        assert sets[first].status == "failed" and sets[first].outcome == {"superseded_by": second}  # type: ignore
        assert sets[second].status == "set" and sets[second].race_id == "r2"  # type: ignore[index]
        assert arena.set_weights() is None  # nothing left to send
    finally:
        holder.close()
        arena.stop()
    store.close()
