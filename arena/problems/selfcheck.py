"""Self-check: every problem's gold answer, and every recorded distractor, through the strict checks.

Like a harness's gold run: golds must pass 100% and distractors 0%, per task type, or the pack and its catalog do
not belong together (or the checks are broken).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from arena.problems.models import Problem
from arena.scoring.strict import score_run


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


class SelfCheckReport(BaseModel):
    by_task: dict[str, TaskCheck] = Field(default_factory=dict)
    failures: list[str] = Field(default_factory=list)  # "problem_id: what went wrong"

    @property
    def ok(self) -> bool:
        return all(t.gold_rate == 1.0 and t.distractor_pass_rate == 0.0 for t in self.by_task.values())

    def summary(self) -> dict[str, Any]:
        return {"ok": self.ok, "by_task": {task: {**t.model_dump(), "gold_pass_rate": t.gold_rate,
                                                  "distractor_pass_rate": t.distractor_pass_rate}
                                           for task, t in self.by_task.items()},
                "failures": self.failures}


def selfcheck(problems: Sequence[Problem], lookup: Callable[[str], dict[str, Any] | None],
              vectors: Callable[[str], Any] | None = None, progress: Callable[[int], None] | None = None,
              ) -> SelfCheckReport:
    report = SelfCheckReport()
    tasks: dict[str, TaskCheck] = defaultdict(TaskCheck)
    for problem in problems:
        check = tasks[problem.task]
        check.problems += 1
        gold_vectors = vectors(problem.problem_id) if vectors else None
        gold = score_run(problem, problem.gold_ids, lookup, gold_vectors=gold_vectors)
        if gold.success:
            check.gold_passed += 1
        else:
            failed = [c.name for p in gold.products for c in p.checks if not c.passed] + [
                c.name for c in gold.checks if not c.passed]
            report.failures.append(f"{problem.problem_id}: gold answer fails ({', '.join(failed) or 'no product'})")
        for distractor in problem.meta.get("distractors", []):
            check.distractors += 1
            result = score_run(problem, distractor["answer"], lookup, gold_vectors=gold_vectors)
            if result.success:
                report.failures.append(f"{problem.problem_id}: distractor breaking {distractor['breaks']} passes")
            else:
                check.distractors_failed += 1
        if progress:
            progress(1)
    report.by_task = dict(sorted(tasks.items()))
    return report
