"""A race where miners pay for their own inference, with the real pieces: LocalChain, each miner's `arena-miner serve`
app handing its key sealed, the bubblewrap sandbox, the gateway in front of two real OpenAI-compatible servers that
require their own bearer key (the node's upstream, the miner's provider), the store, the API and a results bundle.

The paying miner's runs reach its provider with its key and never the node's; its agent, which hunts for the key,
finds nothing; a miner whose key its provider refuses, and one that hands no key, score 0 with code 1009 and one line;
after the race the key is nowhere: store, data folder, logs, API, /metrics, results bundle (grepped whole); the costs
add up per call, run, race and miner (docs/validator.md, "Who pays for inference")."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from arena import blame
from arena.catalog import Catalog
from arena.spend import Price, Provider
from demo.agents import MINER_TEMPLATE, write_template
from miner_template.serve import BundleServer, ValidatorPermits, create_app
from sandbox.bundle import pack_dir
from sandbox.gateway import Gateway, Upstream
from tests.integration.test_blame import make_arena, open_store
from tests.support.keyleak import entities, leaks, percent
from tests.support.llm_agents import MODEL
from tests.support.openai_server import OpenAIServer
from tests.support.race import build_arena_inputs, make_chain, place_submission
from validator.api import create_app as api_app
from validator.chain.sealedkey import MinerKeyConfig
from validator.metrics import Metrics
from validator.pool.build import build_bundle
from validator.races.keys import KeyRing

pytestmark = pytest.mark.slow  # LocalChain, bubblewrap, the gateway, OpenAI-compatible servers

NODE_KEY = "node-upstream-key-0123456789"
MINER_KEY = "sk-miner-own-key-abcdefghijklmnop"
PRICE = Price(prompt=0.5, completion=1.5)

# The offline template, asking the LLM for a first thought, after hunting for any key it can reach: the
# environment, every process's environment, the files it may read, the gateway's answers. What it finds goes into its
# LLM call (recorded in the trajectory), so a key it could read would be in the store.
HUNTER = """

import glob as _glob
import json as _json
import os as _os
import urllib.request as _request

_solve_now = agent_main


def _found():
    seen = []
    for text in [_json.dumps(dict(_os.environ))]:
        seen.append(text)
    for path in _glob.glob("/proc/*/environ") + _glob.glob("/proc/*/cmdline"):
        try:
            seen.append(open(path, "rb").read().decode("latin-1"))
        except OSError:
            pass
    for root in ("/tmp", "/run", "/etc", _os.getcwd()):
        for path in _glob.glob(root + "/**", recursive=True)[:500]:
            try:
                seen.append(open(path, "rb").read(65536).decode("latin-1"))
            except OSError:
                pass
    return [t[t.find("sk-"):t.find("sk-") + 40] for t in seen if "sk-" in t]


def _ask(path, body=None):
    data = None if body is None else _json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    req = _request.Request(_os.environ["OPENAI_BASE_URL"] + path, data=data, headers=headers)
    try:
        with _request.urlopen(req, timeout=60) as resp:
            return resp.read().decode()
    except Exception as exc:
        return getattr(exc, "read", lambda: str(exc).encode())().decode()


def agent_main(problem):
    found = _found()
    models = _ask("/models")
    answer = _ask("/chat/completions", {"model": __MODEL__, "messages": [
        {"role": "user", "content": problem["query"] + " found: " + " ".join(found) + models}]})
    if "sk-" + "miner" in answer:
        _ask("/chat/completions", {"model": __MODEL__, "messages": [{"role": "user", "content": "leak " + answer}]})
    return _solve_now(problem)
""".replace("__MODEL__", repr(MODEL))


class Lines:
    """Every log line the node and its key ring wrote, as text."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __getattr__(self, level: str) -> Any:
        return lambda event, **fields: self.lines.append(f"{level} {event} {fields}")

    def __call__(self, event: str, **fields: Any) -> None:
        self.lines.append(f"warning {event} {fields}")


