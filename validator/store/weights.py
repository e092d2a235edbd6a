"""The store's weight sets: the vector a race's results give (and its shadow policy's beside it), and what setting
it on chain did."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from validator.store.errors import StoreError
from validator.store.models import WeightSet, utcnow


class WeightsStore:
    """Mixed into `validator.store.repository.Store` (which provides `session`)."""

    session: Callable[[], AbstractContextManager[Session]]  # Store's one-transaction session

    def add_weight_set(
        self,
        *,
        policy: str,
        vector: dict[int, float],
        race_id: str | None = None,
        shadow_policy: str | None = None,
        shadow_vector: dict[int, float] | None = None,
    ) -> WeightSet:
        """A pending weight set; with a shadow policy, its vector is stored beside the live one (never sent)."""
        with self.session() as s:
            ws = WeightSet(
                race_id=race_id,
                policy=policy,
                vector={str(k): v for k, v in sorted(vector.items())},
                status="pending",
                shadow_policy=shadow_policy,
                shadow_vector=None if shadow_vector is None else {str(k): v for k, v in sorted(shadow_vector.items())},
            )
            s.add(ws)
            s.flush()
            return ws

    def update_weight_set(
        self, weight_set_id: int, *, status: str, outcome: dict[str, Any], block: int | None = None
    ) -> WeightSet:
        if status not in {"pending", "set", "failed", "rate_limited"}:
            raise StoreError("bad_input", f"unknown weight-set status {status!r}")
        with self.session() as s:
            ws = s.get(WeightSet, weight_set_id)
            if ws is None:
                raise StoreError("not_found", f"no weight set {weight_set_id}")
            ws.status, ws.outcome, ws.attempts, ws.updated_at = status, outcome, ws.attempts + 1, utcnow()
            if block is not None:
                ws.block = block
            return ws

    def weight_sets(self, *, status: str | None = None) -> list[WeightSet]:
        with self.session() as s:
            query = select(WeightSet).order_by(WeightSet.id)
            if status is not None:
                query = query.where(WeightSet.status == status)
            return list(s.scalars(query))
