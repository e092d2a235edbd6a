"""The catalog imported sessions play in, rebuilt with the shopping domain's gold rebuild, and the self-checks
of the imported problems in it (``docs/sessions.md``, "The generator and its self-checks").

Each session's final truth S* becomes a one-product ShoppingBench problem (its reward: every rule of every source,
the target's title always, so the rebuilt gold is named and titled as the target); `rebuild_catalog` then writes the
gold with every required value, near misses that each break one constraint (so the opening alone leaves wrong
candidates) and a generated background. Sessions whose truths clash with another's (two records sharing a target
with incompatible prices) are left out, one line each, as the rebuild reports them.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.catalog import Catalog
from arena.tasks.session.problem import SessionProblem
from arena.tasks.session.selfcheck import CHECKS, MIN_NEEDED, check_session
from arena.tasks.shopping.problem import Problem
from arena.tasks.shopping.rebuild import rebuild_catalog


@dataclass
class SessionRebuild:
    problems: list[SessionProblem]
    digest: str
    products: int
    skipped: list[str] = field(default_factory=list)


@dataclass
class ImportCheck:
    """How many imported sessions pass each self-check, and the one line of each that failed."""

    problems: int = 0
    passed: Counter[str] = field(default_factory=Counter)  # check -> problems past it
    kept: list[SessionProblem] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    by_difficulty: Counter[str] = field(default_factory=Counter)

    def summary(self) -> dict[str, Any]:
        return {
            "problems": self.problems,
            "passed": {c: self.passed[c] for c in CHECKS},
            "kept": len(self.kept),
            "by_difficulty": dict(sorted(self.by_difficulty.items())),
            "failures": self.failures,
        }


def as_shoppingbench(problem: SessionProblem, title: str | None = None) -> Problem:
    """The session's final truth as a one-product ShoppingBench problem (what the rebuild builds a gold for)."""
    reward = problem.truth()
    if not reward.title:
        reward = reward.model_copy(update={"title": [title or problem.query]})
    return Problem(
        problem_id=problem.problem_id, task="product", query=problem.query, reward=[reward], source=problem.source
    )


def _title(problem: SessionProblem) -> str | None:
    return next((t for c in problem.constraints for t in c.rule.title), None)


def rebuild_sessions(
    problems: Sequence[SessionProblem],
    out: str | os.PathLike[str],
    *,
    titles: dict[str, str] | None = None,
    background_seed: int = 0,
    background_size: int = 20_000,
    force: bool = False,
) -> SessionRebuild:
    """Write the catalog at ``out``; the sessions it can play, with its digest (``titles``: problem id -> the
    target's title, for sessions whose rubrics never name it)."""
    titles = titles or {}
    sb = [as_shoppingbench(p, titles.get(p.problem_id) or _title(p)) for p in problems]
    report = rebuild_catalog(sb, out, background_seed=background_seed, background_size=background_size, force=force)
    playable = {p.problem_id for p in report.problems}
    kept = [
        p.model_copy(update={"meta": {**p.meta, "catalog_digest": report.digest}})
        for p in problems
        if p.problem_id in playable
    ]
    return SessionRebuild(kept, report.digest, report.products, list(report.skipped))


def selfcheck_imported(
    problems: Sequence[SessionProblem], catalog: Catalog, *, min_needed: int = MIN_NEEDED
) -> ImportCheck:
    """Every check on every problem (imported sessions have no events: ``bites`` passes vacuously); the problems
    that pass them all, labelled by difficulty (a generated one keeps its features' level)."""
    report = ImportCheck(problems=len(problems))
    for problem in problems:
        verdict = check_session(problem, catalog, min_needed=min_needed)
        report.passed.update(verdict.passed)
        if verdict.failed:
            report.failures.append(f"{problem.problem_id} ({problem.source}): {verdict.failed}: {verdict.reason}")
            continue
        # a generated problem keeps the level its features make (docs/sessions.md, "Difficulty")
        label = problem.difficulty if "features" in problem.meta else verdict.difficulty(problem)
        report.kept.append(
            problem.model_copy(update={"difficulty": label, "meta": {**problem.meta, **verdict.figures()}})
        )
        report.by_difficulty[label] += 1
    return report
