"""Attacker agents against the rule for an LLM call the upstream chokes on (docs/scoring.md, "An LLM call the upstream
chokes on") with failures that carry no JSON: a 5xx whose body is a proxy's HTML page, and a connection the upstream
drops without an answer; on a running node (`tests/support/llm_race.py`).

As in `test_llm_choker.py`, a weak agent knows one problem of the two a race draws. The honest one asks its model on the
other and answers what it says, a wrong product. Each attacker sends its model a request the upstream fails, while it
answers every other call (and the gateway's probe) at once: one is answered 502 with an HTML page, the other has its
connection closed unanswered. Each is the upstream's failure (2005, 2011 where the miner pays) until the run's last try
after the race's fault wait; there the failure was met while the upstream was well, so it is the agent's request's
doing and the run is scored as what it answered (nothing: 1006). On the code before the rule only a 5xx with a JSON
body was kept with the upstream's well: these failures kept the run the upstream's on its last try too, the race
closed without it, and each attacker scored its known problem alone, twice the honest agent. Both paths: the node's
key pays for one trio, each miner's own key for the other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena import blame
from tests.support.llm_race import agent, llm_race, problems
from tests.support.openai_server import Drop, Fail

pytestmark = pytest.mark.slow  # a node on PostgreSQL, bubblewrap, the gateway, two OpenAI-compatible servers

KINDS = {"honest": "ask", "html": "a request answered with an HTML page", "drop": "a request the upstream drops"}


def model(body: dict[str, Any]) -> str:
    """An upstream that fails the attackers' requests alone, and names a wrong product to any other."""
    content = str(body.get("messages"))
    if KINDS["html"] in content:
        raise Fail(502, "Bad Gateway", html=True)
    if KINDS["drop"] in content:
        raise Drop()
    return "no-such-product"


def test_agents_whose_requests_the_upstream_answers_an_html_5xx_or_drops_earn_no_more_than_an_honest_one(
    tmp_path: Path,
) -> None:
    drawn = problems(tmp_path / "arena")
    names = {n + suffix: kind for n, kind in KINDS.items() for suffix in ("", "paid")}
    keys = {n: f"sk-{n}-own-key-abcdefghijklmnop" for n in names if n.endswith("paid")}
    agents = {n: agent(tmp_path / "a" / n, drawn, n, kind) for n, kind in names.items()}
    with llm_race(tmp_path, drawn, agents, keys=keys, node_llm=model) as raced:
        results = raced.results()
        assert set(results) == set(agents)  # nobody left out of the race
        for suffix in ("", "paid"):
            honest = results["honest" + suffix]
            assert honest.score > 0 and raced.blames("honest" + suffix) == [None]
            for attacker in ("html", "drop"):
                name = attacker + suffix
                run = raced.run(name)
                why = (name, results[name].score, honest.score, run.status, run.error_code, run.sandbox.get("attempts"))
                assert results[name].score <= honest.score, (why, [e for e in raced.log if e.startswith("races.")])
                assert results[name].runs == 2  # its run on the unknown problem counted, not left out
                assert raced.weights[name] <= raced.weights["honest" + suffix]
                # the upstream's failure (retried) until its last try, then what it answered (nothing)
                assert (run.status, run.error_code, run.blame) == ("errored", blame.NO_ANSWER, "agent"), run.error
                blames = raced.blames(name)
                assert blames[-1] == "agent" and "validator" in blames, blames
                (failed,) = [c for c in raced.calls(name) if c.status == 502]
                assert ("not JSON" if attacker == "html" else "dropped the connection") in (failed.error or "")
        assert "races.fault_unconfirmed" in raced.log and "races.closed_without" not in raced.log


def test_an_agent_cannot_have_its_own_runs_dropped_with_its_provider_by_choking_it(tmp_path: Path) -> None:
    """The provider drop (`--gateway.provider_failures`, here at the first failure; each miner must pay) against the
    choker: a failure the agent's request met while its provider was seen well is not counted toward dropping the
    provider, or the attacker would have its unsolved run left out of its score (2012) and score its known problem
    alone, twice the honest agent. It goes on to its last try instead and is scored as what it answered (nothing:
    1006)."""
    drawn = problems(tmp_path / "arena")
    names = {"honestpaid": KINDS["honest"], "htmlpaid": KINDS["html"], "droppaid": KINDS["drop"]}
    keys = {n: f"sk-{n}-own-key-abcdefghijklmnop" for n in names}
    agents = {n: agent(tmp_path / "a" / n, drawn, n, kind) for n, kind in names.items()}
    with llm_race(tmp_path, drawn, agents, keys=keys, node_llm=model, drop_after=1, payer="miner") as raced:
        results = raced.results()
        assert set(results) == set(agents)
        for name in ("htmlpaid", "droppaid"):
            run = raced.run(name)
            assert results[name].score <= results["honestpaid"].score, (name, run.error_code, run.error)
            assert results[name].runs == 2  # its run on the unknown problem counted, not left out
            assert (run.status, run.error_code, run.blame) == ("errored", blame.NO_ANSWER, "agent"), run.error
        assert "races.provider_dropped" not in raced.log
