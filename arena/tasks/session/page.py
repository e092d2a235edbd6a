"""The session family's run page (`Family.run_sections`): the conversation from the run's steps (the gateway's
log: the opening, each profile read, each question and proposal with the shopper's reply, the commit), the
shopper's reveals marked from the verdict's per-constraint attribution, and the strict session check (its end, the
final truth, the attribution, the rubric and the score formula)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from arena.tasks.answer import REFUSED
from arena.tasks.hooks import Section
from arena.tasks.session.problem import Rule, SessionProblem
from arena.tasks.shopping.page import ids_of, titles_seen


def _evidence(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def verdict_parts(strict: Mapping[str, Any] | None) -> dict[str, Any]:
    """The verdict's checks, parsed: the session's end, the final truth, one record per constraint, the rubric."""
    out: dict[str, Any] = {"end": None, "truth": None, "constraints": [], "rubric": [], "score": None}
    for c in (strict or {}).get("checks") or []:
        name = str(c.get("name") or "")
        if name == "session end":
            out["end"] = c
        elif name == "final truth":
            out["truth"] = c
        elif name.startswith("constraint "):
            out["constraints"].append({"cid": name[11:], "passed": c.get("passed"), **_evidence(c.get("evidence"))})
        elif name.startswith("rubric "):
            out["rubric"].append({"item": name[7:], "passed": c.get("passed"), **_evidence(c.get("evidence"))})
        elif name == "score":
            out["score"] = {"passed": c.get("passed"), **_evidence(c.get("evidence"))}
    return out


def _args(step: Mapping[str, Any]) -> dict[str, Any]:
    args = step.get("arguments")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            args = {}
    return args if isinstance(args, dict) else {}


def _products(ids: list[str], titles: dict[str, str], breaks: dict[str, list[str]]) -> list[Any]:
    out: list[Any] = []
    for pid in ids:
        line: list[Any] = [{"text": pid, "tone": "code"}, titles.get(pid, "")]
        if breaks.get(pid):
            line.append({"text": f"breaks {', '.join(breaks[pid])}", "tone": "bad"})
        out.append(line)
    return out


def _talk(step: Mapping[str, Any], turn: int, ctx: dict[str, Any]) -> list[dict[str, Any]]:
    """A question or a proposal, and the shopper's reply when the tool ran."""
    args, refused = _args(step), step.get("status") in REFUSED
    ran = not refused and not step.get("error")
    ids = ids_of(args.get("product_ids")) if step.get("name") == "respond" else []
    kind = "question" if step.get("name") == "ask_user" else "proposal" if ids else "message"
    error = f"refused by the gateway (HTTP {step.get('status')})" if refused else step.get("error")
    said = args.get("question") if kind == "question" else args.get("message")
    entries = [
        {
            "who": "agent",
            "kind": kind,
            "label": {"question": "asks", "proposal": "proposes", "message": "says"}[kind],
            "seq": step.get("seq"),
            "text": str(said or ""),
            "items": _products(ids, ctx["titles"], ctx["breaks"]),
            "error": error,
        }
    ]
    if ran:
        result = step.get("result")
        reply = result if isinstance(result, dict) else {"user": str(result if result is not None else "")}
        entries.append(_reply(reply, turn, ctx, step.get("seq")))
    return entries


def _reply(reply: dict[str, Any], turn: int, ctx: dict[str, Any], seq: Any) -> dict[str, Any]:
    text = str(reply.get("user") or "")
    reveals = [r for r in ctx["records"] if r.get("revealed_at") == turn]
    updates = [u for u in ctx["updates"] if u.say and text and u.say in text]
    marks = [{"text": f"reveals {r['cid']} · {r.get('src')}", "cls": "reveal"} for r in reveals]
    marks += [{"text": f"changes {u.update.cid}", "cls": "reveal update", "title": "a change of mind"} for u in updates]
    if reply.get("closed"):
        marks.append({"text": "conversation closed", "cls": "closed-mark"})
    left = f" · {reply['turns_left']} left" if reply.get("turns_left") is not None else ""
    classes = (["revealed"] if reveals or updates else []) + (["closed"] if reply.get("closed") else [])
    return {
        "who": "shopper",
        "kind": "reply",
        "label": f"turn {turn}{left}",
        "turn": turn,
        "text": text,
        "marks": marks,
        "classes": classes,
        "seq": seq,
    }


