"""An attacker agent against the rule for an LLM call that takes too long (docs/scoring.md, "An LLM call that takes
too long"), on a running node: the bubblewrap sandbox, the gateway, PostgreSQL, LocalChain, real OpenAI-compatible
servers on loopback as the node's upstream and as the miners' own provider (`tests/support/llm_race.py`).

A weak agent knows the answer to one problem of the two a race draws and not the other. The honest one asks its model
on the one it does not know and answers the product it names, a wrong one. The long one asks its model
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

from arena import blame
from tests.support.llm_race import agent, llm_race, problems

pytestmark = pytest.mark.slow  # a node on PostgreSQL, bubblewrap, the gateway, two OpenAI-compatible servers

TIMEOUT = 4.0  # the gateway's upstream timeout here (120 s by default)
WALL = 40.0


def test_an_agent_that_asks_for_a_completion_longer_than_the_timeout_earns_no_more_than_an_honest_one(
    tmp_path: Path,
) -> None:
    drawn = problems(tmp_path / "arena")
    kinds = {"honest": "ask", "long": "an endless essay, please"}
    names = [*kinds, *(f"{n}paid" for n in kinds)]  # the node pays for the first two, each miner for the others
    keys = {f"{n}paid": f"sk-{n}-own-key-abcdefghijklmnop" for n in kinds}
    agents = {n: agent(tmp_path / "a" / n, drawn, n, kinds[n.removesuffix("paid")]) for n in names}
    release = threading.Event()

    def model(body: dict[str, Any]) -> str:
        if "endless essay" in str(body.get("messages")):
            release.wait(300)  # writing it takes longer than the gateway's timeout; every other call is answered
        return "no-such-product"

    try:  # were its runs held on a fault, the race would close without them at once (its wait: 1 s)
        with llm_race(
            tmp_path, drawn, agents, keys=keys, node_llm=model, upstream={"timeout": TIMEOUT}, wall=WALL
        ) as raced:
            results = raced.results()
            assert set(results) == set(names)  # nobody left out of the race
            for suffix in ("", "paid"):
                honest_score = results["honest" + suffix].score
                assert honest_score > 0
                scored = results["long" + suffix]
                assert scored.score <= honest_score, ("long" + suffix, scored.score, honest_score)
                assert scored.runs == 2  # its run on the unknown problem counted, not left out
                assert raced.weights["long" + suffix] <= raced.weights["honest" + suffix]
                honest, long = raced.run("honest" + suffix), raced.run("long" + suffix)
                assert (honest.status, honest.error_code) == ("finished", None)
                # the long one's run is what it answered (nothing), never retried
                assert (long.status, long.error_code, long.blame) == ("errored", blame.NO_ANSWER, "agent")
                attempts = long.sandbox["attempts"]
                assert long.attempt == 1 and [a["blame"] for a in attempts] == ["agent"], attempts
                (slow,) = [e for e in raced.store.events(long.run_id) if e.kind == "llm_call" and e.status == 504]
                assert (slow.error or "").startswith("too long: "), slow.error
            assert not [event for event in raced.log if event in ("races.fault_wait", "races.closed_without")]
    finally:
        release.set()
