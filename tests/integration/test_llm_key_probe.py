"""An attacker against the rule that, where the miner pays, a probe refused for the miner's own key is the miner's key's
fault (docs/scoring.md, "An LLM call that takes too long"), on a running node (`tests/support/llm_race.py`).

A weak agent knows one problem of the two a race draws. The honest one asks its model on the other and answers what it
says, a wrong product. The attacker pays with its own key: it asks its provider for an endless essay, naming no limit,
and burns its key's rate limit meanwhile, so that the gateway's probe after the call times out is answered 429. The
provider answers everything else at once. Were a refused probe the provider not being well, the call would be the
provider's failure (2011, retried), every try alike, and the race would close without the run: the attacker would score
its known problem alone, twice the honest agent. The probe refused for the miner's key is the miner's key failing
(1009, final): the attacker earns no more than the honest agent.

Two places the gateway probes, one race each: after the call times out (the gateway's timeout 3 s, the wall clock 20 s),
and as the wall clock ends the run with the call pending (10 s, within the gateway's 120 s timeout; the attacker waits
on its call)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from arena import blame
from tests.support.llm_race import agent, llm_race, problems
from tests.support.openai_server import Fail

pytestmark = pytest.mark.slow  # a node on PostgreSQL, bubblewrap, the gateway, two OpenAI-compatible servers

ESSAY = "an endless essay, please"


class Provider:
    """The miner's provider: an endless essay takes it longer than the gateway's timeout, and the attacker burns its
    key's rate limit meanwhile (the next call with its key, the gateway's probe, is answered 429); anything else it
    answers at once with a wrong product."""

    def __init__(self) -> None:
        self.burnt = threading.Event()
        self.release = threading.Event()  # the end of the test

    def __call__(self, body: dict[str, Any]) -> str:
        if body.get("max_tokens") == 1 and self.burnt.is_set():
            self.burnt.clear()
            raise Fail(429, "rate limit reached for this key")
        if ESSAY in str(body.get("messages")):
            self.burnt.set()
            self.release.wait(300)
        return "no-such-product"


# where the gateway probes: (its upstream timeout, the run's wall clock)
PROBED = {"timed_out": (3.0, 20.0), "wall_clock": (120.0, 10.0)}


@pytest.mark.parametrize("probed", list(PROBED))
def test_a_miner_whose_key_fails_the_gateways_probe_on_purpose_earns_no_more_than_an_honest_one(
    tmp_path: Path, probed: str
) -> None:
    timeout, wall = PROBED[probed]
    drawn = problems(tmp_path / "arena")
    keys = {"long": "sk-long-own-key-abcdefghijklmnop"}
    agents = {
        "honest": agent(tmp_path / "a" / "honest", drawn, "honest", "ask"),
        "long": agent(tmp_path / "a" / "long", drawn, "long", ESSAY),
    }
    paid = Provider()
    try:
        with llm_race(
            tmp_path,
            drawn,
            agents,
            keys=keys,
            node_llm=lambda body: "no-such-product",
            provider=paid,
            upstream={"timeout": timeout},
            wall=wall,
        ) as raced:
            results = raced.results()
            assert set(results) == set(agents)  # nobody left out of the race
            assert results["honest"].score > 0 and raced.blames("honest") == [None]
            assert results["long"].score <= results["honest"].score, (results["long"].score, results["honest"].score)
            assert results["long"].runs == 2  # its run on the unknown problem counted, not left out
            assert raced.weights["long"] <= raced.weights["honest"]
            long = raced.run("long")
            # the miner's key failed: final at once, never retried as its provider's failure
            assert (long.status, long.error_code, long.blame) == ("errored", blame.MINER_KEY_REFUSED, "agent")
            assert long.attempt == 1 and raced.blames("long") == ["agent"]
            statuses = sorted(c.status for c in raced.calls("long"))
            # the probe refused, and the call it decided: given the probe's status, or abandoned at the wall clock
            assert statuses == ([429, 429] if probed == "timed_out" else [429, 499]), statuses
            assert long.sandbox["spend"]["payer"] == "miner"
            assert not {"races.fault_wait", "races.closed_without"} & set(raced.log)
    finally:
        paid.release.set()