def conversation(problem: SessionProblem, steps: Sequence[Mapping[str, Any]], ctx: dict[str, Any]) -> list[Any]:
    """The conversation as entries, in the order of the log; ``turn`` numbers the shopper's moves as the scorer does
    (questions and proposals that ran, and every commit the gateway did not refuse)."""
    entries: list[dict[str, Any]] = [{"who": "shopper", "kind": "opening", "label": "opening", "text": problem.query}]
    turn = 0
    calls = sorted((s for s in steps if s.get("kind") == "tool_call"), key=lambda s: int(s.get("seq") or 0))
    for step in calls:
        name, refused = step.get("name"), step.get("status") in REFUSED
        if name == "get_user_profile":
            result = step.get("result") if isinstance(step.get("result"), dict) else {}
            about = "; ".join(f"{k}: {v}" for k, v in (result or {}).get("about", {}).items())
            notes = [str(n) for n in (result or {}).get("notes") or []]
            entries.append(
                {
                    "who": "agent",
                    "kind": "profile",
                    "label": "reads the profile",
                    "seq": step.get("seq"),
                    "items": [{"text": about, "tone": "muted"}, *notes] if about else notes,
                    "error": step.get("error"),
                }
            )
        elif name in ("ask_user", "respond"):
            turn += int(not refused and not step.get("error"))
            entries += _talk(step, turn, ctx)
        elif name == "recommend_product" and not refused:
            turn += 1
            ids = ids_of(_args(step).get("product_ids"))
            entries.append(
                {
                    "who": "agent",
                    "kind": "commit",
                    "label": f"commits (turn {turn})",
                    "seq": step.get("seq"),
                    "turn": turn,
                    "items": _products(ids, ctx["titles"], {}) or [{"text": "nothing", "tone": "muted"}],
                    "error": step.get("error"),
                }
            )
        elif name == "find_product" and not step.get("error"):
            _search(entries, step)
    return entries


def _search(entries: list[dict[str, Any]], step: Mapping[str, Any]) -> None:
    """A search read page after page is one line."""
    args = _args(step)
    text = str(args.get("q", args.get("query", "")))
    hits = len(step["result"]) if isinstance(step.get("result"), list) else 0
    last = entries[-1]
    if last["kind"] == "search" and last.get("query") == text:
        last["pages"] += 1
        last["hits"] += hits
    else:
        entries.append(
            {
                "who": "agent",
                "kind": "search",
                "query": text,
                "pages": 1,
                "hits": hits,
                "seq": step.get("seq"),
                "classes": ["muted"],
            }
        )
    last = entries[-1]
    pages = f"{last['pages']} pages, " if last["pages"] > 1 else ""
    last["label"] = f"searches “{text}” ({pages}{last['hits']} hits)"


def rule_text(rule: Rule) -> str:
    parts = []
    for name, values in rule.model_dump(exclude_defaults=True).items():
        shown = [
            ", ".join(
                f"{k} {'/'.join(map(str, x)) if isinstance(x, list) else x}" for k, x in v.items() if x is not None
            )
            if isinstance(v, dict)
            else str(v)
            for v in values
        ]
        parts.append(f"{name}: {'; '.join(shown)}")
    return " · ".join(parts)


def _revealed_when(record: Mapping[str, Any]) -> str:
    at = record.get("revealed_at")
    if at is None:
        return "never"
    if at == 0:
        return "in the profile" if record.get("src") == "profile" else "in the opening"
    return f"turn {at}"


