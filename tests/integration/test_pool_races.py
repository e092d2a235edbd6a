"""Pooling on running nodes: three validators on one LocalChain race six miners, two of them subnet-15 agents on an
LLM whose answers differ per validator. Each validator publishes its results bundle (committed on chain, tried again
when the chain refuses, served by its API), fetches and verifies the others', pools them and sets weights:
byte-identical on all three. A validator that forges verdicts is refused by the other two, who still agree, and
`audit` flags the weights it set; a validator offline for a race changes nothing for the others; one whose bundle
cannot be fetched is waited for until the weights are due, then weighed without."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.problems.pack import Rotation
from tests.support.pool import AGENTS, LLM_AGENTS, PoolNode, SkewClock, start_pool_node
from tests.support.race import build_arena_inputs, drive, make_chain
from validator.chain.local import LocalChain

pytestmark = pytest.mark.slow  # three validators race in bubblewrap

CADENCE = 600  # blocks of half a second; the test moves the chain's clock to each slot
POOL = {
    "pool": True,
    "pool_early": True,
    "pool_cutoff_blocks": 500,
    "pool_wait_blocks": 20,
    "pool_public_blocks": 0,
    "weights_retry": 0.2,  # a commitment the chain refused is tried again after this (doubling)
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("pool"), problems=24, per_race=2)


def _race(nodes: list[PoolNode], chain: LocalChain, clock: SkewClock) -> str:
    """The chain moved to the start of the next slot, where every node opens the slot's race and runs it until it
    closes; the race's id."""
    clock.advance((CADENCE - chain.block() % CADENCE) * chain.block_time)
    block = chain.block()
    ids = set()
    for node in nodes:
        race_id = node.arena.open_race(block)
        assert race_id is not None
        drive(node.arena, lambda n=node, r=race_id: n.store.race(r).status == "closed", race_id)
        ids.add(race_id)
    assert len(ids) == 1
    return ids.pop()


def _publish(node: PoolNode, race_id: str) -> None:
    """The node's publish step, run as its scheduler runs it (a refused commitment is tried again after a backoff)
    until its bundle is committed."""
    deadline = time.time() + 60
    while node.arena.pooling.publish() != [race_id]:
        assert time.time() < deadline and node.store.race_pool(race_id).status == "committing"
        time.sleep(0.2)
    pool = node.store.race_pool(race_id)
    assert pool.status == "committed" and pool.bundle_sha256


def _settle(node: PoolNode, race_id: str, verified: set[str]) -> dict[str, Any]:
    """Run the node's pool job, as its scheduler does every block, until it has verified the bundles of `verified`
    (a serving node may answer 403 for a few seconds, until its view of the chain shows the caller's commitment: the
    fetch is tried again); the validators' rows."""
    deadline = time.time() + 120
    while True:
        node.arena.pooling.pool()
        rows = node.store.race_pool(race_id).state.get("validators") or {}
        if {h for h, v in rows.items() if v["status"] == "verified"} >= verified:
            return dict(rows)
        assert time.time() < deadline, f"{node.name} never verified {verified}: {rows}"
        time.sleep(0.5)


def _weigh(node: PoolNode, race_id: str) -> dict[str, float]:
    """Pool (every permit holder committed, or the cut-off passed), weigh and set the weights; the vector set."""
    node.arena.pooling.pool()
    assert node.arena.weigh() is not None
    assert node.arena.set_weights() == "set"
    ws = node.store.weight_sets()[-1]
    assert ws.race_id == race_id
    return dict(ws.vector)


def _past_cutoff(clock: SkewClock, chain: LocalChain, node: PoolNode, race_id: str) -> None:
    pool = node.store.race_pool(race_id)
    assert pool is not None
    clock.advance((pool.cutoff_block - chain.block() + 1) * chain.block_time)


