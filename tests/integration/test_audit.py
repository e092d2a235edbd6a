"""`arena-validator audit` on a LocalChain: two validators pool one race, a third forges verdicts; the audit, with no
store, re-derives every verdict, pools the verified runs and says per validator whether its weights on chain are the
ones the pooled evidence implies."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bittensor.sp_core import Keypair
from fastapi import FastAPI

from arena.problems.pack import Rotation, write_pack
from arena.weights import parse_policy
from sandbox.serving import ThreadedServer
from tests.support.results import closed_race, drawn_race, make_world, open_store, pooled_weights
from validator.audit import AuditError, audit_race
from validator.chain.bittensor_chain import create_wallet
from validator.chain.commitment import encode_commitment
from validator.chain.local import LocalChain
from validator.chain.results import commit_results
from validator.pool import Release, ResultsShelf, build_bundle
from validator.pool.bundle import seal
from validator.pool.serve import ChainView, results_router

pytestmark = pytest.mark.slow  # a built catalog, SQLite stores, a LocalChain, HTTP servers, the CLI in a subprocess

CADENCE = 200  # blocks of 0.05 s: the cut-off comes 7.5 s after the race's start
POLICY = parse_policy("top_heavy")


def wait_for_block(chain: LocalChain, block: int) -> None:
    while chain.block() < block:
        time.sleep(0.02)


def test_audit_flags_the_forger_and_the_copier_and_clears_the_honest(tmp_path: Path) -> None:
    world = make_world(tmp_path, problems=6, rotation=Rotation(cadence_blocks=CADENCE, problems_per_race=4))
    chain = LocalChain.init(tmp_path / "chain.sqlite", block_time=0.05)
    wallets = tmp_path / "wallets"
    names = {"honest": 0.0, "second": 0.0, "forger": 0.0}
    validators = {n: create_wallet(n, "hot", wallets) for n in names}
    for wallet in validators.values():
        chain.register(wallet, validator_permit=True, stake=100.0)
    rates = [0.9, 0.6, 0.3, 0.1]
    miners = {create_wallet(f"miner{i}", "hot", wallets): rate for i, rate in enumerate(rates)}
    skill: dict[str, float] = {}
    for wallet, rate in miners.items():
        chain.register(wallet)
        chain.set_commitment(wallet, encode_commitment(f"{len(skill) + 1:064x}"))
        skill[wallet.hotkey.ss58_address] = rate
    stores = {name: open_store(tmp_path / f"{name}.sqlite") for name in validators}
    start = chain.block() + 1
    wait_for_block(chain, start)
    race_id, ids = drawn_race(world, chain, start, 4)

    shelf = ResultsShelf(tmp_path / "shelf")
    built = {}
    for i, (name, wallet) in enumerate(validators.items()):
        store = stores[name]
        closed_race(store, world, race_id, skill, seed=10 + i, seed_block=start, problem_ids=ids)
        bundle = build_bundle(store, race_id, wallet, netuid=1, created_block=chain.block())
        if name == "forger":  # claims its favourite miner solved everything
            body = bundle.body.model_copy(deep=True)
            for run in body.runs:
                if run.miner == list(skill)[-1] and run.strict and not run.strict["success"]:
                    run.strict = {**run.strict, "success": True, "final": 1.0}
            sha, data = seal(body, wallet)
            bundle = type(bundle)(sha256=sha, data=data, body=body)
        built[name] = bundle
        shelf.put(bundle.sha256, bundle.data, Release(race_id=race_id, race_start=start))
        store.close()
    view = ChainView(chain, refresh_seconds=0.0)
    # one server holds every bundle; each validator's commitment names it by URL
    servers = {}
    for name, wallet in validators.items():
        sub = FastAPI()
        sub.include_router(results_router(shelf, hotkey_ss58=wallet.hotkey.ss58_address, view=view))
        servers[name] = ThreadedServer(sub).start()
    try:
        for name, wallet in validators.items():
            commit_results(chain, wallet, built[name].sha256, servers[name].url)
        # the honest validators' weights: the pool of the two verified bundles, by the policy
        honest_vector = pooled_weights(
            chain,
            {validators[n]: built[n] for n in ("honest", "second")},
            world.facts(race_id),
            start=start,
            blocks={h: chain.commitments()[h].block for h in skill},
            policy=POLICY,
        )
        uids = {n.hotkey: n.uid for n in chain.metagraph().neurons}
        chain.set_weights(validators["honest"], honest_vector)
        chain.set_weights(validators["second"], {uids[h]: 1.0 for h in list(skill)[-1:]})  # a weight it made up
        wait_for_block(chain, start + CADENCE * 3 // 4 + 1)

        report = audit_race(chain, world.pack, world.catalog.get, race_id, wallet=validators["honest"], policy=POLICY)
        verdicts = {v.hotkey: v for v in report.validators}
        honest, second, forger = (verdicts[w.hotkey.ss58_address] for w in validators.values())
        assert honest.matches and honest.bundle == "verified", honest.reason
        assert not second.matches and second.bundle == "verified" and "differ" in second.reason
        assert not forger.matches and forger.bundle == "refused: forged_verdict" and "set no weights" in forger.reason
        assert report.expected == honest_vector

        # the command line, as anyone runs it: no store; --json per validator
        operator = Keypair.create_from_uri("//ShopArenaAuditOperator")
        pack_path = write_pack(world.pack.signed(operator), tmp_path / "pack.json")
        out = tmp_path / "audit.json"
        cli = subprocess.run(
            [
                sys.executable,
                "-m",
                "validator.cli",
                "audit",
                "--race",
                race_id,
                "--json",
                str(out),
                "--chain",
                "localchain",
                "--localchain.path",
                str(chain.path),
                "--catalog",
                str(world.catalog.path),
                "--pack",
                str(pack_path),
                "--pack.signer",
                operator.ss58_address,
                "--wallet.name",
                "honest",
                "--wallet.hotkey",
                "hot",
                "--wallet.path",
                str(wallets),
                "--miner",
                next(iter(skill)),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert cli.returncode == 0, cli.stderr
        rows = {r["hotkey"]: r for r in json.loads(out.read_text())}
        assert [rows[w.hotkey.ss58_address]["matches"] for w in validators.values()] == [True, False, False]
        assert "forged_verdict" in cli.stdout or "re-derives" in cli.stdout
    finally:
        for server in servers.values():
            server.stop()


def test_an_audit_before_the_cut_off_or_of_another_pack_says_so(tmp_path: Path) -> None:
    world = make_world(tmp_path, problems=4, rotation=Rotation(cadence_blocks=10_000, problems_per_race=2))
    chain = LocalChain.init(tmp_path / "chain.sqlite", block_time=0.1)
    with pytest.raises(AuditError, match="not a race of pack"):
        audit_race(chain, world.pack, world.catalog.get, "ffff-1", wallet=None, policy=POLICY)
    with pytest.raises(AuditError, match="cut-off"):
        audit_race(chain, world.pack, world.catalog.get, f"{world.pack.pack_id[:16]}-0", wallet=None, policy=POLICY)


def test_an_audit_of_a_still_sealed_race_says_so_and_stops_then_opens_it_once_its_round_is_out(tmp_path: Path) -> None:
    from arena.beacon import QUICKNET_ROUND_1000
    from arena.problems.pack import sealed_pack
    from validator.audit import race_problems

    world = make_world(tmp_path, problems=8, rotation=Rotation(cadence_blocks=10, problems_per_race=2))
    rotation = world.pack.rotation.model_copy(update={"start_block": 10})
    pack, _ = sealed_pack(world.pack.model_copy(update={"rotation": rotation}), fixed_round=1000)
    batch = pack.sealed[0]
    chain = LocalChain.init(tmp_path / "chain.sqlite", block_time=0.05)
    race_id = f"{pack.pack_id[:16]}-{batch.open_block}"
    with pytest.raises(AuditError, match="still sealed") as raised:
        audit_race(chain, pack, world.catalog.get, race_id, wallet=None, policy=POLICY)
    assert "drand round 1000" in str(raised.value) and "\n" not in str(raised.value)
    chain.publish_pulse(1000, QUICKNET_ROUND_1000, reveal_block=0)
    start, seed_hash, problems = race_problems(chain, pack, race_id)
    assert (start, seed_hash) == (batch.open_block, "drand:1000")
    assert problems and all(p.gold_ids for p in problems)


def test_stakes_are_read_as_of_the_cut_off_a_stake_changed_after_it_changes_no_pooled_weight(tmp_path: Path) -> None:
    world = make_world(tmp_path, problems=6, rotation=Rotation(cadence_blocks=CADENCE, problems_per_race=4))
    chain = LocalChain.init(tmp_path / "chain.sqlite", block_time=0.05)
    wallets = tmp_path / "wallets"
    stakes = {"first": 100.0, "second": 10.0, "third": 10.0}
    validators = {n: create_wallet(n, "hot", wallets) for n in stakes}
    for name, wallet in validators.items():
        chain.register(wallet, validator_permit=True, stake=stakes[name])
    skill: dict[str, float] = {}
    for i, rate in enumerate([0.8, 0.6, 0.5, 0.3]):
        wallet = create_wallet(f"miner{i}", "hot", wallets)
        chain.register(wallet)
        chain.set_commitment(wallet, encode_commitment(f"{i + 1:064x}"))
        skill[wallet.hotkey.ss58_address] = rate
    start = chain.block() + 1
    wait_for_block(chain, start)
    race_id, ids = drawn_race(world, chain, start, 4)
    shelf, built, servers = ResultsShelf(tmp_path / "shelf"), {}, {}
    for i, (name, wallet) in enumerate(validators.items()):  # three honest validators, each its own luck
        store = open_store(tmp_path / f"{name}.sqlite")
        closed_race(store, world, race_id, skill, seed=40 + i, seed_block=start, problem_ids=ids)
        built[name] = build_bundle(store, race_id, wallet, netuid=1, created_block=chain.block())
        shelf.put(built[name].sha256, built[name].data, Release(race_id=race_id, race_start=start))
        store.close()
    view = ChainView(chain, refresh_seconds=0.0)
    for name, wallet in validators.items():
        sub = FastAPI()
        sub.include_router(results_router(shelf, hotkey_ss58=wallet.hotkey.ss58_address, view=view))
        servers[name] = ThreadedServer(sub).start()
    policy = parse_policy("proportional")  # weights follow the pooled scores, so a different median shows
    try:
        for name, wallet in validators.items():
            commit_results(chain, wallet, built[name].sha256, servers[name].url)
        cutoff = start + CADENCE * 3 // 4
        wait_for_block(chain, cutoff + 1)
        before = audit_race(chain, world.pack, world.catalog.get, race_id, wallet=validators["first"], policy=policy)
        blocks = {h: chain.commitments()[h].block for h in skill}
        facts = world.facts(race_id)
        bundles = {validators[n]: built[n] for n in validators}
        assert before.expected == pooled_weights(chain, bundles, facts, start=start, blocks=blocks, policy=policy)

        # after the cut-off the stake moves from the first validator to the second: weighed by today's stakes, the
        # pool would differ, but every validator (and the audit) weighs by the stakes as of the cut-off block
        chain.set_stake(validators["first"].hotkey.ss58_address, 1.0)
        chain.set_stake(validators["second"].hotkey.ss58_address, 1000.0)
        assert pooled_weights(chain, bundles, facts, start=start, blocks=blocks, policy=policy) != before.expected
        graph = chain.metagraph(cutoff)
        assert graph.by_hotkey(validators["first"].hotkey.ss58_address).stake == 100.0
        after = audit_race(chain, world.pack, world.catalog.get, race_id, wallet=validators["first"], policy=policy)
        assert after.expected == before.expected
        assert [s.model_dump() for s in after.standings] == [s.model_dump() for s in before.standings]
    finally:
        for server in servers.values():
            server.stop()


def test_attacker_a_bundle_padded_past_the_races_samples_is_refused_by_the_audit_as_by_the_nodes(
    tmp_path: Path,
) -> None:
    """Attacker: a validator adds a second sample of its favoured miner's runs to a race of one sample per
    problem. Every node refuses its bundle (past the race's samples); the audit must refuse it too, or it pools runs
    the nodes did not and says the honest validators' weights do not match the evidence."""
    world = make_world(tmp_path, problems=6, rotation=Rotation(cadence_blocks=CADENCE, problems_per_race=4))
    chain = LocalChain.init(tmp_path / "chain.sqlite", block_time=0.05)
    wallets = tmp_path / "wallets"
    validators = {n: create_wallet(n, "hot", wallets) for n in ("honest", "second", "padder")}
    for wallet in validators.values():
        chain.register(wallet, validator_permit=True, stake=100.0)
    skill: dict[str, float] = {}
    for i, rate in enumerate([0.8, 0.3]):
        wallet = create_wallet(f"miner{i}", "hot", wallets)
        chain.register(wallet)
        chain.set_commitment(wallet, encode_commitment(f"{i + 1:064x}"))
        skill[wallet.hotkey.ss58_address] = rate
    start = chain.block() + 1
    wait_for_block(chain, start)
    race_id, ids = drawn_race(world, chain, start, 4)
    shelf, built, servers = ResultsShelf(tmp_path / "shelf"), {}, {}
    for i, (name, wallet) in enumerate(validators.items()):
        store = open_store(tmp_path / f"{name}.sqlite")
        closed_race(store, world, race_id, skill, seed=20 + i, seed_block=start, problem_ids=ids)
        bundle = build_bundle(store, race_id, wallet, netuid=1, created_block=chain.block())
        store.close()
        if name == "padder":  # every run of its favoured miner, again as sample 1 (its successes count twice)
            body = bundle.body.model_copy(deep=True)
            favoured = list(skill)[-1]
            body.runs += [r.model_copy(update={"attempt": 1}) for r in body.runs if r.miner == favoured]
            sha, data = seal(body, wallet)
            bundle = type(bundle)(sha256=sha, data=data, body=body)
        built[name] = bundle
        shelf.put(bundle.sha256, bundle.data, Release(race_id=race_id, race_start=start))
    view = ChainView(chain, refresh_seconds=0.0)
    try:
        for name, wallet in validators.items():
            sub = FastAPI()
            sub.include_router(results_router(shelf, hotkey_ss58=wallet.hotkey.ss58_address, view=view))
            servers[name] = ThreadedServer(sub).start()
            commit_results(chain, wallet, built[name].sha256, servers[name].url)
        vector = pooled_weights(  # what the nodes set: the padder's bundle refused (past the race's 1 sample)
            chain,
            {validators[n]: built[n] for n in ("honest", "second")},
            world.facts(race_id),
            start=start,
            blocks={h: chain.commitments()[h].block for h in skill},
            policy=POLICY,
        )
        chain.set_weights(validators["honest"], vector)
        wait_for_block(chain, start + CADENCE * 3 // 4 + 1)
        report = audit_race(chain, world.pack, world.catalog.get, race_id, wallet=validators["honest"], policy=POLICY)
        verdicts = {v.hotkey: v for v in report.validators}
        padder = verdicts[validators["padder"].hotkey.ss58_address]
        assert padder.bundle == "refused: foreign_run" and "sample" in padder.reason, padder.reason
        honest = verdicts[validators["honest"].hotkey.ss58_address]
        assert honest.matches and report.expected == vector, honest.reason
    finally:
        for server in servers.values():
            server.stop()


def test_the_pooled_standings_span_the_window_of_races_and_the_audit_finds_them(tmp_path: Path) -> None:
    """Window W = 2: two honest validators pool two races; race two's pooled standings rest on both races' verified
    runs (of the miners racing now), as the audit rebuilds them from the chain and the bundles alone."""
    from arena.pooling import pool, seed_of
    from validator.pool import Refusal, verify_bundle
    from validator.pool.pooled import to_pooled

    rotation = Rotation(cadence_blocks=CADENCE, problems_per_race=4, window=2)
    world = make_world(tmp_path, problems=6, rotation=rotation)
    chain = LocalChain.init(tmp_path / "chain.sqlite", block_time=0.05)
    wallets = tmp_path / "wallets"
    validators = {n: create_wallet(n, "hot", wallets) for n in ("first", "second")}
    for wallet in validators.values():
        chain.register(wallet, validator_permit=True, stake=100.0)
    skill: dict[str, float] = {}
    for i, rate in enumerate([0.8, 0.5, 0.3]):
        wallet = create_wallet(f"miner{i}", "hot", wallets)
        chain.register(wallet)
        chain.set_commitment(wallet, encode_commitment(f"{i + 1:064x}"))
        skill[wallet.hotkey.ss58_address] = rate
    shelf, servers = ResultsShelf(tmp_path / "shelf"), {}
    view = ChainView(chain, refresh_seconds=0.0)
    for name, wallet in validators.items():
        sub = FastAPI()
        sub.include_router(results_router(shelf, hotkey_ss58=wallet.hotkey.ss58_address, view=view))
        servers[name] = ThreadedServer(sub).start()
    races, prev = [], {n: "" for n in validators}
    try:
        first_start = chain.block() + 1
        for r, start in enumerate((first_start, first_start + CADENCE)):
            wait_for_block(chain, start)
            race_id, ids = drawn_race(world, chain, start, 4)
            runs = {}
            for i, (name, wallet) in enumerate(validators.items()):
                store = open_store(tmp_path / f"{name}-{r}.sqlite")
                closed_race(store, world, race_id, skill, seed=60 + 2 * r + i, seed_block=start, problem_ids=ids)
                built = build_bundle(store, race_id, wallet, netuid=1, created_block=chain.block(), prev=prev[name])
                store.close()
                shelf.put(built.sha256, built.data, Release(race_id=race_id, race_start=start))
                commit_results(chain, wallet, built.sha256, servers[name].url)
                prev[name] = built.sha256
                holders = {wallet.hotkey.ss58_address for wallet in validators.values()}
                verified = verify_bundle(
                    built.data,
                    built.sha256,
                    validator=wallet.hotkey.ss58_address,
                    race=world.facts(race_id),
                    permit_holders=holders,
                )
                assert not isinstance(verified, Refusal), verified.reason
                runs[wallet.hotkey.ss58_address] = [
                    run.model_copy(update={"problem_id": f"{start}:{run.problem_id}"}) for run in to_pooled(verified)
                ]
            races.append((race_id, start, runs))
        race_id, start, _ = races[-1]
        wait_for_block(chain, start + CADENCE * 3 // 4 + 1)
        report = audit_race(chain, world.pack, world.catalog.get, race_id, wallet=validators["first"], policy=POLICY)

        window = {v: races[0][2][v] + races[1][2][v] for v in races[1][2]}
        blocks = {h: chain.commitments()[h].block for h in skill}
        alone = pool(
            races[1][2], {v: 100.0 for v in window}, seed=seed_of(chain.block_hash(start)), commitment_blocks=blocks
        )
        expected = pool(
            window, {v: 100.0 for v in window}, seed=seed_of(chain.block_hash(start)), commitment_blocks=blocks
        )
        assert [s.model_dump() for s in report.standings] == [s.model_dump() for s in expected]
        by_alone = {s.miner: s for s in alone}
        # two races of four problems each: twice this race's samples and problems
        assert all(s.problems == 2 * 4 and s.samples == 2 * by_alone[s.miner].samples for s in report.standings)
        assert [s.model_dump() for s in alone] != [s.model_dump() for s in expected]
    finally:
        for server in servers.values():
            server.stop()