def _verdict(
    problem: SessionProblem, strict: Mapping[str, Any], parts: dict[str, Any], titles: dict[str, str]
) -> list[Section]:
    """The strict session check: its head, the attribution, the changes of mind, the rubric, the score formula."""
    answer = [str(a) for a in strict.get("answer") or []]
    ruleset = f"{strict.get('ruleset')} v{strict.get('ruleset_version') or '?'}" if strict.get("ruleset") else "-"
    facts: dict[str, Any] = {
        "success": {"text": "yes", "tone": "ok"} if strict.get("success") else {"text": "no", "tone": "bad"},
        "committed": [[{"text": a, "tone": "code"}, titles.get(a, "")] for a in answer] or "nothing",
        "gold": ", ".join(problem.gold.product_ids),
        "ruleset": ruleset,
    }
    if parts["end"]:
        facts["session end"] = str(parts["end"].get("evidence") or "")
    if parts["truth"]:
        facts["final truth"] = str(parts["truth"].get("evidence") or "")
    rules = {c.cid: c.rule for c in problem.constraints}
    rows = [
        [
            [{"text": r["cid"], "tone": "bold"}, {"text": rule_text(rules[r["cid"]]), "tone": "muted"}]
            if r["cid"] in rules
            else {"text": r["cid"], "tone": "bold"},
            str(r.get("src") or ""),
            _revealed_when(r),
            {"text": "yes", "tone": "ok"} if r.get("satisfied_final") else {"text": "no", "tone": "bad"},
            [{"text": i, "tone": "code"} for i in r.get("violating_proposals") or []]
            or {"text": "none", "tone": "muted"},
            {"text": r["reason"], "tone": "bad"} if r.get("reason") else {"text": "–", "tone": "muted"},
        ]
        for r in parts["constraints"]
    ]
    changes = "; ".join(f"{e.update.cid} → {rule_text(e.update.rule)}" for e in problem.events)
    rubric_rows = [
        [
            r["item"],
            str(r.get("tier", "")),
            str(r.get("weight", "")),
            {"text": "pass", "tone": "ok"} if r.get("passed") else {"text": "FAIL", "tone": "bad"},
            str(r.get("why", "")),
        ]
        for r in parts["rubric"]
    ]
    out = [
        Section("Strict session check", "facts", id="session-verdict", facts=facts),
        Section(
            "Per-constraint attribution",
            "table",
            id="attribution",
            columns=["constraint", "source", "revealed", "met at the end", "violating proposals", "reason"],
            rows=rows,
            note=f"changes of mind: {changes}" if changes else "",
        ),
        Section("Rubric", "table", id="rubric", columns=["item", "tier", "weight", "result", "why"], rows=rubric_rows),
    ]
    score = parts["score"]
    if score:
        text = f"{score.get('formula', '')} · weighted pass {score.get('weighted_pass')} · final {score.get('final')}"
        out.append(Section("Score", "text", id="score-formula", text=text + f" (rubric {score.get('version', '?')})"))
    return out


def run_sections(problem: SessionProblem, strict: Mapping[str, Any] | None, steps: Sequence[Any]) -> list[Section]:
    """The conversation, then the strict session check."""
    parts = verdict_parts(strict)
    breaks: dict[str, list[str]] = {}
    for r in parts["constraints"]:
        for pid in r.get("violating_proposals") or []:
            if r["cid"] not in breaks.setdefault(str(pid), []):
                breaks[str(pid)].append(r["cid"])
    titles = titles_seen(steps)
    ctx = {"titles": titles, "records": parts["constraints"], "updates": problem.events, "breaks": breaks}
    entries = conversation(problem, steps, ctx)
    committed = any(e["kind"] == "commit" for e in entries)
    talk = Section(
        "Conversation",
        "conversation",
        id="conversation",
        entries=entries,
        note="" if committed else "the agent never committed",
    )
    if strict is None:
        return [talk, Section("Strict session check", "text", id="session-verdict", text="not scored")]
    return [talk, *_verdict(problem, strict, parts, titles)]
