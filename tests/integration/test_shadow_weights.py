"""`--weights.shadow`: a second policy's vector stored beside the live one for every race, shown by the API, never
sent to the chain. Real pieces: the store, LocalChain, the race machinery's weight jobs."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from arena.catalog import Catalog
from arena.problems.pack import load_pack
from arena.weights import MinerResult, compute_weights, parse_policy
from sandbox.backends.process import ProcessSandbox
from tests.support.race import build_arena_inputs, make_chain, place_submission, write_agent
from validator.api import create_app
from validator.races import Arena, ArenaConfig
from validator.settings import SettingsError, load_settings
from validator.store.repository import Store, make_engine
from validator.store.schema import upgrade

MINERS = ["m1", "m2", "m3", "m4", "m5"]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("shadow"), problems=8, per_race=2, cadence=100_000)


@pytest.mark.slow  # a race in bubblewrap
def test_the_shadow_vector_is_stored_and_shown_but_only_the_live_one_is_set(inputs, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, MINERS, rate_limit=0)
    url = f"sqlite:///{tmp_path / 'node.sqlite'}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    store = Store.open(url)
    store.upsert_miners(setup.chain.metagraph().neurons)
    catalog_dir, pack_path, signer = inputs
    catalog = Catalog.open(catalog_dir)
    pack = load_pack(pack_path, catalog_digest=catalog.digest, trusted_signers={signer})
    arena = Arena(
        store=store,
        chain=setup.chain,
        wallet=setup.validators[0],
        pack=pack,
        catalog=catalog,
        sandbox=ProcessSandbox("bwrap"),
        config=ArenaConfig(  # five miners of one agent: the fork rule (off here) would leave only the first
            data_dir=tmp_path / "node", weight_policy="winner_take_all", weight_shadow="sn15_top_half", fork_rule=False
        ),
    )
    arena.start()  # registers the pack in the store
    agent = write_agent(tmp_path / "agent", "offline")
    scores = [0.9, 0.7, 0.7, 0.4, 0.2]  # a tie at rank 2, broken by the earlier commitment
    rows, results = [], []
    for i, (name, score) in enumerate(zip(MINERS, scores, strict=True)):
        hotkey = setup.miners[name].hotkey.ss58_address
        sub = place_submission(store, tmp_path / "node", hotkey, agent, block=10 + i)
        rows.append(
            {
                "hotkey": hotkey,
                "uid": None,
                "submission_id": sub.id,
                "commitment_block": 10 + i,
                "score": score,
                "success_rate": score,
                "runs": 2,
                "errored": 0,
                "rank": i + 1,
                "per_task": {},
            }
        )
        results.append(MinerResult(hotkey=hotkey, score=score, commitment_block=10 + i))
    store.create_race(race_id="r1", pack_id=pack.pack_id, seed_block=0, seed_hash="", problem_ids=[])
    store.save_race_results("r1", rows)

    ws_id = arena.weigh()
    uids = {n.hotkey: n.uid for n in setup.chain.metagraph().neurons}
    live = compute_weights(results, uids, parse_policy("winner_take_all"))
    shadow = compute_weights(results, uids, parse_policy("sn15_top_half"))
    ws = next(w for w in store.weight_sets() if w.id == ws_id)
    assert ws.policy == "winner_take_all" and ws.vector == {str(k): v for k, v in live.items()}
    assert ws.shadow_policy == "sn15_top_half" and ws.shadow_vector == {str(k): v for k, v in shadow.items()}
    assert live != shadow

    assert arena.set_weights() == "set"
    on_chain = setup.chain.weights()[uids[setup.validators[0].hotkey.ss58_address]]
    assert set(on_chain) == set(live)  # the live vector, never the shadow's
    shown = TestClient(create_app(store)).get("/api/weights").json()["items"][0]
    assert shown["policy"] == "winner_take_all" and shown["shadow_policy"] == "sn15_top_half"
    assert shown["shadow_vector"] == ws.shadow_vector
    arena.stop()
    store.close()


def test_an_unknown_shadow_policy_is_one_clear_setting_error() -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings({"weight_shadow": "nope"})
    assert any("--weights.shadow" in p and "unknown weight policy 'nope'" in p for p in caught.value.problems)