def test_three_validators_pool_to_one_vector_refuse_a_forger_and_do_without_an_absent_one(
    inputs: Any, tmp_path: Path
) -> None:
    setup = make_chain(tmp_path, list(AGENTS), validators=3, rate_limit=1)
    clock = SkewClock()
    chain = LocalChain(setup.path, clock=clock)
    rotation = Rotation(cadence_blocks=CADENCE, problems_per_race=2)
    nodes = [
        # validator 0's chain gives up on a locked chain file at once (`busy`), so the test can make it refuse
        start_pool_node(
            tmp_path,
            i,
            wallet,
            LocalChain(setup.path, clock=clock, busy_timeout=0.2) if i == 0 else chain,
            inputs,
            rotation,
            setup.miners,
            **POOL,
        )
        for i, wallet in enumerate(setup.validators)
    ]
    try:
        _honest_race(nodes, chain, clock, setup)
        _forged_race(nodes, chain, clock, setup)
        _absent_race(nodes, chain, clock)
        _unreachable_race(nodes, chain, clock)
    finally:
        for node in nodes:
            node.stop()


def _honest_race(nodes: list[PoolNode], chain: LocalChain, clock: SkewClock, setup: Any) -> None:
    race_id = _race(nodes, chain, clock)
    # the LLM agents' runs differ from one validator to the next (their models search otherwise)
    for name in LLM_AGENTS:
        hotkey = setup.miners[name].hotkey.ss58_address
        answers = [
            sorted(
                json.dumps(e.arguments, sort_keys=True)
                for r in n.store.runs(race_id=race_id, hotkey=hotkey)
                for e in n.store.events(r.run_id)
                if e.name == "find_product"
            )
            for n in nodes
        ]
        assert answers[0] != answers[1] != answers[2], name
    # the chain refuses validator 0's first commitment (another writer holds the chain file): the node keeps why,
    # and commits at a later try, before the cut-off
    with sqlite3.connect(setup.path, isolation_level=None) as lock:
        lock.execute("BEGIN IMMEDIATE")
        assert nodes[0].arena.pooling.publish() == []
        lock.execute("ROLLBACK")
    refused = nodes[0].store.race_pool(race_id)
    assert refused.status == "committing" and refused.state["commit_error"].startswith("busy:")
    for node in nodes:
        _publish(node, race_id)
    assert "commit_error" not in nodes[0].store.race_pool(race_id).state
    for node in nodes:
        _settle(node, race_id, {n.hotkey for n in nodes})
    vectors = [_weigh(node, race_id) for node in nodes]
    # byte-identical: the same vector, serialised the same, on every validator
    assert len({json.dumps(v, sort_keys=True) for v in vectors}) == 1
    for node in nodes:
        pool = node.store.race_pool(race_id)
        assert pool.status == "pooled"
        checked = pool.state["validators"]
        assert {h: v["status"] for h, v in checked.items()} == {n.hotkey: "verified" for n in nodes}
        assert all(v["runs"] == len(AGENTS) * 2 for v in checked.values())
    # the chain holds the three rows, equal
    rows = chain.weights()
    assert len({json.dumps(rows[_uid(chain, n.hotkey)], sort_keys=True) for n in nodes}) == 1


