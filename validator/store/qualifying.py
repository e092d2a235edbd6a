"""The store's qualifying rounds: one `Qualification` per (submission, pack), decided when its race closes."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from validator.store.models import Qualification, Race, RaceResult


class QualifyingStore:
    """Mixed into `validator.store.repository.Store` (which provides `session`)."""

    session: Callable[[], AbstractContextManager[Session]]  # Store's one-transaction session

    def qualification(self, submission_id: int, pack_id: str) -> Qualification | None:
        with self.session() as s:
            return s.get(Qualification, (submission_id, pack_id))

    def qualifications(self, pack_id: str | None = None) -> list[Qualification]:
        with self.session() as s:
            query = select(Qualification).order_by(Qualification.created_at, Qualification.submission_id)
            if pack_id is not None:
                query = query.where(Qualification.pack_id == pack_id)
            return list(s.scalars(query))

    def start_qualification(self, *, submission_id: int, pack_id: str, race_id: str, share: float) -> Qualification:
        """A new attempt at qualifying (the first, or again after a void one): `running` on `race_id`."""
        with self.session() as s:
            row = s.get(Qualification, (submission_id, pack_id))
            if row is None:
                row = Qualification(
                    submission_id=submission_id,
                    pack_id=pack_id,
                    race_id=race_id,
                    attempt=1,
                    status="running",
                    share=share,
                )
                s.add(row)
            else:
                row.race_id, row.attempt, row.status, row.share = race_id, row.attempt + 1, "running", share
                row.score = row.leader_score = row.leader_hotkey = row.reason = row.decided_at = None
            return row

    def decide_qualification(
        self,
        submission_id: int,
        pack_id: str,
        *,
        status: str,
        score: float | None,
        leader_hotkey: str | None,
        leader_score: float | None,
        reason: str,
    ) -> None:
        if status not in {"passed", "failed", "void"}:
            raise ValueError(f"a qualification ends passed, failed or void, not {status!r}")
        with self.session() as s:
            row = s.get(Qualification, (submission_id, pack_id))
            assert row is not None, f"submission {submission_id} has no qualification on {pack_id}"
            row.status, row.score, row.leader_hotkey, row.leader_score, row.reason = (
                status,
                score,
                leader_hotkey,
                leader_score,
                reason,
            )
            row.decided_at = datetime.now(UTC)

    def leader(self) -> RaceResult | None:
        """Rank 1 of the newest closed race of the rotation (kind "race"), or None before any."""
        with self.session() as s:
            race_id = s.scalar(
                select(Race.race_id)
                .where(Race.status == "closed", Race.kind == "race")
                .order_by(Race.opened_at.desc(), Race.race_id.desc())
                .limit(1)
            )
            if race_id is None:
                return None
            return s.scalar(select(RaceResult).where(RaceResult.race_id == race_id).order_by(RaceResult.rank).limit(1))

    def passed(self, pack_id: str) -> set[int]:
        """The submissions that passed the qualifying round of `pack_id`."""
        with self.session() as s:
            return set(
                s.scalars(
                    select(Qualification.submission_id).where(
                        Qualification.pack_id == pack_id, Qualification.status == "passed"
                    )
                )
            )

    def qualifying_by_submission(self, pack_id: str) -> dict[int, dict[str, Any]]:
        """Each submission's qualification on `pack_id` as plain figures (the submissions page)."""
        return {
            q.submission_id: {
                "status": q.status,
                "score": q.score,
                "leader_hotkey": q.leader_hotkey,
                "leader_score": q.leader_score,
                "share": q.share,
                "attempt": q.attempt,
                "race_id": q.race_id,
                "reason": q.reason,
            }
            for q in self.qualifications(pack_id)
        }
