"""Importing EComAgentBench task records (``Morizeyao/EComAgentBench_``, ``data/benchmark/benchmark.jsonl``) as
session problems (``docs/sessions.md``), and rebuilding each target product as a gold in a catalog so their
hidden-intent tasks play offline.

A record (one JSON line) holds ``user_query``, ``user_persona`` (distractors under ``demographics``, ``lifestyle``,
``shopping_habits``; the scored ``product_requirements``), ``clarification_script`` (slots with
``linked_rubric_ids``, ``trigger_keywords``, ``user_response``; ``max_clarification_turns``), ``target_product``
(Amazon fields: ``product_id``, ``title``, ``details``, ``price``) and ``rubrics`` (``id``, ``type``, ``field``,
``expected_value``, ``info_source``: query, persona or clarification). The mapping:

- ``info_source`` query -> a ``query`` constraint per rubric; persona -> a ``profile`` constraint per rubric (the
  profile's notes are the ``product_requirements`` values, its visible part the three distractor groups);
  clarification -> one ``slot`` constraint per clarification slot, holding the rules of its linked rubrics, with the
  slot's trigger keywords as topics and its response as the answer;
- rubric types: ``attribute_match`` on ``details.<Key>`` -> an attribute ``<key>`` (lowercased, as catalog keys and
  values are); ``entity_match`` -> the target's title; ``numeric_range`` on ``price`` and ``budget_match`` -> a price
  rule (the budget against the listed price: the record's voucher is not modelled); ``store_match`` -> an attribute
  ``store``. ``negative_attribute``, ``review_opinion`` and numeric ranges on fields our catalog has not (ratings)
  have no place in the reward grammar: they are dropped and counted (`SessionImport.dropped`);
- no events (the records have none); the question cap is the record's ``max_clarification_turns``; patience is
  `PATIENCE`, above the arena's default: EComAgentBench's user never walks out, and our shopper adds rejections
  (each costing patience) that its user never gives; the arena's default limits.

`rebuild_sessions` makes the catalog with the shopping domain's rebuild (`arena.tasks.shopping.rebuild`):
each session's final truth becomes a one-product ShoppingBench problem whose gold is rebuilt with every required
value and surrounded by near misses breaking one constraint each. A malformed record is one line in
`SessionImport.bad`: file, line, record id and what is wrong.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from arena.tasks.session.problem import Constraint, Profile, Rule, SessionProblem, Style
from arena.tasks.shopping.problem import PriceRule
from arena.tasks.shopping.records import json_lines

SOURCES = {"query": "query", "persona": "profile", "clarification": "slot"}
PROFILE_GROUPS = ("demographics", "lifestyle", "shopping_habits")
#: the imported shopper's patience (see the module docstring)
PATIENCE = 6


@dataclass
class SessionImport:
    problems: list[SessionProblem] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)  # "FILE:LINE (id): what is wrong"
    dropped: Counter[str] = field(default_factory=Counter)  # rubric kind -> rubrics dropped


def _key(field_name: str) -> str:
    name = field_name.split(".", 1)[1] if field_name.startswith("details.") else field_name
    return re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} is {value!r}, not a number")
    return float(value)


def _price(expected: Any, rid: str) -> PriceRule:
    """A ``numeric_range`` expected value (a number, {min}, {max}, {min, max}, [x, y], {value, op}) as a price rule."""
    what = f"rubric {rid}'s expected_value"
    if isinstance(expected, list) and len(expected) == 2:
        return PriceRule(mode="between", lo=_number(expected[0], what), hi=_number(expected[1], what))
    if isinstance(expected, dict) and "op" in expected:
        value, op = _number(expected.get("value"), what), expected["op"]
        if op in ("<", "<="):
            return PriceRule(mode="less than", hi=value)
        if op in (">", ">="):
            return PriceRule(mode="greater than", lo=value)
        expected = value if op == "==" else None
        if expected is None:
            raise ValueError(f"{what} has the unknown op {op!r}")
    if isinstance(expected, dict) and ("min" in expected or "max" in expected):
        lo = _number(expected["min"], what) if expected.get("min") is not None else None
        hi = _number(expected["max"], what) if expected.get("max") is not None else None
        if lo is not None and hi is not None:
            return PriceRule(mode="between", lo=lo, hi=hi)
        return PriceRule(mode="less than", hi=hi) if hi is not None else PriceRule(mode="greater than", lo=lo)
    value = _number(expected, what)
    return PriceRule(mode="between", lo=value, hi=value)


def rubric_rule(rubric: dict[str, Any], title: str) -> Rule | None:
    """One rubric as a rule in the reward grammar; None for a kind the grammar cannot hold (dropped)."""
    rid, kind, expected = rubric.get("id"), rubric.get("type"), rubric.get("expected_value")
    name = str(rubric.get("field") or "")
    if kind == "entity_match":
        return Rule(title=[title])
    if kind in ("attribute_match", "store_match"):
        if isinstance(expected, list) and expected and all(isinstance(v, str) for v in expected):
            expected = ", ".join(expected)
        if not isinstance(expected, (str, int, float)) or isinstance(expected, bool) or not str(expected).strip():
            raise ValueError(f"rubric {rid} ({kind}) has no text expected_value (got {expected!r})")
        key = "store" if kind == "store_match" else _key(name)
        if not key:
            raise ValueError(f"rubric {rid} ({kind}) names no field")
        return Rule(attributes=[{key: [str(expected).strip().lower()]}])
    if kind == "budget_match":
        return Rule(price=[PriceRule(mode="less than", hi=_number(expected, f"rubric {rid}'s budget"))])
    if kind == "numeric_range" and name == "price":
        return Rule(price=[_price(expected, str(rid))])
    return None


def _combine(rules: list[Rule]) -> Rule:
    merged: dict[str, list[Any]] = {}
    for rule in rules:
        for name in rule.fields():
            merged.setdefault(name, []).extend(getattr(rule, name))
    return Rule.model_validate(merged)


def _stated_say(rule: Rule, rubric: dict[str, Any]) -> str:
    """The shopper's line when a proposal ignores a query or persona rubric (never the target's title)."""
    if rule.title:
        return f"That is not the {rubric.get('expected_value') or 'kind of product'} I asked for."
    if rule.attributes:
        key, values = next(iter(rule.attributes[0].items()))
        return f"That one has {{actual}} for the {key.replace('_', ' ')}; I asked for {values[0]}."
    return ""


def _dropped_kind(rubric: dict[str, Any]) -> str:
    kind = str(rubric.get("type"))
    return f"{kind}:{rubric.get('field')}" if kind == "numeric_range" else kind


def _constraints(record: dict[str, Any], title: str, dropped: Counter[str]) -> list[Constraint]:
    rubrics = record.get("rubrics")
    if not isinstance(rubrics, list) or not rubrics:
        raise ValueError("no rubrics")
    script = record.get("clarification_script") or {}
    slots = script.get("clarification_slots") if isinstance(script, dict) else None
    if not isinstance(slots, list):
        raise ValueError("clarification_script has no clarification_slots list")
    by_id: dict[str, tuple[dict[str, Any], Rule | None]] = {}
    for rubric in rubrics:
        if not isinstance(rubric, dict) or not rubric.get("id"):
            raise ValueError("a rubric is not an object with an id")
        if rubric.get("info_source") not in SOURCES:
            raise ValueError(f"rubric {rubric['id']} has info_source {rubric.get('info_source')!r}")
        rule = rubric_rule(rubric, title)
        if rule is None:
            dropped[_dropped_kind(rubric)] += 1
        by_id[str(rubric["id"])] = (rubric, rule)
    out: list[Constraint] = []
    for rid, (rubric, rule) in by_id.items():
        src = SOURCES[rubric["info_source"]]
        if rule is not None and src != "slot":
            out.append(Constraint(cid=rid, src=src, rule=rule, say=_stated_say(rule, rubric)))
    linked: set[str] = set()
    for slot in slots:
        ids = [str(i) for i in slot.get("linked_rubric_ids") or []]
        unknown = [i for i in ids if i not in by_id]
        if unknown or not ids:
            raise ValueError(f"slot {slot.get('slot_id')} links unknown rubric(s) {unknown or 'none'}")
        linked.update(ids)
        rules = [r for i in ids if (r := by_id[i][1]) is not None]
        if rules:
            topics, say = slot.get("trigger_keywords") or [], slot.get("user_response") or ""
            out.append(
                Constraint(cid=str(slot.get("slot_id")), src="slot", rule=_combine(rules), topics=topics, say=say)
            )
    orphans = [rid for rid, (r, _) in by_id.items() if r["info_source"] == "clarification" and rid not in linked]
    if orphans:
        raise ValueError(f"clarification rubric(s) {', '.join(orphans)} have no clarification slot")
    if not out:
        raise ValueError("no rubric the reward grammar can hold")
    return out


def _profile(persona: Any) -> Profile:
    if not isinstance(persona, dict):
        raise ValueError("user_persona is not an object")
    visible = {group: persona[group] for group in PROFILE_GROUPS if isinstance(persona.get(group), dict)}
    needs = persona.get("product_requirements") or {}
    if not isinstance(needs, dict):
        raise ValueError("user_persona.product_requirements is not an object")
    return Profile(visible=visible, requirements={str(k): str(v) for k, v in needs.items()})


def parse_record(record: Any, source: str, dropped: Counter[str] | None = None) -> SessionProblem:
    """One EComAgentBench task record -> SessionProblem. Raises ValueError with a one-line reason."""
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    query = record.get("user_query")
    if not isinstance(query, str) or not query.strip():
        raise ValueError('no "user_query" text')
    target = record.get("target_product")
    if not isinstance(target, dict) or not target.get("product_id") or not isinstance(target.get("title"), str):
        raise ValueError("target_product needs a product_id and a title")
    counts: Counter[str] = Counter()
    constraints = _constraints(record, target["title"], counts)
    script = record.get("clarification_script") or {}
    turns = script.get("max_clarification_turns") if isinstance(script, dict) else None
    digest = hashlib.sha256(orjson.dumps([record.get("id"), query, str(target["product_id"])])).hexdigest()[:12]
    try:
        problem = SessionProblem(
            problem_id=f"eab-{digest}",
            query=query.strip(),
            profile=_profile(record.get("user_persona")),
            constraints=constraints,
            style=Style(
                patience=PATIENCE, max_questions=min(20, turns if isinstance(turns, int) and turns >= 0 else 10)
            ),
            gold={"product_ids": [str(target["product_id"])]},
            source=source,
            meta={
                "record_id": record.get("id"),
                "intent_category": record.get("intent_category"),
                "dropped_rubrics": sorted(counts.elements()),
            },
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ValueError(f"{'.'.join(str(p) for p in err['loc']) or 'record'}: {err['msg']}") from None
    if dropped is not None:
        dropped.update(counts)
    return problem


def import_files(paths: Iterable[str | Path]) -> SessionImport:
    """Read EComAgentBench JSON Lines files; each bad record is one line in ``bad`` and skipped."""
    report = SessionImport()
    for path in map(Path, paths):
        if not path.is_file():
            report.bad.append(f"{path}: no such file")
            continue
        for lineno, where, record in json_lines(path.name, path.read_bytes(), report.bad):
            rid = record.get("id") if isinstance(record, dict) else None
            try:
                report.problems.append(parse_record(record, f"ecomagentbench:{path.name}:{lineno}", report.dropped))
            except ValueError as exc:
                report.bad.append(f"{where} ({rid or 'no id'}): {exc}")
    return report
