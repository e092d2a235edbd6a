"""An honest run on a healthy judge that is rate limited now and then must be judged by the LLM judge, never fall to
the offline gates. A provider's tokens-per-minute limit answers 429 to a large request while a small one still fits
(the arena's probe run is small): on a judge so limited, a long honest run failed `max_attempts` times, the probe
read, and the run went to the offline gates (`validator/races/judging.py`, `_refused`), while its next try would have
been judged. Only what the run itself makes the judge refuse (a 4xx other than a rate limit or a timeout, a
malformed answer) counts toward that fallback; a rate limit, a timeout or a 5xx is the judge's, and the run waits.

The race runs on a real node (LocalChain, bubblewrap, the gateway), the judge a real OpenAI-compatible server on
loopback."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from demo.agents import MINER_TEMPLATE, write_template
from tests.integration.test_races import make_arena
from tests.support.openai_server import Fail, OpenAIServer
from tests.support.race import build_arena_inputs, make_chain, open_store, place_submission

pytestmark = pytest.mark.slow  # a race in bubblewrap, the gateway, an OpenAI-compatible judge on loopback


def limited_judge(tries: int) -> tuple[Any, Counter[str]]:
    """A judge behind a tokens-per-minute limit: a request larger than the arena's probe is refused with 429 its
    first ``tries`` times, then read; a small one always fits."""
    from arena.judge.llm import PROBE_PROBLEM

    seen: Counter[str] = Counter()

    def model(body: dict[str, Any]) -> str:
        prompt = json.dumps(body.get("messages"))
        if PROBE_PROBLEM["query"] not in prompt:
            seen[prompt] += 1
            if seen[prompt] <= tries:
                raise Fail(429, "Rate limit reached for tokens per minute: limit 30000, requested 31200; retry in 2s")
        return json.dumps({"gate": "no_comparison", "explanation": "cites prices, compares nothing", "evidence": [0]})

    return model, seen


def test_an_honest_run_on_a_rate_limited_judge_is_judged_by_it(tmp_path: Path) -> None:
    from arena.judge.llm import LLMJudge

    inputs = build_arena_inputs(tmp_path / "arena")
    setup = make_chain(tmp_path, ["honest"])
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    agent = write_template(tmp_path / "agents" / "honest", MINER_TEMPLATE.read_text())
    place_submission(store, data_dir, setup.miners["honest"].hotkey.ss58_address, agent, 10)
    tries = 3  # each large request refused as many times as the node tries it before it probes the judge
    model, seen = limited_judge(tries)
    with OpenAIServer(model, models=("judge-a",)) as server:
        judge = LLMJudge(server.base_url, ["judge-a"], rounds=1, backoff=0.01)
        arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir, judge=judge, judge_retry=0.2)
        arena.config.max_attempts = tries
        arena.start()
        try:
            arena.open_race()
            asyncio.run(arena.dispatch())
            closed: list[str] = []
            for _sweep in range(80):  # the judge's backoff (0.2 s, doubling) passes between sweeps
                asyncio.run(arena.judge_runs())
                closed = arena.close_races()
                if closed:
                    break
                time.sleep(0.3)
        finally:
            arena.stop()
    assert seen and min(seen.values()) >= tries, "no run's request was refused its first tries"
    assert closed, "the race never closed"
    runs = store.runs()
    assert runs
    for run in runs:
        score = store.score(run.run_id)
        assert score is not None and score.judge is not None
        assert score.judge["judge"] == "llm:judge-a", score.judge["explanation"]  # offline before
        assert score.judge["gate"] == "no_comparison"
    store.close()
