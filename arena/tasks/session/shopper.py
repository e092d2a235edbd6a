"""The scripted shopper: a pure function of the problem and the conversation so far.

`reply(problem, transcript, action, lookup)` is the shopper's answer to the agent's next action, given the agent's
earlier actions; no LLM and no randomness, so every validator replays a session byte for byte. The rules are those of
``docs/sessions.md`` ("The shopper"), after EComAgentBench's scripted clarification (a hidden
intent revealed only when asked) and tau2-bench's user loop (the user ends the conversation):

- A question (``ask``, or ``respond`` with no products) is matched word by word against the ``topics`` of the slots
  not yet revealed: one or two matched reveal the best one (ties: the earliest constraint); a question touching
  three or more topics (those slots, or common shopping topics such as budget, shipping, store) is a spray ("one
  thing at a time"); only revealed topics repeat the answer; nothing matched is "no preference" (free the
  first time). Questions over the length cap or past ``max_questions`` are answered by a rule, never refused.
- A proposal (``respond`` with 1-3 products) is checked, product by product, against the current rules: a product
  rejected before is "shown already" (unless the need it was refused for has changed since; checked first, so
  re-proposing is always named as such); one that fails a constraint the agent knows is rejected naming it; one that
  fails a hidden constraint is rejected revealing exactly that one, ``{actual}`` filled from the catalog; the first
  acceptable product fires the pending event, or else is confirmed (a skeptic first wants its price and one revealed
  value quoted).
- Every reply but a fresh reveal, an update or a confirmation costs one patience (a plain "no preference" is free the
  first time); at zero the shopper leaves. A user turn past ``max_user_turns`` ends the session; the commit
  (``recommend_product``) ends it too.

The shopper talks about one item at a time (`ShopperState.active`, the first not settled): questions and proposals
are judged by that item's constraints; a confirmation settles the item and brings up the next (its patience and
questions counted anew); a bundle refuses a product dearer than the budget leaves; a vetoed product is refused for
good; a late change of mind about an earlier item is said with the next verdict and unsettles that item if its
product no longer fits.

A reply reveals at most one constraint, and its words (`Reply.public`) carry no label, count or constraint id.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from arena.tasks.session import questions, truth
from arena.tasks.session.problem import Rule, SessionProblem

Kind = Literal["ask", "respond", "commit"]
Ending = Literal["user_exit", "max_turns", "agent_commit"]
Lookup = Callable[[str], "dict[str, Any] | None"]
MAX_PROPOSED = 3

SAY_SPRAY = "One thing at a time, please."
SAY_NO_PREFERENCE = "No preference there."
SAY_CAP = "Just show me some options."
SAY_TOO_LONG = "That is a lot to read; ask me one short thing."
SAY_TOO_MANY = "That is too many at once; show me up to three."
SAY_UNKNOWN = "I can't find that one."
SAY_AGAIN = "You showed me that already."
SAY_REJECT = "Not that one."
SAY_CONFIRM = "That one works for me; go ahead."
SAY_UNCONVINCED = "What does it cost, and does it really have what I need?"
SAY_LEAVE = "I'll look elsewhere, thanks."
SAY_MAX_TURNS = "We have gone on long enough; I'll think about it."
SAY_CLOSED = "The conversation is over."
SAY_THANKS = "Thanks, I'll take it."
SAY_SETTLED = "That one works for me."
SAY_BACK = "But the one we settled on earlier no longer fits; let's find another one for it first."
SAY_VETOED = "Not that one."


@dataclass(frozen=True)
class Action:
    """One agent move the shopper answers: a question, a message with 0-3 products, or the commit."""

    kind: Kind
    text: str = ""
    product_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reply:
    """The shopper's answer. Only `public` reaches the agent; the rest is for scoring and tests."""

    user: str
    turns_left: int
    closed: bool
    outcome: str
    revealed: str | None = None  # the constraint this reply revealed
    violated: str | None = None  # the constraint a rejection named
    product_id: str | None = None  # the product a proposal's reply is about
    cost: int = 0

    def public(self) -> dict[str, Any]:
        return {"user": self.user, "turns_left": self.turns_left, "closed": self.closed}


