"""The strict session check and its attribution (``docs/sessions.md``, "The strict check"), then the rubric.

- Final truth S*: every constraint of every source with every event applied (`SessionProblem.final_rules`); the
  constraints the agent never uncovered count too, as in EComAgentBench. An event that never fired (the agent never
  made an acceptable proposal) is still part of S*: the agent is judged against the shopper's final intent.
- Success: the agent committed while the session was open (the shopper neither left nor ran out of turns), and the
  committed product passes every rule of S*, checked by the shopping domain's product checks (`truth.check`, which is
  `arena.tasks.shopping.strict_product.score_product`). A session commits one product: the answer's first id.
- Attribution, one record per constraint: its source, the turn that revealed it, whether the commit satisfies it,
  the proposals that broke it, and for a broken one the reason (``no_commit``, ``user_exit``, ``rejected_again``,
  ``stale_after_update``, ``ignored_revealed``, ``missed_hidden``).
- The final score: `rubric.FORMULA`, versioned with the ruleset (``RunScore.ruleset_version`` = ``<ruleset>+<rubric
  version>``). Attribution and rubric are `Check` entries whose evidence is JSON.
"""

from __future__ import annotations

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
    unsaid = {e.update.cid for e in problem.events[st.next_event :]}
    if not committed or doc is None or pid is None:
        return "user_exit" if st.ending == "user_exit" else "no_commit"
    if trace.rejected_at_commit.get(pid) == cid:
        return "rejected_again"
    if cid in st.superseded and any(truth.satisfies(r, doc, ruleset) for r in st.superseded[cid]):
        return "stale_after_update"
    if cid in unsaid and truth.satisfies(st.rules[cid], doc, ruleset):
        return "missed_hidden"  # it meets what the shopper said; the update it misses was never said
    return "ignored_revealed" if cid in st.known else "missed_hidden"


def attribution(
    problem: SessionProblem, trace: Trace, doc: dict[str, Any] | None, pid: str | None, ruleset: Any
) -> list[dict[str, Any]]:
    """One record per constraint: ``cid, src, revealed_at, satisfied_final, violating_proposals, reason``."""
    final = problem.final_rules()
    committed = trace.state.ending == "agent_commit"
    at = _revealed_at(problem, trace)
    records = []
    for c in problem.constraints:
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


def _commit_superseded(trace: Trace, doc: dict[str, Any] | None, ruleset: Any) -> bool:
    st = trace.state
    if doc is None:
        return False
    return any(
        not truth.satisfies(st.rules[cid], doc, ruleset) and any(truth.satisfies(r, doc, ruleset) for r in old)
        for cid, old in st.superseded.items()
    )


def score_session(
    problem: SessionProblem, answer: Any, lookup: Lookup, *, events: Sequence[TrajectoryEvent] = (), ruleset: Any = None
) -> RunScore:
    """The strict verdict on a session run: ``answer`` the raw committed answer, ``events`` the gateway's log.
    Never raises on a run, whatever its moves."""
    rs = get_ruleset(ruleset)
    trace = replay(problem, events, lookup, rs)
    ids = rs.parse(answer) if answer is not None else []
    pid = ids[0] if ids else None
    doc = shopper.safe_lookup(lookup, pid) if pid else None
    records = attribution(problem, trace, doc, pid, rs)
    committed = trace.state.ending == "agent_commit"
    satisfied = doc is not None and all(r["satisfied_final"] for r in records)
    items = rubric.items(problem, trace, _commit_superseded(trace, doc, rs))
    success = committed and satisfied
    final = rubric.final(success, items)
    ps = _product(problem, pid, doc, rs)
    checks = [
        Check(name="session end", passed=committed, evidence=trace.state.ending or "the session never ended"),
        Check(
            name="final truth",
            passed=satisfied,
            evidence=f"{sum(r['satisfied_final'] for r in records)}/{len(records)} constraints met by {pid!r}",
        ),
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
    return RunScore(
        task="session",
        ruleset=rs.name,
        ruleset_version=f"{rs.version}+{rubric.VERSION}",
        answer=ids,
        success=success,
        extras=ShoppingExtras(
            title_model=rs.title_model,
            gt=1.0 if pid in problem.gold_ids else 0.0,
            rule=ps.rule,
            field_rates=_rates(ps.hits),
            products=[ps],
        ),
        checks=checks,
        final=final,
    )


def _product(problem: SessionProblem, pid: str | None, doc: dict[str, Any] | None, ruleset: Any) -> ProductScore:
    """The committed product scored against S* by the shopping domain's product checks."""
    gold = problem.gold_ids[0]
    gt = 1.0 if pid in problem.gold_ids else 0.0
    if doc is None:
        why = "nothing committed" if pid is None else f"unknown product id {pid!r}"
        fail = Check(name="answer", passed=False, evidence=why)
        return ProductScore(slot=0, gold_id=gold, answer_id=pid, known=False, gt=0.0, rule=0.0, checks=[fail])
    ps = truth.check(list(problem.final_rules().values()), doc, ruleset)
    return ps.model_copy(update={"gold_id": gold, "gt": gt})


def _rates(hits: dict[str, list[int]]) -> dict[str, float | None]:
    return {f: (hits[f][0] / hits[f][1] if f in hits and hits[f][1] else None) for f in FIELDS}
