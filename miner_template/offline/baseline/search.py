"""The run's tool calls within its budget (`Session`), and the candidates of one requested item: ``find_product``
(two pages, then a second query without the attribute names learnt from the first candidates), each candidate
viewed with ``view_product_information`` so the `Ranker` can read its attributes."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from baseline.query import Item
from baseline.rank import Ranked, Ranker


class Budget:
    """What one run may spend: tool calls (``reserve`` of them kept for the recommendation and termination), a
    deadline (``time.monotonic()``) after which no more searching starts, and how many products one view reads."""

    def __init__(self, calls: int, reserve: int, deadline: float, view_batch: int) -> None:
        self.calls = calls
        self.reserve = reserve
        self.deadline = deadline
        self.view_batch = view_batch


class Session:
    """One problem's tool calls (through ``call``, which behaves like ``arena_agent.call_tool``) and what they
    returned: search hits in ``summaries``, viewed products in ``details``, the answer recommended so far."""

    def __init__(self, problem: dict[str, Any], call: Callable[..., Any], budget: Budget) -> None:
        self.problem = problem
        self.budget = budget
        self._call = call
        self.calls = 0
        self.summaries: dict[str, dict[str, Any]] = {}
        self.details: dict[str, dict[str, Any]] = {}
        self.answer: list[str] = []
        self.exhausted = False
        self.errors: list[str] = []
        self.ranker = Ranker(self.summaries, self.details, web=problem.get("task") == "web")

    # --- tools

    def can_search(self, need: int = 1) -> bool:
        """Whether ``need`` more searching calls fit the budget (the reserve kept back) and the deadline."""
        return (
            not self.exhausted
            and self.calls + need <= self.budget.calls - self.budget.reserve
            and time.monotonic() < self.budget.deadline
        )

    def tool(self, name: str, final: bool = False, **arguments: Any) -> Any:
        """One tool call; None when it failed or the budget does not allow it (never raises). A ``final`` call
        (recommend, terminate) may use the reserve."""
        if self.exhausted or (not final and not self.can_search()) or self.calls >= self.budget.calls:
            return None
        self.calls += 1
        try:
            return self._call(name, **{k: v for k, v in arguments.items() if v is not None})
        except Exception as exc:  # a ToolError, the budget (BudgetExhausted), the gateway: never crash
            if type(exc).__name__ == "BudgetExhausted":
                self.exhausted = True
            self.errors.append(f"{name}: {exc}"[:200])
            return None

    def search(
        self,
        q: str,
        page: int = 1,
        price: str | None = None,
        service: str | None = None,
        sort: str | None = None,
        shop_id: str | None = None,
    ) -> list[str]:
        """``find_product``: the hits' ids (their summaries kept)."""
        if not q.strip():
            return []
        hits = self.tool("find_product", q=q, page=page, price=price, service=service, sort=sort, shop_id=shop_id)
        ids = []
        for hit in hits if isinstance(hits, list) else []:
            if isinstance(hit, dict) and hit.get("product_id"):
                pid = str(hit["product_id"])
                self.summaries.setdefault(pid, hit)
                ids.append(pid)
        return ids

    def view(self, ids: list[str]) -> None:
        """``view_product_information`` for the products not viewed yet, a batch at a time."""
        missing = [p for p in dict.fromkeys(ids) if p not in self.details]
        batch_size = self.budget.view_batch
        for start in range(0, len(missing), batch_size):
            batch = missing[start : start + batch_size]
            got = self.tool("view_product_information", product_ids=",".join(batch))
            if not isinstance(got, list):
                continue
            for doc in got:
                if isinstance(doc, dict) and doc.get("product_id") and "error" not in doc:
                    self.details[str(doc["product_id"])] = doc

    def recommend(self, ids: list[str]) -> None:
        """``recommend_product``: the answer so far (a later recommendation replaces it)."""
        ids = [i for i in ids if i]
        if ids:
            self.answer = ids
            self.tool("recommend_product", final=True, product_ids=",".join(ids))

    def price_of(self, pid: str) -> float:
        try:
            return float(self.summaries.get(pid, {}).get("price") or 0)
        except (TypeError, ValueError):
            return 0.0

    # --- one item's candidates

    def rank_item(self, item: Item, ids: list[str]) -> Ranked:
        return self.ranker.rank_item(item, ids)

    def best_for(self, item: Item) -> Ranked:
        """The item's candidates, searched and ranked."""
        return self.rank_item(item, self.candidates(item))

    def candidates(self, item: Item, deep: bool = True, shop_id: str | None = None) -> list[str]:
        """The item's candidates, viewed: its search words with its filters (relaxed when nothing matches); when
        ``deep``, a second page and, if the best is still weak, a query without the attribute names."""
        ids = self.search(item.query, 1, item.price, item.service, shop_id=shop_id)
        if not ids and (item.price or item.service):  # filters too strict for this wording: relax them
            ids = self.search(item.query, 1, shop_id=shop_id)
        if deep and len(ids) >= 10:
            ids += self.search(item.query, 2, item.price, item.service, shop_id=shop_id)
        self.view(ids)
        if deep and ids:
            ranked = self.rank_item(item, ids)
            if ranked and ranked[0][1] > 0:
                # the attribute names are no search words: query the values and the noun only
                keys: set[str] = set()
                for pid in ids:
                    keys |= self.ranker.keys_of(pid)
                key_words = {w for k in keys for w in k.split()}
                words = [w for w in item.query.split() if w not in key_words]
                if words and words != item.query.split():
                    more = self.search(" ".join(words), 1, item.price, item.service, shop_id=shop_id)
                    self.view(more)
                    ids += more
        return list(dict.fromkeys(ids))