def _forged_race(nodes: list[PoolNode], chain: LocalChain, clock: SkewClock, setup: Any) -> None:
    """Validator 2 publishes verdicts its runs do not support (every run of the hostile miner a success) and sets
    weights paying that miner: the other two refuse its bundle, still agree, and the audit flags its weights."""
    from validator.chain.results import commit_results
    from validator.pool import build_bundle
    from validator.pool.bundle import ResultsBundle, seal

    honest, forger = nodes[:2], nodes[2]
    race_id = _race(nodes, chain, clock)
    for node in honest:
        _publish(node, race_id)
    # the forger builds its bundle as the node does, then claims every run of the hostile miner (which never answers)
    # a success, signs that with its hotkey, serves it and commits it
    built = build_bundle(forger.store, race_id, forger.wallet, netuid=chain.netuid, created_block=chain.block())
    body = built.body.model_dump(mode="json")
    hostile = setup.miners["hostile"].hotkey.ss58_address
    for run in body["runs"]:
        if run["miner"] == hostile:
            run.update(final=1.0, error_code=None, blame=None, strict={"success": 1.0, "final": 1.0, "answer": []})
    sha256, data = seal(ResultsBundle.model_validate(body), forger.wallet)
    forger.arena.pooling.shelf.put(sha256, data, forger.arena.pooling._release(forger.store.race(race_id)))
    commit_results(chain, forger.wallet, sha256)
    for node in honest:
        _settle(node, race_id, {n.hotkey for n in honest})
    vectors = [_weigh(node, race_id) for node in honest]
    assert vectors[0] == vectors[1]
    for node in honest:
        seen = node.store.race_pool(race_id).state["validators"]
        assert seen[forger.hotkey]["status"] == "refused" and seen[forger.hotkey]["kind"] == "forged_verdict"
        assert forger.hotkey in seen[forger.hotkey]["reason"]
        assert {h for h, v in seen.items() if v["status"] == "verified"} == {n.hotkey for n in honest}
        # what the operator sees: the race's API (and page) names the refused bundle, /metrics counts it by kind
        shown = httpx.get(f"{node.server.url}/api/races/{race_id}").json()["pool"]["validators"][forger.hotkey]
        assert shown["status"] == "refused" and shown["kind"] == "forged_verdict" and forger.hotkey in shown["reason"]
        text = httpx.get(f"{node.server.url}/metrics").text
        assert 'shoparena_pool_bundles_refused_total{kind="forged_verdict"} 1.0' in text
    # the forger pays its miner everything; the audit says its weights do not follow the pooled evidence
    uid = _uid(chain, hostile)
    chain.set_weights(forger.wallet, {uid: 1.0})
    _past_cutoff(clock, chain, honest[0], race_id)  # anyone audits a race once its cut-off passed
    verdicts = _audit(chain, nodes[0], race_id)
    assert verdicts[forger.hotkey]["matches"] is False
    assert all(verdicts[n.hotkey]["matches"] is True for n in honest)
    # the forgery earns its miner nothing in the honest validators' vectors
    assert vectors[0].get(str(uid), 0.0) == 0.0


def _absent_race(nodes: list[PoolNode], chain: LocalChain, clock: SkewClock) -> None:
    """Validator 2 is offline for this race: the other two wait for the cut-off, pool their two bundles and agree."""
    present = nodes[:2]
    race_id = _race(present, chain, clock)
    for node in present:
        _publish(node, race_id)
        node.arena.pooling.pool()
        assert node.arena.weigh() is None  # validator 2 holds a permit and may still commit: the pool waits
        # waiting for the pool is no stuck node: an hour after the close, health still does not flag the weights
        assert node.arena.progress(now=time.time() + 3600)["weights_unset"] is None
    _past_cutoff(clock, chain, present[0], race_id)
    for node in present:
        _settle(node, race_id, {n.hotkey for n in present})
    vectors = [_weigh(node, race_id) for node in present]
    assert vectors[0] == vectors[1]
    for node in present:
        pool = node.store.race_pool(race_id)
        assert pool.status == "pooled" and set(pool.state["validators"]) == {n.hotkey for n in present}


def _unreachable_race(nodes: list[PoolNode], chain: LocalChain, clock: SkewClock) -> None:
    """Validator 2 races and commits, then its node goes away: the other two say whose bundle they cannot fetch, try
    again every block until the weights are due, then weigh with the two bundles they verified, and say so."""
    present, gone = nodes[:2], nodes[2]
    race_id = _race(nodes, chain, clock)
    for node in nodes:
        _publish(node, race_id)
    gone.server.stop()
    for node in present:
        _settle(node, race_id, {n.hotkey for n in present})
        assert node.arena.weigh() is None  # not fetched yet, and the weights are not due: tried again
        waiting = node.store.race_pool(race_id).state["validators"][gone.hotkey]
        assert waiting["status"] == "unfetched" and gone.hotkey in waiting["reason"]
    pool = present[0].store.race_pool(race_id)
    clock.advance((pool.due_block - chain.block() + 1) * chain.block_time)
    vectors = [_weigh(node, race_id) for node in present]
    assert vectors[0] == vectors[1]
    for node in present:
        pool = node.store.race_pool(race_id)
        assert pool.status == "pooled" and pool.state["validators"][gone.hotkey]["kind"] == "unreachable"
        assert gone.hotkey in pool.state["note"]
        text = httpx.get(f"{node.server.url}/metrics").text
        tries = re.search(r"^shoparena_pool_bundles_unfetched_total (\S+)$", text, re.M)
        assert tries is not None and float(tries[1]) >= 1  # each try that failed, counted
        assert 'shoparena_pool_bundles_refused_total{kind="unreachable"} 1.0' in text


