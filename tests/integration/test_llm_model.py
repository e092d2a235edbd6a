"""The validator tells every agent its configured model, the way `arena-miner test --model` does: the node's
--gateway.models reach the LLM template in a race, and its tool-calling loop runs against that model; both sandbox
backends put the gateway's model in the agent's environment (`ARENA_LLM_MODEL`)."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.catalog import Catalog
from arena.problems.pack import load_pack
from sandbox.backends import Limits
from sandbox.backends.process import ProcessSandbox
from sandbox.bundle import pack_dir, unpack
from sandbox.gateway import Gateway, GatewayServer, Upstream
from sandbox.run import run_one
from tests.support.openai_server import OpenAIServer
from tests.support.race import build_arena_inputs, make_chain, place_submission
from tests.support.shopper import scripted_shopper
from validator.node import gateway_for
from validator.races import Arena, ArenaConfig
from validator.settings import load_settings
from validator.store.repository import Store, make_engine
from validator.store.schema import upgrade

pytestmark = pytest.mark.slow  # races in bubblewrap and Docker behind the gateway

LLM_TEMPLATE = Path(__file__).resolve().parents[2] / "miner_template" / "llm" / "agent.py"
NODE_MODEL = "node-pinned-model-v3"  # no default anywhere names it


def test_the_node_runs_the_llm_template_against_its_configured_model(tmp_path: Path) -> None:
    catalog_dir, pack_path, signer = build_arena_inputs(tmp_path / "arena", problems=12, per_race=3)
    catalog = Catalog.open(catalog_dir)
    pack = load_pack(pack_path, catalog_digest=catalog.digest, trusted_signers={signer})
    setup = make_chain(tmp_path, ["llm"])
    url = f"sqlite:///{tmp_path / 'node.sqlite'}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    store = Store.open(url)
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    agent = tmp_path / "agents" / "llm"
    agent.mkdir(parents=True)
    shutil.copyfile(LLM_TEMPLATE, agent / "agent.py")
    place_submission(store, data_dir, setup.miners["llm"].hotkey.ss58_address, agent, block=10)
    chosen: dict[str, str] = {}
    with OpenAIServer(scripted_shopper(chosen), models=(NODE_MODEL, "spare-model")) as server:
        settings = load_settings(
            {"gateway_upstream": server.base_url, "gateway_models": f"{NODE_MODEL},spare-model"}, env_file=None
        )
        arena = Arena(
            store=store,
            chain=setup.chain,
            wallet=setup.validators[0],
            pack=pack,
            catalog=catalog,
            sandbox=ProcessSandbox("bwrap"),
            gateway=gateway_for(settings, catalog),
            config=ArenaConfig(data_dir=data_dir, concurrency=2, max_attempts=1, limits=Limits(wall_seconds=60)),
        )
        arena.start()
        try:
            arena.open_race()
            asyncio.run(arena.dispatch())
        finally:
            arena.stop()
        assert server.requests and {r["model"] for r in server.requests} == {NODE_MODEL}
    runs = store.runs()
    assert len(runs) == 3 and len(chosen) == 3
    for run in runs:
        assert run.error_code is None, run.error
        events = store.events(run.run_id)
        assert [e.name for e in events if e.kind == "llm_call"] == [NODE_MODEL] * 2  # search; recommend + terminate
        recommended = [e.arguments["product_ids"] for e in events if e.name == "recommend_product"]
        assert len(recommended) == 1 and recommended[0] in chosen.values()
    store.close()


@pytest.fixture(scope="module", params=["process", "docker"])
def backend(request: pytest.FixtureRequest) -> Any:
    if request.param == "docker":
        from sandbox.backends.docker import DockerSandbox
        from sandbox.image.build import build_image

        build_image(log=lambda message: None)
        return DockerSandbox()
    return ProcessSandbox("bwrap")


ECHO_MODEL = """
import os
from arena_agent import llm_model, tools

def agent_main(problem):
    # the environment is the agent's to read; a search records what it saw in the gateway's log
    tools.find_product(q="model=" + str(llm_model()) + " env=" + os.environ.get("ARENA_LLM_MODEL", "-"))
"""


@pytest.mark.parametrize(
    ("upstream", "told"),
    [
        (Upstream(base_url="http://127.0.0.1:9/v1", models=[NODE_MODEL, "spare-model"]), NODE_MODEL),
        (Upstream(models=[NODE_MODEL]), None),  # a model without an endpoint is no model at all
        (Upstream(), None),
    ],
    ids=["endpoint-and-models", "models-without-endpoint", "no-llm"],
)
def test_both_sandboxes_give_the_agent_the_gateways_model(
    backend: Any, tiny_catalog: Any, tmp_path: Path, upstream: Any, told: str | None
) -> None:
    os.chmod(tmp_path, 0o711)
    for parent in list(tmp_path.parents)[:-1]:
        os.chmod(parent, os.stat(parent).st_mode | 0o011)  # let uid 65534 traverse to the run folders
    src = tmp_path / "src"
    src.mkdir()
    (src / "agent.py").write_text(ECHO_MODEL)
    agent_dir = unpack(pack_dir(src).data, tmp_path / "agent")
    gateway = Gateway(tiny_catalog, upstream=upstream)
    problem = {"problem_id": "m", "task": "product", "query": "desk lamp", "n_products": 1}
    with GatewayServer(gateway, tmp_path / "gw" / "gateway.sock"):
        outcome = asyncio.run(
            run_one(gateway, backend, agent_dir, tmp_path / "gw", problem, limits=Limits(wall_seconds=30))
        )
    assert outcome.result.status == "ok", outcome.result.error
    searched = [e.arguments["q"] for e in outcome.events if e.name == "find_product"]
    assert searched == [f"model={told} env={told or '-'}"]
