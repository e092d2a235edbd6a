"""The store's miners and their submissions: the metagraph's neurons recorded, a commitment's submission created
and then accepted, rejected or found a copy; and the reads for judging submissions (`validator.submissions`): the
verified and judged ones, grouped into originals and copies there, and the pending ones a newer commitment
supersedes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from validator.store.errors import StoreError
from validator.store.models import Miner, Submission, utcnow


class SubmissionsStore:
    """Mixed into `validator.store.repository.Store` (which provides `session`)."""

    session: Callable[[], AbstractContextManager[Session]]  # Store's one-transaction session

    def upsert_miners(self, neurons: Iterable[Any], *, block: int | None = None) -> int:
        """Record the metagraph's neurons (objects with `uid`, `hotkey`, `coldkey`); hotkeys no longer on it are
        marked unregistered. Returns how many hotkeys were new."""
        now = utcnow()
        seen: dict[str, Any] = {n.hotkey: n for n in neurons}
        new = 0
        with self.session() as s:
            known = {m.hotkey: m for m in s.scalars(select(Miner))}
            for hotkey, neuron in seen.items():
                miner = known.get(hotkey)
                if miner is None:
                    s.add(
                        Miner(
                            hotkey=hotkey,
                            uid=neuron.uid,
                            coldkey=neuron.coldkey,
                            first_seen_at=now,
                            first_seen_block=block,
                            last_seen_at=now,
                            registered=True,
                        )
                    )
                    new += 1
                else:
                    miner.uid, miner.coldkey = neuron.uid, neuron.coldkey
                    miner.last_seen_at, miner.registered = now, True
            for hotkey, miner in known.items():
                if hotkey not in seen and miner.registered:
                    miner.registered, miner.uid = False, None
        return new

    def miners(self, *, registered_only: bool = True) -> list[Miner]:
        with self.session() as s:
            query = select(Miner).order_by(Miner.uid, Miner.hotkey)
            if registered_only:
                query = query.where(Miner.registered.is_(True))
            return list(s.scalars(query))

    def add_submission(
        self, *, hotkey: str, sha256: str, commitment_block: int, source: str = "", coldkey: str = ""
    ) -> tuple[Submission, bool]:
        """The submission for this commitment, created if new; returns (submission, created)."""
        with self.session() as s:
            found = s.scalar(
                select(Submission).where(
                    Submission.hotkey == hotkey,
                    Submission.sha256 == sha256,
                    Submission.commitment_block == commitment_block,
                )
            )
            if found is not None:
                return found, False
            if s.get(Miner, hotkey) is None:
                now = utcnow()
                s.add(Miner(hotkey=hotkey, uid=None, coldkey=coldkey, first_seen_at=now, last_seen_at=now))
                s.flush()
            sub = Submission(hotkey=hotkey, sha256=sha256, commitment_block=commitment_block, source=source)
            s.add(sub)
            s.flush()
            return sub, True

    def set_submission(
        self,
        submission_id: int,
        *,
        status: str,
        reason: str | None = None,
        copy_of: int | None = None,
        normalized_sha256: str | None = None,
        size_bytes: int | None = None,
    ) -> Submission:
        if status not in {"pending", "accepted", "rejected", "copy"}:
            raise StoreError("bad_input", f"unknown submission status {status!r}")
        with self.session() as s:
            sub = s.get(Submission, submission_id)
            if sub is None:
                raise StoreError("not_found", f"no submission {submission_id}")
            sub.status, sub.reason, sub.copy_of, sub.checked_at = status, reason, copy_of, utcnow()
            if normalized_sha256 is not None:
                sub.normalized_sha256 = normalized_sha256
            if size_bytes is not None:
                sub.size_bytes = size_bytes
            return sub

    def earliest_with(
        self, *, sha256: str | None = None, normalized_sha256: str | None = None, exclude_id: int | None = None
    ) -> Submission | None:
        """The accepted submission with this hash (or normalized hash) committed first (ties: hotkey)."""
        with self.session() as s:
            query = select(Submission).where(Submission.status == "accepted")
            if sha256 is not None:
                query = query.where(Submission.sha256 == sha256)
            if normalized_sha256 is not None:
                query = query.where(Submission.normalized_sha256 == normalized_sha256)
            if exclude_id is not None:
                query = query.where(Submission.id != exclude_id)
            return s.scalar(query.order_by(Submission.commitment_block, Submission.hotkey).limit(1))

    def latest_submissions(self, *, status: str = "accepted") -> list[Submission]:
        """Each hotkey's latest submission (by commitment block) that has `status`."""
        with self.session() as s:
            latest = (
                select(Submission.hotkey, func.max(Submission.commitment_block).label("block"))
                .where(Submission.status == status)
                .group_by(Submission.hotkey)
                .subquery()
            )
            query = (
                select(Submission)
                .join(latest, (Submission.hotkey == latest.c.hotkey) & (Submission.commitment_block == latest.c.block))
                .where(Submission.status == status)
                .order_by(Submission.hotkey, Submission.id)
            )
            out: dict[str, Submission] = {}
            for sub in s.scalars(query):
                out[sub.hotkey] = sub  # same block twice: the later row wins
            return list(out.values())

    def all_submissions(self) -> list[Submission]:
        with self.session() as s:
            return list(s.scalars(select(Submission).order_by(Submission.commitment_block, Submission.id)))

    def submission(self, submission_id: int) -> Submission | None:
        with self.session() as s:
            return s.get(Submission, submission_id)

    def judgeable_submissions(self, *, verified: str) -> list[Submission]:
        """The submissions copy judging decides: accepted or copy already, or pending with reason `verified` (their
        bundle fetched and checked)."""
        with self.session() as s:
            return list(
                s.scalars(
                    select(Submission).where(
                        (Submission.status.in_(("accepted", "copy")))
                        | ((Submission.status == "pending") & (Submission.reason == verified))
                    )
                )
            )

    def pending_submissions(self, hotkeys: Iterable[str]) -> list[Submission]:
        """The pending submissions of `hotkeys`."""
        with self.session() as s:
            return list(
                s.scalars(
                    select(Submission).where(Submission.status == "pending", Submission.hotkey.in_(list(hotkeys)))
                )
            )