def _uid(chain: LocalChain, hotkey: str) -> int:
    neuron = chain.metagraph().by_hotkey(hotkey)
    assert neuron is not None
    return neuron.uid


def _audit(chain: LocalChain, node: PoolNode, race_id: str) -> dict[str, dict[str, Any]]:
    from validator.audit import audit_race

    report = audit_race(
        chain,
        node.arena.pack,
        node.arena.catalog.get,
        race_id,
        wallet=node.wallet,
        policy=node.arena.policy,
        cutoff_blocks=int(POOL["pool_cutoff_blocks"]),
    )
    return {row.hotkey: {"matches": row.matches, "reason": row.reason} for row in report.validators}


def test_pooled_standings_span_the_window_and_the_audit_finds_each_node_s_weights(inputs: Any, tmp_path: Path) -> None:
    """Window W = 2: two validators pool two races in consecutive slots; the second race's pooled standings rest on
    both races' verified runs (two problems each), both nodes set the same vector, and the audit (chain and bundles
    only) finds both vectors, byte for byte."""
    setup = make_chain(tmp_path, list(AGENTS), validators=2, rate_limit=1)
    clock = SkewClock()
    chain = LocalChain(setup.path, clock=clock)
    rotation = Rotation(cadence_blocks=CADENCE, problems_per_race=2, window=2)
    nodes = [
        start_pool_node(tmp_path, i, wallet, chain, inputs, rotation, setup.miners, **POOL)
        for i, wallet in enumerate(setup.validators)
    ]
    try:
        for _ in range(2):
            race_id = _race(nodes, chain, clock)
            for node in nodes:
                _publish(node, race_id)
            for node in nodes:
                _settle(node, race_id, {n.hotkey for n in nodes})
            vectors = [_weigh(node, race_id) for node in nodes]
            assert vectors[0] == vectors[1]
        starts = sorted(nodes[0].store.race(p.race_id).seed_block for p in nodes[0].store.race_pools())
        assert starts[1] == starts[0] + CADENCE  # consecutive slots: the first is in the second's window
        standings = nodes[0].store.race_pool(race_id).state["standings"]
        assert standings and all(s["problems"] == 2 * 2 for s in standings)  # two races of two problems
        _past_cutoff(clock, chain, nodes[0], race_id)
        verdicts = _audit(chain, nodes[0], race_id)
        assert all(verdicts[n.hotkey]["matches"] is True for n in nodes), verdicts
    finally:
        for node in nodes:
            node.stop()