def serve_key(setup: Any, name: str, key: str | None, provider: str = "local") -> BundleServer:
    """The miner's `arena-miner serve` app with its key (None: it holds none), its axon published on chain."""
    wallet = setup.miners[name]
    bundle = pack_dir(write_template(setup.path.parent / "served" / name, MINER_TEMPLATE.read_text()))
    permits = ValidatorPermits(setup.chain, refresh_seconds=60, min_refresh_seconds=0.0)
    llm_key = None if key is None else MinerKeyConfig(provider, SecretStr(key), MODEL)
    server = BundleServer(create_app(bundle, hotkey_ss58=wallet.hotkey.ss58_address, permits=permits, llm_key=llm_key))
    server.start()
    setup.chain.serve_axon(wallet, "127.0.0.1", server.port)
    return server


def reflecting(body: dict[str, Any]) -> str:
    """A provider that reflects the key it was sent: whole, percent-encoded, as HTML entities, upper-cased."""
    return f"look for the cheapest match ({MINER_KEY} {percent(MINER_KEY)} {entities(MINER_KEY)} {MINER_KEY.upper()})"


def test_miners_pay_with_their_own_keys_and_the_key_goes_nowhere_else(tmp_path: Path) -> None:
    inputs = build_arena_inputs(tmp_path / "arena", problems=16, per_race=2)
    names = ["payer", "refused", "keyless"]
    setup = make_chain(tmp_path, names)
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    hotkeys = {n: setup.miners[n].hotkey.ss58_address for n in names}
    for i, name in enumerate(names):
        agent = write_template(tmp_path / "agents" / name, MINER_TEMPLATE.read_text() + HUNTER)
        place_submission(store, data_dir, hotkeys[name], agent, block=10 + i)
    servers = [
        serve_key(setup, "payer", MINER_KEY),
        serve_key(setup, "refused", "sk-miner-revoked-key-0000000000"),  # its provider does not take it
        serve_key(setup, "keyless", None),
    ]
    log, metrics = Lines(), Metrics(store)
    with (
        OpenAIServer(lambda body: "look for the cheapest match", models=(MODEL,), keys=(NODE_KEY,)) as node,
        OpenAIServer(reflecting, models=(MODEL,), keys=(MINER_KEY,)) as miner,
    ):
        catalog = Catalog.open(inputs[0])
        upstream = Upstream(base_url=node.base_url, api_key=NODE_KEY, models=[MODEL])
        gateway = Gateway(catalog, upstream=upstream)
        arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir, gateway=gateway, log=log)
        arena.metrics = metrics
        providers = {"local": Provider(base_url=miner.base_url, models={MODEL: PRICE})}
        ring = KeyRing(
            store=store, chain=setup.chain, wallet=setup.validators[0], providers=providers, payer="miner", log=log
        )
        arena.use_keys(ring)
        arena.start()
        try:
            race_id = arena.open_race()
            assert race_id is not None
            deadline = time.time() + 300
            while not all(r.status in ("finished", "errored") for r in store.runs(race_id=race_id)):
                assert time.time() < deadline, "the race's runs did not end"
                asyncio.run(arena.dispatch())
                asyncio.run(arena.judge_runs())
            assert ring.held() == 2  # the keys that opened (the refused miner's too), in memory for the race
            assert arena.close_races() == [race_id]
            assert ring.held() == 0  # forgotten as the race closed
        finally:
            arena.stop()
            for server in servers:
                server.stop()
    # the paying miner's calls reached its provider with its key only; the node's upstream was never asked
    revoked = "sk-miner-revoked-key-0000000000"
    assert f"Bearer {MINER_KEY}" in miner.auth_headers and set(miner.auth_headers) <= {
        f"Bearer {MINER_KEY}",
        f"Bearer {revoked}",  # the refused miner's own key, which its provider refused
    }
    assert node.auth_headers == []
    runs = {n: [r for r in store.runs(race_id=race_id) if r.hotkey == hotkeys[n]] for n in names}
    assert all(r.status == "finished" and r.sandbox["spend"]["payer"] == "miner" for r in runs["payer"])
    # the miner whose key its provider refuses, and the one that hands none: 1009, the miner's, 0, one line
    for name, line in (("refused", "refused the miner's key (401)"), ("keyless", "holds no LLM key")):
        for run in runs[name]:
            assert (run.status, run.error_code, run.blame) == ("errored", blame.MINER_KEY_REFUSED, "agent")
            assert line in (run.error or "") and "\n" not in (run.error or "")
    results = {r.hotkey: r for r in store.race_results(race_id)}
    assert results[hotkeys["refused"]].score == 0 and results[hotkeys["keyless"]].score == 0
    # the costs add up: per call (at the operator's price), per run, per race, per miner, on /metrics
    client = TestClient(api_app(store, metrics=metrics))
    race_cost = 0.0
    for run in runs["payer"]:
        calls = [e for e in store.events(run.run_id) if e.kind == "llm_call" and e.tokens]
        assert calls and all(
            e.cost == pytest.approx(PRICE.cost(e.tokens["prompt_tokens"], e.tokens["completion_tokens"])) for e in calls
        )
        spend = run.sandbox["spend"]
        assert spend["cost"] == pytest.approx(sum(e.cost for e in calls)) == pytest.approx(run.cost)
        assert spend["prompt_tokens"] + spend["completion_tokens"] == run.tokens
        page = client.get(f"/api/runs/{run.run_id}").json()
        assert page["spend"]["line"].endswith("paid by the miner (local)") and page["spend"]["cost"] == spend["cost"]
        race_cost += spend["cost"]
    assert race_cost > 0
    scraped = client.get("/metrics").text
    paid = [line for line in scraped.splitlines() if line.startswith('shoparena_llm_spend_usd_total{payer="miner"}')]
    assert paid and float(paid[0].split()[-1]) == pytest.approx(race_cost)
    # per miner: the race's cost and solved problems, the miner page's cost per solved problem
    solved = sum(1 for r in runs["payer"] if (store.score(r.run_id) and store.score(r.run_id).success))
    assert store.miner_costs(race_id)[hotkeys["payer"]] == (pytest.approx(race_cost), solved)
    assert store.miner_costs(race_id)[hotkeys["keyless"]] == (0.0, 0)
    shown = client.get(f"/api/miners/{hotkeys['payer']}").json()["llm_cost"]
    assert shown["cost"] == pytest.approx(race_cost) and shown["solved"] == solved
    assert shown["cost_per_solved"] == (pytest.approx(race_cost / solved) if solved else None)
    # the results bundle carries each run's spend
    built = build_bundle(store, race_id, setup.validators[0], netuid=1, created_block=setup.chain.block())
    in_bundle = sum((r.spend or {}).get("cost", 0.0) for r in built.body.runs if r.miner == hotkeys["payer"])
    assert in_bundle == pytest.approx(race_cost)
    # the key is nowhere: store, data folder (bundles, logs), the node's log lines, the API, /metrics, the bundle
    store.close()
    haystacks: dict[str, bytes] = {
        "bundle": built.data,
        "log": "\n".join(log.lines).encode(),
        "metrics": scraped.encode(),
    }
    for path in [tmp_path / "node.sqlite", *data_dir.rglob("*")]:
        if path.is_file():
            haystacks[str(path)] = path.read_bytes()
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    client = TestClient(api_app(store, metrics=metrics))
    for route in (f"/api/races/{race_id}", "/api/runs?limit=100", "/api/miners", "/healthz"):
        haystacks[route] = client.get(route).content
    for run in store.runs(race_id=race_id):
        haystacks[run.run_id] = client.get(f"/api/runs/{run.run_id}").content
        haystacks[run.run_id + "/trajectory"] = client.get(f"/api/runs/{run.run_id}/trajectory").content
    assert len(haystacks) > 10
    for where, data in haystacks.items():
        assert MINER_KEY.encode() not in data and b"sk-miner" not in data, f"the miner's key leaked into {where}"
        assert leaks(data, MINER_KEY) == [], f"the miner's key leaked into {where}"
        assert NODE_KEY.encode() not in data, f"the node's key leaked into {where}"
    store.close()


