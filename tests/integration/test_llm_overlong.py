"""An attacker agent against the rule for an LLM call that takes too long (docs/scoring.md, "An LLM call that takes
too long"), on a running node: the bubblewrap sandbox, the gateway, PostgreSQL, LocalChain, real OpenAI-compatible
servers on loopback as the node's upstream and as the miners' own provider.

A weak agent knows the answer to one problem of the two a race draws and not the other. The honest one thinks over the
one it does not know (a quick call to its model) and answers its best guess, a wrong one. The long one asks its model
for a completion so long that the upstream takes longer than the gateway's upstream timeout over it, waits for the
gateway's answer, and gives up. Were every upstream timeout the upstream's failure, its run on the unknown problem would
be 2005 (2011 where the miner pays), retried, and then left out of its score (never a zero): it would score its known
problem alone, twice the honest agent's. The upstream answers every other call (and the gateway's probe) at once, so
the timeout is the agent's: its run is scored as what it answered (nothing: 1006), and it earns no more than the honest
agent. Both paths: the node's key pays for one pair, each miner's own key for the other."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from arena import blame
from arena.catalog import Catalog
from arena.problems.pack import load_pack
from arena.spend import Price, Provider
from demo.agents import MINER_TEMPLATE, write_template
from miner_template.serve import BundleServer
from sandbox.backends import Limits
from sandbox.gateway import Gateway, Upstream
from tests.support.llm_agents import MODEL
from tests.support.llm_race import NODE_KEY, serve_key
from tests.support.node import RunningNode, make_arena, open_store, wait_until
from tests.support.openai_server import OpenAIServer
from tests.support.postgres import fresh_database
from tests.support.race import build_arena_inputs, make_chain, place_submission
from validator.races.keys import KeyRing
from validator.scheduler import Node

pytestmark = pytest.mark.slow  # a node on PostgreSQL, bubblewrap, the gateway, two OpenAI-compatible servers

TIMEOUT = 4.0  # the gateway's upstream timeout here (120 s by default)
WALL = 40.0

# The offline template, with the answer to the problems of `KNOWN` (by query); on any other, what `UNSURE` says.
HOOK = """

import json as _json
import os as _os
import urllib.error as _error
import urllib.request as _request

KNOWN = {known!r}
UNSURE = {unsure!r}


def _ask(content, timeout):
    body = {{"model": {model!r}, "messages": [{{"role": "user", "content": content}}]}}
    req = _request.Request(
        _os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=_json.dumps(body).encode(),
        headers={{"Content-Type": "application/json"}},
    )
    return _request.urlopen(req, timeout=timeout).read()


def agent_main(problem):
    import arena_agent

    known = KNOWN.get(str(problem.get("query")))
    if known:  # sure: the template's run, its answer the right one
        arena_agent.call_tool("view_product_information", product_ids=known)

        def call(name, **arguments):
            if name == "recommend_product":
                arguments = {{**arguments, "product_ids": known}}
            return arena_agent.call_tool(name, **arguments)

        return solve(problem, call)
    if UNSURE == "answer":  # honest: it thinks it over and answers its best guess, a wrong one
        _ask(problem["query"], 60)
        arena_agent.call_tool("recommend_product", product_ids="no-such-product")
        return None
    # the long one: a completion longer than the upstream can write within the gateway's timeout, waited on
    try:
        _ask("an endless essay, please", 600)
    except _error.HTTPError:
        pass
    return None
