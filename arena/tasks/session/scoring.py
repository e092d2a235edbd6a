"""The strict session check and its attribution (``docs/sessions.md``, "The strict check"), then the rubric.

- Final truth S*: every constraint of every source with every event applied (`SessionProblem.final_rules`); the
  constraints the agent never uncovered count too, as in EComAgentBench. An event that never fired (the agent never
  made an acceptable proposal) is still part of S*: the agent is judged against the shopper's final intent.
- Success: the agent committed while the session was open (the shopper neither left nor ran out of turns), and the
  committed products pass every rule of S*, checked by the shopping domain's product checks (`truth.check`, which is
  `arena.tasks.shopping.strict_product.score_product`). A session commits one product per item (`place`: a one-item
  session reads the answer's first id), none vetoed, a bundle's within its budget (`whole`).
- Attribution, one record per constraint: its source, the turn that revealed it, whether the commit satisfies it,
  the proposals that broke it, and for a broken one the reason (``no_commit``, ``user_exit``, ``rejected_again``,
  ``stale_after_update``, ``ignored_revealed``, ``missed_hidden``).
- The final score: `rubric.FORMULA`, versioned with the ruleset (``RunScore.ruleset_version`` = ``<ruleset>+<rubric
  version>``). Attribution and rubric are `Check` entries whose evidence is JSON.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import orjson

from arena.scoring.models import Check, RunScore
from arena.tasks.base import Lookup
from arena.tasks.session import rubric, shopper, truth
from arena.tasks.session.problem import SessionProblem
from arena.tasks.session.trace import Trace, replay
from arena.tasks.shopping.rulesets import get_ruleset
from arena.tasks.shopping.verdict import FIELDS, ProductScore, ShoppingExtras
from arena.trajectory import TrajectoryEvent

REASONS = ("no_commit", "user_exit", "rejected_again", "stale_after_update", "ignored_revealed", "missed_hidden")


def _json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def _revealed_at(problem: SessionProblem, trace: Trace) -> dict[str, int | None]:
    """Per constraint, the shopper turn that revealed it (0: the opening or the profile; None: never)."""
    out: dict[str, int | None] = {c.cid: 0 if c.src in ("query", "profile") else None for c in problem.constraints}
    for turn, r in enumerate(trace.replies, start=1):
        for cid in (r.revealed, r.violated):
            if cid is not None and out.get(cid) is None:
                out[cid] = turn
    return out


def _reason(
    problem: SessionProblem,
    cid: str,
    trace: Trace,
    doc: dict[str, Any] | None,
    pid: str | None,
    committed: bool,
    ruleset: Any,
) -> str:
    """Why constraint ``cid`` is not met by the run (the reasons of ``docs/sessions.md``, the first that applies)."""
    st = trace.state
    unsaid = {e.update.cid for i, e in enumerate(problem.events) if i not in st.fired}
    if not committed or doc is None or pid is None:
        return "user_exit" if st.ending == "user_exit" else "no_commit"
    if trace.rejected_at_commit.get(pid) == cid:
        return "rejected_again"
    if cid in st.superseded and any(truth.satisfies(r, doc, ruleset) for r in st.superseded[cid]):
        return "stale_after_update"
    if cid in unsaid and truth.satisfies(st.rules[cid], doc, ruleset):
        return "missed_hidden"  # it meets what the shopper said; the update it misses was never said
    return "ignored_revealed" if cid in st.known else "missed_hidden"


Placed = tuple[str | None, dict[str, Any] | None]  # one item's committed product: (id, document)


def place(problem: SessionProblem, ids: list[str], lookup: Lookup, ruleset: Any) -> list[Placed]:
    """Each item's committed product: the answer's first id for a one-item session; for several items, the order of
    the distinct committed ids that meets the most final constraints (an agent may commit the items in any order)."""
    docs = {pid: shopper.safe_lookup(lookup, pid) for pid in dict.fromkeys(ids)}
    if problem.items == 1:
        pid = ids[0] if ids else None
        return [(pid, docs.get(pid) if pid else None)]
    rules = [list(problem.item_rules(i).values()) for i in range(problem.items)]
    # an answer with more ids than items fails "one product per item" anyway: only the first few are placed
    pool: list[str | None] = list(docs)[: problem.items + 2] + [None] * problem.items
    met: dict[tuple[int, str | None], int] = {
        (i, pid): sum(1 for r in rules[i] if truth.satisfies(r, doc, ruleset))
        for i in range(problem.items)
        for pid in pool
        if pid is not None and (doc := docs.get(pid)) is not None
    }
    best = max(
        itertools.permutations(pool, problem.items),
        key=lambda order: sum(met.get((i, p), 0) for i, p in enumerate(order)),
    )
    return [(pid, docs.get(pid) if pid else None) for pid in best]


def attribution(problem: SessionProblem, trace: Trace, placed: list[Placed], ruleset: Any) -> list[dict[str, Any]]:
    """One record per constraint: ``cid, src, revealed_at, satisfied_final, violating_proposals, reason``."""
    final = problem.final_rules()
    committed = trace.state.ending == "agent_commit"
    at = _revealed_at(problem, trace)
    records = []
    for c in problem.constraints:
        pid, doc = placed[c.item]
        ok = doc is not None and truth.satisfies(final[c.cid], doc, ruleset)
        violating = [pid_ for p in trace.proposals for pid_, cids in p.fails.items() if c.cid in cids]
        records.append(
            {
                "cid": c.cid,
                "src": c.src,
                "revealed_at": at[c.cid],
                "satisfied_final": ok,
                "violating_proposals": violating,
                "reason": None if ok and committed else _reason(problem, c.cid, trace, doc, pid, committed, ruleset),
            }
        )
    return records


def _commit_superseded(trace: Trace, placed: list[Placed], ruleset: Any) -> bool:
    st = trace.state
    return any(
        not truth.satisfies(st.rules[cid], doc, ruleset) and any(truth.satisfies(r, doc, ruleset) for r in old)
        for _, doc in placed
        if doc is not None
        for cid, old in st.superseded.items()
    )


def whole(problem: SessionProblem, ids: list[str], placed: list[Placed]) -> list[Check]:
    """The checks on the commit as a whole: one product per item (a one-item session reads the first id, as it
    always has), none the shopper vetoed, the bundle's budget."""
    out: list[Check] = []
    if problem.items > 1:
        distinct = len(set(ids))
        out.append(
            Check(
                name="one product per item",
                passed=distinct == problem.items,
                evidence=f"{distinct} distinct products committed for {problem.items} items",
            )
        )
    vetoed = sorted({v.product_id for v in problem.vetoes} & {pid for pid, _ in placed if pid})
    if problem.vetoes:
        out.append(Check(name="no vetoed product", passed=not vetoed, evidence=f"vetoed products committed: {vetoed}"))
    if problem.bundle_budget is not None:
        total = sum(float(doc.get("price", 0)) for _, doc in placed if doc is not None)
        ok = total <= problem.bundle_budget + 0.005
        out.append(Check(name="bundle budget", passed=ok, evidence=f"{total:.2f} of at most {problem.bundle_budget:g}"))
    return out


