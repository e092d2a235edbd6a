"""Results bundles end to end: built from a store's closed race, committed on a LocalChain (``sr1``), served by a
real HTTP server to signed requests, fetched and verified; every bad input refused as a whole with one line naming
the validator, and nothing of it stored."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import bittensor as bt
import httpx
import orjson
import pytest
from fastapi import FastAPI
from fastapi.responses import StreamingResponse

from sandbox.serving import ThreadedServer
from tests.support.results import World, closed_race, make_world, open_store
from validator.chain.bittensor_chain import create_wallet
from validator.chain.commitment import RESULTS_PREFIX, encode_commitment, parse_commitment
from validator.chain.local import LocalChain
from validator.chain.results import ResultsCommitment, commit_results, results_commitments
from validator.pool import (
    BuiltBundle,
    Refusal,
    Release,
    ResultsShelf,
    VerifiedBundle,
    build_bundle,
    fetch_results,
    verify_bundle,
)
from validator.pool.bundle import ResultsBundle, seal
from validator.pool.pooled import to_pooled
from validator.pool.serve import ChainView, results_router
from validator.store.repository import Store

pytestmark = pytest.mark.slow  # a built catalog, SQLite stores, HTTP servers on loopback

MINERS = {"5miner-good": 0.9, "5miner-mid": 0.5, "5miner-poor": 0.1}


@dataclass
class Arena:
    world: World
    store: Store
    earlier: Store
    agents: dict[str, str]
    wallets: dict[str, bt.Wallet]
    chain: LocalChain

    def hotkey(self, name: str) -> str:
        return self.wallets[name].hotkey.ss58_address


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    root = tmp_path_factory.mktemp("results")
    world = make_world(root, problems=5)
    store = open_store(root / "store.sqlite")
    agents = closed_race(store, world, "race-200", MINERS, seed=1, samples=2, seed_block=200)
    earlier = open_store(root / "earlier.sqlite")
    closed_race(earlier, world, "race-100", MINERS, seed=2, samples=2, seed_block=100)
    wallets = {name: create_wallet(name, "hot", root / "wallets") for name in ("alice", "bob", "nopermit", "auditor")}
    chain = LocalChain.init(root / "chain.sqlite", block_time=0.05)
    for name in ("alice", "bob"):
        chain.register(wallets[name], validator_permit=True, stake=100.0)
    chain.register(wallets["nopermit"])
    yield Arena(world, store, earlier, agents, wallets, chain)
    store.close()
    earlier.close()


def facts(arena: Arena, race_id: str = "race-200", **extra: Any) -> Any:
    if race_id != "race-200":
        return arena.world.facts(race_id, samples=2, **extra)
    return arena.world.facts(race_id, miners=arena.agents, samples=2, **extra)


def built(arena: Arena, who: str = "alice", *, prev: str = "") -> BuiltBundle:
    return build_bundle(arena.store, "race-200", arena.wallets[who], netuid=1, created_block=230, prev=prev)


def reseal(arena: Arena, body: ResultsBundle, who: str = "alice") -> tuple[str, bytes]:
    return seal(body, arena.wallets[who])


def check(arena: Arena, data: bytes, sha: str, who: str = "alice", **extra: Any) -> VerifiedBundle | Refusal:
    holders = extra.pop("permit_holders", {arena.hotkey("alice"), arena.hotkey("bob")})
    race = facts(arena, extra.pop("race_id", "race-200"), **extra)
    return verify_bundle(data, sha, validator=arena.hotkey(who), race=race, permit_holders=holders)


def refused(result: VerifiedBundle | Refusal, kind: str) -> Refusal:
    assert isinstance(result, Refusal), "the bundle was accepted"
    assert result.kind == kind, result.reason
    assert "\n" not in result.reason and result.validator in result.reason
    return result


# --- building and verifying --------------------------------------------------------------------------------------


def test_a_bundle_holds_every_run_signed_and_verifies_whole(arena: Arena) -> None:
    first = built(arena)
    assert len(first.body.runs) == len(MINERS) * 5 * 2
    assert {(r.miner, r.attempt) for r in first.body.runs} >= {(m, 1) for m in MINERS}
    assert all(r.trajectory and r.trajectory[-1]["name"] == "recommend_product" for r in first.body.runs)
    result = check(arena, first.data, first.sha256)
    assert isinstance(result, VerifiedBundle) and result.bundle.runs == first.body.runs
    # the same race built again is the same bytes (content-addressed); the next one names it as `prev`
    assert built(arena).sha256 == first.sha256
    second = built(arena, prev=first.sha256)
    assert second.body.prev == first.sha256 and second.sha256 != first.sha256


def test_a_bundle_says_pair_by_pair_since_when_each_miner_has_held_the_code_it_shares(arena: Arena) -> None:
    """`dates_of` (the node's `held_dates`) is asked about the raced miners' agents; what it says of the raced
    miners is signed in the bundle (format version 2) and read beside its runs; a block below 0 is refused as
    malformed."""
    asked: list[dict[str, str]] = []
    first, second = sorted(MINERS)[:2]

    def dates_of(raced: Mapping[str, str]) -> dict[str, dict[str, int]]:
        asked.append(dict(raced))
        return {first: {second: 7, "template:offline": 2}, "someone-not-raced": {first: 3}}

    bundle = build_bundle(
        arena.store, "race-200", arena.wallets["alice"], netuid=1, created_block=230, dates_of=dates_of
    )
    assert asked and set(asked[0]) == set(MINERS) and set(asked[0].values()) == set(arena.agents.values())
    assert bundle.body.version == 2 and bundle.body.dates == {first: {second: 7, "template:offline": 2}}
    result = check(arena, bundle.data, bundle.sha256)
    assert isinstance(result, VerifiedBundle) and result.bundle.dates == bundle.body.dates
    body = bundle.body.model_copy(deep=True)
    sha, data = reseal(arena, body.model_copy(update={"dates": {first: {second: -1}}}))
    refused(check(arena, data, sha), "malformed")


def _as_version(body: ResultsBundle, version: int, **fields: Any) -> tuple[ResultsBundle, dict[str, Any]]:
    plain = body.model_dump(mode="json", exclude={"since", "dates"}) | {"version": version, **fields}
    return ResultsBundle.model_validate(plain), plain


def test_a_bundle_of_the_older_format_is_pooled_and_a_newer_one_refused_saying_so(arena: Arena) -> None:
    """Format version 1 (before ``dates``; some nodes wrote ``since`` in it) is verified and pooled, dating nothing;
    a version newer than this node reads is refused with one line saying which and what to do; a version 2 bundle
    carrying ``since``, or a version 1 carrying ``dates``, is malformed."""
    body = built(arena).body
    first = sorted(MINERS)[0]
    for fields in ({}, {"since": {first: 7}}):
        old, plain = _as_version(body, 1, **fields)
        sha, data = seal(old, arena.wallets["alice"], plain=plain)
        result = check(arena, data, sha)
        assert isinstance(result, VerifiedBundle), result
        assert result.bundle.version == 1 and result.bundle.dates == {} and len(to_pooled(result)) == len(body.runs)
    newer, plain = _as_version(body, 3)
    sha, data = seal(newer, arena.wallets["alice"], plain={**plain, "verdicts": {"new": "field"}})
    reason = refused(check(arena, data, sha), "newer_version").reason
    assert arena.hotkey("alice") in reason and "version 3" in reason and "1 to 2" in reason and "\n" not in reason
    for version, fields in ((2, {"since": {first: 7}}), (1, {"dates": {first: {"x": 1}}})):
        odd, plain = _as_version(body, version, **fields)
        sha, data = seal(odd, arena.wallets["alice"], plain=plain)
        refused(check(arena, data, sha), "malformed")


def test_forged_verdicts_are_refused_naming_the_run(arena: Arena) -> None:
    body = built(arena).body.model_copy(deep=True)
    failing = next(r for r in body.runs if r.strict and not r.strict["success"] and r.error_code is None)
    failing.strict = {**failing.strict, "success": True, "final": 1.0}
    failing.final = 1.0 * (failing.judgment or {}).get("coefficient", 1.0)
    sha, data = reseal(arena, body)
    reason = refused(check(arena, data, sha), "forged_verdict").reason
    assert failing.miner in reason and "re-derives False" in reason
    # a final score that is not strict x the judge's coefficient
    body = built(arena).body.model_copy(deep=True)
    passing = next(r for r in body.runs if r.strict and r.strict["success"])
    passing.final = 1.0 if passing.final < 1.0 else 0.5
    sha, data = reseal(arena, body)
    refused(check(arena, data, sha), "forged_verdict")


def test_a_verdict_rescored_by_the_rubric_still_verifies_and_pools_its_re_derived_strict_score(arena: Arena) -> None:
    """`arena-validator rescore` keeps the judged final score in the strict verdict's `final`: the verdict still
    re-derives (success and answer), and the pooled run carries the strict score re-derived, not the claimed one."""
    from validator.pool.pooled import to_pooled

    body = built(arena).body.model_copy(deep=True)
    judged = next(r for r in body.runs if r.strict and r.strict["success"] and r.final < 1.0)
    judged.strict = {**judged.strict, "final": judged.final}
    sha, data = reseal(arena, body)
    result = check(arena, data, sha)
    assert isinstance(result, VerifiedBundle), result
    pooled = {(p.miner, p.problem_id, p.attempt): p for p in to_pooled(result)}
    run = pooled[(judged.miner, judged.problem_id, judged.attempt)]
    assert (run.success, run.score) == (1.0, judged.final)


def test_foreign_runs_duplicates_and_other_races_are_refused(arena: Arena) -> None:
    base = built(arena).body
    body = base.model_copy(deep=True)
    body.runs[0].problem_id = "not-in-this-race"
    refused(check(arena, *reversed(reseal(arena, body))), "foreign_run")
    body = base.model_copy(deep=True)
    body.runs[0].miner = "5stranger"
    refused(check(arena, *reversed(reseal(arena, body))), "foreign_run")
    body = base.model_copy(deep=True)
    body.runs[0].attempt = 5  # the race raced 2 samples
    refused(check(arena, *reversed(reseal(arena, body))), "foreign_run")
    body = base.model_copy(deep=True)
    body.runs.append(body.runs[0])
    refused(check(arena, *reversed(reseal(arena, body))), "duplicate")
    body = base.model_copy(update={"race_id": "another-pack-500"})
    refused(check(arena, *reversed(reseal(arena, body))), "wrong_race")


def test_a_bundle_of_an_earlier_race_is_refused_as_replayed(arena: Arena) -> None:
    old = build_bundle(arena.earlier, "race-100", arena.wallets["alice"], netuid=1, created_block=130)
    assert isinstance(
        verify_bundle(
            old.data,
            old.sha256,
            validator=arena.hotkey("alice"),
            race=arena.world.facts("race-100", samples=2),
            permit_holders={arena.hotkey("alice")},
        ),
        VerifiedBundle,
    )
    refused(check(arena, old.data, old.sha256), "replayed")
    # the same bytes committed again for a later race, whatever they say
    fresh = built(arena)
    refused(check(arena, fresh.data, fresh.sha256, seen={fresh.sha256: "race-100"}), "replayed")


def test_bad_bytes_signatures_and_permits_are_refused(arena: Arena) -> None:
    good = built(arena)
    refused(check(arena, good.data[: len(good.data) // 2], good.sha256), "truncated")
    refused(check(arena, good.data, "0" * 64), "bad_hash")
    envelope = orjson.loads(good.data)
    signed_by_bob = "0x" + bytes(arena.wallets["bob"].hotkey.sign(good.sha256.encode())).hex()
    data = orjson.dumps({"body": envelope["body"], "signature": signed_by_bob})
    refused(check(arena, data, good.sha256), "bad_signature")
    # alice's bundle, committed by bob: signed, but not by the committer
    refused(check(arena, good.data, good.sha256, who="bob"), "bad_signature")
    refused(check(arena, good.data, good.sha256, permit_holders={arena.hotkey("bob")}), "no_permit")
    result = verify_bundle(
        good.data,
        good.sha256,
        validator=arena.hotkey("alice"),
        race=facts(arena),
        permit_holders={arena.hotkey("alice")},
        max_bytes=1000,
    )
    refused(result, "oversized")


# --- the chain ------------------------------------------------------------------------------------------------------


def test_results_commitments_on_localchain_with_permit_and_history(arena: Arena) -> None:
    chain = arena.chain
    first, second = "a" * 64, "b" * 64
    commit_results(chain, arena.wallets["alice"], first, "http://127.0.0.1:9/node")
    at = chain.block()
    while chain.block() == at:
        time.sleep(0.02)
    commit_results(chain, arena.wallets["alice"], second)
    commit_results(chain, arena.wallets["nopermit"], "c" * 64)
    now = {c.hotkey: c for c in results_commitments(chain)}
    assert now[arena.hotkey("alice")].sha256 == second and now[arena.hotkey("alice")].validator_permit
    assert now[arena.hotkey("alice")].stake == 100.0 and now[arena.hotkey("alice")].url is None
    assert not now[arena.hotkey("nopermit")].validator_permit
    then = {c.hotkey: c for c in results_commitments(chain, block=at)}
    assert then[arena.hotkey("alice")].sha256 == first and then[arena.hotkey("alice")].url == "http://127.0.0.1:9/node"
    assert arena.hotkey("nopermit") not in then
    # the miners' own scheme is not a results commitment, nor the other way round
    assert parse_commitment(encode_commitment(first), prefix=RESULTS_PREFIX) is None
    assert parse_commitment(encode_commitment(first, prefix=RESULTS_PREFIX)) is None


# --- serving and fetching over HTTP ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def node(arena: Arena, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, BuiltBundle, ResultsShelf]]:
    """Alice's node: her bundle on its shelf, public from a block far ahead; served by her API's results route."""
    shelf = ResultsShelf(tmp_path_factory.mktemp("shelf"))
    bundle = built(arena)
    shelf.put(bundle.sha256, bundle.data, Release(race_id="race-200", race_start=0, public_block=10**9))
    app = FastAPI()
    view = ChainView(arena.chain, refresh_seconds=0.0)
    app.include_router(results_router(shelf, hotkey_ss58=arena.hotkey("alice"), view=view))
    with ThreadedServer(app) as server:
        yield server.url, bundle, shelf


def served(arena: Arena, url: str, sha: str, who: str = "alice") -> ResultsCommitment:
    return ResultsCommitment(
        hotkey=arena.hotkey(who), uid=0, sha256=sha, url=url, block=1, validator_permit=True, stake=1.0, axon=None
    )


def test_a_served_bundle_is_fetched_by_a_validator_that_published_and_verified(arena: Arena, node: Any) -> None:
    url, bundle, shelf = node
    commit_results(arena.chain, arena.wallets["bob"], "d" * 64)  # bob raced and published his own results
    data = fetch_results(served(arena, url, bundle.sha256), wallet=arena.wallets["bob"], timeout=10)
    assert data == bundle.data and isinstance(check(arena, data, bundle.sha256), VerifiedBundle)
    # stored once, never overwritten
    with pytest.raises(Exception, match="never overwritten"):
        shelf.put(bundle.sha256, b"{}", Release(race_id="race-200", race_start=0))


def test_before_release_only_validators_that_published_may_read(arena: Arena, node: Any) -> None:
    url, bundle, shelf = node
    result = fetch_results(served(arena, url, bundle.sha256), wallet=arena.wallets["auditor"], timeout=10)
    assert isinstance(result, Refusal) and "HTTP 403" in result.reason and "public from block" in result.reason
    unsigned = httpx.get(f"{url}/results/{bundle.sha256}", timeout=10)
    assert unsigned.status_code == 401 and "btauth/1" in unsigned.json()["detail"]
    # from its public block on, anyone who signs reads it (the chain is past block 1 by now)
    public = build_bundle(arena.earlier, "race-100", arena.wallets["alice"], netuid=1, created_block=130)
    shelf.put(public.sha256, public.data, Release(race_id="race-100", race_start=0, public_block=1))
    assert fetch_results(served(arena, url, public.sha256), wallet=arena.wallets["auditor"], timeout=10) == public.data
    missing = fetch_results(served(arena, url, "e" * 64), wallet=arena.wallets["bob"], timeout=10)
    assert isinstance(missing, Refusal) and missing.kind == "unreachable" and "HTTP 404" in missing.reason


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _raw_server(answer: bytes, *, hold: float = 0.0) -> tuple[str, threading.Event]:
    """A one-connection-at-a-time HTTP server that sends `answer` (headers and all) and closes."""
    stop = threading.Event()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.recv(65536)
                conn.sendall(answer)
                stop.wait(hold)
        listener.close()

    threading.Thread(target=serve, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}", stop


def test_unreachable_slow_truncated_and_oversized_sources_are_refused(arena: Arena, node: Any) -> None:
    _, bundle, _ = node
    bob = arena.wallets["bob"]
    gone = fetch_results(served(arena, f"http://127.0.0.1:{_free_port()}", bundle.sha256), wallet=bob, timeout=5)
    refused(gone, "unreachable")
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(bundle.data)}\r\n\r\n".encode()
    url, stop = _raw_server(head + bundle.data[:1000])
    try:
        refused(fetch_results(served(arena, url, bundle.sha256), wallet=bob, timeout=5), "truncated")
    finally:
        stop.set()
    url, stop = _raw_server(head + bundle.data[:10], hold=5.0)
    try:
        refused(fetch_results(served(arena, url, bundle.sha256), wallet=bob, timeout=0.5), "slow")
    finally:
        stop.set()
    app = FastAPI()

    @app.get("/results/{sha}")
    def endless(sha: str) -> StreamingResponse:
        return StreamingResponse(iter([b"x" * 65536] * 64), media_type="application/json")

    with ThreadedServer(app) as server:
        result = fetch_results(served(arena, server.url, bundle.sha256), wallet=bob, timeout=10, max_bytes=100_000)
        refused(result, "oversized")


def test_an_auditor_walks_back_through_prev_to_an_earlier_race(arena: Arena, node: Any) -> None:
    from validator.pool.fetch import walk_back

    url, _, shelf = node
    old = build_bundle(arena.earlier, "race-100", arena.wallets["alice"], netuid=1, created_block=130)
    new = built(arena, prev=old.sha256)
    for bundle, race in ((old, "race-100"), (new, "race-200")):
        shelf.put(bundle.sha256, bundle.data, Release(race_id=race, race_start=0, public_block=1))
    latest = served(arena, url, new.sha256)
    found = walk_back(latest, "race-100", wallet=arena.wallets["auditor"], timeout=10)
    assert isinstance(found, tuple) and found[0].sha256 == old.sha256  # the copy the shelf held first, same body
    assert isinstance(check(arena, found[1], old.sha256, race_id="race-100"), VerifiedBundle)
    assert walk_back(latest, "race-050", wallet=arena.wallets["auditor"], timeout=10) is None


# --- attackers: what a verified bundle can still bend, and what the pooling rule leaves it -------------------------

RIVAL = "5miner-good"


def _pooled_weights(arena: Arena, bundles: dict[str, tuple[str, bytes]], policy: Any) -> dict[int, float]:
    """The weights a node sets from these bundles (validator name -> (sha256, bytes)), each verified for real and
    weighed alike (equal stakes), the miners' commitment blocks in MINERS order."""
    from arena.pooling import pool
    from arena.weights import MinerResult, compute_weights
    from validator.pool.pooled import to_pooled

    holders = {arena.hotkey(name) for name in ("alice", "bob", "auditor")}
    runs = {}
    for name, (sha, data) in bundles.items():
        verified = check(arena, data, sha, who=name, permit_holders=holders)
        assert isinstance(verified, VerifiedBundle), verified
        runs[arena.hotkey(name)] = to_pooled(verified)
    blocks = {miner: 10 + i for i, miner in enumerate(MINERS)}
    standings = pool(runs, dict.fromkeys(runs, 100.0), seed=7, commitment_blocks=blocks)
    results = [MinerResult(hotkey=s.miner, score=s.score, commitment_block=blocks[s.miner]) for s in standings]
    return compute_weights(results, {miner: i + 1 for i, miner in enumerate(MINERS)}, policy)


def _forged(arena: Arena, forge: Any) -> tuple[str, bytes]:
    """alice's honest bundle changed by `forge(runs, re-derived strict scores)`, signed again by alice."""
    honest = built(arena)
    verified = check(arena, honest.data, honest.sha256)
    assert isinstance(verified, VerifiedBundle)
    body = honest.body.model_copy(deep=True)
    body.runs = forge(body.runs, verified.strict)
    sha, data = reseal(arena, body)
    return sha, data


def _judge_and_errors(runs: list[Any], strict: tuple[float, ...], favoured: str = "5miner-poor") -> list[Any]:
    """The favoured miner's every judged run let stand in full (coefficient 1.0); the rival's every success claimed
    as an agent's time-out (an agent error is a claim: nothing re-derives it)."""
    for run, score in zip(runs, strict, strict=True):
        if run.miner == favoured and run.judgment is not None and run.error_code is None:
            run.judgment = {**run.judgment, "coefficient": 1.0}
            run.final = score
        if run.miner == RIVAL and score > 0:
            run.error_code, run.blame, run.final = 1003, "agent", 0.0
    return runs


def _withheld(runs: list[Any], strict: tuple[float, ...], favoured: str = "5miner-mid") -> list[Any]:
    """The favoured miner's failures left out, and every problem the rival solved more often than the favoured miner
    left out for every miner (a whole column: nobody's runs look withheld)."""
    wins: dict[str, int] = {}
    for run, score in zip(runs, strict, strict=True):
        sign = 1 if run.miner == RIVAL else -1 if run.miner == favoured else 0
        wins[run.problem_id] = wins.get(run.problem_id, 0) + sign * (score > 0)
    return [
        run
        for run, score in zip(runs, strict, strict=True)
        if wins[run.problem_id] <= 0 and not (run.miner == favoured and score == 0)
    ]


@pytest.mark.parametrize(
    ("forge", "favoured"),
    [(_judge_and_errors, "5miner-poor"), (_withheld, "5miner-mid")],
    ids=["judge-and-errors", "withheld"],
)
def test_attacker_a_verified_forgery_in_three_earns_its_miner_nothing(arena: Arena, forge: Any, favoured: str) -> None:
    """Attacker: alice favours the poor miner with what verification lets through (judge coefficients of 1.0, the
    rival's successes claimed as agent errors; or the favoured miner's failures and the rival's best problems left
    out). Her bundle verifies; alone it lifts the favoured miner. Pooled with two honest validators, the weights are
    the honest ones byte for byte: the medians leave her one vote out."""
    from arena.weights import parse_policy

    honest = {name: (b.sha256, b.data) for name in ("alice", "bob", "auditor") for b in [built(arena, name)]}
    forged = {**honest, "alice": _forged(arena, lambda runs, strict: forge(runs, strict, favoured))}
    uid = {miner: i + 1 for i, miner in enumerate(MINERS)}
    for policy in (parse_policy("top_heavy"), parse_policy("proportional")):
        fair = _pooled_weights(arena, honest, policy)
        alone = _pooled_weights(arena, {"alice": forged["alice"]}, policy)
        assert alone.get(uid[favoured], 0.0) > fair.get(uid[favoured], 0.0)  # the forgery has teeth alone
        assert _pooled_weights(arena, forged, policy) == fair


def test_a_claimed_spend_is_re_derived_from_the_trajectorys_calls(arena: Arena) -> None:
    """A run's `spend` is the publisher's claim; each LLM call's tokens and cost are in its trajectory: a spend that
    adds up verifies, one that does not (a cost or tokens made up) refuses the bundle in one line naming the run."""
    from arena.spend import run_spend

    body = built(arena).body.model_copy(deep=True)
    run = next(r for r in body.runs if r.error_code is None)
    call = {**run.trajectory[0], "kind": "llm_call", "name": "miner-model", "arguments": {}, "result": {}}
    calls = [
        {
            **call,
            "seq": -2,
            "tokens": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
            "cost": 0.003,
        },
        {
            **call,
            "seq": -1,
            "tokens": {"prompt_tokens": 80, "completion_tokens": 10, "total_tokens": 90},
            "cost": 0.0013,
        },
    ]
    run.trajectory = [*calls, *run.trajectory]
    run.spend = run_spend(run.trajectory, payer="miner", provider="local").model_dump(mode="json")
    sha, data = reseal(arena, body)
    assert isinstance(check(arena, data, sha), VerifiedBundle)  # an honest spend adds up
    for field, value in (("cost", 0.0001), ("prompt_tokens", 20), ("calls", 1)):
        forged = body.model_copy(deep=True)
        target = next(
            r
            for r in forged.runs
            if r.miner == run.miner and r.problem_id == run.problem_id and r.attempt == run.attempt
        )
        target.spend = {**target.spend, field: value}  # e.g. a cheaper run than its calls cost
        sha, data = reseal(arena, forged)
        reason = refused(check(arena, data, sha), "forged_spend").reason
        assert (
            run.miner in reason
            and f"{field} differ" in reason
            and f"its trajectory's calls add up to {run_spend(run.trajectory).calls} LLM call(s)" in reason
        )
