"""An attacker agent against the LLM judge's retry: it writes into its run what the judge's provider refuses (here a
phrase its content filter answers 400 to; as well, text past the judge model's context), so that every judge call on
its runs fails while the judge answers every other run. A judge that cannot judge is the node's fault (2004): the run
waits and is judged again, and a race never closes on an unjudged run, so such an agent held every race it ran in
open for ever (no results, no bundle, no weights: the last vector stood, its own place in it too).

Now a run its judge refused `max_attempts` times (or failed twice as often with errors that look passing: a 5xx, a
rate limit, a timeout) while the judge answers a probe (a small run of the arena's own) is judged by the offline gates
(`validator/races/judging.py`), as a run past the race's LLM token budget is: never a zero, never a stalled race, and
no more than the same answers earn from the judge. The race runs on a real node
(LocalChain, bubblewrap, the gateway), the judge a real OpenAI-compatible server on loopback."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from demo.agents import MINER_TEMPLATE, write_template
from tests.integration.test_races import make_arena
from tests.support.openai_server import Fail, OpenAIServer
from tests.support.race import build_arena_inputs, make_chain, open_store, place_submission

pytestmark = pytest.mark.slow  # a race in bubblewrap, the gateway, an OpenAI-compatible judge on loopback

#: what the judge's provider refuses to read (a content filter's 400)
FILTERED = "zq-filtered-phrase"

# The template's answer, after one search whose words the judge's provider refuses (the evidence shows a tool call's
# arguments): every judge call on its run fails, whatever the run did besides.
REFUSER = """

import arena_agent as _arena_agent

_solve_now = agent_main


def agent_main(problem):
    _arena_agent.call_tool("find_product", q=__FILTERED__)
    return _solve_now(problem)
""".replace("__FILTERED__", repr(FILTERED))


#: how the judge's provider fails on what the run holds: a content filter's 400, or an error that looks passing (a
#: 5xx, as a provider that times out or breaks on a prompt gives; a rate limit or a timeout are the same kind) but
#: comes back at every try
REFUSALS = {
    "filtered": Fail(400, "the prompt was filtered by the provider's content management policy"),
    "erring": Fail(503, "the model errored while processing the prompt"),
}


def judge_model(refusal: Fail) -> Any:
    """A judge model that fails a prompt holding the filtered phrase with ``refusal`` and reads every other run as
    citing data without a comparison."""

    def model(body: dict[str, Any]) -> str:
        if FILTERED in json.dumps(body.get("messages")):
            raise refusal
        return json.dumps({"gate": "no_comparison", "explanation": "cites prices, compares nothing", "evidence": [0]})

    return model


@pytest.mark.parametrize("refusal", sorted(REFUSALS))
def test_an_agent_the_judge_refuses_neither_holds_the_race_nor_earns_more(tmp_path: Path, refusal: str) -> None:
    from arena.judge.llm import LLMJudge

    inputs = build_arena_inputs(tmp_path / "arena")
    setup = make_chain(tmp_path, ["honest", "refuser"])
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    agents = {"honest": MINER_TEMPLATE.read_text(), "refuser": MINER_TEMPLATE.read_text() + REFUSER}
    hotkeys = {}
    for i, (name, source) in enumerate(agents.items()):
        hotkeys[name] = setup.miners[name].hotkey.ss58_address
        place_submission(store, data_dir, hotkeys[name], write_template(tmp_path / "agents" / name, source), 10 + i)
    with OpenAIServer(judge_model(REFUSALS[refusal]), models=("judge-a",)) as server:
        judge = LLMJudge(server.base_url, ["judge-a"], rounds=1, backoff=0.01)
        arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir, judge=judge, judge_retry=0.2)
        arena.start()
        try:
            arena.open_race()
            asyncio.run(arena.dispatch())
            closed: list[str] = []
            for _sweep in range(90):  # the judge's backoff (0.2 s, doubling) passes between sweeps
                asyncio.run(arena.judge_runs())
                closed = arena.close_races()
                if closed:
                    break
                time.sleep(0.3)
        finally:
            arena.stop()
        refused = [r for r in server.requests if FILTERED in json.dumps(r.get("messages"))]
    assert refused, "the judge's provider never saw the refuser's run"
    assert closed, "the race never closed: the refuser's runs wait for a judge that refuses them"
    runs = store.runs()
    assert runs and all(r.status == "finished" for r in runs)
    finals: dict[str, list[float]] = {name: [] for name in agents}
    for run in runs:
        score = store.score(run.run_id)
        assert score is not None and score.judge is not None and score.final is not None
        name = next(n for n, h in hotkeys.items() if h == run.hotkey)
        finals[name].append(score.final)
        if name == "refuser":  # the offline gates, saying why
            assert score.judge["judge"] == "offline", score.judge
            assert "the LLM judge failed" in score.judge["explanation"]
        else:
            assert score.judge["gate"] == "no_comparison"
    assert any(f > 0 for f in finals["honest"])  # the template solves some: the comparison means something
    assert sum(finals["refuser"]) <= sum(finals["honest"])
    store.close()
