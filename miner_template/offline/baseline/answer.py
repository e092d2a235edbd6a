"""One problem, solved: the task's strategy, found by the task type's name (``baseline/<task>.py``: product, shop,
voucher, web, session; a task type without one gets the product strategy), then, whatever happened, the best answer
found recommended (anything at all if nothing was; in a session only the product the shopper agreed to) and the run
terminated."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

from baseline.search import Budget, Session
from baseline.text import FILLER, tokens


def strategy(task: str) -> ModuleType | None:
    """The strategy of task type ``task``: the module ``baseline/<task>.py`` when it defines ``solve(s, query)``
    (a new task type's baseline is that one file), else None (the product strategy is used)."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", task):
        return None
    try:
        module = importlib.import_module(f"baseline.{task}")
    except ModuleNotFoundError as exc:
        if exc.name == f"baseline.{task}":
            return None
        raise
    return module if callable(getattr(module, "solve", None)) else None


def solve_problem(problem: dict[str, Any], call: Callable[..., Any], budget: Budget) -> dict[str, Any]:
    """Solve one problem within the budget by its task's strategy (`strategy`); what the bundle returns (the answer,
    the calls made, the first errors). A bug in a strategy is caught: the answer found so far is still given. A
    strategy whose module sets ``ANSWER_ALWAYS = False`` (a session: only what the shopper agreed to) gets no
    fallback answer."""
    s = Session(problem, call, budget)
    task = str(problem.get("task") or "product")
    query = str(problem.get("query") or "")
    answer_always = True
    try:
        module = strategy(task) or strategy("product")
        assert module is not None, "baseline/product.py is missing"
        answer_always = bool(getattr(module, "ANSWER_ALWAYS", True))
        module.solve(s, query)
    except Exception as exc:  # a bug of ours must not lose the answer found so far
        s.errors.append(f"agent: {type(exc).__name__}: {exc}"[:200])
    if not s.answer and answer_always:
        try:
            fallback(s, query)
        except Exception as exc:
            s.errors.append(f"fallback: {type(exc).__name__}: {exc}"[:200])
    if not s.answer and answer_always:
        s.answer = ["0"]
        s.tool("recommend_product", final=True, product_ids="0")
    s.tool("terminate", final=True, status="success")
    return {"recommended": s.answer, "calls": s.calls, "errors": s.errors[:5]}


def fallback(s: Session, query: str) -> None:
    """Anything at all: the best-known product, else the first hit of the query's words."""
    ids = list(s.summaries)
    if not ids and not s.exhausted and s.calls < s.budget.calls - 1:
        words = [w for w in tokens(query) if w not in FILLER][:12]
        hits = s.tool("find_product", final=True, q=" ".join(words) or query or "product")
        ids = [str(h["product_id"]) for h in hits or [] if isinstance(h, dict) and h.get("product_id")]
    if ids:
        n = s.problem.get("n_products")
        n = n if isinstance(n, int) and 1 <= n <= 10 else 1
        s.recommend((ids * n)[:n])
