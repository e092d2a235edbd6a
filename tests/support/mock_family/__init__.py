"""A tiny task family used only by the tests (like tau2-bench's ``mock`` domain): it shows that adding a family is
adding a folder and registering it, and lets the tests race a family that is not ShoppingBench end to end.

The task ``lookup``: the query asks for the code of a name; the code book is private (it stays at the gateway), the
tool ``lookup_code`` reads it, and the agent commits the code with ``recommend_product``. Loaded by importing this
module, or by naming it in ``SHOPARENA_FAMILIES`` (``tests.support.mock_family``) for other processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from arena.scoring.models import Check, RunScore
from arena.tasks import register
from arena.tasks.base import Family, Lookup, ProblemBase
from arena.tools.registry import RunState, ToolContext, ToolError, ToolRegistry
from arena.trajectory import TrajectoryEvent


class LookupProblem(ProblemBase):
    task: Literal["lookup"]
    name: str
    codes: dict[str, str]  # the private code book: never in the public view

    @property
    def gold_ids(self) -> list[str]:
        return [self.codes[self.name]]


@dataclass
class LookupState(RunState):
    codes: dict[str, str] | None = None


def lookup_code(ctx: ToolContext, key: Annotated[str, Field(description="The name whose code you need.")]) -> str:
    """The code of a name, from the private code book."""
    codes = getattr(ctx.state, "codes", None)
    if codes is None:
        raise ToolError("this run has no code book")
    if key not in codes:
        raise ToolError(f"no code for {key!r}")
    return codes[key]


def recommend_product(ctx: ToolContext, product_ids: Annotated[str, Field(description="The code.")]) -> str:
    """Commit the answer: the code you looked up."""
    ctx.state.recommendations.append([product_ids])
    return "committed"


class Mock(Family):
    name = "mock"
    tasks = ("lookup",)
    problem_model = LookupProblem
    summary = "a code lookup, for the tests"
    run_page = "generic"

    def tools(self) -> ToolRegistry:
        registry = ToolRegistry()
        registry.register(lookup_code, results="reply")
        registry.register(recommend_product, results="answer")
        return registry

    def run_state(self, problem: ProblemBase) -> RunState:
        assert isinstance(problem, LookupProblem)
        return LookupState(codes=dict(problem.codes))

    def score(
        self,
        problem: ProblemBase,
        answer: Any,
        lookup: Lookup,
        *,
        events: Sequence[TrajectoryEvent] = (),
        gold_vectors: Sequence[Any] | None = None,
        ruleset: Any = None,
    ) -> RunScore:
        assert isinstance(problem, LookupProblem)
        gold = problem.codes[problem.name]
        ok = isinstance(answer, str) and answer.strip() == gold
        check = Check(name="code", passed=ok, evidence=f"answer {answer!r}, gold {gold!r}")
        answered = [answer.strip()] if isinstance(answer, str) and answer.strip() else []
        return RunScore(
            task=problem.task,
            ruleset="mock",
            answer=answered,
            success=ok,
            gt=float(ok),
            rule=float(ok),
            checks=[check],
            final=float(ok),
        )


FAMILY = register(Mock())

#: an agent for the family: reads the name from the query, looks its code up, commits it
AGENT = """
from arena_agent import call_tool


def agent_main(problem):
    name = problem["query"].split("'")[1]
    code = call_tool("lookup_code", key=name)
    call_tool("recommend_product", product_ids=code)
    return {"answer": code}
"""


def problems(n: int, *, split: str = "race") -> list[LookupProblem]:
    """``n`` lookup problems, each with its own code book."""
    out = []
    for i in range(n):
        codes = {f"name{j}": f"{(i * 7919 + j * 104729) % 1000003:07d}" for j in range(4)}
        name = f"name{i % 4}"
        out.append(
            LookupProblem(
                problem_id=f"lookup-{i}",
                task="lookup",
                query=f"What is the code of '{name}'? Look it up and commit it.",
                name=name,
                codes=codes,
                cluster_id=f"lookup-{i}",
                split=split,  # type: ignore[arg-type]
            )
        )
    return out
