"""The store's reads for judging submissions (`validator.submissions`): the verified and judged ones, grouped into
originals and copies there, and the pending ones a newer commitment supersedes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager

from sqlalchemy import select
from sqlalchemy.orm import Session

from validator.store.models import Submission


class SubmissionsStore:
    """Mixed into `validator.store.repository.Store` (which provides `session`)."""

    session: Callable[[], AbstractContextManager[Session]]  # Store's one-transaction session

    def judgeable_submissions(self, *, verified: str) -> list[Submission]:
        """The submissions copy judging decides: accepted or copy already, or pending with reason `verified` (their
        bundle fetched and checked)."""
        with self.session() as s:
            return list(s.scalars(select(Submission).where(
                (Submission.status.in_(("accepted", "copy")))
                | ((Submission.status == "pending") & (Submission.reason == verified)))))

    def pending_submissions(self, hotkeys: Iterable[str]) -> list[Submission]:
        """The pending submissions of `hotkeys`."""
        with self.session() as s:
            return list(s.scalars(select(Submission).where(Submission.status == "pending",
                                                           Submission.hotkey.in_(list(hotkeys)))))
