"""The session's weighted rubric, read from the replayed conversation (``docs/sessions.md``, "The rubric").

Items and tiers after Shopping Reasoning Bench's importance-weighted rubrics (required / important / optional), the
item names after RealWorldShop's session judge; every item here is deterministic. The optional trade-off item needs a
reader of the agent's reasoning and is left to the judge (`arena.judge`), so it carries no weight here.

`FORMULA` is the final score of a session run and `VERSION` names it: a change to an item, a weight or the formula
is a new version, stored with every score (`RunScore.ruleset_version`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from arena.tasks.session.problem import SessionProblem
from arena.tasks.session.trace import Trace

Tier = Literal["required", "important", "optional"]
WEIGHTS: dict[Tier, float] = {"required": 3.0, "important": 2.0, "optional": 1.0}
VERSION = "s2"  # s2: the plan minimum counts one confirmation per item (sessions of several items)
FORMULA = "final = success * (0.8 + 0.2 * weighted_pass)"
#: the turns over the plan's minimum a session may take and still be paced
PACE_SLACK = 3
MIN_REVEAL_RATE = 0.5
#: the shopper's outcomes that answer a question (`arena.tasks.session.shopper`)
QUESTION_OUTCOMES = frozenset({"reveal", "repeat", "spray", "no_match", "too_long", "question_cap"})


@dataclass(frozen=True)
class Item:
    name: str
    tier: Tier
    passed: bool
    why: str

    @property
    def weight(self) -> float:
        return WEIGHTS[self.tier]


def plan_minimum(problem: SessionProblem) -> int:
    """The fewest shopper turns a session needs: one question per slot, one proposal per event, one to confirm each
    item."""
    slots = sum(1 for c in problem.constraints if c.src == "slot")
    return slots + len(problem.events) + problem.items


def _committed(trace: Trace) -> tuple[str, ...]:
    return trace.state.committed or ()


def state_tracking(trace: Trace) -> Item:
    bad = [f"{pid} at turn {p.turn + 1}" for p in trace.proposals for pid in p.stale]
    return Item("state tracking", "required", not bad, "proposals that break what the shopper said: " + str(bad))


def constraint_updating(trace: Trace, commit_superseded: bool) -> Item:
    bad = [f"{pid} at turn {p.turn + 1}" for p in trace.proposals for pid in p.superseded]
    if commit_superseded:
        bad.append("the commit")
    return Item("constraint updating", "required", not bad, "moves that keep a superseded value: " + str(bad))


def no_reproposal(trace: Trace) -> Item:
    again = [f"{pid} at turn {p.turn + 1}" for p in trace.proposals for pid in p.again]
    again += [f"commit of {pid}" for pid in _committed(trace) if pid in trace.rejected_at_commit]
    return Item("no re-proposal", "required", not again, "rejected products proposed again: " + str(again))


def confirm_before_commit(trace: Trace) -> Item:
    ids = _committed(trace)
    ok = bool(ids) and set(ids) <= set(trace.state.confirmed)
    why = f"committed {list(ids)}; the shopper confirmed {trace.state.confirmed}"
    return Item("confirm before commit", "required", ok, why)


def personalisation(problem: SessionProblem, trace: Trace) -> Item:
    needs = any(c.src == "profile" for c in problem.constraints)
    if not needs:
        return Item("personalisation", "important", True, "the plan has no profile constraint")
    ok = trace.profile_before_proposal
    return Item("personalisation", "important", ok, "profile read before the first proposal" if ok else "it was not")


def clarification_efficiency(trace: Trace) -> Item:
    asked = [r for r in trace.replies if r.outcome in QUESTION_OUTCOMES]
    reveals = sum(1 for r in asked if r.outcome == "reveal")
    redundant = sum(1 for r in asked if r.outcome == "repeat")
    if not asked:
        return Item("clarification efficiency", "important", True, "no questions asked")
    ok = reveals / len(asked) >= MIN_REVEAL_RATE and not redundant
    why = f"{reveals} reveals in {len(asked)} questions; {redundant} redundant"
    return Item("clarification efficiency", "important", ok, why)


def grounding(trace: Trace) -> Item:
    unseen = [pid for p in trace.proposals for pid in p.unseen]
    unknown = [pid for p in trace.proposals for pid in p.unknown]
    misquoted = [q for p in trace.proposals for q in p.misquoted]
    ok = not (unseen or unknown or misquoted)
    why = f"unseen ids {unseen}; unknown ids {unknown}; prices quoted wrong {misquoted}"
    return Item("grounding", "important", ok, why)


def pace(problem: SessionProblem, trace: Trace) -> Item:
    least = plan_minimum(problem)
    turns = trace.state.turns
    left = trace.state.ending == "user_exit"
    ok = not left and turns <= least + PACE_SLACK
    why = f"{turns} shopper turns (plan minimum {least}, slack {PACE_SLACK}); " + ("the shopper left" if left else "")
    return Item("pace", "important", ok, why.rstrip("; "))


def items(problem: SessionProblem, trace: Trace, commit_superseded: bool) -> list[Item]:
    """Every deterministic rubric item of a session run."""
    return [
        state_tracking(trace),
        constraint_updating(trace, commit_superseded),
        no_reproposal(trace),
        confirm_before_commit(trace),
        personalisation(problem, trace),
        clarification_efficiency(trace),
        grounding(trace),
        pace(problem, trace),
    ]


def weighted_pass(rubric: list[Item]) -> float:
    total = sum(i.weight for i in rubric)
    return sum(i.weight for i in rubric if i.passed) / total if total else 0.0


def final(success: bool, rubric: list[Item]) -> float:
    """`FORMULA`."""
    return (1.0 if success else 0.0) * (0.8 + 0.2 * weighted_pass(rubric))
