"""An attacker against the qualifying round: the leader (rank 1 of the newest closed race), which runs every
newcomer's fresh problems beside it, makes its own runs there count for nothing, so that the newcomer is never
measured. Under the payer policy ``miner`` it answers the node's key request for a race and not for a round (the
request names neither; a round opens off the race slots): each of its attempts ends 2011 (a miner's server that
does not answer is never kept against it), its runs are held, given a last try, and the round closes without them.
A round in which the leader has no score was `void` and run again, every time: the newcomer never raced, and the
leader kept its place (docs/validator.md, "Qualifying rounds").

Now a round that closed (not voided: no fault of the node's own probe met) with no score of the leader's measures the
newcomer against no bar, as a round with no leader does. Real LocalChain, the node's code, bubblewrap, each miner's
`arena-miner serve` app answering key requests."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.spend import Price, Provider
from tests.integration.test_miner_pays_race import MINER_KEY, serve_key
from tests.integration.test_qualifying import at, inputs, make_node, settle, submit  # noqa: F401 - a fixture
from tests.support.llm_agents import MODEL
from tests.support.race import make_chain
from validator.races.keys import KeyRing

pytestmark = pytest.mark.slow  # LocalChain, bubblewrap behind the gateway, HTTP servers, the store


def test_a_leader_that_hands_no_key_to_a_round_does_not_keep_a_newcomer_out(inputs, tmp_path: Path) -> None:  # noqa: F811
    setup = make_chain(tmp_path, ["leader", "newcomer"])
    arena = make_node(tmp_path, setup.chain, setup.validators[0], inputs)
    arena.config.fault_wait = 0.0  # a held run gets its last try at once
    store = arena.store
    providers = {"local": Provider(base_url="http://127.0.0.1:9/v1", models={MODEL: Price()})}
    arena.use_keys(
        KeyRing(store=store, chain=setup.chain, wallet=setup.validators[0], providers=providers, payer="miner")
    )
    servers = {name: serve_key(setup, name, MINER_KEY) for name in ("leader", "newcomer")}
    try:
        leader = submit(arena, tmp_path, setup, "leader", "offline", block=1)
        assert arena.open_race(block=at(arena, 10)) is None  # its round: no leader yet, it passes
        settle(arena)
        race_id = arena.open_race(block=at(arena, 10))
        assert race_id is not None
        settle(arena)
        assert store.leader() is not None and store.leader().hotkey == leader.hotkey  # type: ignore[union-attr]

        servers["leader"].stop()  # from now on the leader answers no key request: its runs in a round cannot be paid
        newcomer = submit(arena, tmp_path, setup, "newcomer", "offline", block=15)
        decided = None
        for _round in range(3):  # a void round is run again: three rounds are plenty for a decision
            arena.open_race(block=at(arena, 20))
            settle(arena)
            decided = store.qualification(newcomer.id, arena.pack.pack_id)
            assert decided is not None
            if decided.status != "void":
                break
        assert decided is not None and decided.status == "passed", (decided.reason, store.race(decided.race_id).status)
        assert decided.leader_hotkey == leader.hotkey and decided.leader_score is None
        assert "left out" in (decided.reason or "")
        leader_runs = [r for r in store.runs(race_id=decided.race_id) if r.submission_id == leader.id]
        assert leader_runs and all(r.status == "errored" and r.blame == "validator" for r in leader_runs)
        assert all(r.error_code == 2011 for r in leader_runs)
        next_race = arena.open_race(block=at(arena, 30))
        assert next_race is not None
        assert newcomer.hotkey in {r.hotkey for r in store.runs(race_id=next_race)}
    finally:
        for server in servers.values():
            server.stop()
        arena.stop()
        store.close()
