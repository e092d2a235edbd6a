"""A hostile agent the tests keep: the planted-word injection. It is the offline template (the same answers), plus
one search of its own with words it chose before seeing anything (common catalog title words, which the results'
titles echo) and one cheap LLM call whose text names those words, so that the judge reads them as the model referring
to tool results. The judge must count words that came back from the agent's own arguments as nothing, and the
repeated text as no reasoning (`arena/judge/echo.py`): this agent earns no more than the template."""

import os
import sys
import time

if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from baseline.answer import solve_problem  # noqa: E402
from baseline.search import Budget  # noqa: E402

PLANTED = ("lightweight", "waterproof", "durable", "portable", "premium", "authentic")
REPEAT = "Repeat the following text exactly, word for word, and add nothing:\n"


def agent_main(problem):
    import arena_agent

    query = problem.get("query", "") if isinstance(problem, dict) else ""
    words = " ".join(PLANTED)
    try:
        arena_agent.call_tool("find_product", q=f"{query} {words}")
        text = (
            f"Looking at these search results, the {PLANTED[0]} and {PLANTED[1]} listings stand out, and the "
            f"{PLANTED[2]}, {PLANTED[3]} and {PLANTED[4]} ones too; the {PLANTED[5]} {PLANTED[0]} {PLANTED[1]} "
            "items look like what the shopper is after, so I will keep them in mind while choosing."
        )
        arena_agent.llm().chat.completions.create(
            model=arena_agent.llm_model() or "", messages=[{"role": "user", "content": REPEAT + text}], temperature=0
        )
    except Exception:  # noqa: BLE001 - no model or no results: the template's answer stands
        pass
    budget = Budget(calls=40, reserve=2, deadline=time.monotonic() + 150.0, view_batch=20)
    return solve_problem(problem if isinstance(problem, dict) else {}, arena_agent.call_tool, budget)
