"""ShoppingBench's run page (`Family.run_sections`): the answer beside the gold, slot by slot with each slot's
checks, and the strict breakdown check by check, with the ruleset and the title model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.tasks.hooks import Section
from arena.tasks.shopping.page import check_line, titles_seen
from arena.tasks.shopping.problem import Problem
from arena.tasks.shopping.verdict import ShoppingExtras, shopping_extras

TITLE_NOTE = (
    "the references use Qwen3-Embedding-0.6B, which cannot run offline; only a substitute product's title check can "
    "differ"
)


def _constraints(reward: Any) -> str:
    shown = {k: getattr(reward, k) for k in ("attributes", "sku_options", "service", "price") if getattr(reward, k)}
    parts = []
    for key, value in shown.items():
        text = (
            value if isinstance(value, str) else str([v.model_dump() if hasattr(v, "model_dump") else v for v in value])
        )
        parts.append(f"{key}: {text}")
    return "; ".join(parts)


def answer_beside_gold(problem: Problem, extras: ShoppingExtras, answer: list[str], steps: Sequence[Any]) -> Section:
    """The gold products, slot by slot, each beside the answer's product for that slot and its checks."""
    titles = titles_seen(steps)
    slots = {p.slot: p for p in extras.products}
    rows: list[list[Any]] = []
    for i, reward in enumerate(problem.reward):
        slot = slots.get(i)
        gold: list[Any] = [{"text": reward.product_id, "tone": "bold"}, reward.title[0] if reward.title else ""]
        if _constraints(reward):
            gold.append({"text": _constraints(reward), "tone": "muted"})
        if slot is not None and slot.answer_id:
            tone = "ok" if slot.answer_id == reward.product_id else "bold"
            answered: Any = [{"text": slot.answer_id, "tone": tone}, titles.get(slot.answer_id, "")]
        else:
            answered = {"text": "no answer for this slot", "tone": "muted"}
        checks = [check_line(c.model_dump()) for c in slot.checks] if slot is not None else []
        rows.append([str(i + 1), gold, answered, checks or {"text": "no checks", "tone": "muted"}])
    recommended = ", ".join(answer) or "nothing"
    return Section(
        "Answer beside the gold",
        "table",
        id="gold",
        columns=["slot", "gold", "answer", "checks"],
        rows=rows,
        note=f"recommended: {recommended}",
    )


def strict_breakdown(strict: Mapping[str, Any], extras: ShoppingExtras) -> Section:
    """Every check of the verdict, where it was made (a slot or the answer), with its evidence."""
    rows: list[list[Any]] = []
    for product in extras.products:
        where = f"slot {product.slot + 1} (gold {product.gold_id}, answer {product.answer_id or 'none'})"
        for c in product.checks:
            rows.append([where, c.name, _result(c.passed), c.evidence])
    for c in strict.get("checks") or []:
        rows.append(["answer", c.get("name", ""), _result(bool(c.get("passed"))), c.get("evidence", "")])
    ruleset = f"ruleset {strict.get('ruleset') or 'shoppingbench'} v{strict.get('ruleset_version') or '?'}"
    facts = (
        f"success {'yes' if strict.get('success') else 'no'} · gt {extras.gt:.2f} · rule {extras.rule:.2f} · answer "
        + (", ".join(str(a) for a in strict.get("answer") or []) or "none")
    )
    return Section(
        "Strict checks",
        "table",
        id="checks",
        columns=["where", "check", "result", "evidence"],
        rows=rows,
        text=facts,
        note=f"{ruleset} · title similarity by {extras.title_model or 'WordLlama 256-d'} ({TITLE_NOTE})",
    )


def _result(passed: bool) -> dict[str, str]:
    return {"text": "pass" if passed else "FAIL", "tone": "ok" if passed else "bad"}


def run_sections(problem: Problem, strict: Mapping[str, Any] | None, steps: Sequence[Any]) -> list[Section]:
    if strict is None:
        gold = answer_beside_gold(problem, ShoppingExtras(), [], steps)
        return [gold, Section("Strict checks", "text", id="checks-none", text="not scored")]
    extras = shopping_extras(strict)
    answer = [str(a) for a in strict.get("answer") or []]
    return [answer_beside_gold(problem, extras, answer, steps), strict_breakdown(strict, extras)]
