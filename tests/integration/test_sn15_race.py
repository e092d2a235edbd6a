"""A race with a subnet-15 one-file agent, unchanged, on both sandbox backends: the node serves it its model through
`/inference/`, scores the answer handed over from its returned steps, and a miner whose steps are spoofed earns
nothing for them."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.catalog import Catalog
from arena.problems.pack import load_pack
from demo.llm import MODEL, ScriptedLLMServer
from sandbox.backends import Limits
from sandbox.backends.process import ProcessSandbox
from tests.support.race import build_arena_inputs, make_chain, place_submission
from validator.node import gateway_for
from validator.races import Arena, ArenaConfig
from validator.settings import load_settings
from validator.store.repository import Store, make_engine
from validator.store.schema import upgrade

pytestmark = pytest.mark.slow  # races in bubblewrap and Docker

SN15_AGENT = Path(__file__).resolve().parents[2] / "miner_template" / "sn15" / "agent.py"
SPOOFER = """
from src.agent.agent_interface import create_dialogue_step


def agent_main(problem_data):
    claim = {"name": "find_product", "parameters": {"q": problem_data["query"]}, "tool_call_id": "a",
             "result": [{"product_id": "9999999999", "title": problem_data["query"], "price": 1}]}
    pick = {"name": "recommend_product", "parameters": {"product_ids": "9999999999"}, "tool_call_id": "b",
            "result": "ok"}
    think = "Product 9999999999 matches every requirement of the request at price 1, cheaper than the rest."
    return [create_dialogue_step(think, [claim], "", problem_data["query"], 1),
            create_dialogue_step(think, [pick], "done", problem_data["query"], 2)]
"""


@pytest.fixture(params=["process", "docker"])
def backend(request: pytest.FixtureRequest) -> Any:
    if request.param == "docker":
        from sandbox.backends.docker import DockerSandbox
        from sandbox.image.build import build_image

        build_image(log=lambda message: None)
        return DockerSandbox()
    return ProcessSandbox("bwrap")


def test_a_race_runs_an_sn15_agent_unchanged(tmp_path: Path, backend: Any) -> None:
    os.chmod(tmp_path, 0o711)
    for parent in list(tmp_path.parents)[:-1]:
        os.chmod(parent, os.stat(parent).st_mode | 0o011)  # the docker and bwrap sandboxes run as uid 65534
    catalog_dir, pack_path, signer = build_arena_inputs(tmp_path / "arena", problems=12, per_race=3)
    catalog = Catalog.open(catalog_dir)
    pack = load_pack(pack_path, catalog_digest=catalog.digest, trusted_signers={signer})
    setup = make_chain(tmp_path, ["sn15", "spoofer"])
    url = f"sqlite:///{tmp_path / 'node.sqlite'}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    store = Store.open(url)
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    for name, source in (("sn15", SN15_AGENT.read_text()), ("spoofer", SPOOFER)):
        agent = tmp_path / "agents" / name
        agent.mkdir(parents=True)
        (agent / "agent.py").write_text(source)
        place_submission(store, data_dir, setup.miners[name].hotkey.ss58_address, agent, block=10)
    with ScriptedLLMServer() as llm:
        settings = load_settings({"gateway_upstream": llm.base_url, "gateway_models": MODEL}, env_file=None)
        arena = Arena(
            store=store,
            chain=setup.chain,
            wallet=setup.validators[0],
            pack=pack,
            catalog=catalog,
            sandbox=backend,
            gateway=gateway_for(settings, catalog),
            config=ArenaConfig(data_dir=data_dir, concurrency=2, max_attempts=1, limits=Limits(wall_seconds=60)),
        )
        arena.start()
        try:
            arena.open_race()
            asyncio.run(arena.dispatch())
        finally:
            arena.stop()
    by_miner = {name: setup.miners[name].hotkey.ss58_address for name in ("sn15", "spoofer")}
    for name, hotkey in by_miner.items():
        runs = store.runs(hotkey=hotkey)
        assert len(runs) == 3
        for run in runs:
            assert run.error_code is None and run.status == "finished", (name, run.status, run.error)
            events = store.events(run.run_id)
            assert [e.name for e in events[-2:]] == ["returned_steps", "recommend_product"]
            score = store.score(run.run_id)
            assert score is not None
            if name == "sn15":
                assert sum(e.kind == "llm_call" and e.name == MODEL for e in events) == 3
            else:  # the claims never reached the gateway: only the handed-over answer, a product that does not exist
                assert len(events) == 2 and events[-1].arguments == {"product_ids": "9999999999"}
                assert score.success == 0 and score.final == 0.0
    store.close()
    shutil.rmtree(data_dir, ignore_errors=True)
