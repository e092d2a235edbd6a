"""An attacker agent against the rule for an LLM call the upstream chokes on (docs/scoring.md, "An LLM call the
upstream chokes on"), on a running node: the bubblewrap sandbox, the gateway, PostgreSQL, LocalChain, real
OpenAI-compatible servers on loopback as the node's upstream and as the miners' own provider
(`tests/support/llm_race.py`).

A weak agent knows the answer to one problem of the two a race draws and not the other. The honest one asks its model
on the one it does not know and answers the product it names, a wrong one. The choker sends its model a
request the upstream answers 500 to, and gives up. An upstream 5xx is the upstream's failure (2005, 2011 where the
miner pays): the run is retried, and the race waits out its fault wait; then the node's probe finds the upstream well
and the run gets one more try. Were that try's 5xx still the upstream's, the race would close without the run (left
out of the choker's score, never a zero): it would score its known problem alone, twice the honest agent's. The
upstream answers every other call (and the gateway's probe) at once, so on that last try the 5xx is the choker's own
request's doing: its run is scored as what it answered (nothing: 1006), and it earns no more than the honest agent.
Both paths: the node's key pays for one pair, each miner's own key for the other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena import blame
from tests.support.llm_race import agent, llm_race, problems
from tests.support.openai_server import Fail

pytestmark = pytest.mark.slow  # a node on PostgreSQL, bubblewrap, the gateway, two OpenAI-compatible servers

WALL = 40.0


def test_an_agent_whose_requests_the_upstream_answers_5xx_to_earns_no_more_than_an_honest_one(tmp_path: Path) -> None:
    drawn = problems(tmp_path / "arena")
    kinds = {"honest": "ask", "choker": "a request that chokes the upstream"}
    names = [*kinds, *(f"{n}paid" for n in kinds)]  # the node pays for the first two, each miner for the others
    keys = {f"{n}paid": f"sk-{n}-own-key-abcdefghijklmnop" for n in kinds}
    agents = {n: agent(tmp_path / "a" / n, drawn, n, kinds[n.removesuffix("paid")]) for n in names}

    def model(body: dict[str, Any]) -> str:
        if "chokes the upstream" in str(body.get("messages")):
            raise Fail(500, "internal error")  # this request alone; every other call is answered at once
        return "no-such-product"

    # its runs held on the upstream's 5xx: the race's wait (1 s) spent at once
    with llm_race(tmp_path, drawn, agents, keys=keys, node_llm=model, wall=WALL) as raced:
        results = raced.results()
        assert set(results) == set(names)  # nobody left out of the race
        for suffix in ("", "paid"):
            honest_score = results["honest" + suffix].score
            assert honest_score > 0
            scored = results["choker" + suffix]
            assert scored.score <= honest_score, ("choker" + suffix, scored.score, honest_score)
            assert scored.runs == 2  # its run on the unknown problem counted, not left out
            assert raced.weights["choker" + suffix] <= raced.weights["honest" + suffix]
            honest, choker = raced.run("honest" + suffix), raced.run("choker" + suffix)
            assert (honest.status, honest.error_code) == ("finished", None)
            # the choker's run: the upstream's failure (retried) until its last try, then what it answered (nothing)
            assert (choker.status, choker.error_code, choker.blame) == ("errored", blame.NO_ANSWER, "agent")
            attempts = choker.sandbox["attempts"]
            assert [a["blame"] for a in attempts][-1] == "agent" and "validator" in [a["blame"] for a in attempts]
            failed = [e for e in raced.store.events(choker.run_id) if e.kind == "llm_call" and e.status == 500]
            assert failed, "the choker's request did not reach the upstream"
        assert "races.fault_unconfirmed" in raced.log and "races.closed_without" not in raced.log
