"""Pooled validators reach the same copy verdicts from the same evidence: a node judging a pooled race fetches the
raced agents it does not hold from their miners' commitments (as `arena-validator audit` does) before it decides,
and the code similarity threshold is the pack's where its rotation pins one, whatever each operator's
``--copies.similarity`` says; a raced agent its miner does not serve to this node is fetched from a validator that
raced it. On a LocalChain with the bundles served over HTTP, a real store (SQLite)."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from bittensor import http_auth
from fastapi import FastAPI

from arena.weights import MinerResult
from sandbox.bundle import pack_dir
from sandbox.serving import ThreadedServer
from tests.integration.test_submissions import WebServer
from tests.support.copy_variants import TEMPLATE, write_variants
from tests.support.race import make_chain, open_store
from validator.chain.commitment import encode_commitment
from validator.chain.results import commit_results
from validator.pool.serve import ChainView, agents_router
from validator.races.base import Signals
from validator.races.config import ArenaConfig
from validator.races.copying import Copying
from validator.submissions.bundles import bundle_path, bundles_dir, store_bundle, stored


@pytest.fixture
def pooled(tmp_path: Path) -> Any:
    """A pooled race of the honest template (committed first) and a copy of it with its functions reordered, both
    committed with a URL this node has never fetched from."""
    setup = make_chain(tmp_path, ["honest", "copier"], block_time=0.2)
    web = WebServer()
    folders = {"honest": TEMPLATE, "copier": write_variants(tmp_path / "variants")["functions_reordered"]}
    sha = {}
    for name, folder in folders.items():
        bundle = pack_dir(folder)
        web.files[f"/{name}.tgz"] = bundle.data
        setup.chain.set_commitment(setup.miners[name], encode_commitment(bundle.sha256, web.url(f"/{name}.tgz")))
        sha[name] = bundle.sha256
    start = setup.chain.block()
    while setup.chain.block() <= start:
        time.sleep(0.1)
    start = setup.chain.block()
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    store.add_pack(pack_id="a" * 64, name="t", digest="d", problems=[])
    race, _ = store.create_race(
        race_id=f"{'a' * 16}-{start}", pack_id="a" * 64, seed_block=start, seed_hash="0x", problem_ids=["p1", "p2"]
    )
    hotkey = {name: setup.miners[name].hotkey.ss58_address for name in folders}
    runs = [
        {"miner": hotkey[name], "submission": sha[name], "problem_id": p, "behaviour": None}
        for name in folders
        for p in ("p1", "p2")
    ]
    store.save_race_pool(
        race.race_id, status="pooled", cutoff_block=start + 1, due_block=start + 2, state={"runs": {"v": runs}}
    )
    results = [
        MinerResult(hotkey=hotkey["honest"], score=0.5, commitment_block=10, low=0.4, high=0.6),
        MinerResult(hotkey=hotkey["copier"], score=0.52, commitment_block=11, low=0.42, high=0.62),
    ]
    yield SimpleNamespace(setup=setup, store=store, race=race, results=results, hotkey=hotkey, sha=sha, root=tmp_path)
    store.close()
    web.close()


def judge(pooled: Any, data_dir: Path, *, fetch: bool, pinned: float | None = None) -> list[str]:
    pack = SimpleNamespace(rotation=SimpleNamespace(copy_similarity=pinned))
    copying = Copying(
        store=pooled.store,
        config=ArenaConfig(data_dir=data_dir),  # the operator's --copies.similarity: the default 0.8
        signals=Signals(),
        chain=pooled.setup.chain if fetch else None,
        wallet=pooled.setup.validators[0],
        pack=pack,
    )
    return [r.hotkey for r in copying.judge(pooled.race, pooled.results)]


def test_a_pooled_node_fetches_the_raced_agents_it_lacks_and_finds_the_copy(pooled: Any) -> None:
    honest, copier = pooled.hotkey["honest"], pooled.hotkey["copier"]
    # what a node that judged only from the bundles it held did: no code evidence, the copy earned
    assert judge(pooled, pooled.root / "without", fetch=False) == [honest, copier]
    data_dir = pooled.root / "node"
    assert judge(pooled, data_dir, fetch=True) == [honest]
    assert all(bundle_path(data_dir, sha).is_dir() for sha in pooled.sha.values())
    (verdict,) = pooled.store.copy_verdicts(race_id=pooled.race.race_id)
    assert verdict.copy and verdict.hotkey == copier and verdict.copy_of == honest and verdict.kind == "code"


def test_the_packs_threshold_wins_over_the_operators(pooled: Any) -> None:
    """The copy's similarity is 0.95: a pack pinning 0.99 makes it no copy on every node, whatever each operator
    set (the default 0.8 here)."""
    assert judge(pooled, pooled.root / "node", fetch=True, pinned=0.99) == [
        pooled.hotkey["honest"],
        pooled.hotkey["copier"],
    ]


def test_a_copier_serving_one_validator_only_is_read_from_the_validator_that_raced_it(tmp_path: Path) -> None:
    """Two validators on one LocalChain: the copier (the template reordered, committed after it) serves its bundle to
    validator A only (here: its URL refuses everyone else), A raced it and serves it to validators
    (``GET /agents/<sha256>``, where A's results commitment says it serves). Validator B, judging the pooled race
    from A's runs, fetches the copier's bundle from A, verifies it by its sha256 and reaches A's verdict: a copy
    that earns nothing. Before, B had no code evidence and the copier earned."""
    setup = make_chain(tmp_path, ["honest", "copier"], validators=2, block_time=0.2)
    a, b = setup.validators
    web = WebServer()
    folders = {"honest": TEMPLATE, "copier": write_variants(tmp_path / "variants")["functions_reordered"]}
    sha, data = {}, {}
    for name, folder in folders.items():
        bundle = pack_dir(folder)
        sha[name], data[name] = bundle.sha256, bundle.data
        setup.chain.set_commitment(setup.miners[name], encode_commitment(bundle.sha256, web.url(f"/{name}.tgz")))
    web.files["/honest.tgz"] = data["honest"]  # the copier's URL answers 404 to anyone but A
    data_a = tmp_path / "a"
    store_bundle(data["copier"], sha["copier"], bundles_dir(data_a), "served to A only")
    app = FastAPI()
    app.include_router(
        agents_router(data_a, hotkey_ss58=a.hotkey.ss58_address, view=ChainView(setup.chain, refresh_seconds=0.0))
    )
    server = ThreadedServer(app).start()
    store = open_store(f"sqlite:///{tmp_path / 'b.sqlite'}")
    try:
        commit_results(setup.chain, a, "c" * 64, server.url)
        start = setup.chain.block()
        store.add_pack(pack_id="a" * 64, name="t", digest="d", problems=[])
        race, _ = store.create_race(
            race_id=f"{'a' * 16}-{start}", pack_id="a" * 64, seed_block=start, seed_hash="0x", problem_ids=["p1"]
        )
        hotkey = {name: setup.miners[name].hotkey.ss58_address for name in folders}
        runs = [
            {"validator": a.hotkey.ss58_address, "miner": hotkey[n], "submission": sha[n], "problem_id": "p1"}
            for n in folders
        ]
        store.save_race_pool(
            race.race_id, status="pooled", cutoff_block=start + 1, due_block=start + 2, state={"runs": {"a": runs}}
        )
        results = [
            MinerResult(hotkey=hotkey["honest"], score=0.5, commitment_block=10, low=0.4, high=0.6),
            MinerResult(hotkey=hotkey["copier"], score=0.52, commitment_block=11, low=0.42, high=0.62),
        ]
        data_b = tmp_path / "b"
        copying = Copying(
            store=store, config=ArenaConfig(data_dir=data_b), signals=Signals(), chain=setup.chain, wallet=b
        )
        assert [r.hotkey for r in copying.judge(race, results)] == [hotkey["honest"]]
        assert stored(bundle_path(data_b, sha["copier"]), sha["copier"])
        (verdict,) = store.copy_verdicts(race_id=race.race_id)
        assert verdict.copy and verdict.hotkey == hotkey["copier"] and verdict.kind == "code"

        # A serves agents to validators only, signed, and only what it holds
        url = f"{server.url}/agents/{sha['copier']}"
        path = f"/agents/{sha['copier']}"
        assert httpx.get(url).status_code == 401
        stranger = dict(
            http_auth.sign(setup.miners["honest"], method="GET", path=path, receiver_ss58=a.hotkey.ss58_address)
        )
        assert httpx.get(url, headers=stranger).status_code == 403
        other = f"/agents/{'d' * 64}"
        signed = dict(http_auth.sign(b, method="GET", path=other, receiver_ss58=a.hotkey.ss58_address))
        assert httpx.get(f"{server.url}{other}", headers=signed).status_code == 404
    finally:
        server.stop()
        store.close()
        web.close()
