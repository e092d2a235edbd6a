"""An honest agent on an upstream that hangs, against the rule for an LLM call left unanswered (docs/scoring.md, "An
LLM call left unanswered"), on a running node (`tests/support/llm_race.py`).

An honest agent asks its model for the product on the problem it does not know and waits for the answer. Its first
try meets an outage: the upstream answers nothing, the gateway's probe neither, and the wall clock ends the run with
the call pending, well within the gateway's upstream timeout. That is the upstream hanging, a stall (2005, 2011 where
the miner pays), not the agent's: the run is tried again, the upstream has recovered, and the agent scores the problem
as it would have. On the code before the rule any call pending under the gateway's 120 s timeout was the agent's
(abandoned, its wall clock: 1003, a zero), so an outage that began within 120 s of a run's wall clock zeroed an honest
run. Both paths: the node's key pays for one agent, the miner's own key for the other."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from arena import blame
from tests.support.llm_race import agent, llm_race, problems

pytestmark = pytest.mark.slow  # a node on PostgreSQL, bubblewrap, the gateway, two OpenAI-compatible servers

PROBE = 1.0  # the gateway's probe time here (15 s by default)
WALL = 10.0  # the run's wall clock: well within the gateway's upstream timeout (120 s)


class Outage:
    """An upstream that hangs from the start: it answers no call, the gateway's probe neither (the probe is given up
    at its time); once probed it has recovered and answers every call with ``answer``."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.recovered = threading.Event()
        self.release = threading.Event()  # the end of the test: every hung call let go

    def __call__(self, body: dict[str, Any]) -> str:
        if body.get("max_tokens") == 1:  # the gateway's probe as the wall clock ends the run: not answered in time
            self.recovered.set()
            self.release.wait(PROBE + 2)
        elif not self.recovered.is_set():
            self.release.wait(300)
        return self.answer


def test_an_honest_agent_waiting_on_a_hung_upstream_when_its_wall_clock_ends_is_tried_again_not_zeroed(
    tmp_path: Path,
) -> None:
    drawn = problems(tmp_path / "arena")
    keys = {"honestpaid": "sk-honestpaid-own-key-abcdefghijklmnop"}
    agents = {n: agent(tmp_path / "a" / n, drawn, n, "ask") for n in ("honest", "honestpaid")}
    node_outage, provider_outage = Outage(drawn.gold), Outage(drawn.gold)
    try:
        with llm_race(
            tmp_path,
            drawn,
            agents,
            keys=keys,
            node_llm=node_outage,
            provider=provider_outage,
            upstream={"probe_timeout": PROBE},
            wall=WALL,
        ) as raced:
            results = raced.results()
            assert set(results) == set(agents)
            for name, stalled in (("honest", blame.UPSTREAM_LLM_DOWN), ("honestpaid", blame.PROVIDER_DOWN)):
                run = raced.run(name)
                # the first try the upstream's stall (retried), the second scored as the model's answer made it
                assert (run.status, run.error_code, run.blame) == ("finished", None, None), (run.status, run.error)
                assert [a["code"] for a in run.sandbox["attempts"]] == [stalled], run.sandbox["attempts"]
                assert raced.blames(name) == ["validator", None]
                (stall,) = run.sandbox["attempts"][0]["upstream_errors"]
                assert stall["status"] == 504 and "did not answer a probe" in stall["error"]
                (call,) = raced.calls(name)
                assert call.status == 200
                # it scored its two problems, as an agent whose model never hung would
                assert results[name].runs == 2 and results[name].score > 0
                assert raced.weights[name] > 0
            assert results["honest"].score == results["honestpaid"].score
            assert "races.closed_without" not in raced.log
    finally:
        node_outage.release.set()
        provider_outage.release.set()