def score_session(
    problem: SessionProblem, answer: Any, lookup: Lookup, *, events: Sequence[TrajectoryEvent] = (), ruleset: Any = None
) -> RunScore:
    """The strict verdict on a session run: ``answer`` the raw committed answer, ``events`` the gateway's log.
    Never raises on a run, whatever its moves."""
    rs = get_ruleset(ruleset)
    trace = replay(problem, events, lookup, rs)
    ids = rs.parse(answer) if answer is not None else []
    placed = place(problem, ids, lookup, rs)
    records = attribution(problem, trace, placed, rs)
    committed = trace.state.ending == "agent_commit"
    satisfied = all(doc is not None for _, doc in placed) and all(r["satisfied_final"] for r in records)
    items = rubric.items(problem, trace, _commit_superseded(trace, placed, rs))
    as_whole = whole(problem, ids, placed)
    success = committed and satisfied and all(c.passed for c in as_whole)
    final = rubric.final(success, items)
    scores = [_product(problem, i, pid, doc, rs) for i, (pid, doc) in enumerate(placed)]
    checks = [
        Check(name="session end", passed=committed, evidence=trace.state.ending or "the session never ended"),
        Check(
            name="final truth",
            passed=satisfied,
            evidence=f"{sum(r['satisfied_final'] for r in records)}/{len(records)} constraints met by "
            + ", ".join(repr(pid) for pid, _ in placed),
        ),
        *as_whole,
    ]
    checks += [Check(name=f"constraint {r['cid']}", passed=r["satisfied_final"], evidence=_json(r)) for r in records]
    checks += [
        Check(
            name=f"rubric {i.name}", passed=i.passed, evidence=_json({"tier": i.tier, "weight": i.weight, "why": i.why})
        )
        for i in items
    ]
    formula = {"formula": rubric.FORMULA, "version": rubric.VERSION, "weighted_pass": rubric.weighted_pass(items)}
    checks.append(Check(name="score", passed=success, evidence=_json({**formula, "final": final})))
    hits: dict[str, list[int]] = {}
    for ps in scores:
        for f, (n, d) in ps.hits.items():
            hits[f] = [hits.get(f, [0, 0])[0] + n, hits.get(f, [0, 0])[1] + d]
    return RunScore(
        task="session",
        ruleset=rs.name,
        ruleset_version=f"{rs.version}+{rubric.VERSION}",
        answer=ids,
        success=success,
        extras=ShoppingExtras(
            title_model=rs.title_model,
            gt=sum(ps.gt for ps in scores) / len(scores),
            rule=sum(ps.rule for ps in scores) / len(scores),
            field_rates=_rates(hits),
            products=scores,
        ),
        checks=checks,
        final=final,
    )


def _product(
    problem: SessionProblem, item: int, pid: str | None, doc: dict[str, Any] | None, ruleset: Any
) -> ProductScore:
    """One item's committed product scored against its part of S* by the shopping domain's product checks."""
    gold = problem.gold_ids[item]
    gt = 1.0 if pid == gold else 0.0
    if doc is None:
        why = "nothing committed" if pid is None else f"unknown product id {pid!r}"
        fail = Check(name="answer", passed=False, evidence=why)
        return ProductScore(slot=item, gold_id=gold, answer_id=pid, known=False, gt=0.0, rule=0.0, checks=[fail])
    ps = truth.check(list(problem.item_rules(item).values()), doc, ruleset)
    return ps.model_copy(update={"gold_id": gold, "gt": gt, "slot": item})


def _rates(hits: dict[str, list[int]]) -> dict[str, float | None]:
    return {f: (hits[f][0] / hits[f][1] if f in hits and hits[f][1] else None) for f in FIELDS}
