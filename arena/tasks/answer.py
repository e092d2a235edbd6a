"""The run's answer, read from the gateway's log: one place for everything that needs it (the scorer, the judge's
evidence, the run page, the corpus, `arena-miner test`).

The answer tool is the tool a family's registry declares with ``results="answer"`` (ShoppingBench's and the
session's ``recommend_product``), never a name written here: `answer_tools` collects them from every registered
family. Its ``product_ids`` argument is the raw answer.

Both references take the ``product_ids`` argument of the last ``recommend_product`` call the agent made, whatever it
holds (ShoppingBench ``run_evaluate.py`` ``extract_recommed_product``; ORO ``problem_scorer.py``
``_extract_recommended_product``): a later call with an empty or malformed argument replaces an earlier good one.
Here that is the last answer-tool call the gateway passed to the tool, whether the tool accepted it or answered
with an error. A call the gateway refused before any tool saw it (no valid run token, the tool-call budget spent, a
body that is too large or not JSON: status 401/429/413/400) was never made in the run and does not count. The
family's ruleset then parses the raw value (`arena.tasks.base.Ruleset.parse`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from functools import cache
from typing import TYPE_CHECKING

from arena.trajectory import TrajectoryEvent

if TYPE_CHECKING:
    from arena.tasks.base import Family

#: the gateway refused the call before any tool saw it: no valid run token (401), a body over the size cap (413) or
#: not JSON / not valid Unicode (400), the tool-call budget spent (429)
REFUSED = (400, 401, 413, 429)
#: the argument of an answer tool that holds the answer
ANSWER_ARGUMENT = "product_ids"


def answer_tools(task: str | None = None) -> frozenset[str]:
    """The names of the answer tools (declared ``results="answer"``) of the family of task type ``task``, or of
    every registered family (None, or a task no family owns: a call to another family's answer tool is then no
    answer of this run, as that tool was never served to it)."""
    from arena.tasks import UnknownTask, families, family_for

    if task is not None:
        try:
            return _answer_tools((family_for(task),))
        except UnknownTask:
            pass
    return _answer_tools(tuple(families()))


@cache
def _answer_tools(registered: tuple[Family, ...]) -> frozenset[str]:
    return frozenset(tool.name for fam in registered for tool in fam.tools() if tool.results == "answer")


def is_answer(event: TrajectoryEvent, names: Collection[str] | None = None) -> bool:
    """The event is a call of an answer tool (``names``, default `answer_tools`) that reached the tool."""
    names = answer_tools() if names is None else names
    return event.kind == "tool_call" and event.name in names and event.status not in REFUSED


def final_recommendation(
    events: Iterable[TrajectoryEvent], names: Collection[str] | None = None
) -> TrajectoryEvent | None:
    """The last answer-tool call that reached the tool, or None."""
    names = answer_tools() if names is None else names  # once per log, not per event
    last = None
    for event in sorted(events, key=lambda e: e.seq):
        if is_answer(event, names):
            last = event
    return last


def raw_product_ids(event: TrajectoryEvent | None) -> str | None:
    """The raw ``product_ids`` argument of an answer event; "" when it is absent or not a string (both references
    read a missing key as "" and a non-string as no answer); None when there was no call."""
    if event is None:
        return None
    arguments = event.arguments
    if isinstance(arguments, str):  # an LLM's arguments as a JSON string
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return ""
    value = arguments.get(ANSWER_ARGUMENT, "") if isinstance(arguments, dict) else ""
    return value if isinstance(value, str) else ""


def raw_answer(events: Iterable[TrajectoryEvent], task: str | None = None) -> str | None:
    """The raw answer of a run of task type ``task``: the ``product_ids`` of its final call of its family's answer
    tool (None when it made none)."""
    return raw_product_ids(final_recommendation(events, answer_tools(task)))