def test_a_pooled_race_keeps_an_honest_update_ahead_of_a_copy_of_its_first_version(inputs: Any, tmp_path: Path) -> None:
    """The fork rule on, two validators pool one race of the six miners. The miner `offline` first committed a version
    of the template at block R, the last of the miners' registration blocks (validator v0 synced it; v1 joined later
    and holds only its update, at R + 4); `deep` and `lite` (R + 1 and R + 3) are close to the same template. Each
    bundle says pair by pair since when each miner has held the code it shares with the others; the pool takes the
    stake-weighted lower median, so on both nodes `offline` is the earliest of its family and is judged a copy of
    nobody, where by the latest commitment (R + 1 < R + 4) it was judged against `deep`. Both nodes store the same
    verdicts and set the same vector. (Every block is at or after the miner's registration, as on a chain: no date is
    earlier than it.)"""
    from arena.weights import MinerResult
    from demo.agents import MINER_TEMPLATE, variant, write_template
    from tests.support.pool import write_agent
    from tests.support.race import place_submission
    from validator.pool.copies import find_copies

    setup = make_chain(tmp_path, list(AGENTS), validators=2, rate_limit=1)
    clock = SkewClock()
    chain = LocalChain(setup.path, clock=clock)
    rotation = Rotation(cadence_blocks=CADENCE, problems_per_race=2, window=1)
    registered = max(n.block_at_registration for n in chain.metagraph().neurons)
    history = {
        miner: [(write_agent(tmp_path / "agents" / miner, miner), registered + 1 + i)]
        for i, miner in enumerate(sorted(setup.miners))
    }
    nodes = [
        start_pool_node(
            tmp_path, i, wallet, chain, inputs, rotation, setup.miners, history=history, fork_rule=True, **POOL
        )
        for i, wallet in enumerate(setup.validators)
    ]
    offline = setup.miners["offline"].hotkey.ss58_address
    first = write_template(tmp_path / "offline-v1", variant(MINER_TEMPLATE.read_text(), VIEW_BATCH=10))
    place_submission(nodes[0].store, tmp_path / nodes[0].name, offline, first, block=registered)
    try:
        race_id = _race(nodes, chain, clock)
        for node in nodes:
            _publish(node, race_id)
        for node in nodes:
            _settle(node, race_id, {n.hotkey for n in nodes})
        vectors = [_weigh(node, race_id) for node in nodes]
        assert vectors[0] == vectors[1]
        verdicts = [
            sorted((v.hotkey, v.copy_of, v.copy) for v in node.store.copy_verdicts(race_id=race_id)) for node in nodes
        ]
        assert verdicts[0] == verdicts[1]
        names = {setup.miners[n].hotkey.ss58_address: n for n in AGENTS}
        judged = {names[h]: names.get(of, of) for h, of, _ in verdicts[0]}
        assert "offline" not in judged, verdicts[0]
        assert judged.get("deep") == "offline" and judged.get("lite") == "offline", judged
        # what the latest commitment alone would have done: `offline` judged against `deep` (the miners committed
        # nothing on this chain, so the pool's commitment blocks tie; the stores' latest blocks are those commitments)
        state = nodes[1].store.race_pool(race_id).state
        runs = [run for rows in state["runs"].values() for run in rows]
        latest = {setup.miners[m].hotkey.ss58_address: block for m, [(_, block)] in history.items()}
        results = [
            MinerResult(
                hotkey=s["miner"], score=s["score"], commitment_block=latest[s["miner"]], low=s["low"], high=s["high"]
            )
            for s in state["standings"]
        ]
        _, before = find_copies(results, runs, lambda sha: tmp_path / nodes[1].name / "bundles" / sha)
        assert any(names[v.hotkey] == "offline" for v in before), before
    finally:
        for node in nodes:
            node.stop()


def _author_and_thief(root: Path) -> dict[str, Path]:
    """The offline template (`seed`); an honest author's agent: the template and a module of its own (`author`); the
    thief's: the author's bundle with that module under another name (`thief`)."""
    import shutil

    from demo.agents import write_template

    seed = write_template(root / "seed")
    author = write_template(root / "author")
    own = Path(__file__).resolve().parents[2] / "arena" / "pooling" / "sharding.py"  # the author's own code
    (author / "baseline" / "spread.py").write_text(own.read_text())
    thief = root / "thief"
    shutil.copytree(author, thief)
    (thief / "baseline" / "spread.py").rename(thief / "baseline" / "layout.py")
    return {"seed": seed, "author": author, "thief": thief}


def _paid(chain: LocalChain, vector: dict[str, float], hotkey: str) -> float:
    return float(vector.get(str(_uid(chain, hotkey)), 0.0))


