"""/healthz on a running node says what its own infrastructure is doing, and says nothing false: the upstream LLM
gone (a real HTTP server on loopback, stopped), the sandbox backend gone (bubblewrap's agent Python removed; the Docker
engine cut off behind a socket relay) are `degraded` with the reason in one line; agents that simply run longer
than the scheduler's limit are no alarm. Real pieces: PostgreSQL, the bubblewrap sandbox, the Docker engine,
LocalChain, the scheduler's jobs."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from arena.catalog import Catalog
from sandbox.backends.process import ProcessSandbox
from sandbox.env import sandbox_python
from sandbox.gateway import Gateway, Upstream
from tests.support.engine import EngineRelay
from tests.support.node import RunningNode, make_arena, open_store, slow_agent, wait_until
from tests.support.openai_server import OpenAIServer
from tests.support.postgres import fresh_database
from tests.support.race import build_arena_inputs, make_chain, place_submission
from validator.api import create_app
from validator.scheduler import Node

pytestmark = pytest.mark.slow  # a node on PostgreSQL, bubblewrap, the Docker engine, an HTTP upstream

MODEL = "health-test-model"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("arena"), problems=16, per_race=2, cadence=100_000)


def test_agents_running_past_the_schedulers_limit_are_no_alarm(inputs: Any, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, ["patient"])
    synced = threading.Event()  # the race opens once the node's dispatch job has run (and completed) on its own
    with fresh_database("faults") as url:
        store = open_store(url)
        data_dir = tmp_path / "node"
        store.upsert_miners(setup.chain.metagraph().neurons)
        hotkey = setup.miners["patient"].hotkey.ss58_address
        place_submission(store, data_dir, hotkey, slow_agent(tmp_path / "agents" / "p", "patient", 20.0), block=10)
        arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir, concurrency=2)
        node = Node(arena, sync=synced.wait, block_time=0.5, dispatch_seconds=0.2, stale_after=2.0, log=arena.log)
        client = TestClient(create_app(store, health=node.health, metrics=arena.metrics))
        try:
            with RunningNode(node):
                wait_until(lambda: "dispatch" in node.last_ok, "the dispatch job to complete once")
                synced.set()
                # the dispatch job now awaits the two runs it started: 20 s each, ten times the scheduler's limit
                wait_until(
                    lambda: (
                        len(arena.in_flight) == 2
                        and time.time() - node.last_ok["dispatch"] > 3 * node.stale_after
                        and time.time() - node.running_since.get("dispatch", time.time()) > 3 * node.stale_after
                    ),
                    "the runs to be in their sandboxes past three times the scheduler's limit",
                )
                health = client.get("/healthz")
                scheduler = health.json()["checks"]["scheduler"]
                assert health.status_code == 200 and scheduler["ok"], health.json()
                assert "dispatch running" in scheduler["detail"] and "2 run(s) in flight" in scheduler["detail"]
                assert len(arena.in_flight) == 2  # still in their sandboxes when health said so
        finally:
            synced.set()
            store.close()


def test_healthz_says_degraded_when_the_upstream_llm_or_the_sandbox_is_gone(inputs: Any, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, [])
    python = tmp_path / "agents-python"
    python.symlink_to(sandbox_python())  # the agents' Python, as the sandbox finds it; removed below
    with fresh_database("faults") as url, OpenAIServer(lambda body: "ok", models=(MODEL,)) as server:
        store = open_store(url)
        gateway = Gateway(Catalog.open(inputs[0]), upstream=Upstream(base_url=server.base_url, models=[MODEL]))
        sandbox = ProcessSandbox("bwrap", python=str(python))
        arena = make_arena(
            store, setup.chain, setup.validators[0], inputs, tmp_path / "n", gateway=gateway, sandbox=sandbox
        )
        node = Node(arena, block_time=0.5, dispatch_seconds=0.2, log=arena.log)
        client = TestClient(create_app(store, health=node.health, metrics=arena.metrics))
        try:
            with RunningNode(node):
                wait_until(lambda: "dispatch" in node.last_ok, "the node to run its jobs")
                body = client.get("/healthz").json()
                assert body["status"] == "ok" and body["degraded"] == [], body
                assert body["checks"]["upstream"]["ok"] and body["checks"]["sandbox"]["ok"]
                server.__exit__(None, None, None)  # the upstream LLM goes away
                health = client.get("/healthz")
                body = health.json()
                assert health.status_code == 200 and body["status"] == "degraded", body
                (line,) = body["degraded"]
                assert line.startswith("upstream: upstream LLM") and "unreachable" in line and "\n" not in line
                os.unlink(python)  # and the sandbox's agent Python with it
                body = client.get("/healthz").json()
                assert body["status"] == "degraded" and len(body["degraded"]) == 2, body
                sandbox_line = next(line for line in body["degraded"] if line.startswith("sandbox: "))
                assert sandbox_line.startswith("sandbox: sandbox backend down") and str(python) in sandbox_line
        finally:
            store.close()


def test_healthz_says_degraded_when_the_docker_engine_is_cut_off(inputs: Any, tmp_path: Path) -> None:
    import docker

    from sandbox.backends.docker import DockerSandbox

    target = (os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock").removeprefix("unix://")
    relay = EngineRelay(target, tmp_path / "engine.sock")
    setup = make_chain(tmp_path, [])
    with fresh_database("faults") as url:
        store = open_store(url)
        sandbox = DockerSandbox(client=docker.DockerClient(base_url=f"unix://{tmp_path / 'engine.sock'}", timeout=5))
        arena = make_arena(store, setup.chain, setup.validators[0], inputs, tmp_path / "n", sandbox=sandbox)
        node = Node(arena, block_time=0.5, dispatch_seconds=0.2, log=arena.log)
        client = TestClient(create_app(store, health=node.health, metrics=arena.metrics))
        try:
            with RunningNode(node):
                wait_until(lambda: "dispatch" in node.last_ok, "the node to run its jobs")
                body = client.get("/healthz").json()
                assert body["status"] == "ok" and body["checks"]["sandbox"]["detail"].startswith(
                    "docker engine answers"
                )
                relay.down()  # the engine is gone, as the node sees it
                health = client.get("/healthz")
                body = health.json()
                assert health.status_code == 200 and body["status"] == "degraded", body
                assert body["degraded"] == [f"sandbox: {body['checks']['sandbox']['detail']}"]
                assert "Docker engine does not answer" in body["degraded"][0]
        finally:
            relay.close()
            store.close()
