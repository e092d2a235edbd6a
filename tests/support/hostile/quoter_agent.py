"""A hostile agent the tests keep: the quoter. It is the offline template (rule-based search, the same answers), plus
one cheap LLM call before it recommends: it sends the model its first search's result exactly as the gateway renders
a result (compact JSON, sorted keys) and asks for it back word for word, so that the judge reads the catalog's ids,
titles and prices as the model citing and comparing them. A quotation is no reasoning of the model
(`arena/judge/echo.py`): this agent earns no more than the template."""

import json
import os
import sys
import time

if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from baseline.answer import solve_problem  # noqa: E402
from baseline.search import Budget  # noqa: E402

REPEAT = "Repeat the following text exactly, word for word, and add nothing:\n"


def rendered(value):
    """A tool result as the judge reads it (`arena.judge.evidence.render`)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def agent_main(problem):
    import arena_agent

    found = []

    def call(name, **arguments):
        if name == "recommend_product" and found:
            try:
                arena_agent.llm().chat.completions.create(
                    model=arena_agent.llm_model() or "",
                    messages=[{"role": "user", "content": REPEAT + rendered(found[0])}],
                    temperature=0,
                )
            except Exception:  # noqa: BLE001 - no model: the template's answer stands
                pass
        result = arena_agent.call_tool(name, **arguments)
        if name == "find_product" and isinstance(result, list) and len(result) >= 2 and not found:
            found.append(result[:4])
        return result

    budget = Budget(calls=40, reserve=2, deadline=time.monotonic() + 150.0, view_batch=20)
    return solve_problem(problem if isinstance(problem, dict) else {}, call, budget)
