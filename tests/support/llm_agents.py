"""An agent that asks the node's LLM (through the gateway) for a first thought, then works as the offline template:
what it does with an LLM error is its `guard` (let it through, or catch it and carry on)."""

from __future__ import annotations

from pathlib import Path

from demo.agents import MINER_TEMPLATE, write_template

MODEL = "blame-test-model"

# The offline template, asking the node's LLM for a first thought before it works; `{guard}` decides what the agent
# does with an LLM error: let it through (agent_main raises) or catch it and carry on without the thought.
LLM_PREFIX = """

import json as _json
import os as _os
import urllib.request as _request

MINER = {miner!r}
_solve_now = agent_main


def _think(problem):
    body = _json.dumps({{"model": {model!r}, "messages": [{{"role": "user", "content": problem["query"]}}]}}).encode()
    req = _request.Request(_os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=body,
                           headers={{"Content-Type": "application/json"}})
    with _request.urlopen(req, timeout=60) as resp:
        return _json.loads(resp.read())["choices"][0]["message"]["content"]


def agent_main(problem):
{guard}
    return _solve_now(problem)
"""
LET_THROUGH = "    _think(problem)"
CATCH = "    try:\n        _think(problem)\n    except Exception:  # carry on without the LLM\n        pass"


def llm_agent(folder: Path, miner: str, guard: str) -> Path:
    return write_template(folder, MINER_TEMPLATE.read_text() + LLM_PREFIX.format(miner=miner, model=MODEL, guard=guard))
