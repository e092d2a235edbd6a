"""The store's packs and their problems: a pack stored once (idempotent by id) and made the active one, problems
added to it when a sealed batch opens, and read back by id, pack and split."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from validator.store.engine import EVENT_BATCH
from validator.store.errors import StoreError
from validator.store.models import Pack, ProblemRow


def _problem_row(pack_id: str, p: dict[str, Any]) -> dict[str, Any]:
    """One problem of pack ``pack_id`` as its ``problems`` row (the columns the store filters on, the whole problem)."""
    return {
        "problem_id": p["problem_id"],
        "pack_id": pack_id,
        "task": p["task"],
        "split": p.get("split", "race"),
        "cluster_id": p.get("cluster_id") or p["problem_id"],
        "difficulty": str(p.get("difficulty") or ""),
        "data": p,
    }


class PacksStore:
    """Mixed into `validator.store.repository.Store` (which provides `session`)."""

    session: Callable[[], AbstractContextManager[Session]]  # Store's one-transaction session

    def add_pack(
        self,
        *,
        pack_id: str,
        name: str,
        digest: str,
        problems: Sequence[dict[str, Any]],
        signer: str | None = None,
        catalog_digest: str | None = None,
        rotation: dict[str, Any] | None = None,
        activate: bool = True,
    ) -> bool:
        """Store a pack and its problems once (idempotent by `pack_id`); optionally make it the only active one.
        Returns whether it was new."""
        with self.session() as s:
            existing = s.get(Pack, pack_id)
            if existing is not None and existing.digest != digest:
                raise StoreError(
                    "conflict",
                    f"pack {pack_id} is already stored with digest {existing.digest[:12]}, not {digest[:12]}",
                )
            if existing is None:
                s.add(
                    Pack(
                        pack_id=pack_id,
                        name=name,
                        digest=digest,
                        signer=signer,
                        catalog_digest=catalog_digest,
                        rotation=rotation or {},
                        active=False,
                    )
                )
                s.flush()
                rows = [_problem_row(pack_id, p) for p in problems]
                for start in range(0, len(rows), EVENT_BATCH):
                    s.execute(insert(ProblemRow.__table__), rows[start : start + EVENT_BATCH])
            if activate:
                s.execute(update(Pack).where(Pack.pack_id != pack_id).values(active=False))
                s.execute(update(Pack).where(Pack.pack_id == pack_id).values(active=True))
            return existing is None

    def add_problems(self, pack_id: str, problems: Sequence[dict[str, Any]]) -> int:
        """Store problems of a stored pack that were not in it when it was stored (a sealed batch, once opened);
        idempotent by problem id. Returns how many were new."""
        with self.session() as s:
            if s.get(Pack, pack_id) is None:
                raise StoreError("not_found", f"no pack {pack_id} in the store")
            stored = {
                row.problem_id: row
                for row in s.scalars(
                    select(ProblemRow).where(ProblemRow.problem_id.in_([p["problem_id"] for p in problems]))
                )
            }
            for p in problems:
                row = stored.get(p["problem_id"])
                if row is not None and (row.pack_id != pack_id or row.data != p):
                    raise StoreError(
                        "conflict",
                        f"problem {p['problem_id']} is already stored with other content "
                        f"(pack {row.pack_id}); a pack gives its problems ids of their own",
                    )
            known = set(stored)
            rows = [_problem_row(pack_id, p) for p in problems if p["problem_id"] not in known]
            if rows:
                s.execute(insert(ProblemRow.__table__), rows)
            return len(rows)

    def problem(self, problem_id: str) -> ProblemRow | None:
        with self.session() as s:
            return s.get(ProblemRow, problem_id)

    def active_pack(self) -> Pack | None:
        with self.session() as s:
            return s.scalar(select(Pack).where(Pack.active.is_(True)))

    def problems(self, pack_id: str, *, split: str | None = None) -> list[ProblemRow]:
        with self.session() as s:
            query = select(ProblemRow).where(ProblemRow.pack_id == pack_id).order_by(ProblemRow.problem_id)
            if split is not None:
                query = query.where(ProblemRow.split == split)
            return list(s.scalars(query))
