"""A hostile agent the tests keep: the query parrot. It is the offline template (rule-based search, the same answers),
plus one cheap LLM call after its first search: it sends the model the shopper's query and asks for it three times,
so that the judge counts the query's words as the model's reasoning tokens. A quotation of the query is no reasoning
of the model (`arena/judge/echo.py`): this agent earns no more than the template."""

import os
import sys
import time

if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from baseline.answer import solve_problem  # noqa: E402
from baseline.search import Budget  # noqa: E402

THRICE = "Say the following text three times, one per line, and add nothing:\n"


def agent_main(problem):
    import arena_agent

    query = problem.get("query", "") if isinstance(problem, dict) else ""
    said = []

    def call(name, **arguments):
        result = arena_agent.call_tool(name, **arguments)
        if name == "find_product" and not said:
            said.append(name)
            try:
                arena_agent.llm().chat.completions.create(
                    model=arena_agent.llm_model() or "",
                    messages=[{"role": "user", "content": THRICE + query}],
                    temperature=0,
                )
            except Exception:  # noqa: BLE001 - no model: the template's answer stands
                pass
        return result

    budget = Budget(calls=40, reserve=2, deadline=time.monotonic() + 150.0, view_batch=20)
    return solve_problem(problem if isinstance(problem, dict) else {}, call, budget)