@dataclass
class ShopperState:
    """What the shopper remembers; rebuilt from the transcript by `replay`."""

    rules: dict[str, Rule]
    known: set[str]
    patience: int
    superseded: dict[str, list[Rule]] = field(default_factory=dict)
    fired: list[int] = field(default_factory=list)  # the events said, by index
    questions: int = 0
    turns: int = 0
    free_no_match: bool = True
    rejected: dict[str, str] = field(default_factory=dict)  # product id -> the constraint it was rejected for
    confirmed: list[str] = field(default_factory=list)
    proposed: list[str] = field(default_factory=list)
    ending: Ending | None = None
    committed: tuple[str, ...] | None = None
    active: int = 0  # the item the shopper is talking about
    settled: dict[int, str] = field(default_factory=dict)  # item -> the product confirmed for it
    prices: dict[str, float] = field(default_factory=dict)  # the settled products' catalog prices


def start(problem: SessionProblem) -> ShopperState:
    """The shopper before the first action: the opening's and the profile's constraints are known."""
    known = {c.cid for c in problem.constraints if c.src in ("query", "profile")}
    return ShopperState(
        rules={c.cid: c.rule for c in problem.constraints}, known=known, patience=problem.style.patience
    )


def _line(problem: SessionProblem, st: ShopperState, cid: str, product: dict[str, Any] | None) -> str:
    """What the shopper says about constraint ``cid`` (filled with ``product``'s value where it says ``{actual}``)."""
    c = problem.constraint(cid)
    rule = st.rules[cid]
    if cid in st.superseded or not c.say:
        return truth.describe(rule)
    value = truth.actual(rule, product) if product is not None else "not what I need"
    return c.say.replace("{actual}", value)


def _ask(problem: SessionProblem, st: ShopperState, text: str) -> tuple[str, str, str | None, int]:
    """A question: (words, outcome, revealed constraint, patience cost)."""
    st.questions += 1
    if len(text) > problem.limits.question_chars:
        return SAY_TOO_LONG, "too_long", None, 1
    if st.questions > problem.style.max_questions:
        return SAY_CAP, "question_cap", None, 1
    order = [c.cid for c in problem.constraints]
    scores = questions.topic_scores(problem, text, st.active)
    fresh = {cid: s for cid, s in scores.items() if cid not in st.known}
    if questions.spread(problem, text, fresh) >= 3:
        return SAY_SPRAY, "spray", None, 1
    if fresh:
        cid = questions.best(fresh, order)
        st.known.add(cid)
        return _line(problem, st, cid, None), "reveal", cid, 0
    if scores:
        return _line(problem, st, questions.best(scores, order), None), "repeat", None, 1
    cost = 0 if st.free_no_match else 1
    st.free_no_match = False
    return SAY_NO_PREFERENCE, "no_match", None, cost


def safe_lookup(lookup: Lookup, product_id: str) -> dict[str, Any] | None:
    try:
        doc = lookup(product_id)
    except Exception:  # a catalog that cannot read an odd id answers "unknown", never raises into the session
        return None
    return doc if isinstance(doc, dict) else None