"""


def agent_source(known: dict[str, str], unsure: str) -> str:
    source = MINER_TEMPLATE.read_text()
    head, sep, _ = source.partition("\ndef agent_main(")
    assert sep, "the offline template has no agent_main"
    return head.rstrip() + "\n" + HOOK.format(known=known, unsure=unsure, model=MODEL)


def test_an_agent_that_asks_for_a_completion_longer_than_the_timeout_earns_no_more_than_an_honest_one(
    tmp_path: Path,
) -> None:
    inputs = build_arena_inputs(
        tmp_path / "arena", problems=8, per_race=2, splits={"public": 0.25, "race": 0.25, "held_out": 0.5}
    )
    pack = load_pack(inputs[1], trusted_signers={inputs[2]})
    raced = sorted((p for p in pack.problems if p.split == "race"), key=lambda p: p.problem_id)
    assert len(raced) == 2, [p.problem_id for p in raced]
    known = {raced[0].query: ",".join(raced[0].gold_ids)}
    unknown = raced[1].problem_id

    kinds = {"honest": "answer", "long": "long"}
    names = [*kinds, *(f"{n}paid" for n in kinds)]  # the node pays for the first two, each miner for the others
    keys = {f"{n}paid": f"sk-{n}-own-key-abcdefghijklmnop" for n in kinds}
    setup = make_chain(tmp_path, names, rate_limit=0)
    hotkeys = {n: setup.miners[n].hotkey.ss58_address for n in names}
    release = threading.Event()

    def model(body: dict[str, Any]) -> str:
        if "endless essay" in str(body.get("messages")):
            release.wait(300)  # writing it takes longer than the gateway's timeout; every other call is answered
        return "look for the cheapest match"

    servers: list[BundleServer] = []
    with (
        fresh_database("overlong") as url,
        OpenAIServer(model, models=(MODEL,), keys=(NODE_KEY,)) as node_llm,
        OpenAIServer(model, models=(MODEL,), keys=tuple(keys.values())) as provider,
    ):
        store = open_store(url)
        data_dir = tmp_path / "node"
        store.upsert_miners(setup.chain.metagraph().neurons)
        for i, name in enumerate(names):
            agent = write_template(tmp_path / "a" / name, agent_source(known, kinds[name.removesuffix("paid")]))
            place_submission(store, data_dir, hotkeys[name], agent, 10 + i)
        servers += [serve_key(setup, name, key) for name, key in keys.items()]
        upstream = Upstream(base_url=node_llm.base_url, api_key=SecretStr(NODE_KEY), models=[MODEL], timeout=TIMEOUT)
        arena = make_arena(
            store,
            setup.chain,
            setup.validators[0],
            inputs,
            data_dir,
            gateway=Gateway(Catalog.open(inputs[0]), upstream=upstream),
            concurrency=4,
            limits=Limits(wall_seconds=WALL),
            max_attempts=2,
            fault_retry=0.5,
            fault_wait=1.0,  # were its runs held on a fault, the race would close without them at once
        )
        providers = {"local": Provider(base_url=provider.base_url, models={MODEL: Price(prompt=0.5)})}
        ring = KeyRing(
            store=store, chain=setup.chain, wallet=setup.validators[0], providers=providers, payer="either", timeout=5
        )
        arena.use_keys(ring)
        node = Node(arena, block_time=0.5, dispatch_seconds=0.3, close_seconds=0.3, weights_seconds=0.3, log=arena.log)
        try:
            with RunningNode(node):
                wait_until(lambda: bool(store.races()), "the node to open a race")
                race = store.races()[0].race_id
                wait_until(lambda: store.race(race).status != "running", "the race to end")  # type: ignore[union-attr]
                wait_until(lambda: any(ws.race_id == race for ws in store.weight_sets()), "the race's weights")
        finally:
            release.set()
            for server in servers:
                server.stop()
        found = store.race(race)
        assert found is not None and found.status == "closed", (found and found.status, found and found.reason)
        results = {r.hotkey: r for r in store.race_results(race)}
        assert set(results) == set(hotkeys.values())  # nobody left out of the race
        for suffix in ("", "paid"):
            honest_score = results[hotkeys["honest" + suffix]].score
            assert honest_score > 0
            scored = results[hotkeys["long" + suffix]]
            assert scored.score <= honest_score, ("long" + suffix, scored.score, honest_score)
            assert scored.runs == 2  # its run on the unknown problem counted, not left out
        (weights,) = [ws for ws in store.weight_sets() if ws.race_id == race]
        uids = {n.hotkey: n.uid for n in setup.chain.metagraph().neurons}
        weight = {n: float(weights.vector.get(str(uids[hotkeys[n]]), 0)) for n in names}
        for suffix in ("", "paid"):
            assert weight["long" + suffix] <= weight["honest" + suffix]
        runs = {n: {r.problem_id: r for r in store.runs(race_id=race) if r.hotkey == hotkeys[n]} for n in names}
        for suffix in ("", "paid"):
            honest, long = (runs[n + suffix][unknown] for n in kinds)
            assert (honest.status, honest.error_code) == ("finished", None)
            # the long one's run is what it answered (nothing), never retried
            assert (long.status, long.error_code, long.blame) == ("errored", blame.NO_ANSWER, "agent")
            attempts = long.sandbox["attempts"]
            assert long.attempt == 1 and [a["blame"] for a in attempts] == ["agent"], attempts
            (slow,) = [e for e in store.events(long.run_id) if e.kind == "llm_call" and e.status == 504]
            assert (slow.error or "").startswith("too long: "), slow.error
        assert not [event for _, event, _ in arena.log.records if event in ("races.fault_wait", "races.closed_without")]
        store.close()
