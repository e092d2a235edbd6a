"""The standing qualifying-lookup attacker: the offline template with the public split's answers baked in.

A miner holds the operator's public split with its gold answers (`arena problems pack --public-only`). This agent
embeds every public problem's id and query with its gold product ids. On a problem it recognises by either, it views
the gold products and runs the template with its answer swapped for the gold (the judge sees the template's whole
search and the gold read, so it earns at least the template's judgment, with the right answer); on any other problem
it is the offline template, unchanged. Where qualifying draws from the public split it beats the template; on
problems made fresh for the round, shown under per-race opaque ids, it must score no better than the template."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.tasks import ProblemBase
from demo.agents import MINER_TEMPLATE, write_template

HOOK = """

#: the public split's answers, keyed by problem id and by query (the lookup)
ANSWERS = {answers!r}


def agent_main(problem):
    import arena_agent

    problem = problem if isinstance(problem, dict) else {{}}
    known = ANSWERS.get(str(problem.get("problem_id"))) or ANSWERS.get(str(problem.get("query")))
    if not known:
        return solve(problem, arena_agent.call_tool)
    arena_agent.call_tool("view_product_information", product_ids=known)  # the gold read, for the judge

    def call(name, **arguments):  # the template's whole run, its answer swapped for the gold
        if name == "recommend_product":
            arguments = {{**arguments, "product_ids": known}}
        return arena_agent.call_tool(name, **arguments)

    return solve(problem, call)
"""


def answers_of(public: Sequence[ProblemBase]) -> dict[str, str]:
    """Each public problem's id and query -> its gold product ids, comma-joined as an answer is committed."""
    table: dict[str, str] = {}
    for problem in public:
        gold = ",".join(problem.gold_ids)
        if gold:
            table[problem.problem_id] = gold
            table[problem.query] = gold
    return table


def lookup_source(public: Sequence[ProblemBase]) -> str:
    """The lookup agent's ``agent.py``: the template's, its ``agent_main`` replaced by the lookup's."""
    source = MINER_TEMPLATE.read_text()
    head, sep, _ = source.partition("\ndef agent_main(")
    assert sep, "the offline template has no agent_main"
    return head.rstrip() + "\n" + HOOK.format(answers=answers_of(public))


def write_lookup_agent(folder: Path, public: Sequence[ProblemBase]) -> Path:
    """The lookup agent's bundle in ``folder`` (the template's package beside it)."""
    return write_template(folder, lookup_source(public))
