"""A validator fault longer than the retry budget never drops or zeroes a miner, on a running node: its upstream LLM
(a real HTTP server on loopback) answers 502 to every call, or its Docker engine goes away mid-race (cut off behind a
socket relay) while a slow miner's runs are in their containers. The race waits for the fault to clear (health
`degraded`, the reason in one line), its runs retried: when the fault clears, the race closes with every miner, as
without the fault; when it outlasts the wait, the race is voided (no results, no weights: the last vector stands).
Real pieces: PostgreSQL, LocalChain, the bubblewrap sandbox, the Docker engine, the gateway, the scheduler's jobs."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from arena import blame
from arena.catalog import Catalog
from sandbox.gateway import Gateway, Upstream
from tests.support.engine import EngineRelay
from tests.support.llm_agents import LET_THROUGH, MODEL, llm_agent
from tests.support.node import RunningNode, make_arena, open_store, slow_agent, wait_until
from tests.support.openai_server import Fail, OpenAIServer
from tests.support.postgres import fresh_database
from tests.support.race import build_arena_inputs, make_chain, place_submission
from validator.api import create_app
from validator.scheduler import Node

pytestmark = pytest.mark.slow  # a node on PostgreSQL, bubblewrap, the gateway, an HTTP upstream LLM


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("arena"), problems=16, per_race=2, cadence=20)


def test_a_long_upstream_fault_waits_then_voids_the_race_and_never_drops_a_miner(inputs: Any, tmp_path: Path) -> None:
    down = threading.Event()

    def upstream(body: dict[str, Any]) -> str:
        if down.is_set():
            raise Fail(502, "bad gateway (upstream overloaded)")
        return "look for the cheapest matching listing"

    setup = make_chain(tmp_path, ["thinker", "plain"], rate_limit=0)
    hotkeys = {name: setup.miners[name].hotkey.ss58_address for name in ("thinker", "plain")}
    with fresh_database("faults") as url, OpenAIServer(upstream, models=(MODEL,)) as server:
        store = open_store(url)
        data_dir = tmp_path / "node"
        store.upsert_miners(setup.chain.metagraph().neurons)
        place_submission(
            store, data_dir, hotkeys["thinker"], llm_agent(tmp_path / "a" / "t", "thinker", LET_THROUGH), 1
        )
        place_submission(store, data_dir, hotkeys["plain"], slow_agent(tmp_path / "a" / "p", "plain", 0.0), 2)
        gateway = Gateway(Catalog.open(inputs[0]), upstream=Upstream(base_url=server.base_url, models=[MODEL]))
        arena = make_arena(
            store,
            setup.chain,
            setup.validators[0],
            inputs,
            data_dir,
            gateway=gateway,
            max_attempts=2,
            fault_retry=0.5,
            pool=True,  # results bundles published and pooled, as a node runs by default (here: the only
            pool_early=True,  # permit holder, so pooled as soon as it committed; a cut-off no race outlasts)
            pool_cutoff_blocks=10_000,
        )
        node = Node(arena, block_time=0.5, dispatch_seconds=0.3, close_seconds=0.3, weights_seconds=0.3, log=arena.log)
        client = TestClient(create_app(store, health=node.health, metrics=arena.metrics))
        down.set()  # the upstream LLM fails from the start
        try:
            with RunningNode(node):
                first = held_race(store)
                # past the retry budget, the race waits: nothing closed, nobody's result, health says why
                assert store.race(first).status == "running" and store.race_results(first) == []  # type: ignore[union-attr]
                body = client.get("/healthz").json()
                assert body["status"] == "degraded", body
                faults = body["checks"]["faults"]["detail"]
                assert (
                    f"race {first} waits for a validator fault to clear" in faults
                    and "upstream_llm_down (2005)" in faults
                )
                assert any(line.startswith("upstream: upstream LLM") and "502" in line for line in body["degraded"])
                assert all("\n" not in line for line in body["degraded"])

                down.clear()  # the fault clears within the wait: the race closes with every miner, as without it
                wait_until(lambda: store.race(first).status == "closed", "the first race to close")  # type: ignore[union-attr]
                wait_until(lambda: any(ws.status == "set" for ws in store.weight_sets()), "the first race's weights")
                results = {r.hotkey: r for r in store.race_results(first)}
                assert set(results) == set(hotkeys.values())
                assert results[hotkeys["thinker"]].errored == 0 and results[hotkeys["thinker"]].runs == 2
                thinker = [r for r in store.runs(race_id=first) if r.hotkey == hotkeys["thinker"]]
                assert all(r.status == "finished" for r in thinker) and any(r.attempt > 2 for r in thinker)
                assert all(
                    a["code"] == blame.UPSTREAM_LLM_DOWN and a["blame"] == "validator"
                    for r in thinker
                    for a in r.sandbox["attempts"]
                )
                (standing,) = [ws for ws in store.weight_sets() if ws.status == "set"]
                assert standing.race_id == first and len(standing.vector) >= 2
                published = store.race_pool(first)
                assert published is not None and published.bundle_sha256 is not None  # its results bundle, published

                arena.config.fault_wait = 1.0  # the operator's --races.fault_wait, short: the next fault outlasts it
                down.set()
                second = held_race(store, after=first)
                wait_until(lambda: store.race(second).status == "voided", "the second race to be voided")  # type: ignore[union-attr]
                voided_at = time.time()
                voided = client.get(f"/api/races/{second}").json()
                assert voided["status"] == "voided" and voided["results"] == []
                assert (
                    "outlasted the race's 1s wait" in voided["reason"]
                    and "upstream_llm_down (2005)" in voided["reason"]
                )
                wait_until(
                    lambda: all(r.status in {"finished", "errored"} for r in store.runs(race_id=second)),
                    "the voided race's runs to end",
                )
                wait_until(lambda: node.last_ok.get("pool", 0.0) > voided_at, "the pool job to run after the void")
                assert store.race_pool(second) is None  # no results bundle built, committed or pooled for it
                # no weights from the voided race: the vector of the race before stands, nobody dropped or zeroed
                sets = store.weight_sets()
                assert second not in {ws.race_id for ws in sets} and sets[-1].race_id != second
                assert store.race_results(second) == []
                left = [r for r in store.runs(race_id=second) if r.status == "errored"]
                assert left and all(r.blame == "validator" for r in left)  # ended on our fault, nobody's zero
        finally:
            down.clear()
            store.close()


def held_race(store: Any, after: str | None = None) -> str:
    """The race (opened after `after`) that waits for a validator fault to clear."""

    def waiting() -> str | None:
        found = [r for r in store.races(status="running") if r.race_id != after and r.held_since is not None]
        return found[0].race_id if found else None

    wait_until(lambda: waiting() is not None, "a race to wait for the fault to clear")
    race_id = waiting()
    assert race_id is not None
    return race_id


def test_the_docker_engine_gone_mid_race_voids_the_race_and_never_drops_the_slow_miner(
    inputs: Any, tmp_path: Path
) -> None:
    import docker

    from sandbox.backends.docker import LABEL, DockerSandbox

    target = (os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock").removeprefix("unix://")
    relay = EngineRelay(target, tmp_path / "engine.sock")  # the node reaches the real engine through it
    setup = make_chain(tmp_path, ["slow", "quick"], rate_limit=0)
    hotkeys = {name: setup.miners[name].hotkey.ss58_address for name in ("slow", "quick")}
    with fresh_database("faults") as url:
        store = open_store(url)
        data_dir = tmp_path / "node"
        store.upsert_miners(setup.chain.metagraph().neurons)
        place_submission(store, data_dir, hotkeys["slow"], slow_agent(tmp_path / "a" / "s", "slow", 30.0), 1)
        place_submission(store, data_dir, hotkeys["quick"], slow_agent(tmp_path / "a" / "q", "quick", 0.0), 2)
        sandbox = DockerSandbox(client=docker.DockerClient(base_url=f"unix://{tmp_path / 'engine.sock'}"))
        arena = make_arena(
            store,
            setup.chain,
            setup.validators[0],
            inputs,
            data_dir,
            sandbox=sandbox,
            concurrency=4,
            max_attempts=2,
            fault_retry=0.5,
            fault_wait=1.0,
        )
        node = Node(arena, block_time=0.5, dispatch_seconds=0.3, close_seconds=0.3, weights_seconds=0.3, log=arena.log)
        client = TestClient(create_app(store, health=node.health, metrics=arena.metrics))
        try:
            with RunningNode(node):
                race = held_or_running(store)
                wait_until(
                    lambda: any(
                        r.status == "running" and r.hotkey == hotkeys["slow"] for r in store.runs(race_id=race)
                    ),
                    "the slow miner's run to be in its container",
                )
                relay.down()  # the engine is gone mid-race, as the node sees it
                wait_until(lambda: store.race(race).status == "voided", "the race to be voided")  # type: ignore[union-attr]
                found = store.race(race)
                assert found is not None
                assert "sandbox_failed (2001)" in (found.reason or ""), found.reason
                assert store.race_results(race) == [] and store.weight_sets() == []  # nobody's result, no weights
                slow = [r for r in store.runs(race_id=race) if r.hotkey == hotkeys["slow"]]
                assert slow and all(r.blame != "agent" and store.score(r.run_id) is None for r in slow)
                body = client.get("/healthz").json()
                assert body["status"] == "degraded" and any(line.startswith("sandbox: ") for line in body["degraded"])
        finally:
            relay.close()
            engine = docker.from_env()
            for container in engine.containers.list(all=True, filters={"label": LABEL}):
                if container.labels.get(LABEL) in {r.run_id for r in store.runs()}:
                    container.remove(force=True)
            store.close()


def held_or_running(store: Any) -> str:
    """The race the node opened."""
    wait_until(lambda: bool(store.races(status="running")), "the node to open a race")
    return str(store.races(status="running")[0].race_id)


# An agent that makes its own runs look like the node's upstream failing: it sends a request the upstream answers 500
# to, so the call is the upstream failing (2005, the node's fault) in every attempt until the race's fault wait is
# spent. (A call it gave up by quitting, or hung up on, is its own: tests/integration/test_llm_quitter.py; so is one
# the upstream takes longer over than the gateway's timeout while it answers others: test_llm_overlong.py.) Were a race
# voided for it, a leading miner could freeze the weights on the last vector at will. Past the wait the node's probe
# finds the upstream well, and the 5xx of the run's last try is the agent's request's doing: the run is scored as what
# it answered (nothing, 1006; tests/integration/test_llm_choker.py is the attacker that would gain otherwise).
STALLER = """
import json
import os
import urllib.request


