"""An attacker against the race's wait for qualifying rounds: under the payer policy ``miner`` a miner whose server
never answers the node's key request is never decided (a server that does not answer looks like a network fault of
the node's, so it is never kept against the miner: its round does not open and it is asked again at the next tick).
The race of each slot waited for every submission committed before it whose qualification was not decided, up to
`sync_grace` (300 s): one registered hotkey that committed once and answered nothing held every race of every
validator back by five minutes, for ever.

Now a submission whose round cannot open because its server does not answer is waited for `sync_grace` in all, not
at every slot: a server down a moment is waited for as before, one that never answers holds back one race at most (it
is asked again at every tick, and qualifies once it answers). Real LocalChain, the node's code, bubblewrap, each
miner's `arena-miner serve` app."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from arena.spend import Price, Provider
from tests.integration.test_miner_pays_race import MINER_KEY, serve_key
from tests.integration.test_pay_qualifying import closed_port
from tests.integration.test_qualifying import at, inputs, make_node, settle, submit  # noqa: F401 - a fixture
from tests.support.llm_agents import MODEL
from tests.support.race import make_chain
from validator.races.keys import KeyRing

pytestmark = pytest.mark.slow  # LocalChain, bubblewrap behind the gateway, HTTP servers, the store


def test_a_miner_that_never_answers_its_key_request_holds_no_race_back(inputs, tmp_path: Path) -> None:  # noqa: F811
    setup = make_chain(tmp_path, ["paying", "silent"])
    arena = make_node(tmp_path, setup.chain, setup.validators[0], inputs)
    arena.config.sync_grace = 2.0  # how long a slot waits for undecided qualifications (300 s by default)
    store = arena.store
    providers = {"local": Provider(base_url="http://127.0.0.1:9/v1", models={MODEL: Price()})}
    arena.use_keys(
        KeyRing(store=store, chain=setup.chain, wallet=setup.validators[0], providers=providers, payer="miner")
    )
    server = serve_key(setup, "paying", MINER_KEY)
    setup.chain.serve_axon(setup.miners["silent"], "127.0.0.1", closed_port())
    try:
        paying = submit(arena, tmp_path, setup, "paying", "offline", block=1)
        silent = submit(arena, tmp_path, setup, "silent", "offline", block=2)
        assert arena.open_race(block=at(arena, 10)) is None  # the paying miner's round runs: the race waits for it
        settle(arena)
        decided = store.qualification(paying.id, arena.pack.pack_id)
        assert decided is not None and decided.status == "passed"
        assert store.qualification(silent.id, arena.pack.pack_id) is None  # never decided: its server never answered
        race_id = None
        for _tick in range(40):  # the first slot waits for the silent miner, at most sync_grace
            race_id = arena.open_race(block=at(arena, 10))
            if race_id is not None:
                break
            time.sleep(0.25)
        assert race_id is not None
        assert {r.hotkey for r in store.runs(race_id=race_id)} == {paying.hotkey}
        settle(arena)
        # the next slot: the silent miner, still undecided, has been waited for already; the race opens at once
        later = arena.open_race(block=at(arena, 20))
        assert later is not None and later != race_id, "every slot waits for a miner whose server never answers"
        assert {r.hotkey for r in store.runs(race_id=later)} == {paying.hotkey}
    finally:
        server.stop()
        arena.stop()
        store.close()
