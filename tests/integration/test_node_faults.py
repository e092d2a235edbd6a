"""A node that lives through faults of its own infrastructure heals itself, without a restart: its PostgreSQL stopped
and started again mid-race (a private throwaway cluster, started as `scripts/postgres` starts one), and its chain
(a LocalChain) locked by another process past the old retry budget, then free again. Real pieces throughout: the
store, LocalChain, the bubblewrap sandbox, the gateway, the scheduler's jobs."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client import generate_latest

from arena import blame, owner
from tests.support.node import (
    PrivatePostgres,
    RunningNode,
    make_arena,
    open_store,
    private_postgres,
    slow_agent,
    wait_until,
)
from tests.support.race import build_arena_inputs, make_chain, place_submission
from validator.api import create_app
from validator.chain.local import LocalChain
from validator.metrics import Metrics
from validator.scheduler import Node
from validator.upkeep.sweeps import OWNER_FILE

pytestmark = pytest.mark.slow  # a node against its own PostgreSQL cluster, bubblewrap, the gateway


@pytest.fixture
def postgres() -> Iterator[PrivatePostgres]:
    yield from private_postgres()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("arena"), problems=16, per_race=3, cadence=100_000)


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
    arena = make_arena(
        store, setup.chain, setup.validators[0], inputs, data_dir, metrics=Metrics(store, run_timeout=60)
    )
    node = Node(arena, block_time=0.5, dispatch_seconds=0.5, close_seconds=0.5, recover_seconds=1.0, log=arena.log)
    client = TestClient(create_app(store, health=node.health, metrics=arena.metrics))

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
        # Prometheus still sees the node: what it knows without its store, and that the store is down
        scraped = client.get("/metrics")
        assert scraped.status_code == 200, scraped.text
        assert re.search(r"^shoparena_store_up 0\.0$", scraped.text, re.M)
        assert re.search(r"^shoparena_job_failures_total\{", scraped.text, re.M)
        body = client.get("/healthz").json()
        assert not body["checks"]["store"]["ok"]  # one line a reason, though the driver's error spans several
        assert all("\n" not in line for line in body["degraded"])
        assert all("\n" not in str(check["detail"]) for check in body["checks"].values()), body["checks"]
        postgres.start()
        wait_until(lambda: [r.status for r in store.races()] == ["closed"], "the race to close", timeout=600)
        assert re.search(r"^shoparena_store_up 1\.0$", client.get("/metrics").text, re.M)
        assert re.search(r"^shoparena_runs\{status=\"finished\"\} 6\.0$", client.get("/metrics").text, re.M)
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
    work = arena.dispatching.work
    assert work is not None and owner.held(work / OWNER_FILE)  # the node's for its life (`sweeps.dead_work`)
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
