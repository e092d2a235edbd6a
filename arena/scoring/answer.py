"""The run's answer, read from the gateway's log: one place for everything that needs it (the scorer, the judge's
evidence, the run page, the corpus, `arena-miner test`).

Both references take the ``product_ids`` argument of the last ``recommend_product`` call the agent made, whatever it
holds (ShoppingBench ``run_evaluate.py`` ``extract_recommed_product``; ORO ``problem_scorer.py``
``_extract_recommended_product``): a later call with an empty or malformed argument replaces an earlier good one.
Here that is the last ``recommend_product`` call the gateway passed to the tool, whether the tool accepted it or
answered with an error. A call the gateway refused before any tool saw it (no valid run token, the tool-call budget
spent, a body that is too large or not JSON: status 401/429/413/400) was never made in the run and does not count.
The ruleset then parses the raw value (`arena.tasks.shoppingbench.rulesets.Ruleset.parse`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from arena.trajectory import TrajectoryEvent

#: the gateway refused the call before any tool saw it: no valid run token (401), a body over the size cap (413) or
#: not JSON / not valid Unicode (400), the tool-call budget spent (429)
REFUSED = (400, 401, 413, 429)


def final_recommendation(events: Iterable[TrajectoryEvent]) -> TrajectoryEvent | None:
    """The last ``recommend_product`` call that reached the tool, or None."""
    last = None
    for event in sorted(events, key=lambda e: e.seq):
        if event.kind == "tool_call" and event.name == "recommend_product" and event.status not in REFUSED:
            last = event
    return last


def raw_product_ids(event: TrajectoryEvent | None) -> str | None:
    """The raw ``product_ids`` argument of a ``recommend_product`` event; "" when it is absent or not a string (both
    references read a missing key as "" and a non-string as no answer); None when there was no call."""
    if event is None:
        return None
    arguments = event.arguments
    if isinstance(arguments, str):  # an LLM's arguments as a JSON string
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return ""
    value = arguments.get("product_ids", "") if isinstance(arguments, dict) else ""
    return value if isinstance(value, str) else ""


def raw_answer(events: Iterable[TrajectoryEvent]) -> str | None:
    """The raw answer of a run: the ``product_ids`` of its final recommendation (None when it made none)."""
    return raw_product_ids(final_recommendation(events))
