"""Shopping sessions (``docs/sessions.md``): multi-turn shopping with a deterministic scripted shopper, hidden
intent and a weighted rubric; every validator replays a session byte for byte, with no LLM at run time.

- ``problem``: `SessionProblem` (the opening, profile, constraints by source, events, style, limits, gold);
- ``shopper``: the shopper as a pure function (`shopper.reply`); ``tools``: the tools and `tools.SessionState`;
- ``truth``: the constraints checked by the shopping domain's product checks (`arena.tasks.shopping`);
  ``trace``: a run's session replayed from the gateway's log; ``scoring``: the strict session check and its
  attribution; ``rubric``: the weighted items.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Unpack

from arena.scoring.models import RunScore
from arena.tasks import register
from arena.tasks.base import Generated, GenerateOptions, Lookup, ProblemBase, ScoreOptions, SelfcheckOptions
from arena.tasks.hooks import Importer, Section, SelfCheckReport
from arena.tasks.session.problem import SessionProblem
from arena.tasks.shopping.family import ShoppingFamily
from arena.tools.registry import RunState, ToolRegistry


class Session(ShoppingFamily):
    name = "session"
    tasks = ("session",)
    problem_model = SessionProblem
    summary = "multi-turn shopping sessions: ask the shopper, track what they say, propose, commit once they agree"
    corpus_prompt = (
        "You are a shopping assistant talking with a shopper. The opening request is only part of what they need: "
        "read their profile, ask short questions one thing at a time, search the catalog, and propose products with "
        "respond. Keep track of everything they say, including changes of mind, never propose a rejected product "
        "again, and once they agree call recommend_product with that product's id, then terminate."
    )

    def tools(self) -> ToolRegistry:
        from arena.tasks.session.tools import registry

        return registry()

    def run_state(self, problem: ProblemBase) -> RunState:
        from arena.tasks.session.tools import SessionState

        assert isinstance(problem, SessionProblem)
        return SessionState(problem=problem)

    def score(self, problem: ProblemBase, answer: Any, lookup: Lookup, **options: Unpack[ScoreOptions]) -> RunScore:
        from arena.tasks.session.scoring import score_session

        assert isinstance(problem, SessionProblem)
        return score_session(problem, answer, lookup, events=options.get("events", ()), ruleset=options.get("ruleset"))

    def run_sections(
        self, problem: ProblemBase, strict: Mapping[str, Any] | None, steps: Sequence[Any]
    ) -> list[Section]:
        """The conversation with the shopper's reveals, then the strict session check."""
        from arena.tasks.session.page import run_sections

        assert isinstance(problem, SessionProblem)
        return run_sections(problem, strict, steps)

    def importers(self) -> Sequence[Importer]:
        from arena.tasks.session.commands import IMPORTER

        return (IMPORTER,)

    def selfcheck(
        self, problems: Sequence[ProblemBase], catalog: Any, **options: Unpack[SelfcheckOptions]
    ) -> SelfCheckReport:
        """Feasible, needs the conversation, solved by the reference agent, failed by a blind one."""
        from arena.tasks.session.commands import selfcheck

        return selfcheck(problems, catalog, **options)

    def generate(self, catalog: Any, n: int, **options: Unpack[GenerateOptions]) -> Generated:
        from arena.tasks.session.generate import GENERATOR_VERSION, generate_report

        report = generate_report(catalog, n, options.get("seed", 0), progress=options.get("progress"))
        return Generated(list(report.problems), list(report.given_up), GENERATOR_VERSION)


FAMILY = register(Session())