def test_a_miners_provider_that_keeps_failing_is_nobodys_fault_and_the_race_goes_on_without_it(tmp_path: Path) -> None:
    """The flaky provider fails every call: after `drop_after` (3) failures in the race, its miner's runs are not
    dispatched any more; they end 2012 (nobody's, final, no score: the miner is left out of the race's results, never
    0), the race closes at once (no fault wait), and the log, /metrics and the race page say which provider and why."""
    from tests.support.openai_server import Fail

    def down(body: dict[str, Any]) -> str:
        raise Fail(503, "provider overloaded")

    inputs = build_arena_inputs(tmp_path / "arena", problems=16, per_race=2)
    names = ["steady", "flaky"]
    setup = make_chain(tmp_path, names)
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    hotkeys = {n: setup.miners[n].hotkey.ss58_address for n in names}
    for i, name in enumerate(names):
        agent = write_template(tmp_path / "agents" / name, MINER_TEMPLATE.read_text() + HUNTER)
        place_submission(store, data_dir, hotkeys[name], agent, block=10 + i)
    servers = [serve_key(setup, "steady", MINER_KEY), serve_key(setup, "flaky", MINER_KEY, provider="flaky")]
    log, metrics = Lines(), Metrics(store)
    with (
        OpenAIServer(lambda body: "look for the cheapest match", models=(MODEL,), keys=(MINER_KEY,)) as good,
        OpenAIServer(down, models=(MODEL,), keys=(MINER_KEY,)) as bad,
    ):
        gateway = Gateway(Catalog.open(inputs[0]), upstream=Upstream())
        arena = make_arena(
            store,
            setup.chain,
            setup.validators[0],
            inputs,
            data_dir,
            gateway=gateway,
            log=log,
            max_attempts=3,  # 6 attempts of the flaky provider's 2 runs without the drop
            fault_retry=0.3,
            fault_wait=3600.0,  # a race held on a fault would outlast the test: the drop is what closes it
        )
        arena.metrics = metrics
        providers = {
            "local": Provider(base_url=good.base_url, models={MODEL: PRICE}),
            "flaky": Provider(base_url=bad.base_url, models={MODEL: PRICE}),
        }
        ring = KeyRing(
            store=store,
            chain=setup.chain,
            wallet=setup.validators[0],
            providers=providers,
            payer="miner",
            log=log,
            drop_after=3,
        )
        arena.use_keys(ring)
        arena.start()
        try:
            race_id = arena.open_race()
            assert race_id is not None
            deadline = time.time() + 300
            while store.race(race_id).status == "running":  # type: ignore[union-attr]
                assert time.time() < deadline, "the race did not close"
                asyncio.run(arena.dispatch())
                asyncio.run(arena.judge_runs())
                arena.close_races()
                time.sleep(0.2)
        finally:
            arena.stop()
            for server in servers:
                server.stop()
    race = store.race(race_id)
    assert race is not None and race.status == "closed", race.reason
    flaky = [r for r in store.runs(race_id=race_id) if r.hotkey == hotkeys["flaky"]]
    assert flaky and all(r.error_code == blame.PROVIDER_DROPPED and r.blame == "validator" for r in flaky)
    assert all(store.score(r.run_id) is None for r in flaky)  # never a zero: left out
    assert all("provider 'flaky': it failed 3 times" in (r.error or "") for r in flaky)
    attempts = [a for r in flaky for a in (r.sandbox or {}).get("attempts", []) if a.get("code") == blame.PROVIDER_DOWN]
    assert 3 <= len(attempts) <= 4  # none started after the third failure (one may have been in flight then)
    results = {r.hotkey: r for r in store.race_results(race_id)}
    assert hotkeys["steady"] in results and results[hotkeys["steady"]].runs == 2
    assert hotkeys["flaky"] not in results  # void for that miner in this race: absent, not scored 0
    # the log, /metrics and the race page say which provider the race went on without, and why
    assert [line for line in log.lines if "races.provider_dropped" in line and "'flaky'" in line]
    client = TestClient(api_app(store, metrics=metrics))
    assert 'shoparena_providers_dropped_total{provider="flaky"} 1.0' in client.get("/metrics").text
    dropped = client.get(f"/api/races/{race_id}").json()["providers_dropped"]
    assert dropped == [{"reason": flaky[0].error, "runs": len(flaky)}] and "failed 3 times" in dropped[0]["reason"]
    store.close()
