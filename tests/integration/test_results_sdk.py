"""Results commitments and the weights read through `BittensorChain`, the real bittensor SDK at its substrate seam
(`tests.support.substrate`): a validator commits ``sr1:<sha256>`` with its hotkey, every permit holder's results
commitment is read back with its block, permit and stake, and a weight row set through the SDK reads back u16 for u16
as the audit compares it."""

from __future__ import annotations

from pathlib import Path

import bittensor as bt
import pytest

from tests.support.substrate import InMemorySubstrate
from validator.audit import u16_row
from validator.chain.bittensor_chain import BittensorChain, create_wallet
from validator.chain.commitment import encode_commitment
from validator.chain.port import ChainError
from validator.chain.results import commit_results, results_commitments

NETUID = 7


@pytest.fixture(autouse=True)
def _private_sdk_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BTCLI_TOKEN_SYMBOLS_CACHE", str(tmp_path / "token_symbols.json"))


def test_results_commitments_and_weights_through_the_sdk(tmp_path: Path) -> None:
    wallets = {n: create_wallet(n, "hot", tmp_path / "wallets") for n in ("val", "other", "miner")}
    substrate = InMemorySubstrate(block=5000)
    substrate.add_subnet(NETUID)
    for name, permit, stake in (("val", True, 1_500), ("other", True, 700), ("miner", False, 0)):
        w: bt.Wallet = wallets[name]
        substrate.add_neuron(
            NETUID,
            w.hotkey.ss58_address,
            w.coldkeypub.ss58_address,
            stake_rao=stake * 10**9,
            validator_permit=permit,
            registered_at=1000,
        )
    chain = BittensorChain("local", NETUID, substrate=substrate)
    try:
        sha = "ab" * 32
        outcome = commit_results(chain, wallets["val"], sha, "https://bucket.example/v1")
        assert outcome.success
        substrate.put_commitment(NETUID, wallets["other"].hotkey.ss58_address, f"sr1:{'cd' * 32}", block=4990)
        substrate.put_commitment(NETUID, wallets["miner"].hotkey.ss58_address, encode_commitment("ef" * 32), block=4000)
        found = {c.hotkey: c for c in results_commitments(chain)}
        assert set(found) == {wallets["val"].hotkey.ss58_address, wallets["other"].hotkey.ss58_address}
        mine = found[wallets["val"].hotkey.ss58_address]
        assert (mine.sha256, mine.url, mine.validator_permit) == (sha, "https://bucket.example/v1", True)
        assert mine.block > 5000 and mine.stake == pytest.approx(1_500.0)
        assert found[wallets["other"].hotkey.ss58_address].block == 4990
        # pooling reads stakes and permits as of the cut-off block: the metagraph read at that block
        then = chain.metagraph(4995)
        assert then.block == 4995 and then.by_hotkey(wallets["other"].hotkey.ss58_address).validator_permit
        pinned = {c.hotkey: c for c in results_commitments(chain, block=4995)}
        assert pinned[wallets["other"].hotkey.ss58_address].stake == pytest.approx(700.0)
        with pytest.raises(ChainError):  # the block is read, not the head: a block not produced yet is refused
            chain.metagraph(substrate.head + 100)

        vector = {0: 0.25, 2: 0.75}
        assert chain.set_weights(wallets["val"], vector).success
        rows = chain.weights()
        assert u16_row(rows[0]) == u16_row(vector) == {0: 21845, 2: 65535}
    finally:
        chain.close()


@pytest.mark.slow  # a built catalog, SQLite stores, HTTP servers on loopback
def test_the_audit_runs_against_the_sdk_chain(tmp_path: Path) -> None:
    """Two validators on subtensor (the SDK at its substrate seam) publish their bundles of one race at a URL,
    one sets the weights the pooled evidence implies, the other made-up weights: the audit says which is which."""
    from fastapi import FastAPI

    from arena.problems.pack import Rotation
    from arena.weights import parse_policy
    from sandbox.serving import ThreadedServer
    from tests.support.results import closed_race, drawn_race, make_world, open_store, pooled_weights
    from validator.audit import audit_race
    from validator.pool import Release, ResultsShelf, build_bundle
    from validator.pool.serve import ChainView, results_router

    world = make_world(tmp_path, problems=5, rotation=Rotation(cadence_blocks=40, problems_per_race=3))
    wallets = {n: create_wallet(n, "hot", tmp_path / "wallets") for n in ("alice", "bob", "m0", "m1", "m2")}
    substrate = InMemorySubstrate(block=1000)
    substrate.add_subnet(NETUID)
    for name, w in wallets.items():
        permit = name in ("alice", "bob")
        substrate.add_neuron(
            NETUID,
            w.hotkey.ss58_address,
            w.coldkeypub.ss58_address,
            stake_rao=(500 if permit else 0) * 10**9,
            validator_permit=permit,
            registered_at=900,
        )
    miners = {wallets[f"m{i}"].hotkey.ss58_address: rate for i, rate in enumerate((0.9, 0.5, 0.1))}
    for i, hotkey in enumerate(miners):
        substrate.put_commitment(NETUID, hotkey, encode_commitment(f"{i + 1:064x}"), block=950 + i)
    chain = BittensorChain("local", NETUID, substrate=substrate)
    start = 1000
    race_id, ids = drawn_race(world, chain, start, 3)
    shelf, servers, bundles = ResultsShelf(tmp_path / "shelf"), {}, {}
    try:
        for i, name in enumerate(("alice", "bob")):
            store = open_store(tmp_path / f"{name}.sqlite")
            closed_race(store, world, race_id, miners, seed=i, seed_block=start, problem_ids=ids)
            bundles[name] = build_bundle(store, race_id, wallets[name], netuid=NETUID, created_block=1010)
            store.close()
            shelf.put(bundles[name].sha256, bundles[name].data, Release(race_id=race_id, race_start=start))
            app = FastAPI()
            app.include_router(
                results_router(shelf, hotkey_ss58=wallets[name].hotkey.ss58_address, view=ChainView(chain))
            )
            servers[name] = ThreadedServer(app).start()
            substrate.advance(1)
            assert commit_results(chain, wallets[name], bundles[name].sha256, servers[name].url).success
        blocks = {h: 950 + i for i, h in enumerate(miners)}
        policy = parse_policy("top_heavy")
        facts = world.facts(race_id, netuid=NETUID)
        implied = pooled_weights(
            chain, {wallets[n]: b for n, b in bundles.items()}, facts, start=start, blocks=blocks, policy=policy
        )
        uids = {n.hotkey: n.uid for n in chain.metagraph().neurons}
        assert chain.set_weights(wallets["alice"], implied).success
        substrate.advance(200)  # past the weights rate limit and the race's cut-off
        assert chain.set_weights(wallets["bob"], {uids[list(miners)[-1]]: 1.0}).success
        report = audit_race(chain, world.pack, world.catalog.get, race_id, wallet=wallets["alice"], policy=policy)
        verdicts = {v.hotkey: v for v in report.validators}
        alice, bob = (verdicts[wallets[n].hotkey.ss58_address] for n in ("alice", "bob"))
        assert alice.matches and alice.bundle == "verified", alice.reason
        assert not bob.matches and bob.bundle == "verified" and "differ" in bob.reason
    finally:
        for server in servers.values():
            server.stop()
        chain.close()
