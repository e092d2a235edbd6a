"""Self-check: every problem's gold answer, and every recorded distractor, through the strict checks; and a blind
baseline that shows how far a search engine alone gets.

Like a harness's gold run: golds must pass 100% and distractors 0%, per task type, or the pack and its catalog do
not belong together (or the checks are broken).

The blind baseline answers every problem without reading anything: it recommends the top ``find_product`` hits for
the query (as many as the problem asks for products); for web problems it also recommends the top hit for the words
of the top ``web_search`` result for the query. Both go through the real tools and the pack's ruleset. Its success
per task must stay low: a high figure means the catalog gives answers away (a planted page, a gold found first).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from arena.tasks.shopping.problem import Problem
from arena.tasks.shopping.verdict import extras_of
from arena.tasks.shoppingbench.strict import score_run


class TaskCheck(BaseModel):
    problems: int = 0
    gold_passed: int = 0
    distractors: int = 0
    distractors_failed: int = 0

    @property
    def gold_rate(self) -> float:
        return self.gold_passed / self.problems if self.problems else 1.0

    @property
    def distractor_pass_rate(self) -> float:
        return 1 - self.distractors_failed / self.distractors if self.distractors else 0.0


class BaselineTask(BaseModel):
    """The blind baseline on one task: how often the top search hits for the query (and, for web problems, the top
    hit for the top web page's words) succeed."""

    problems: int = 0
    query_passed: int = 0
    web_passed: int | None = None  # web problems only

    @property
    def query_rate(self) -> float:
        return self.query_passed / self.problems if self.problems else 0.0

    @property
    def web_rate(self) -> float | None:
        return None if self.web_passed is None else (self.web_passed / self.problems if self.problems else 0.0)


class OracleTask(BaseModel):
    """The tool-visible oracle on one task (`arena.tasks.shoppingbench.fairness`): problems it solves, distractors
    that pass it."""

    problems: int = 0
    solved: int = 0
    distractors: int = 0
    distractors_passed: int = 0

    @property
    def rate(self) -> float:
        return self.solved / self.problems if self.problems else 1.0


class SelfCheckReport(BaseModel):
    by_task: dict[str, TaskCheck] = Field(default_factory=dict)
    failures: list[str] = Field(default_factory=list)  # "problem_id: what went wrong"
    baseline: dict[str, BaselineTask] = Field(default_factory=dict)
    #: with a catalog: products that contradict themselves, per field (`fairness.ConsistencyReport.figures`)
    consistency: dict[str, Any] | None = None
    oracle: dict[str, OracleTask] = Field(default_factory=dict)

    @property
    def ok(self) -> bool:
        golds = all(t.gold_rate == 1.0 and t.distractor_pass_rate == 0.0 for t in self.by_task.values())
        consistent = self.consistency is None or self.consistency["contradicting_products"] == 0
        oracle = all(o.solved == o.problems and o.distractors_passed == 0 for o in self.oracle.values())
        return golds and consistent and oracle

    def summary(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "by_task": {
                task: {**t.model_dump(), "gold_pass_rate": t.gold_rate, "distractor_pass_rate": t.distractor_pass_rate}
                for task, t in self.by_task.items()
            },
            "blind_baseline": {
                task: {**b.model_dump(), "query_success_rate": b.query_rate, "web_success_rate": b.web_rate}
                for task, b in self.baseline.items()
            },
            "consistency": self.consistency,
            "oracle": {task: {**o.model_dump(), "success_rate": o.rate} for task, o in self.oracle.items()},
            "failures": self.failures,
        }


def selfcheck(
    problems: Sequence[Problem],
    lookup: Callable[[str], dict[str, Any] | None],
    vectors: Callable[[str], Any] | None = None,
    progress: Callable[[int], None] | None = None,
    *,
    catalog: Any = None,
    ruleset: str | None = None,
) -> SelfCheckReport:
    """Gold and distractor answers of every problem by ``ruleset``; with ``catalog``, the blind baseline, the
    catalog's consistency and the tool-visible oracle too (`arena.tasks.shoppingbench.fairness`)."""
    report = SelfCheckReport()
    tasks: dict[str, TaskCheck] = defaultdict(TaskCheck)
    for problem in problems:
        check = tasks[problem.task]
        check.problems += 1
        gold_vectors = vectors(problem.problem_id) if vectors else None
        gold = score_run(problem, problem.gold_ids, lookup, gold_vectors=gold_vectors, ruleset=ruleset)
        if gold.success:
            check.gold_passed += 1
        else:
            failed = [c.name for p in extras_of(gold).products for c in p.checks if not c.passed] + [
                c.name for c in gold.checks if not c.passed
            ]
            report.failures.append(f"{problem.problem_id}: gold answer fails ({', '.join(failed) or 'no product'})")
        for distractor in problem.meta.get("distractors", []):
            check.distractors += 1
            result = score_run(problem, distractor["answer"], lookup, gold_vectors=gold_vectors, ruleset=ruleset)
            if result.success:
                report.failures.append(f"{problem.problem_id}: distractor breaking {distractor['breaks']} passes")
            else:
                check.distractors_failed += 1
        if progress:
            progress(1)
    report.by_task = dict(sorted(tasks.items()))
    if catalog is not None:
        report.baseline = blind_baseline(problems, catalog, vectors=vectors, ruleset=ruleset)
        _fairness(report, problems, catalog, vectors, ruleset)
    return report


def _fairness(
    report: SelfCheckReport,
    problems: Sequence[Problem],
    catalog: Any,
    vectors: Callable[[str], Any] | None,
    ruleset: str | None,
) -> None:
    """The catalog's consistency (none of its products contradicts itself) and the tool-visible oracle (it solves
    every problem, no distractor passes it), added to ``report``."""
    from arena.tasks.shopping.rebuild.distractors import tags_key
    from arena.tasks.shoppingbench.fairness import consistency, oracle

    found = consistency(problems, catalog, tags_key(problems))
    report.consistency = found.figures()
    if found.contradicting:
        fields = ", ".join(f"{f} {n}" for f, n in report.consistency["by_field"].items() if n)
        report.failures.append(
            f"catalog: {found.contradicting} products contradict their own attributes ({fields}); "
            f"first: {found.examples[0]}"
        )
    by_task, failures = oracle(problems, catalog, vectors=vectors, ruleset=ruleset)
    report.oracle = {task: OracleTask(**vars(row)) for task, row in by_task.items()}
    report.failures.extend(failures)


def blind_answers(problem: Problem, catalog: Any, registry: Any = None) -> dict[str, str]:
    """The blind baseline's answers to one problem, as the raw ``product_ids`` an agent would send: ``query`` (the
    top ``find_product`` hits for the query, one per requested product) and, for web problems, ``web`` (the top hit
    for the words of the top ``web_search`` result)."""
    from arena.tasks.shopping.tools import default_registry
    from arena.tools import ToolContext

    registry = registry or default_registry()
    ctx = ToolContext(catalog=catalog)
    hits = registry.call("find_product", {"q": problem.query}, ctx)
    answers = {"query": ",".join(h["product_id"] for h in hits[: len(problem.reward)])}
    if problem.task == "web":
        pages = registry.call("web_search", {"q": problem.query, "max_results": 1}, ctx)
        words = f"{pages[0]['title']} {pages[0]['content']}" if pages else problem.query
        top = registry.call("find_product", {"q": words}, ctx)
        answers["web"] = top[0]["product_id"] if top else ""
    return answers


def blind_baseline(
    problems: Sequence[Problem],
    catalog: Any,
    *,
    vectors: Callable[[str], Any] | None = None,
    ruleset: str | None = None,
) -> dict[str, BaselineTask]:
    """The blind baseline's success per task (see the module docstring)."""
    from arena.tasks.shopping.tools import default_registry

    registry = default_registry()
    out: dict[str, BaselineTask] = defaultdict(BaselineTask)
    for problem in problems:
        row = out[problem.task]
        row.problems += 1
        gold_vectors = vectors(problem.problem_id) if vectors else None
        answers = blind_answers(problem, catalog, registry)
        if score_run(problem, answers["query"], catalog.get, gold_vectors=gold_vectors, ruleset=ruleset).success:
            row.query_passed += 1
        if "web" in answers:
            passed = score_run(problem, answers["web"], catalog.get, gold_vectors=gold_vectors, ruleset=ruleset).success
            row.web_passed = (row.web_passed or 0) + int(passed)
    return dict(sorted(out.items()))
