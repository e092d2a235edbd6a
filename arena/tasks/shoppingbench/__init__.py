"""ShoppingBench (Alibaba, ``yjwjy/ShoppingBench``): single-shot shopping requests over the catalog, four task types.

Its problems, tools, product checks and rulesets are the shared shopping domain's (`arena.tasks.shopping`); here:

- ``strict``: a run's strict verdict (every slot, the shop and budget checks, web answers);
- ``generate``: the generator; ``importer``: real records (their catalog rebuilt by `arena.tasks.shopping.rebuild`);
  ``selfcheck``, ``paraphrase``; ``commands``: the importer and self-check hooks `arena problems` calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Unpack

from arena.scoring.models import RunScore
from arena.tasks import register
from arena.tasks.base import Generated, GenerateOptions, Lookup, ProblemBase, ScoreOptions, SelfcheckOptions
from arena.tasks.hooks import Importer, Section, SelfCheckReport
from arena.tasks.shopping.family import ShoppingFamily
from arena.tasks.shopping.problem import TASKS, Problem
from arena.tools.registry import ToolRegistry


class ShoppingBench(ShoppingFamily):
    name = "shoppingbench"
    tasks = TASKS
    problem_model = Problem
    summary = "single-shot shopping requests: one product, a basket from one shop, a basket under a voucher, web facts"
    corpus_prompt = (
        "You are a shopping assistant. Find the products that satisfy every constraint in the user's request: "
        "attributes, SKU options, services, price, one shop when asked, the budget after a voucher. Use the tools: "
        "search, inspect the details, compare the candidates, then call recommend_product once with the product ids "
        "in the order the user asked for them, and finally call terminate."
    )

    def tools(self) -> ToolRegistry:
        from arena.tasks.shopping.tools import default_registry

        return default_registry()

    def score(self, problem: ProblemBase, answer: Any, lookup: Lookup, **options: Unpack[ScoreOptions]) -> RunScore:
        from arena.tasks.shoppingbench.strict import score_run

        assert isinstance(problem, Problem)
        return score_run(
            problem, answer, lookup, gold_vectors=options.get("gold_vectors"), ruleset=options.get("ruleset")
        )

    def generate(self, catalog: Any, n: int, **options: Unpack[GenerateOptions]) -> Generated:
        from arena.tasks.shoppingbench.generate import GENERATOR_VERSION, generate_problems

        report = generate_problems(
            catalog, n, list(options["tasks"]), options.get("seed", 0), progress=options.get("progress")
        )
        return Generated(list(report.problems), list(report.skipped), GENERATOR_VERSION)

    def run_sections(
        self, problem: ProblemBase, strict: Mapping[str, Any] | None, steps: Sequence[Any]
    ) -> list[Section]:
        """The answer beside the gold, slot by slot, and the strict breakdown check by check."""
        from arena.tasks.shoppingbench.page import run_sections

        assert isinstance(problem, Problem)
        return run_sections(problem, strict, steps)

    def importers(self) -> Sequence[Importer]:
        from arena.tasks.shoppingbench.commands import IMPORTER

        return (IMPORTER,)

    def selfcheck(
        self, problems: Sequence[ProblemBase], catalog: Any, **options: Unpack[SelfcheckOptions]
    ) -> SelfCheckReport:
        """Golds pass and recorded distractors fail under the ruleset, and the blind baseline's success per task."""
        from arena.tasks.shoppingbench.commands import selfcheck

        return selfcheck(problems, catalog, **options)

    def gold_vectors(self, problems: Sequence[ProblemBase]) -> dict[str, list[Any]]:
        """problem_id -> one vector per reward, of its first title (None for a reward without one), embedded in one
        batch by the default title embedder."""
        import numpy as np

        from arena.tasks.shopping.similarity import default_embedder

        mine = [p for p in problems if isinstance(p, Problem)]
        titles = [r.title[0] for p in mine for r in p.reward if r.title]
        matrix = default_embedder().embed(titles) if titles else np.zeros((0, 256), dtype=np.float32)
        rows = iter(matrix)
        return {p.problem_id: [next(rows) if r.title else None for r in p.reward] for p in mine}


FAMILY = register(ShoppingBench())
