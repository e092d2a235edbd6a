"""The janitor on a running node whose sandboxes are Docker containers: the container a finished run left behind is
removed, the container of the run in flight and one of a run this store does not hold are not; of older sandbox
builds, the newest beyond the one in use is kept, an image a container uses is kept, the rest go. The images are
built in a repository of the test's own (the engine is shared: the real sandbox builds are never this test's to
remove). Real pieces: PostgreSQL, the Docker engine, LocalChain, the scheduler's jobs."""

from __future__ import annotations

import io
import uuid
from pathlib import Path
from typing import Any

import pytest

from sandbox.backends.docker import LABEL, DockerSandbox
from tests.support.node import RunningNode, make_arena, open_store, slow_agent, wait_until
from tests.support.postgres import fresh_database
from tests.support.race import build_arena_inputs, make_chain, place_submission
from validator.node import upkeep_for
from validator.scheduler import Node
from validator.settings import Settings

pytestmark = pytest.mark.slow  # a node on PostgreSQL and the Docker engine

BASE = "shoparena-base:bookworm"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("arena"), problems=16, per_race=2, cadence=100_000)


def build(client: Any, tag: str) -> Any:
    """A tiny image of its own id (a label on the base: no layer to run)."""
    dockerfile = f"FROM {BASE}\nLABEL shoparena.janitor-test={tag}\n".encode()
    image, _ = client.images.build(fileobj=io.BytesIO(dockerfile), tag=tag, rm=True, network_mode="none")
    return image


def test_a_pass_removes_finished_runs_containers_and_old_builds(inputs: Any, tmp_path: Path) -> None:
    sandbox = DockerSandbox()
    client = sandbox.client
    repo = f"shoparena-jt{uuid.uuid4().hex[:8]}"
    oldest, middle, newest = (build(client, f"{repo}:{name}") for name in ("b1", "b2", "b3"))
    setup = make_chain(tmp_path, ["slow"])
    data_dir = tmp_path / "node"
    made: list[Any] = []
    with fresh_database("janitor") as url:
        store = open_store(url)
        store.upsert_miners(setup.chain.metagraph().neurons)
        hotkey = setup.miners["slow"].hotkey.ss58_address
        place_submission(store, data_dir, hotkey, slow_agent(tmp_path / "a", "slow", 10.0), block=10)
        arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir, sandbox=sandbox, concurrency=1)
        settings = Settings(_env_file=None, data_dir=data_dir, sandbox_backend="docker", floor_disk_mb=0)
        host, janitor = upkeep_for(settings, arena, log=arena.log, block_time=0.5)
        janitor.grounds.image_repo = repo  # this test's builds only: the engine is shared
        node = Node(arena, block_time=0.5, dispatch_seconds=0.2, log=arena.log, host=host, janitor=janitor)
        made.append(client.containers.create(oldest.id, "true"))  # an old build a container still uses
        try:
            with RunningNode(node):
                wait_until(
                    lambda: arena.in_flight and any(r.status == "finished" for r in store.runs()),
                    "one run finished and the other in its container",
                )
                finished = next(r for r in store.runs() if r.status == "finished")
                flying = next(iter(arena.in_flight))
                made.append(client.containers.create(sandbox.image, "true", labels={LABEL: finished.run_id}))
                foreign = f"other-node-{uuid.uuid4().hex[:8]}"
                made.append(client.containers.create(sandbox.image, "true", labels={LABEL: foreign}))
                done = janitor.run()
                assert done.errors == [], done.errors
                assert flying in arena.in_flight  # the pass ran while the run was in its container
                left = {c.labels.get(LABEL) for c in client.containers.list(all=True, filters={"label": LABEL})}
                assert finished.run_id not in left and foreign in left and flying in left
                assert {f.what: f for f in done.freed}["sandbox leftovers"].items == [finished.run_id]
                images = [kw for _l, event, kw in arena.log.records if event == "janitor.freed"]
                (removed,) = [kw for kw in images if kw["what"] == "sandbox images"]  # by the pass at start
                assert removed["names"] == [f"{repo}:b2"] and removed["bytes"] > 0
                tags = {t for image in client.images.list(name=repo) for t in image.tags}
                assert tags == {f"{repo}:b1", f"{repo}:b3"}
                assert client.images.get(sandbox.image)  # the build the node runs
                assert host.checks()["docker"][0] is True
        finally:
            store.close()
            for thing, remove in [(c.id, client.api.remove_container) for c in made] + [
                (i.id, client.api.remove_image) for i in (oldest, middle, newest)
            ]:
                try:
                    remove(thing, force=True)
                except Exception:  # noqa: BLE001 - removed by the pass already
                    pass
