"""One problem, solved: the task's strategy (product, shop, voucher, web or a session), then, whatever happened, the
best answer found recommended (anything at all if nothing was; in a session only the product the shopper agreed to)
and the run terminated."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from baseline.basket import one_shop_basket, solve_voucher
from baseline.query import parse_item, split_shop_items
from baseline.search import Budget, Session
from baseline.session import solve_session
from baseline.text import FILLER, tokens
from baseline.web import solve_web


def solve_problem(problem: dict[str, Any], call: Callable[..., Any], budget: Budget) -> dict[str, Any]:
    """Solve one problem within the budget; what the bundle returns (the answer, the calls made, the first
    errors). A bug in a strategy is caught: the answer found so far is still given."""
    s = Session(problem, call, budget)
    task = str(problem.get("task") or "product")
    query = str(problem.get("query") or "")
    try:
        if task == "shop":
            solve_shop(s, query)
        elif task == "voucher":
            solve_voucher(s, query)
        elif task == "web":
            solve_web(s, query)
        elif task == "session":
            solve_session(s, query)
        else:
            solve_product(s, query)
    except Exception as exc:  # a bug of ours must not lose the answer found so far
        s.errors.append(f"agent: {type(exc).__name__}: {exc}"[:200])
    if not s.answer and task != "session":  # a session commits only what the shopper agreed to
        try:
            fallback(s, query)
        except Exception as exc:
            s.errors.append(f"fallback: {type(exc).__name__}: {exc}"[:200])
    if not s.answer and task != "session":
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


def solve_product(s: Session, query: str) -> None:
    """The best candidate for the one requested item."""
    ranked = s.best_for(parse_item(query))
    if ranked:
        s.recommend([ranked[0][2]])


def solve_shop(s: Session, query: str) -> None:
    """One product per item, all from one shop; items past the first four are looked for in the chosen shop."""
    items = [parse_item(t) for t in split_shop_items(query)]
    if len(items) < 2:
        solve_product(s, query)
        return
    chosen = one_shop_basket(s, items)
    if chosen and len(items) > len(chosen):  # more than the shop search takes: look in the chosen shop
        sid = str(s.summaries.get(chosen[0], {}).get("shop_id") or "") or None
        for item in items[len(chosen) :]:
            ranked = s.rank_item(item, s.candidates(item, deep=False, shop_id=sid))
            chosen.append(ranked[0][2] if ranked else chosen[0])
    if chosen:
        s.recommend(chosen)
