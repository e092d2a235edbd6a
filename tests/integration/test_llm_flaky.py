"""An honest agent on a flaky upstream, against the rule that an upstream 5xx is sent again once before it counts
(docs/scoring.md, "An LLM call the upstream chokes on"), on a running node (`tests/support/llm_race.py`).

An honest agent asks its model twice on the problem it does not know (a thought, then a check) and solves it with the
product the model names; on an LLM error it answers its best guess, a wrong one. The upstream is flaky for it: every
other request of its fails 500, the next one is answered. The gateway sends a 5xx's request again once, so each of the
agent's calls is answered, and it scores as the steady agent beside it, whose calls the upstream never fails. On the
code before the rule each try met a 5xx (the upstream's failure, retried), the race waited out its fault wait, the
node's probe found the upstream well, and on the run's last try the 5xx, met while the upstream answered, was read as
the agent's request choking it: the run was scored as the guess, and the honest agent lost the problem. Both paths: the
node's key pays for one flaky agent, the miner's own key for the other."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from tests.support.llm_race import agent, llm_race, problems
from tests.support.openai_server import Fail

pytestmark = pytest.mark.slow  # a node on PostgreSQL, bubblewrap, the gateway, two OpenAI-compatible servers


class Flaky:
    """An upstream answering ``answer`` to every request but every other one of each of ``victims``, which fails 500
    (the first, the third, ...)."""

    def __init__(self, answer: str, victims: tuple[str, ...]) -> None:
        self.answer = answer
        self.seen = dict.fromkeys(victims, 0)
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> str:
        content = str(body["messages"][0]["content"]) if body.get("messages") else ""
        with self.lock:
            victim = next((v for v in self.seen if content.startswith(v + " asks")), None)
            if victim is not None:
                self.seen[victim] += 1
                failing = self.seen[victim] % 2 == 1
        if victim is not None and failing:
            raise Fail(500, "internal error")
        return self.answer


def test_an_honest_agent_on_a_flaky_upstream_scores_as_one_on_a_steady_upstream(tmp_path: Path) -> None:
    drawn = problems(tmp_path / "arena")
    keys = {"flakypaid": "sk-flakypaid-own-key-abcdefghijklmnop"}
    agents = {n: agent(tmp_path / "a" / n, drawn, n, "ask", asks=2) for n in ("flaky", "flakypaid", "steady")}
    node_model, provider_model = Flaky(drawn.gold, ("flaky",)), Flaky(drawn.gold, ("flakypaid",))
    with llm_race(tmp_path, drawn, agents, keys=keys, node_llm=node_model, provider=provider_model) as raced:
        results = raced.results()
        assert set(results) == set(agents)
        assert raced.blames("steady") == [None] and results["steady"].score > 0
        for name, model in (("flaky", node_model), ("flakypaid", provider_model)):
            # it scores as the steady agent the upstream never failed
            assert results[name].runs == 2 and results[name].score == results["steady"].score, (
                name,
                results[name].score,
                results["steady"].score,
            )
            assert raced.weights[name] > 0
            run = raced.run(name)
            # scored on its first try: each 5xx sent again and answered, the first forgotten
            assert (run.status, run.error_code, run.blame) == ("finished", None, None), (run.status, run.error)
            assert run.attempt == 1 and raced.blames(name) == [None]
            assert [c.status for c in raced.calls(name)] == [200, 200]
            assert model.seen[name] == 4  # two calls, each failed once and sent again
        assert not {"races.fault_wait", "races.closed_without"} & set(raced.log)
