"""A hostile agent the tests keep: the parrot. It is the offline template (rule-based search, the same answers), plus
one cheap LLM call before it recommends: it writes its own comparison of the products it found (ids, titles, prices,
comparative wording) and asks the model to repeat it word for word, so that the judge reads the agent's text as the
model's reasoning. The judge must give the repeated text no credit (`arena/judge/echo.py`): this agent earns no
more than the template."""

import os
import sys
import time

if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from baseline.answer import solve_problem  # noqa: E402
from baseline.search import Budget  # noqa: E402

REPEAT = "Repeat the following text exactly, word for word, and add nothing:\n"


def comparison(query, seen, chosen):
    """The agent's own analysis: the chosen product against the others it saw, with their data."""
    first = seen.get(chosen) or next(iter(seen.values()))
    others = [p for pid, p in seen.items() if pid != str(first.get("product_id"))][:2]
    lines = [f"The shopper asked for: {query}"]
    for other in others:
        cheaper = "cheaper" if float(first.get("price") or 0) <= float(other.get("price") or 0) else "more expensive"
        lines.append(
            f"Product {first['product_id']} ({first.get('title')}) costs {first.get('price')} while product "
            f"{other['product_id']} ({other.get('title')}) costs {other.get('price')}; the first is {cheaper} than "
            "the second and its title matches the request better."
        )
    lines.append(f"Comparing these candidates, I recommend product {first['product_id']}.")
    return "\n".join(lines)


def agent_main(problem):
    import arena_agent

    seen = {}

    def call(name, **arguments):
        if name == "recommend_product" and seen:
            chosen = str(arguments.get("product_ids", "")).split(",")[0].strip()
            try:
                arena_agent.llm().chat.completions.create(
                    model=arena_agent.llm_model() or "",
                    messages=[{"role": "user", "content": REPEAT + comparison(problem.get("query", ""), seen, chosen)}],
                    temperature=0,
                )
            except Exception:  # noqa: BLE001 - no model: the template's answer stands
                pass
        result = arena_agent.call_tool(name, **arguments)
        if name == "find_product" and isinstance(result, list):
            for item in result:
                if isinstance(item, dict) and item.get("product_id"):
                    seen.setdefault(str(item["product_id"]), item)
        return result

    budget = Budget(calls=40, reserve=2, deadline=time.monotonic() + 150.0, view_batch=20)
    return solve_problem(problem if isinstance(problem, dict) else {}, call, budget)