def test_a_seed_committed_early_does_not_date_code_stolen_later(inputs: Any, tmp_path: Path) -> None:
    """The fork rule on, two validators pool one race. The thief committed the public template at block 5; the author
    published its agent (the template and code of its own) at block 30; at block 60 the thief commits the author's
    bundle. The thief's early seed holds none of the author's code, so it dates nothing: pair by pair, the author has
    held the code the two share since 30, the thief since 60. The thief is the copy and earns nothing; the author
    earns (by one block per bundle, the stolen bundle was dated 5 through the seed it contains and the author
    zeroed). Both nodes store the same verdicts and set the same vector."""
    agents = _author_and_thief(tmp_path / "agents")
    setup = make_chain(tmp_path, ["author", "thief"], validators=2, rate_limit=1)
    clock = SkewClock()
    chain = LocalChain(setup.path, clock=clock)
    rotation = Rotation(cadence_blocks=CADENCE, problems_per_race=2, window=1)
    history = {"author": [(agents["author"], 30)], "thief": [(agents["seed"], 5), (agents["thief"], 60)]}
    nodes = [
        start_pool_node(
            tmp_path, i, wallet, chain, inputs, rotation, setup.miners, history=history, fork_rule=True, **POOL
        )
        for i, wallet in enumerate(setup.validators)
    ]
    author, thief = (setup.miners[n].hotkey.ss58_address for n in ("author", "thief"))
    try:
        race_id = _race(nodes, chain, clock)
        for node in nodes:
            _publish(node, race_id)
        for node in nodes:
            _settle(node, race_id, {n.hotkey for n in nodes})
        vectors = [_weigh(node, race_id) for node in nodes]
        assert json.dumps(vectors[0], sort_keys=True) == json.dumps(vectors[1], sort_keys=True)
        verdicts = [
            sorted((v.hotkey, v.copy_of, v.copy, v.reason) for v in node.store.copy_verdicts(race_id=race_id))
            for node in nodes
        ]
        assert verdicts[0] == verdicts[1]
        assert [(h, of, copy) for h, of, copy, _ in verdicts[0]] == [(thief, author, True)], verdicts[0]
        assert _paid(chain, vectors[0], author) > 0
        assert _paid(chain, vectors[0], thief) == 0.0 <= _paid(chain, vectors[0], author)
    finally:
        for node in nodes:
            node.stop()


def test_a_lying_validator_cannot_date_a_thief_before_the_author(inputs: Any, tmp_path: Path) -> None:
    """Two validators pool; one lies in its results bundle that the thief has held the author's code since block 0
    (signed and committed as its node would). The thief registered after the author published (block 30). With a
    third of the stake the liar moves no date (race 1); with half of it (race 2, equal stakes: the earlier of the two
    is taken) its date is floored at the thief's registration block, still after the author's. In both races the
    thief is the copy and earns nothing, the author earns."""
    from tests.support.race import make_wallet
    from validator.chain.results import commit_results
    from validator.pool import build_bundle

    agents = _author_and_thief(tmp_path / "agents")
    setup = make_chain(tmp_path, ["author"], validators=2, rate_limit=1)
    clock = SkewClock()
    chain = LocalChain(setup.path, clock=clock)
    clock.advance(100 * chain.block_time)  # the thief's hotkey exists from about block 100
    wallet = make_wallet(setup.wallets, "thief")
    registered = chain.register(wallet).block_at_registration
    assert registered > 30
    miners = {**setup.miners, "thief": wallet}
    rotation = Rotation(cadence_blocks=CADENCE, problems_per_race=2, window=1)
    history = {"author": [(agents["author"], 30)], "thief": [(agents["thief"], registered + 10)]}
    nodes = [
        start_pool_node(tmp_path, i, w, chain, inputs, rotation, miners, history=history, fork_rule=True, **POOL)
        for i, w in enumerate(setup.validators)
    ]
    honest, liar = nodes
    author, thief = setup.miners["author"].hotkey.ss58_address, wallet.hotkey.ss58_address
    try:
        for liar_stake in (50.0, 100.0):
            chain.set_stake(liar.hotkey, liar_stake)
            race_id = _race(nodes, chain, clock)
            _publish(honest, race_id)
            built = build_bundle(
                liar.store,
                race_id,
                liar.wallet,
                netuid=chain.netuid,
                created_block=chain.block(),
                dates_of=lambda raced: {thief: {author: 0}},
            )
            liar.arena.pooling.shelf.put(
                built.sha256, built.data, liar.arena.pooling._release(liar.store.race(race_id))
            )
            commit_results(chain, liar.wallet, built.sha256)
            _settle(honest, race_id, {honest.hotkey, liar.hotkey})
            vector = _weigh(honest, race_id)
            pool = honest.store.race_pool(race_id)
            assert pool.state["stakes"][liar.hotkey] == liar_stake and pool.state["registered"][thief] == registered
            verdicts = [(v.hotkey, v.copy_of, v.copy) for v in honest.store.copy_verdicts(race_id=race_id)]
            assert verdicts == [(thief, author, True)], (liar_stake, verdicts)
            assert _paid(chain, vector, author) > 0 and _paid(chain, vector, thief) == 0.0, (liar_stake, vector)
    finally:
        for node in nodes:
            node.stop()
