"""A tiny task family used only by the tests (like tau2-bench's ``mock`` domain): it shows that adding a family is
adding a folder and registering it, and lets the tests race a family that is not ShoppingBench end to end.

The task ``lookup``: the query asks for the code of a name; the code book is private (it stays at the gateway), the
tool ``lookup_code`` reads it, and the agent commits the code with ``commit_code`` (its answer tool, found by its
declared kind, not its name). Loaded by importing this module, or by naming it in ``SHOPARENA_FAMILIES``
(``tests.support.mock_family``) for other processes.

Beside the required hooks it declares an importer (``arena problems import-lookups``: JSON Lines of ``{"name",
"codes"}``), two rulesets (``mock-exact``, the default, and ``mock-number``: the code read as a number) and a judge
context (the names the code book holds, which the agent is shown); the self-check, the run page and the corpus use
the `Family` defaults.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Unpack

from pydantic import Field

from arena.scoring.models import Check, RunScore
from arena.tasks import register
from arena.tasks.base import Family, Lookup, ProblemBase, Ruleset, ScoreOptions
from arena.tasks.hooks import Imported, Importer, ImportOptions
from arena.tools.registry import RunState, ToolContext, ToolError, ToolRegistry


class LookupProblem(ProblemBase):
    task: Literal["lookup"]
    name: str
    codes: dict[str, str]  # the private code book: never in the public view

    @property
    def gold_ids(self) -> list[str]:
        return [self.codes[self.name]]

    def public(self) -> dict[str, Any]:
        """The query and the names the code book holds (never a code)."""
        return {**super().public(), "names": sorted(self.codes)}


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


def commit_code(ctx: ToolContext, product_ids: Annotated[str, Field(description="The code.")]) -> str:
    """Commit the answer: the code you looked up."""
    ctx.state.recommendations.append([product_ids])
    return "committed"


def terminate(ctx: ToolContext, status: Annotated[str, Field(description="How the run ended.")] = "success") -> str:
    """End the run."""
    return "ended"


@dataclass(frozen=True)
class MockRuleset:
    """How an answer is compared with the gold code: exactly, or as numbers (leading zeros ignored)."""

    name: str
    as_number: bool
    version: str = "1"

    def parse(self, raw: Any) -> list[str]:
        return [raw.strip()] if isinstance(raw, str) and raw.strip() else []

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version}

    def same(self, answer: str, gold: str) -> bool:
        if self.as_number and answer.isdigit() and gold.isdigit():
            return int(answer) == int(gold)
        return answer == gold


RULESETS = {"mock-exact": MockRuleset("mock-exact", False), "mock-number": MockRuleset("mock-number", True)}


def import_lookups(files: Sequence[Path], options: ImportOptions) -> Imported:
    """JSON Lines of ``{"name", "codes"}``, one problem a line; a bad line is skipped with its reason."""
    made = Imported(version="lookup-import/1")
    for path in files:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            try:
                record = json.loads(line)
                name, codes = record["name"], record["codes"]
                problem = LookupProblem(
                    problem_id=f"lookup-{path.stem}-{number}",
                    task="lookup",
                    query=f"What is the code of '{name}'? Look it up and commit it.",
                    name=name,
                    codes=codes,
                )
                assert name in codes, f"the code book has no {name!r}"
            except (ValueError, KeyError, TypeError, AssertionError) as exc:
                made.skipped.append(f"{path.name}:{number}: {exc}")
                continue
            made.problems.append(problem)
    return made


IMPORTER = Importer(
    command="import-lookups",
    help="Import lookup problems from JSON Lines of {name, codes}.",
    files_help="JSON Lines files, one {name, codes} a line.",
    run=import_lookups,
    rebuild="none",
)


class Mock(Family):
    name = "mock"
    tasks = ("lookup",)
    problem_model = LookupProblem
    summary = "a code lookup, for the tests"

    def tools(self) -> ToolRegistry:
        registry = ToolRegistry()
        registry.register(lookup_code, results="reply")
        registry.register(commit_code, results="answer")
        registry.register(terminate, results="end")
        return registry

    def run_state(self, problem: ProblemBase) -> RunState:
        assert isinstance(problem, LookupProblem)
        return LookupState(codes=dict(problem.codes))

    def score(self, problem: ProblemBase, answer: Any, lookup: Lookup, **options: Unpack[ScoreOptions]) -> RunScore:
        assert isinstance(problem, LookupProblem)
        rules = RULESETS[options.get("ruleset") or "mock-exact"]
        gold = problem.codes[problem.name]
        answered = rules.parse(answer)
        ok = bool(answered) and rules.same(answered[0], gold)
        check = Check(name="code", passed=ok, evidence=f"answer {answer!r}, gold {gold!r}")
        return RunScore(
            task=problem.task, ruleset=rules.name, answer=answered, success=ok, checks=[check], final=float(ok)
        )

    def rulesets(self) -> Mapping[str, Ruleset]:
        return RULESETS

    def importers(self) -> Sequence[Importer]:
        return (IMPORTER,)

    def judge_context(self, problem: ProblemBase) -> dict[str, Any]:
        assert isinstance(problem, LookupProblem)
        return {**super().judge_context(problem), "names": ", ".join(sorted(problem.codes))}


FAMILY = register(Mock())

#: an agent for the family: reads the name from the query, looks its code up, commits it
AGENT = """
from arena_agent import call_tool


def agent_main(problem):
    name = problem["query"].split("'")[1]
    code = call_tool("lookup_code", key=name)
    call_tool("commit_code", product_ids=code)
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
