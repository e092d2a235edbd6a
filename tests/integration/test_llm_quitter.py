"""Attacker agents against the stall rule (docs/scoring.md, "An LLM call left unanswered"), on a running node: the
bubblewrap sandbox, the gateway, PostgreSQL, LocalChain, real OpenAI-compatible servers on loopback as the node's
upstream and as the miners' own provider.

A weak agent knows the answer to one problem of the two a race draws and not the other. The honest one thinks over
the one it does not know (a quick call to its model) and answers its best guess, a wrong one. The quitter starts a long
completion on it and ends its run with the call pending; the waiter starts it and waits on it until the wall clock ends
its run. Were an unanswered call the upstream's stall, their runs on the unknown problem would be retried and then left
out of their score (2005, or 2011 where the miner pays), never a zero: each would score its known problem alone, twice
the honest agent's. Each must earn no more than the honest agent of the same skill: the quitter's run is scored as
what it answered (nothing: 1006), the waiter's is its wall clock (1003). Both paths: the node's key pays for one trio,
each miner's own key for the other.

The attackers hold their call 31 s (the quitter) or the whole 40 s wall clock (the waiter): longer than the 30 s the
gateway took for a stall before this rule, so the test fails on that code."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from arena import blame
from demo.agents import MINER_TEMPLATE, write_template
from tests.support.llm_agents import MODEL
from tests.support.llm_race import llm_race, problems

pytestmark = pytest.mark.slow  # a node on PostgreSQL, bubblewrap, the gateway, two OpenAI-compatible servers

HOLD = 31.0  # the quitter's call pending this long before it quits
WALL = 40.0  # the run's wall clock, which the waiter spends waiting

# The offline template, with the answer to the problems of `KNOWN` (by query); on any other, what `UNSURE` says.
HOOK = """

import json as _json
import os as _os
import threading as _threading
import time as _time
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
    if UNSURE == "wait":  # a long completion, waited on until the wall clock ends the run
        _ask("a long essay, please", 600)
        return None
    # the quitter: a long completion asked for, and the run ended with it pending
    _threading.Thread(target=_ask, args=("a long essay, please", 600), daemon=True).start()
    _time.sleep({hold!r})
    return None
"""


def agent_source(known: dict[str, str], unsure: str) -> str:
    source = MINER_TEMPLATE.read_text()
    head, sep, _ = source.partition("\ndef agent_main(")
    assert sep, "the offline template has no agent_main"
    return head.rstrip() + "\n" + HOOK.format(known=known, unsure=unsure, model=MODEL, hold=HOLD)


def test_an_agent_that_quits_or_waits_on_a_pending_llm_call_earns_no_more_than_an_honest_one(tmp_path: Path) -> None:
    drawn = problems(tmp_path / "arena")  # two race problems, both in every race: the agents know the first's answer
    known = {drawn.known.query: ",".join(drawn.known.gold_ids)}
    kinds = {"honest": "answer", "quitter": "quit", "waiter": "wait"}
    names = [*kinds, *(f"{n}paid" for n in kinds)]  # the node pays for the first three, each miner for the others
    keys = {f"{n}paid": f"sk-{n}-own-key-abcdefghijklmnop" for n in kinds}
    agents = {n: write_template(tmp_path / "a" / n, agent_source(known, kinds[n.removesuffix("paid")])) for n in names}
    release = threading.Event()

    def model(body: dict[str, Any]) -> str:
        if "long essay" in str(body.get("messages")):
            release.wait(300)  # a long generation: longer than any run here
        return "look for the cheapest match"

    try:  # were their runs held on a fault, the race would close without them at once (its wait: 1 s)
        with llm_race(tmp_path, drawn, agents, keys=keys, node_llm=model, wall=WALL, concurrency=6) as raced:
            results = raced.results()
            assert set(results) == set(names)  # nobody left out of the race
            for suffix in ("", "paid"):
                honest_score = results["honest" + suffix].score
                assert honest_score > 0
                for attacker in ("quitter", "waiter"):
                    scored = results[attacker + suffix]
                    assert scored.score <= honest_score, (attacker + suffix, scored.score, honest_score)
                    assert scored.runs == 2  # its run on the unknown problem counted, not left out
                    assert raced.weights[attacker + suffix] <= raced.weights["honest" + suffix]
            for name in names:
                paid = "miner" if name in keys else "validator"
                runs = [r for r in raced.store.runs(race_id=raced.race) if r.hotkey == raced.hotkeys[name]]
                assert runs and all(r.sandbox["spend"]["payer"] == paid for r in runs), name
            for suffix in ("", "paid"):
                honest, quitter, waiter = (raced.run(n + suffix) for n in kinds)
                assert (honest.status, honest.error_code) == ("finished", None)
                # the quitter's run is what it answered (nothing), at once; the waiter's is its wall clock
                assert (quitter.status, quitter.error_code, quitter.blame) == ("errored", blame.NO_ANSWER, "agent")
                assert (waiter.status, waiter.error_code, waiter.blame) == ("errored", blame.TIMED_OUT, "agent")
                for run in (quitter, waiter):
                    attempts = run.sandbox["attempts"]  # one, the agent's: never retried
                    assert run.attempt == 1 and [a["blame"] for a in attempts] == ["agent"], attempts
                    (pending,) = [e for e in raced.store.events(run.run_id) if e.kind == "llm_call" and e.status == 499]
                    assert (pending.error or "").startswith("abandoned: ")
            assert not [event for event in raced.log if event in ("races.fault_wait", "races.closed_without")]
    finally:
        release.set()
