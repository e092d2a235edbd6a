"""/healthz and /metrics on a running node report the host, and a node below its disk floor opens no race (and says
why, nobody charged) until space is freed, then opens it by itself. The store's folder is a small tmpfs of its own
(mounted as root), filled and emptied for real; the chain stalls for real (LocalChain.stall). Real pieces: PostgreSQL,
bubblewrap, LocalChain, the scheduler's jobs, the node's API."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.support.node import RunningNode, make_arena, open_store, slow_agent, wait_until
from tests.support.postgres import fresh_database
from tests.support.race import build_arena_inputs, make_chain, place_submission
from validator.api import create_app
from validator.metrics import Metrics
from validator.node import upkeep_for
from validator.scheduler import Node
from validator.settings import Settings

pytestmark = pytest.mark.slow  # a node on PostgreSQL and bubblewrap, a tmpfs mounted as root

MB = 1024 * 1024


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("arena"), problems=16, per_race=1, cadence=100_000)


@pytest.fixture
def small_disk(tmp_path: Path) -> Any:
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def degraded(client: TestClient) -> list[str]:
    health = client.get("/healthz")
    assert health.status_code == 200, health.json()
    return list(health.json()["degraded"])


def test_below_the_disk_floor_no_race_opens_until_space_is_freed(inputs: Any, small_disk: Path, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, ["miner"])
    data_dir = small_disk / "node"
    with fresh_database("host") as url:
        store = open_store(url)
        store.upsert_miners(setup.chain.metagraph().neurons)
        hotkey = setup.miners["miner"].hotkey.ss58_address
        place_submission(store, data_dir, hotkey, slow_agent(tmp_path / "a", "miner", 0.0), block=10)
        filler = data_dir / "filler"
        filler.write_bytes(b"\0" * (40 * MB))  # 64 MB disk: under 24 MB free, below the 32 MB floor
        metrics = Metrics(store)
        arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir, metrics=metrics)
        settings = Settings(_env_file=None, data_dir=data_dir, floor_disk_mb=32, floor_memory_mb=0)
        host, janitor = upkeep_for(settings, arena, log=arena.log, block_time=0.5)
        host.chain_stale = 5.0  # ten LocalChain blocks
        node = Node(arena, block_time=0.5, dispatch_seconds=0.2, log=arena.log, host=host, janitor=janitor)
        client = TestClient(create_app(store, health=node.health, metrics=metrics))
        try:
            with RunningNode(node):
                wait_until(lambda: node.floor_reason is not None, "the open job to meet the floor")
                wait_until(lambda: "janitor" in node.last_ok, "the node's first janitor pass")
                assert store.races() == []  # nothing opened, so nothing to charge anyone for
                lines = degraded(client)
                (disk,) = [line for line in lines if line.startswith("disk: ")]
                assert "store" in disk and "below the floor of 32 MB, no new race opens" in disk
                assert all("\n" not in line for line in lines)
                (floor_log,) = [kw for _l, event, kw in arena.log.records if event == "races.floor"]
                assert floor_log["reason"].startswith("no new race opens: store folder has")
                body = client.get("/healthz").json()
                for name in ("memory", "chain_age", "beacon", "weights_age", "janitor"):
                    assert body["checks"][name]["ok"], (name, body["checks"][name])
                assert body["checks"]["janitor"]["detail"].startswith("last pass")
                scraped = client.get("/metrics").text
                assert "shoparena_race_opening_blocked 1.0" in scraped
                assert 'shoparena_disk_free_bytes{folder="store"}' in scraped
                assert "shoparena_janitor_last_pass_timestamp" in scraped
                filler.unlink()  # the operator frees space: the node opens the race by itself
                wait_until(lambda: store.races() != [], "the race to open once the floor is met")
                assert node.floor_reason is None
                assert not [line for line in degraded(client) if line.startswith("disk: ")]
                assert "races.floor_met" in [event for _l, event, _kw in arena.log.records]
                assert "shoparena_race_opening_blocked 0.0" in client.get("/metrics").text
                setup.chain.stall(3600)  # the chain stops making blocks
                wait_until(
                    lambda: any(line.startswith("chain_age: ") for line in degraded(client)), "the stall to show"
                )
                (stall,) = [line for line in degraded(client) if line.startswith("chain_age: ")]
                assert "the chain stalls" in stall
                host.floor_memory = 1 << 50  # a memory floor no host meets: said in one line too
                (memory,) = [line for line in degraded(client) if line.startswith("memory: ")]
                assert "below the floor" in memory and "no new race opens" in memory
        finally:
            store.close()
