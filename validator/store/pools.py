"""The store's race pools: one row per race this node pools with the other validators (`validator.races.pooling`)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from validator.store.errors import StoreError
from validator.store.models import RacePool, utcnow

POOL_STATUSES = {"building", "committing", "committed", "late", "pooled", "alone"}


class PoolsStore:
    """Mixed into `validator.store.repository.Store` (which provides `session`)."""

    session: Callable[[], AbstractContextManager[Session]]  # Store's one-transaction session

    def race_pool(self, race_id: str) -> RacePool | None:
        with self.session() as s:
            return s.get(RacePool, race_id)

    def race_pools(self, *, statuses: set[str] | None = None) -> list[RacePool]:
        with self.session() as s:
            query = select(RacePool).order_by(RacePool.cutoff_block, RacePool.race_id)
            if statuses is not None:
                query = query.where(RacePool.status.in_(sorted(statuses)))
            return list(s.scalars(query))

    def save_race_pool(
        self,
        race_id: str,
        *,
        status: str,
        cutoff_block: int | None = None,
        due_block: int | None = None,
        state: dict[str, Any] | None = None,
        **fields: Any,
    ) -> RacePool:
        """Create or update a race's pool row; `state` replaces the row's state whole (read, change, save)."""
        if status not in POOL_STATUSES:
            raise StoreError("bad_input", f"unknown race-pool status {status!r}")
        unknown = set(fields) - {"bundle_sha256", "committed_block"}
        if unknown:
            raise StoreError("bad_input", f"unknown race-pool fields {sorted(unknown)}")
        with self.session() as s:
            pool = s.get(RacePool, race_id)
            if pool is None:
                if cutoff_block is None or due_block is None:
                    raise StoreError("bad_input", f"a new race pool for {race_id} needs its cut-off and due blocks")
                pool = RacePool(race_id=race_id, cutoff_block=cutoff_block, due_block=due_block, state={})
                s.add(pool)
            pool.status, pool.updated_at = status, utcnow()
            if state is not None:
                pool.state = state
            for name, value in fields.items():
                setattr(pool, name, value)
            s.flush()
            return pool
