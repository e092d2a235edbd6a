"""An upstream that trickles its answer a byte at a time, against the rule that the gateway's upstream timeout bounds
the whole LLM call, not each read (docs/scoring.md, "An LLM call that takes too long"), on a running node
(`tests/support/llm_race.py`).

The upstream answers every call at once (the gateway's probe too) but the first request of the honest agents, whose
answer it sends a byte every 0.1 s and never finishes: each byte comes well within httpx's read timeout, so only a
bound on the whole call ends it. The honest agents name a `max_tokens` within the node's cap: a call so bounded that
times out is the upstream's (2005, 2011 where the miner pays), tried again, and the agent scores the problem as the
steady agent beside it, whose calls the upstream never trickles. On the code before the rule the call trickled on until
the run's wall clock, and the upstream, answering the probe, was well: the honest run was the agent's (1003, a zero).

The long agent asks for an endless essay, naming no limit, and the upstream trickles it too: cut off at the timeout,
the call is checked, the upstream is well, and the call is the agent's, too long (1006: it answered nothing). Who is
blamed follows the well check, as for a call the upstream sends nothing of."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from arena import blame
from tests.support.llm_race import agent, llm_race, problems
from tests.support.openai_server import Trickle

pytestmark = pytest.mark.slow  # a node on PostgreSQL, bubblewrap, the gateway, two OpenAI-compatible servers

TIMEOUT = 3.0  # the gateway's upstream timeout here (120 s by default)
WALL = 20.0
LIMIT = 100  # the honest agents' max_tokens, within the node's cap (4096)


class Trickler:
    """An upstream that trickles the first request of each of ``victims`` and every request naming an endless essay;
    it answers everything else at once with ``answer``."""

    def __init__(self, answer: str, victims: tuple[str, ...]) -> None:
        self.answer = answer
        self.victims = set(victims)
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> str:
        content = str(body["messages"][0]["content"]) if body.get("messages") else ""
        if "an endless essay" in content:
            raise Trickle()
        with self.lock:
            victim = next((v for v in self.victims if content.startswith(v + " asks")), None)
            self.victims.discard(victim or "")
        if victim is not None:
            raise Trickle()
        return self.answer


def test_an_upstream_trickling_a_call_past_the_timeout_is_cut_off_and_blamed_by_the_well_check(tmp_path: Path) -> None:
    drawn = problems(tmp_path / "arena")
    keys = {"honestpaid": "sk-honestpaid-own-key-abcdefghijklmnop"}
    agents = {n: agent(tmp_path / "a" / n, drawn, n, "ask", limit=LIMIT) for n in ("honest", "honestpaid", "steady")}
    agents["long"] = agent(tmp_path / "a" / "long", drawn, "long", "an endless essay, please")
    with llm_race(
        tmp_path,
        drawn,
        agents,
        keys=keys,
        node_llm=Trickler(drawn.gold, ("honest", "long")),
        provider=Trickler(drawn.gold, ("honestpaid",)),
        upstream={"timeout": TIMEOUT},
        wall=WALL,
    ) as raced:
        results = raced.results()
        assert set(results) == set(agents)  # nobody left out of the race
        assert raced.blames("steady") == [None]
        for name, code in (("honest", blame.UPSTREAM_LLM_DOWN), ("honestpaid", blame.PROVIDER_DOWN)):
            run = raced.run(name)
            # the trickled call cut off at the timeout, the upstream's (retried); the second try scored
            assert (run.status, run.error_code) == ("finished", None), (run.status, run.error)
            (first,) = run.sandbox["attempts"]
            assert (first["code"], first["blame"]) == (code, "validator"), first
            (cut,) = first["upstream_errors"]
            assert cut["status"] == 502 and "timed out after" in cut["error"], cut
            assert [c.status for c in raced.calls(name)] == [200]
            # it scores as the steady agent the upstream never trickled
            assert results[name].runs == 2 and results[name].score == results["steady"].score > 0
            assert raced.weights[name] > 0
        long = raced.run("long")
        assert (long.status, long.error_code, long.blame) == ("errored", blame.NO_ANSWER, "agent")
        assert long.attempt == 1 and raced.blames("long") == ["agent"]
        (slow,) = [c for c in raced.calls("long") if c.status == 504]
        assert (slow.error or "").startswith("too long: "), slow.error
        assert results["long"].score <= results["steady"].score
        assert "races.closed_without" not in raced.log
