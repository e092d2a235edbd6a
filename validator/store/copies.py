"""The store's copy evidence: the fork rule's verdicts per race (`copy_verdicts`) and what the code-similarity check
could not read of a submission's bundle (`submissions.code_notes`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from validator.store.errors import StoreError
from validator.store.models import CopyVerdict, Submission


class CopiesStore:
    """Mixed into `validator.store.repository.Store` (which provides `session`)."""

    session: Callable[[], AbstractContextManager[Session]]  # Store's one-transaction session

    def save_copy_verdicts(self, race_id: str, rows: Sequence[dict[str, Any]]) -> None:
        """The race's verdicts, replacing any it had (the fork rule runs again on the same evidence alike)."""
        with self.session() as s:
            s.execute(delete(CopyVerdict).where(CopyVerdict.race_id == race_id))
            for row in rows:
                s.add(CopyVerdict(race_id=race_id, **row))

    def copy_verdicts(
        self, *, race_id: str | None = None, hotkey: str | None = None, submission_id: int | None = None
    ) -> list[CopyVerdict]:
        """Verdicts, newest race first (then hotkey)."""
        with self.session() as s:
            query = select(CopyVerdict)
            if race_id is not None:
                query = query.where(CopyVerdict.race_id == race_id)
            if hotkey is not None:
                query = query.where(CopyVerdict.hotkey == hotkey)
            if submission_id is not None:
                query = query.where(CopyVerdict.submission_id == submission_id)
            return list(s.scalars(query.order_by(CopyVerdict.created_at.desc(), CopyVerdict.hotkey)))

    def latest_copy_verdicts(self) -> dict[int, dict[str, Any]]:
        """Each submission's verdict of its latest race with one: {copy, copy_of, via, kind, similarity, problems,
        score, earlier_high, race_id, reason} (the submissions page's evidence column)."""
        out: dict[int, dict[str, Any]] = {}
        for v in reversed(self.copy_verdicts()):  # oldest first, so the newest race's verdict stays
            if v.submission_id is not None:
                out[v.submission_id] = {
                    "race_id": v.race_id,
                    "copy": v.copy,
                    "copy_of": v.copy_of,
                    "via": v.via,
                    "kind": v.kind,
                    "similarity": v.similarity,
                    "problems": list(v.problems or []),
                    "score": v.score,
                    "earlier_high": v.earlier_high,
                    "reason": v.reason,
                }
        return out

    def set_code_notes(self, submission_id: int, notes: Sequence[str]) -> None:
        with self.session() as s:
            sub = s.get(Submission, submission_id)
            if sub is None:
                raise StoreError("not_found", f"no submission {submission_id}")
            sub.code_notes = list(notes)
