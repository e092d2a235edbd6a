"""A session read back from the gateway's log: the shopper replayed over the agent's moves, with what each proposal
did against the rules in force when it was made (what `arena.tasks.session.scoring` and `.rubric` judge).

The moves are the ``ask_user``, ``respond`` and ``recommend_product`` calls the tools ran (no error; a commit counts
whenever it reached the tools, as `arena.tasks.answer` reads the answer); the replay is `shopper.step`, so it is
the conversation the agent had, byte for byte.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.tasks.answer import REFUSED
from arena.tasks.session import shopper, truth
from arena.tasks.session.problem import SessionProblem
from arena.trajectory import TrajectoryEvent

LISTING_TOOLS = frozenset({"find_product", "view_product_information"})
_QUOTE = re.compile(r"(?:[$₱€£]|\b(?:php|usd|rm|price|priced|costs?|for)\b[: ]*(?:is|of|at)?)\s*(\d[\d,]*(?:\.\d+)?)")


@dataclass
class Proposal:
    """One ``respond`` with products, judged against the shopper's state just before it."""

    turn: int
    ids: list[str]
    message: str
    unknown: list[str] = field(default_factory=list)
    fails: dict[str, list[str]] = field(default_factory=dict)  # id -> every constraint it failed (rules then)
    stale: dict[str, list[str]] = field(default_factory=dict)  # id -> known constraints it failed
    superseded: dict[str, list[str]] = field(default_factory=dict)  # id -> updated constraints it met only before
    again: list[str] = field(default_factory=list)  # ids rejected earlier
    unseen: list[str] = field(default_factory=list)  # ids no earlier search or detail result showed
    misquoted: list[float] = field(default_factory=list)  # quoted prices no proposed product has


@dataclass
class Trace:
    actions: list[shopper.Action]
    replies: list[shopper.Reply]
    state: shopper.ShopperState
    proposals: list[Proposal]
    profile_reads: int = 0
    profile_before_proposal: bool = False
    rejected_at_commit: dict[str, str] = field(default_factory=dict)


def _arguments(event: TrajectoryEvent) -> dict[str, Any]:
    args = event.arguments
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return {}
    return args if isinstance(args, dict) else {}


def _ids(value: Any) -> tuple[str, ...]:
    parts = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else []
    return tuple(str(p).strip() for p in parts if str(p).strip())


def action_of(event: TrajectoryEvent) -> shopper.Action | None:
    """The shopper move a logged call made, or None (another tool, refused, or failed before the tool ran)."""
    if event.kind != "tool_call" or event.status in REFUSED:
        return None
    args = _arguments(event)
    if event.name == "recommend_product":
        raw = args.get("product_ids", "")
        return shopper.Action("commit", raw if isinstance(raw, str) else "", _ids(raw if isinstance(raw, str) else ""))
    if event.error is not None:
        return None
    if event.name == "ask_user":
        return shopper.Action("ask", str(args.get("question", "")))
    if event.name == "respond":
        return shopper.Action("respond", str(args.get("message", "")), _ids(args.get("product_ids", "")))
    return None


def _seen(event: TrajectoryEvent) -> list[str]:
    if event.kind != "tool_call" or event.name not in LISTING_TOOLS or event.error is not None:
        return []
    rows = event.result if isinstance(event.result, list) else []
    return [str(r["product_id"]) for r in rows if isinstance(r, dict) and "product_id" in r and "error" not in r]


def _judge(
    problem: SessionProblem,
    st: shopper.ShopperState,
    action: shopper.Action,
    turn: int,
    seen: set[str],
    lookup: shopper.Lookup,
    ruleset: Any,
) -> Proposal:
    ids = list(dict.fromkeys(action.product_ids))
    out = Proposal(turn=turn, ids=[], message=action.text)
    order = [c.cid for c in problem.constraints if c.item == st.active]  # the item the shopper is on
    prices: list[float] = []
    for pid in ids:
        doc = shopper.safe_lookup(lookup, pid)
        if doc is None:
            out.unknown.append(pid)
            continue
        out.ids.append(pid)
        prices.append(float(doc.get("price", -1)))
        if pid in st.rejected:
            out.again.append(pid)
        if pid not in seen:
            out.unseen.append(pid)
        failed = [cid for cid in order if not truth.satisfies(st.rules[cid], doc, ruleset)]
        if failed:
            out.fails[pid] = failed
        if [cid for cid in failed if cid in st.known]:
            out.stale[pid] = [cid for cid in failed if cid in st.known]
        old = [
            cid
            for cid, rules in st.superseded.items()
            if not truth.satisfies(st.rules[cid], doc, ruleset) and any(truth.satisfies(r, doc, ruleset) for r in rules)
        ]
        if old:
            out.superseded[pid] = old
    for quoted in _QUOTE.findall(action.text.lower()):
        value = float(quoted.replace(",", ""))
        if prices and not any(abs(value - p) < 0.005 for p in prices):
            out.misquoted.append(value)
    return out


def _a_proposal(problem: SessionProblem, st: shopper.ShopperState, action: shopper.Action) -> bool:
    """Whether the shopper will read ``action`` as a proposal (not closed, turns left, 1-3 products)."""
    n = len(set(action.product_ids))
    open_ = st.ending is None and st.turns < problem.limits.max_user_turns
    return action.kind == "respond" and open_ and 0 < n <= shopper.MAX_PROPOSED


def replay(
    problem: SessionProblem, events: Sequence[TrajectoryEvent], lookup: shopper.Lookup, ruleset: Any = None
) -> Trace:
    """The session of a run, from the gateway's log of it."""
    st = shopper.start(problem)
    trace = Trace(actions=[], replies=[], state=st, proposals=[])
    seen: set[str] = set()
    for event in sorted(events, key=lambda e: e.seq):
        seen.update(_seen(event))
        if event.kind == "tool_call" and event.name == "get_user_profile" and event.error is None:
            trace.profile_reads += 1
            if not trace.proposals:
                trace.profile_before_proposal = True
        action = action_of(event)
        if action is None:
            continue
        if _a_proposal(problem, st, action):
            trace.proposals.append(_judge(problem, st, action, len(trace.actions), seen, lookup, ruleset))
        if action.kind == "commit" and st.ending is None:
            trace.rejected_at_commit = dict(st.rejected)
        trace.actions.append(action)
        trace.replies.append(shopper.step(problem, st, action, lookup, ruleset))
    return trace
