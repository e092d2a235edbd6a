"""Under the payer policy ``miner``, a miner that names a provider the operator does not allow, or hands no key, is
refused at qualifying in one line before its round opens (no run is made); a miner whose server does not answer is not
decided and is asked again; a miner with a usable key gets its round, its key held for it (docs/validator.md, "Who
pays for inference"). Real LocalChain, each miner's `arena-miner serve` app, the store."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from arena.spend import Price, Provider
from tests.integration.test_miner_pays_race import MINER_KEY, serve_key
from tests.integration.test_qualifying import at, inputs, make_node, submit  # noqa: F401 - `inputs` is a fixture
from tests.support.llm_agents import MODEL
from tests.support.race import make_chain
from validator.races.keys import KeyRing

pytestmark = pytest.mark.slow  # LocalChain, HTTP servers, the store


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_miner_that_cannot_pay_is_refused_at_qualifying_in_one_line_before_its_round(inputs, tmp_path: Path):  # noqa: F811
    names = ["paying", "elsewhere", "keyless", "down"]
    setup = make_chain(tmp_path, names)
    arena = make_node(tmp_path, setup.chain, setup.validators[0], inputs)
    store = arena.store
    servers = [
        serve_key(setup, "paying", MINER_KEY),
        serve_key(setup, "elsewhere", MINER_KEY, provider="other"),
        serve_key(setup, "keyless", None),
    ]
    setup.chain.serve_axon(setup.miners["down"], "127.0.0.1", closed_port())
    providers = {"local": Provider(base_url="http://127.0.0.1:9/v1", models={MODEL: Price()})}
    ring = KeyRing(store=store, chain=setup.chain, wallet=setup.validators[0], providers=providers, payer="miner")
    arena.use_keys(ring)
    try:
        subs = {name: submit(arena, tmp_path, setup, name, "offline", block=1 + i) for i, name in enumerate(names)}
        assert arena.qualifying.start(at(arena, 6)) == 3  # "down" is not decided: asked again at the next tick
    finally:
        for server in servers:
            server.stop()
        arena.stop()
    decided = {q.submission_id: q for q in store.qualifications()}
    assert subs["down"].id not in decided
    lines = {
        "elsewhere": "the miner's key is for provider 'other', which this validator does not allow",
        "keyless": "this miner holds no LLM key",
    }
    for name, line in lines.items():
        q = decided[subs[name].id]
        assert q.status == "failed" and q.reason.startswith("refused before its round:") and line in q.reason
        assert "\n" not in q.reason and "sk-" not in q.reason
        race = store.race(q.race_id)
        assert race is not None and race.status == "cancelled" and race.reason == q.reason
        assert store.runs(race_id=q.race_id) == [] and race.problem_ids == []  # no round: no problem made, no run
    paying = decided[subs["paying"].id]
    assert paying.status == "running" and store.runs(race_id=paying.race_id)
    assert ring.held() == 1  # its key, asked for once, held for its round
    store.close()
