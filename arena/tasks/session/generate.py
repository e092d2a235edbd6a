"""Generating session problems from a catalog: facts first, text second, kept only if the self-checks pass
(``docs/sessions.md``, "The generator and its self-checks").

1. `arena.tasks.session.facts.draw_plan`: a gold product and 5-7 of its fields, split by source (query 2-3,
   profile 1, slot 1-2, reject 0-1), one update that keeps the gold inside and bites;
2. `arena.tasks.session.wording`: the opening, the profile, the slot answers and topics, the rejections, the update,
   with a leak check (no value outside its own place);
3. `arena.tasks.session.selfcheck.check_session`: feasible, needed, bites, solved by the reference agent, failed by
   the blind agent; the difficulty label from the same figures.

Deterministic: every draw comes from an `Rng` named by (catalog digest, seed, index, attempt). `generate_report`
gives the kept problems and the rejections counted per check; `generate_sessions` only the problems.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from arena.catalog.rng import Rng
from arena.tasks.base import Difficulty, draw_each
from arena.tasks.session import compose, wording
from arena.tasks.session.facts import Plan, Undrawable, draw_plan
from arena.tasks.session.features import Features, level, pick_level
from arena.tasks.session.features import draw as draw_features
from arena.tasks.session.problem import Limits, SessionProblem
from arena.tasks.session.selfcheck import MIN_NEEDED, Verdict, check_session
from arena.tasks.session.tools import registry
from arena.tasks.shopping.item_text import product_noun
from arena.tools.registry import ToolRegistry

GENERATOR_VERSION = "shoparena-session-gen/2"
#: draws per requested problem before it is given up
ATTEMPTS = 16
#: draw-stage rejections (before the self-checks), named like the checks in the report
DRAW_CHECKS = ("draw", "leak")


@dataclass
class SessionReport:
    """What a generation run kept and why it threw the rest away."""

    problems: list[SessionProblem] = field(default_factory=list)
    attempts: int = 0
    rejected: Counter[str] = field(default_factory=Counter)  # check -> draws it rejected
    given_up: list[str] = field(default_factory=list)  # "problem N: last reason"
    by_difficulty: Counter[str] = field(default_factory=Counter)

    @property
    def accepted_share(self) -> float:
        return len(self.problems) / self.attempts if self.attempts else 0.0

    def summary(self) -> dict[str, Any]:
        return {
            "kept": len(self.problems),
            "attempts": self.attempts,
            "accepted_share": round(self.accepted_share, 3),
            "rejected": dict(sorted(self.rejected.items())),
            "by_difficulty": dict(sorted(self.by_difficulty.items())),
            "given_up": self.given_up,
        }


def _problem_id(seed: int, digest: str, index: int) -> str:
    return "gen-session-" + hashlib.sha256(f"session:{seed}:{digest}:{index}".encode()).hexdigest()[:12]


def neighbours(catalog: Any, gold: dict[str, Any]) -> list[dict[str, Any]]:
    """Products near ``gold``: the top hits for its product noun."""
    return catalog.documents(h.address for h in catalog.search(product_noun(gold), limit=50))


def write(plan: Plan, rng: Rng, problem_id: str = "draft") -> SessionProblem:
    """The plan put into words, as a one-item problem (raises `Undrawable` when a value would leak)."""
    opening = wording.opening(plan, rng)
    profile = wording.profile(plan, rng)
    constraints, events = wording.constraints(plan, rng)
    leak = wording.leaks(plan, opening, profile, constraints)
    if leak:
        raise Undrawable(f"leak: {leak}")
    slots = sum(1 for c in constraints if c.src == "slot")
    return SessionProblem(
        problem_id=problem_id,
        query=opening,
        profile=profile,
        constraints=constraints,
        events=events,
        style=compose.style(Features(), slots, rng),
        limits=Limits(),
        gold={"product_ids": [plan.gold["product_id"]]},
    )


#: draws of one item of a session before the session's draw is given up
ITEM_ATTEMPTS = 6


def _item(catalog: Any, rng: Rng, features: Features, min_needed: int) -> tuple[SessionProblem, dict[str, Any]]:
    """One item as a one-item problem that passes the checks before the agents, and its gold."""
    why = "no item drawn"
    for _ in range(ITEM_ATTEMPTS):
        gold = catalog.product_at(rng.below(catalog.num_products))
        if gold is None:
            raise Undrawable("catalog row vanished")
        try:
            part = write(draw_plan(gold, neighbours(catalog, gold), rng, vague=features.vague), rng)
            if features.veto:
                part = part.model_copy(update={"vetoes": [compose.pick_veto(part, catalog, rng)]})
        except Undrawable as exc:
            why = str(exc)
            continue
        verdict = check_session(part, catalog, min_needed=min_needed, agents=False)
        if verdict.ok:
            return part, gold
        why = f"{verdict.failed}: {verdict.reason}"
    raise Undrawable(why)


def draft(catalog: Any, rng: Rng, features: Features | None = None, min_needed: int = MIN_NEEDED) -> SessionProblem:
    """One unchecked problem drawn from ``catalog`` with ``features`` (default: none) (raises `Undrawable`); each of
    its items passes the checks before the agents on its own."""
    features = features or Features()
    parts: list[SessionProblem] = []
    golds: list[dict[str, Any]] = []
    for _ in range(features.items):
        part, gold = _item(catalog, rng, features if not parts else replace(features, veto=False), min_needed)
        parts.append(part)
        golds.append(gold)
    if len({product_noun(g) for g in golds}) < len(golds):
        raise Undrawable("the same kind of product twice in one session")
    return compose.join(parts, golds, features, rng)


def _keep(
    problem: SessionProblem, verdict: Verdict, features: Features, seed: int, digest: str, index: int
) -> SessionProblem:
    return problem.model_copy(
        update={
            "problem_id": _problem_id(seed, digest, index),
            "difficulty": level(features),
            "source": f"generated:{GENERATOR_VERSION}:seed={seed}",
            "meta": {**verdict.figures(), "features": features.names(), "catalog_digest": digest},
        }
    )


def generate_report(
    catalog: Any,
    n: int,
    seed: int = 0,
    *,
    min_needed: int = MIN_NEEDED,
    tools: ToolRegistry | None = None,
    progress: Callable[[int], None] | None = None,
    mix: dict[Difficulty, float] | None = None,
) -> SessionReport:
    """Up to ``n`` checked session problems (fewer when every attempt for one fails), deterministic by seed."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    checking = tools or registry()
    report = SessionReport()
    golds: set[str] = set()
    offset = Rng("session-levels", catalog.digest, seed).u()

    def draw(index: int, attempt: int) -> str | None:
        report.attempts += 1
        rng = Rng("session", catalog.digest, seed, index, attempt)
        features = draw_features(pick_level(index, offset, mix), rng)
        try:
            problem = draft(catalog, rng, features, min_needed)
        except Undrawable as exc:
            report.rejected["leak" if str(exc).startswith("leak") else "draw"] += 1
            return str(exc)
        if golds & set(problem.gold_ids):
            report.rejected["draw"] += 1
            return "gold drawn before"
        verdict = check_session(problem, catalog, min_needed=min_needed, tools=checking)
        if verdict.failed:
            report.rejected[verdict.failed] += 1
            return f"{verdict.failed}: {verdict.reason}"
        kept = _keep(problem, verdict, features, seed, catalog.digest, index)
        golds.update(kept.gold_ids)
        report.problems.append(kept)
        report.by_difficulty[kept.difficulty] += 1
        return None

    draw_each(n, ATTEMPTS, draw, report.given_up, progress)
    return report


def generate_sessions(catalog: Any, n: int, seed: int = 0, **kwargs: Any) -> list[SessionProblem]:
    """The kept problems of `generate_report`."""
    return generate_report(catalog, n, seed, **kwargs).problems