def agent_main(problem):
    body = json.dumps({{"model": {model!r}, "messages": [{{"role": "user", "content": "stall"}}]}}).encode()
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=body, headers={{"Content-Type": "application/json"}}
    )
    try:
        urllib.request.urlopen(request, timeout=30)
    except Exception:
        pass
    return None
"""


def test_an_agent_that_fakes_an_upstream_fault_cannot_void_the_race(inputs: Any, tmp_path: Path) -> None:
    def upstream(body: dict[str, Any]) -> str:
        if "stall" in json.dumps(body.get("messages")):
            raise Fail(500, "internal error")
        return "ok"

    setup = make_chain(tmp_path, ["honest", "staller"], rate_limit=0)
    hotkeys = {name: setup.miners[name].hotkey.ss58_address for name in ("honest", "staller")}
    with fresh_database("faults") as url, OpenAIServer(upstream, models=(MODEL,)) as server:
        store = open_store(url)
        data_dir = tmp_path / "node"
        store.upsert_miners(setup.chain.metagraph().neurons)
        place_submission(store, data_dir, hotkeys["honest"], slow_agent(tmp_path / "a" / "h", "honest", 0.0), 1)
        staller = tmp_path / "a" / "s"
        staller.mkdir(parents=True)
        (staller / "agent.py").write_text(STALLER.format(model=MODEL))
        place_submission(store, data_dir, hotkeys["staller"], staller, 2)
        upstream_config = Upstream(base_url=server.base_url, models=[MODEL], timeout=1.0)
        gateway = Gateway(Catalog.open(inputs[0]), upstream=upstream_config)
        arena = make_arena(
            store,
            setup.chain,
            setup.validators[0],
            inputs,
            data_dir,
            gateway=gateway,
            max_attempts=2,
            fault_retry=0.5,
            fault_wait=1.0,
        )
        node = Node(arena, block_time=0.5, dispatch_seconds=0.3, close_seconds=0.3, weights_seconds=0.3, log=arena.log)
        with RunningNode(node):
            race = held_or_running(store)
            wait_until(lambda: store.race(race).status != "running", "the race to end")  # type: ignore[union-attr]
            wait_until(lambda: store.race(race).status != "closed" or bool(store.weight_sets()), "the weights")  # type: ignore[union-attr]
        found = store.race(race)
        assert found is not None
        assert found.status == "closed", (found.status, found.reason)  # never voided by it
        staller_runs = [r for r in store.runs(race_id=race) if r.hotkey == hotkeys["staller"]]
        assert staller_runs and all(r.error_code == blame.NO_ANSWER and r.blame == "agent" for r in staller_runs)
        for run in staller_runs:  # the upstream's (2005, retried) until its last try
            assert blame.UPSTREAM_LLM_DOWN in [a["code"] for a in run.sandbox["attempts"]], run.sandbox["attempts"]
        results = {r.hotkey: r for r in store.race_results(race)}
        assert hotkeys["honest"] in results and results[hotkeys["honest"]].runs == 2
        assert results[hotkeys["staller"]].runs == 2  # scored, not left out
        (weights,) = [ws for ws in store.weight_sets() if ws.race_id == race]
        uids = {n.hotkey: n.uid for n in setup.chain.metagraph().neurons}
        honest, faker = (float(weights.vector.get(str(uids[hotkeys[n]]), 0)) for n in ("honest", "staller"))
        assert honest > 0 and faker <= honest  # the faker earns nothing over the honest miner
        events = [event for _, event, _ in arena.log.records]
        assert "races.fault_unconfirmed" in events and "races.closed_without" not in events
        store.close()
