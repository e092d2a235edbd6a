"""Copies by behaviour, as an attacker makes them: the offline template run in-process against the real tools, and
copies of it that change how their calls look without changing what they do, each a wrapper around the tool gateway
(``call(name, **arguments)``) the template is given:

- ``padded``: every search query padded with a space;
- ``cased``: every search query in capitals;
- ``noop``: an extra search nobody reads, before about a third of the calls, at random;
- ``rephrasing``: an honest sampled agent (the template, half its queries missing one word, drawn at random per run,
  as an LLM rephrases), and ``fixed``: a copy of it made deterministic (the same draw every run).

Reworded copies (``REWORDED``), each deterministic and giving the template's answers: ``defaulted`` spells out
``sort="default"`` in every search, ``repeated`` repeats a query's first word, ``nonsense`` adds a word no product
has to every query (which changes what the search finds, a little: not the answers).

Beside them two honestly different deterministic agents: ``blind`` (the top hit for the query) and ``cheapest``
(the cheapest hit for the query). Each run is scored by the strict checks and its calls logged as the
gateway logs them (``kind``, ``name``, ``arguments``)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.catalog import Catalog
from arena.catalog.build import build_catalog
from arena.tasks.shopping.tools import default_registry
from arena.tasks.shoppingbench.generate import generate_problems
from arena.tasks.shoppingbench.strict import score_run
from arena.tools import RunState, ToolContext, ToolError
from tests.support.template import load_sdk, load_template

Call = Callable[..., Any]
Agent = Callable[[dict[str, Any], Call, random.Random], Any]

arena_agent = load_sdk()
template = load_template("shoparena_offline_agent_copies")
QUERIES = ("q", "queries")
FILLER = ("gift", "sale", "new", "best", "cheap")


def _each_query(arguments: dict[str, Any], change: Callable[[str], str]) -> dict[str, Any]:
    out = dict(arguments)
    for key in QUERIES:
        if isinstance(out.get(key), str):
            out[key] = change(out[key])
        elif isinstance(out.get(key), list):
            out[key] = [change(q) if isinstance(q, str) else q for q in out[key]]
    return out


def queries_changed(change: Callable[[str, random.Random], str]) -> Agent:
    def agent(problem: dict[str, Any], call: Call, rng: random.Random) -> Any:
        return template.solve(problem, lambda name, **a: call(name, **_each_query(a, lambda q: change(q, rng))))

    return agent


def _drop_a_word(query: str, rng: random.Random) -> str:
    words = query.split()
    if len(words) > 2 and rng.random() < 0.5:
        del words[rng.randrange(len(words))]
    return " ".join(words)


def noop(problem: dict[str, Any], call: Call, rng: random.Random) -> Any:
    def padded_with_noops(name: str, **arguments: Any) -> Any:
        if rng.random() < 0.3:
            try:
                call("find_product", q=rng.choice(FILLER))
            except arena_agent.ToolError:
                pass
        return call(name, **arguments)

    return template.solve(problem, padded_with_noops)


def _top(call: Call, hits: list[dict[str, Any]]) -> Any:
    if hits:
        call("recommend_product", product_ids=hits[0]["product_id"])
    return call("terminate", status="success")


def blind(problem: dict[str, Any], call: Call, rng: random.Random) -> Any:
    return _top(call, call("find_product", q=problem["query"]))


def cheapest(problem: dict[str, Any], call: Call, rng: random.Random) -> Any:
    return _top(call, call("find_product", q=problem["query"], sort="priceasc"))


AGENTS: dict[str, tuple[Agent, bool]] = {  # name -> (agent, deterministic)
    "template": (lambda p, call, rng: template.solve(p, call), True),
    "padded": (queries_changed(lambda q, rng: q + " "), True),
    "cased": (queries_changed(lambda q, rng: q.upper()), True),
    "noop": (noop, False),
    "rephrasing": (queries_changed(_drop_a_word), False),
    "fixed": (queries_changed(_drop_a_word), True),  # rephrasing with one draw for every run
    "blind": (blind, True),
    "cheapest": (cheapest, True),
}


def defaulted(problem: dict[str, Any], call: Call, rng: random.Random) -> Any:
    def spelled_out(name: str, **arguments: Any) -> Any:
        if name == "find_product":
            arguments.setdefault("sort", "default")
        return call(name, **arguments)

    return template.solve(problem, spelled_out)


REWORDED: dict[str, tuple[Agent, bool]] = {
    "template": AGENTS["template"],
    "defaulted": (defaulted, True),
    "repeated": (queries_changed(lambda q, rng: f"{q.split()[0]} {q}" if q.split() else q), True),
    "nonsense": (queries_changed(lambda q, rng: f"{q} zqxv"), True),
    "blind": AGENTS["blind"],
    "cheapest": AGENTS["cheapest"],
}


@dataclass(frozen=True)
class Run:
    events: list[dict[str, Any]]
    success: float


def make_world(folder: Path, problems: int = 8) -> tuple[Catalog, list[Any]]:
    build_catalog(3, 2000, folder, workers=1)
    catalog = Catalog.open(folder)
    return catalog, list(generate_problems(catalog, problems, seed=3).problems)


def run_agent(agent: Agent, problem: Any, catalog: Catalog, rng: random.Random) -> Run:
    """One run: the agent's tool calls logged with what they returned (or their error), as the gateway logs them,
    its last recommendation scored by the strict checks."""
    registry, ctx = default_registry(), ToolContext(catalog=catalog, state=RunState())
    events: list[dict[str, Any]] = []

    def call(name: str, **arguments: Any) -> Any:
        event: dict[str, Any] = {"kind": "tool_call", "name": name, "arguments": dict(arguments)}
        events.append(event)
        try:
            event["result"] = registry.call(name, arguments, ctx)
            return event["result"]
        except ToolError as exc:
            event["error"] = str(exc)
            raise arena_agent.ToolError(str(exc)) from None

    agent(problem.public(), call, rng)
    return Run(events, float(score_run(problem, ctx.state.answer, catalog.get).success))


def race_runs(
    catalog: Catalog, problems: list[Any], attempts: int, agents: dict[str, tuple[Agent, bool]] | None = None
) -> dict[str, dict[str, list[Run]]]:
    """Every agent's runs by problem (``agents``, default `AGENTS`): ``attempts`` each (a deterministic agent is
    run once and its run repeated)."""
    out: dict[str, dict[str, list[Run]]] = {}
    for name, (agent, deterministic) in (AGENTS if agents is None else agents).items():
        for problem in problems:
            if deterministic:
                runs = [run_agent(agent, problem, catalog, random.Random(problem.problem_id))] * attempts
            else:
                runs = [
                    run_agent(agent, problem, catalog, random.Random(f"{problem.problem_id}-{i}"))
                    for i in range(attempts)
                ]
            out.setdefault(name, {})[problem.problem_id] = runs
    return out