def _quoted(problem: SessionProblem, st: ShopperState, message: str, product: dict[str, Any]) -> bool:
    """Skeptic style: the message quotes the product's catalog price and, when the agent knows any option or
    attribute constraint, one of their values."""
    numbers = [float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", message)]
    price = float(product.get("price", -1))
    if not any(abs(n - price) < 0.005 for n in numbers):
        return False
    values = [v.lower() for cid in sorted(st.known) for v in _pair_values(st.rules[cid])]
    return not values or any(v in message.lower() for v in values)


def _pair_values(rule: Rule) -> list[str]:
    return [v for o in rule.sku_options for v in o.values()] + [
        v for a in rule.attributes for vs in a.values() for v in vs
    ]


def _verdicts(
    problem: SessionProblem, st: ShopperState, ids: list[str], lookup: Lookup, ruleset: Any
) -> list[tuple[str, str, str | None, dict[str, Any] | None]]:
    """Per proposed id: (id, verdict, constraint, product), verdict in unknown/again/stale/bundle/hidden/veto/ok, judged
    against the rules of the item the shopper is talking about."""
    order = [c.cid for c in problem.constraints if c.item == st.active]
    known = [cid for cid in order if cid in st.known]
    hidden = [cid for cid in order if cid not in st.known]
    vetoed = {v.product_id for v in problem.vetoes}
    out: list[tuple[str, str, str | None, dict[str, Any] | None]] = []
    for pid in ids:
        doc = safe_lookup(lookup, pid)
        if doc is None:
            out.append((pid, "unknown", None, None))
        elif pid in st.rejected:
            out.append((pid, "again", st.rejected[pid], doc))
        elif (cid := truth.first_violation(st.rules, known, doc, ruleset)) is not None:
            out.append((pid, "stale", cid, doc))
        elif room(problem, st) < float(doc.get("price", 0)) - 0.005:
            out.append((pid, "bundle", BUNDLE, doc))
        elif (cid := truth.first_violation(st.rules, hidden, doc, ruleset)) is not None:
            out.append((pid, "hidden", cid, doc))
        elif pid in vetoed:
            out.append((pid, "veto", VETO, doc))
        else:
            out.append((pid, "ok", None, doc))
    return out


#: the reasons a product is refused that are no constraint: the bundle's budget, the shopper's veto
BUNDLE, VETO = "~bundle", "~veto"


def room(problem: SessionProblem, st: ShopperState) -> float:
    """What the active item may cost within the bundle's budget, given the products settled for the other items."""
    if problem.bundle_budget is None:
        return float("inf")
    return problem.bundle_budget - sum(
        float(st.prices.get(pid, 0.0)) for i, pid in st.settled.items() if i != st.active
    )


def _pending(problem: SessionProblem, st: ShopperState) -> int | None:
    """The first event not said yet that the active item's acceptable proposal fires: the item's own changes of
    mind first, a late one (about an earlier item) only when none of those is left."""
    pending = [i for i, e in enumerate(problem.events) if i not in st.fired and problem.event_item(e) == st.active]
    pending.sort(key=lambda i: problem.events[i].on == "last_item")
    return pending[0] if pending else None


def _fire(problem: SessionProblem, st: ShopperState, index: int, lookup: Lookup, ruleset: Any) -> str | None:
    """Apply event ``index``: its constraint's rule replaced, refusals for it judged anew, a settled product that no
    longer fits unsettled. The constraint revealed by it, if fresh."""
    st.fired.append(index)
    target = problem.events[index].update.cid
    st.superseded.setdefault(target, []).append(st.rules[target])
    st.rules[target] = problem.events[index].update.rule
    # a product refused for the need just changed is judged anew; one refused for another need stays refused
    st.rejected = {p: cid for p, cid in st.rejected.items() if cid != target}
    for item, pid in sorted(st.settled.items()):
        doc = safe_lookup(lookup, pid)
        if doc is None or truth.first_violation(problem.item_rules(item, st.rules), [target], doc, ruleset):
            del st.settled[item]
            st.confirmed = [p for p in st.confirmed if p != pid]
    fresh = target not in st.known
    st.known.add(target)
    return target if fresh else None


def _settle(problem: SessionProblem, st: ShopperState, pid: str, doc: dict[str, Any]) -> str:
    """Confirm ``pid`` for the active item; the words say what comes next (the next item, or go ahead)."""
    st.confirmed.append(pid)
    st.settled[st.active] = pid
    st.prices[pid] = float(doc.get("price", 0))
    left = [i for i in range(problem.items) if i not in st.settled]
    if not left:
        return SAY_CONFIRM
    back = left[0] < st.active
    st.active = left[0]
    if back:
        return f"{SAY_SETTLED} {SAY_BACK}"
    # a new item is a fresh start of the conversation: the shopper's patience and questions count anew
    st.patience, st.questions, st.free_no_match = problem.style.patience, 0, True
    return f"{SAY_SETTLED} {problem.intents[st.active - 1].intro}"


def _accept(
    problem: SessionProblem, st: ShopperState, message: str, pid: str, doc: dict[str, Any], lookup: Lookup, ruleset: Any
) -> tuple[str, str, str | None, str | None, str | None, int]:
    """An acceptable proposal: the pending event, or the confirmation (a skeptic first wants evidence)."""
    index = _pending(problem, st)
    said, revealed = "", None
    if index is not None:
        revealed = _fire(problem, st, index, lookup, ruleset)
        said = problem.events[index].say
        if problem.events[index].on != "last_item":
            return said, "update", revealed, None, pid, 0
    lead = f"{said} " if said else ""
    if problem.style.skeptic and not _quoted(problem, st, message, doc):
        return lead + SAY_UNCONVINCED, "update" if said else "unconvinced", revealed, None, pid, 0 if said else 1
    words = _settle(problem, st, pid, doc)
    return lead + words, "confirm" if words == SAY_CONFIRM else "settle", revealed, None, pid, 0


def _propose(
    problem: SessionProblem, st: ShopperState, message: str, ids: list[str], lookup: Lookup, ruleset: Any
) -> tuple[str, str, str | None, str | None, str | None, int]:
    """A proposal: (words, outcome, revealed, violated, product, patience cost)."""
    if len(ids) > MAX_PROPOSED:
        return SAY_TOO_MANY, "too_many", None, None, None, 1
    verdicts = _verdicts(problem, st, ids, lookup, ruleset)
    st.proposed += [pid for pid, verdict, _, _ in verdicts if verdict != "unknown"]
    for pid, verdict, _, doc in verdicts:
        if verdict == "ok" and doc is not None:
            return _accept(problem, st, message, pid, doc, lookup, ruleset)
    for pid, verdict, named, doc in verdicts:
        if verdict in ("bundle", "veto") and named is not None and doc is not None:
            st.rejected[pid] = named
            return f"{SAY_REJECT} {_refusal(problem, st, named, pid)}", "reject", None, None, pid, 1
        if verdict in ("stale", "hidden") and named is not None:
            st.rejected[pid] = named
            fresh = named not in st.known
            st.known.add(named)
            words = f"{SAY_REJECT} {_line(problem, st, named, doc)}"
            return words, "reject_reveal" if fresh else "reject", named if fresh else None, named, pid, 1
    for pid, verdict, named, _ in verdicts:
        if verdict == "again":
            return SAY_AGAIN, "again", None, named, pid, 1
    return SAY_UNKNOWN, "unknown", None, None, None, 1


def _refusal(problem: SessionProblem, st: ShopperState, why: str, pid: str) -> str:
    """The words of a refusal for the bundle's budget or a veto."""
    if why == VETO:
        return next(v.say for v in problem.vetoes if v.product_id == pid)
    total = problem.bundle_budget or 0.0
    left = room(problem, st)
    return f"With what we settled, that takes the total over {total:g}: this one has to cost at most {left:.2f}."


def _ids(product_ids: Sequence[str]) -> list[str]:
    seen: dict[str, None] = {}
    for pid in product_ids:
        text = str(pid).strip()
        if text:
            seen.setdefault(text, None)
    return list(seen)


def step(problem: SessionProblem, st: ShopperState, action: Action, lookup: Lookup, ruleset: Any = None) -> Reply:
    """Answer ``action`` and update ``st`` in place (see `reply` for the pure form)."""
    limit = problem.limits.max_user_turns
    if action.kind == "commit":
        if st.ending is None:
            st.ending = "agent_commit"
            st.committed = tuple(action.product_ids)
            return Reply(SAY_THANKS, max(0, limit - st.turns), True, "commit")
        return Reply(SAY_CLOSED, max(0, limit - st.turns), True, "closed")
    if st.ending is not None:
        return Reply(SAY_CLOSED, max(0, limit - st.turns), True, "closed")
    if st.turns >= limit:
        st.ending = "max_turns"
        return Reply(SAY_MAX_TURNS, 0, True, "max_turns")
    st.turns += 1
    ids = _ids(action.product_ids) if action.kind == "respond" else []
    revealed: str | None
    violated: str | None = None
    product: str | None = None
    if ids:
        words, outcome, revealed, violated, product, cost = _propose(problem, st, action.text, ids, lookup, ruleset)
    else:
        words, outcome, revealed, cost = _ask(problem, st, action.text)
    st.patience -= cost
    if st.patience <= 0:
        st.ending = "user_exit"
        words = f"{words} {SAY_LEAVE}"
    return Reply(
        user=words,
        turns_left=limit - st.turns,
        closed=st.ending is not None,
        outcome=outcome,
        revealed=revealed,
        violated=violated,
        product_id=product,
        cost=cost,
    )


def play(
    problem: SessionProblem, transcript: Sequence[Action], lookup: Lookup, ruleset: Any = None
) -> tuple[ShopperState, list[Reply]]:
    """The whole conversation replayed: the shopper's final state and its reply to each action."""
    st = start(problem)
    replies = [step(problem, st, action, lookup, ruleset) for action in transcript]
    return st, replies


def reply(
    problem: SessionProblem, transcript: Sequence[Action], action: Action, lookup: Lookup, ruleset: Any = None
) -> Reply:
    """The shopper's reply to ``action`` after the agent's earlier actions ``transcript``: a pure function."""
    st, _ = play(problem, transcript, lookup, ruleset)
    return step(problem, st, action, lookup, ruleset)
