"""The self-checks a session problem passes before it is kept (``docs/sessions.md``), and the figures its
difficulty is read from.

- ``feasible``: the gold satisfies the final truth S* (every constraint of every source, every event applied);
- ``needed``: at least `MIN_NEEDED` of the top `TOP` ``find_product`` hits for the opening pass the opening's
  constraints but fail S* (searching and reading the opening alone leaves wrong candidates);
- ``bites``: some hit passes every constraint as first stated but fails S* (the update changes the answer); a
  problem without events (an imported record) passes it vacuously;
- ``solved``: the reference agent (`arena.tasks.session.agents.reference_agent`) succeeds through the real tools;
- ``not_trivial``: the blind agent (search the opening, commit the top hit) fails.

The checks run in that order and stop at the first failure, whose name `Verdict.failed` gives (the generator counts
rejections by it). Difficulty weighs the hidden constraints, whether the update hides behind one, the wrong
candidates the opening leaves and the turns the reference agent needed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.tasks.base import Difficulty
from arena.tasks.session import truth
from arena.tasks.session.agents import Outcome, blind_agent
from arena.tasks.session.oracle import reference_agent
from arena.tasks.session.problem import Rule, SessionProblem
from arena.tools.registry import ToolRegistry

CHECKS = ("feasible", "needed", "bites", "solved", "not_trivial")
#: the hits of the opening looked at (find_product keeps 50), and how many must pass the opening but fail S*
TOP = 50
MIN_NEEDED = 5


@dataclass
class Verdict:
    """The checks' results on one problem and the figures behind them."""

    failed: str | None = None
    reason: str = ""
    needed: int = 0
    bites: int = 0
    reference: Outcome | None = None
    blind: Outcome | None = None
    passed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failed is None

    def difficulty(self, problem: SessionProblem) -> Difficulty:
        hidden = sum(1 for c in problem.constraints if c.src != "query")
        behind = sum(1 for e in problem.events if problem.constraint(e.update.cid).src != "query")
        turns = self.reference.user_turns if self.reference else 0
        weight = hidden + behind + min(self.needed, 30) / 10 + turns / 3
        return "easy" if weight < 5.5 else "medium" if weight < 7.5 else "hard"

    def figures(self) -> dict[str, Any]:
        ref = self.reference
        return {
            "needed": self.needed,
            "bites": self.bites,
            "reference_turns": ref.user_turns if ref else None,
            "reference_questions": ref.questions if ref else None,
            "reference_proposals": ref.proposals if ref else None,
        }


def _all_pass(rules: list[Rule], doc: dict[str, Any]) -> bool:
    return truth.check(rules, doc).rule >= 1


def opening_hits(problem: SessionProblem, catalog: Any, item: int = 0) -> list[dict[str, Any]]:
    """The documents of the top `TOP` hits ``find_product`` keeps for ``item``'s opening, in rank order."""
    return catalog.documents(h.address for h in catalog.search(problem.item_opening(item), limit=TOP))


def first_rules(problem: SessionProblem, item: int = 0) -> list[Rule]:
    """Every constraint of ``item`` as first stated (no event applied)."""
    return [c.rule for c in problem.constraints if c.item == item]


def _infeasible(problem: SessionProblem, catalog: Any) -> str | None:
    """Why the golds cannot be the answer (each its item's final truth, not vetoed, within the bundle), or None."""
    golds = [catalog.get(pid) for pid in problem.gold_ids]
    for item, gold in enumerate(golds):
        if gold is None:
            return "no gold in catalog"
        if not _all_pass(list(problem.item_rules(item).values()), gold):
            return "the gold fails the final truth"
    if {v.product_id for v in problem.vetoes} & set(problem.gold_ids):
        return "a gold is vetoed"
    total = sum(float(g["price"]) for g in golds if g is not None)
    if problem.bundle_budget is not None and total > problem.bundle_budget + 0.005:
        return f"the golds cost {total:.2f} together, over the bundle's {problem.bundle_budget:g}"
    return None


def _conversation_needed(problem: SessionProblem, catalog: Any, verdict: Verdict) -> None:
    """The needed and bites figures: the fewest over the items, and over the items an event changes."""
    needed: list[int] = []
    bites: list[int] = []
    changed = {problem.constraint(e.update.cid).item for e in problem.events}
    for item in range(problem.items):
        hits = opening_hits(problem, catalog, item)
        final = list(problem.item_rules(item).values())
        opening = list(problem.opening_rules(item).values())
        needed.append(sum(1 for d in hits if _all_pass(opening, d) and not _all_pass(final, d)))
        if item in changed:
            first = first_rules(problem, item)
            bites.append(sum(1 for d in hits if _all_pass(first, d) and not _all_pass(final, d)))
    verdict.needed = min(needed)
    verdict.bites = min(bites) if bites else 0


def check_session(
    problem: SessionProblem,
    catalog: Any,
    *,
    min_needed: int = MIN_NEEDED,
    tools: ToolRegistry | None = None,
    agents: bool = True,
) -> Verdict:
    """Run the checks in order; the verdict names the first that failed (``agents``: False stops before the
    agents, e.g. for one item of a session still to be put together)."""
    verdict = Verdict()
    why = _infeasible(problem, catalog)
    if why:
        verdict.failed, verdict.reason = "feasible", why
        return verdict
    verdict.passed.append("feasible")
    _conversation_needed(problem, catalog, verdict)
    if verdict.needed < min_needed:
        verdict.failed = "needed"
        verdict.reason = f"{verdict.needed} of the top {TOP} hits pass the opening but fail the truth (< {min_needed})"
        return verdict
    verdict.passed.append("needed")
    if problem.events and not verdict.bites:
        verdict.failed, verdict.reason = "bites", "no hit passes the first state and fails the updated one"
        return verdict
    verdict.passed.append("bites")
    if not agents:
        return verdict
    verdict.reference = reference_agent(problem, catalog, tools)
    if not verdict.reference.success:
        notes = "; ".join(verdict.reference.notes) or f"ended {verdict.reference.ending}"
        verdict.failed, verdict.reason = "solved", f"the reference agent fails ({notes})"
        return verdict
    verdict.passed.append("solved")
    verdict.blind = blind_agent(problem, catalog, tools)
    if verdict.blind.success:
        verdict.failed, verdict.reason = "not_trivial", "the blind agent's top hit passes"
        return verdict
    verdict.passed.append("not_trivial")
    return verdict
