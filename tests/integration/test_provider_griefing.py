"""An attacker agent against the per-provider drop (`--gateway.provider_failures`): a miner paying at the same provider
as its rivals makes its own calls fail there (a request the provider answers 500 to: the provider failing, 2011,
nobody's fault) to have the race go on without that provider, so that its rivals' runs there end 2012 and they are
left out of the race.

The provider serves the rivals' calls at once all along: only the attacker's calls fail. A provider's failures are
counted per miner, and a failure met while the provider answers others is not counted at all (the agent's request's
doing): no run is dropped, the attacker's go on to their last try after the race's fault wait, where such a failure is
the agent's (docs/validator.md, "Who pays for inference"; `test_llm_choker_pages.py` for the attacker's own score).

The rival's runs are dispatched after the attacker's failures (its `arena-miner serve` answers only then; meanwhile
its attempts end 2011 and wait), as most runs of a race with many miners and few sandbox slots would be."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from arena import blame
from arena.catalog import Catalog
from arena.spend import Price, Provider
from demo.agents import MINER_TEMPLATE, write_template
from miner_template.serve import BundleServer, ValidatorPermits, create_app
from sandbox.bundle import pack_dir
from sandbox.gateway import Gateway, Upstream
from tests.integration.test_blame import make_arena, open_store
from tests.support.llm_agents import MODEL
from tests.support.openai_server import Fail, OpenAIServer
from tests.support.race import build_arena_inputs, make_chain, place_submission
from validator.chain.sealedkey import MinerKeyConfig
from validator.races.keys import KeyRing

pytestmark = pytest.mark.slow  # LocalChain, bubblewrap, the gateway, an OpenAI-compatible server

KEYS = {"rival": "sk-rival-own-key-abcdefghijklmnop", "griefer": "sk-griefer-own-key-abcdefghijklm"}

# The template's answer, after a request its provider answers 500 to: a failure of the miner's provider (2011)
# whatever the answer. (A call it gave up by returning first would be its own, abandoned: test_llm_quitter.py; one
# the provider takes longer over than the gateway's timeout while it answers others is its own too: test_llm_overlong.)
GRIEFER = """

import json as _json
import os as _os
import urllib.request as _request

_solve_now = agent_main


def _long_call():
    body = {"model": __MODEL__, "messages": [{"role": "user", "content": "a request that breaks the provider"}]}
    req = _request.Request(
        _os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=_json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        _request.urlopen(req, timeout=30).read()
    except Exception:
        pass


def agent_main(problem):
    _long_call()
    return _solve_now(problem)
""".replace("__MODEL__", repr(MODEL))


# The template's answer, after a first thought asked of its provider.
RIVAL = """

import json as _json
import os as _os
import urllib.request as _request

_solve_now = agent_main


def agent_main(problem):
    body = {"model": __MODEL__, "messages": [{"role": "user", "content": problem["query"]}]}
    req = _request.Request(
        _os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=_json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    _request.urlopen(req, timeout=30).read()
    return _solve_now(problem)
""".replace("__MODEL__", repr(MODEL))


FAILED: list[str] = []  # the griefer's requests the provider failed


def provider(body: dict[str, Any]) -> str:
    """A provider that fails on one request (the griefer's) and answers anything else at once."""
    if "breaks the provider" in str(body.get("messages")):
        FAILED.append("500")
        raise Fail(500, "internal error")
    return "look for the cheapest match"


def serve_key(setup: Any, name: str) -> BundleServer:
    wallet = setup.miners[name]
    bundle = pack_dir(write_template(setup.path.parent / "served" / name, MINER_TEMPLATE.read_text()))
    permits = ValidatorPermits(setup.chain, refresh_seconds=60, min_refresh_seconds=0.0)
    llm_key = MinerKeyConfig("local", SecretStr(KEYS[name]), MODEL)
    server = BundleServer(create_app(bundle, hotkey_ss58=wallet.hotkey.ss58_address, permits=permits, llm_key=llm_key))
    server.start()
    setup.chain.serve_axon(wallet, "127.0.0.1", server.port)
    return server


def test_a_miner_failing_its_own_calls_does_not_drop_its_rivals_at_the_same_provider(tmp_path: Path) -> None:
    FAILED.clear()
    inputs = build_arena_inputs(tmp_path / "arena", problems=16, per_race=2)
    names = ["griefer", "rival"]
    setup = make_chain(tmp_path, names)
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    hotkeys = {n: setup.miners[n].hotkey.ss58_address for n in names}
    agents = {"griefer": MINER_TEMPLATE.read_text() + GRIEFER, "rival": MINER_TEMPLATE.read_text() + RIVAL}
    for i, name in enumerate(names):
        place_submission(store, data_dir, hotkeys[name], write_template(tmp_path / "a" / name, agents[name]), 10 + i)
    servers = [serve_key(setup, "griefer")]
    with OpenAIServer(provider, models=(MODEL,), keys=tuple(KEYS.values())) as shared:
        gateway = Gateway(Catalog.open(inputs[0]), upstream=Upstream(timeout=2.0))
        arena = make_arena(
            store,
            setup.chain,
            setup.validators[0],
            inputs,
            data_dir,
            gateway=gateway,
            max_attempts=3,
            fault_retry=0.3,
            fault_wait=2.0,
        )
        ring = KeyRing(
            store=store,
            chain=setup.chain,
            wallet=setup.validators[0],
            providers={"local": Provider(base_url=shared.base_url, models={MODEL: Price(prompt=0.5)})},
            payer="miner",
            drop_after=3,
            timeout=2,
        )
        arena.use_keys(ring)
        arena.start()
        try:
            race_id = arena.open_race()
            assert race_id is not None
            deadline = time.time() + 300
            while store.race(race_id).status == "running":  # type: ignore[union-attr]
                assert time.time() < deadline, "the race did not close"
                if len(servers) == 1 and len(FAILED) >= 3:  # the griefer's requests failed 3 times
                    servers.append(serve_key(setup, "rival"))  # the rival's runs are dispatched from now on
                asyncio.run(arena.dispatch())
                arena.close_races()
                time.sleep(0.2)
        finally:
            arena.stop()
            for server in servers:
                server.stop()
    rival = [r for r in store.runs(race_id=race_id) if r.hotkey == hotkeys["rival"]]
    assert rival and all(r.error_code != blame.PROVIDER_DROPPED for r in rival), [r.error for r in rival]
    assert all(r.status == "finished" for r in rival)
    assert not ring.dropped(race_id)  # the griefer's failures met while the provider answered others: not counted
    results = {r.hotkey: r for r in store.race_results(race_id)}
    assert hotkeys["rival"] in results and results[hotkeys["rival"]].runs == 2
    # the calls of the rival the provider saw were all answered; only the griefer's failed
    assert f"Bearer {KEYS['rival']}" in shared.auth_headers
    store.close()
