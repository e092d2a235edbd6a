"""Task ``shop``: one product per requested item, all from one shop (`baseline.basket`)."""

from __future__ import annotations

from baseline import product
from baseline.basket import one_shop_basket
from baseline.query import parse_item, split_shop_items
from baseline.search import Session


def solve(s: Session, query: str) -> None:
    """One product per item, all from one shop; items past the first four are looked for in the chosen shop."""
    n = s.problem.get("n_products")
    items = [parse_item(t) for t in split_shop_items(query, n if isinstance(n, int) else None)]
    if len(items) < 2:
        product.solve(s, query)
        return
    chosen = one_shop_basket(s, items)
    if chosen and len(items) > len(chosen):  # more than the shop search takes: look in the chosen shop
        sid = str(s.summaries.get(chosen[0], {}).get("shop_id") or "") or None
        for item in items[len(chosen) :]:
            ranked = s.rank_item(item, s.candidates(item, deep=False, shop_id=sid))
            chosen.append(ranked[0][2] if ranked else chosen[0])
    if chosen:
        s.recommend(chosen)
