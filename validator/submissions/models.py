"""What a sync reports (`SyncSummary`, `SubmissionChange`), a fetched bundle, and the one error a submission
can fail with (`SubmissionError`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

DEFAULT_TIMEOUT = 20.0
VERIFIED = "verified; judging copies"  # the short-lived state between verification and the copy decision


class SubmissionError(Exception):
    """One submission could not be fetched or verified. `code` is short and stable; `reason` is one line.

    `retryable` failures (the source could not be reached) are tried again on later syncs; the others are final.
    """

    def __init__(self, code: str, reason: str, *, retryable: bool = False) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.retryable = retryable

    def __str__(self) -> str:
        return self.reason


@dataclass(frozen=True)
class FetchedBundle:
    """A downloaded, verified and checked bundle, stored under the bundles folder."""

    sha256: str
    path: Path  # the unpacked bundle folder (agent.py at its root)
    archive: Path  # the packed bytes, exactly as committed
    size_bytes: int
    files: int
    source: str


class SubmissionChange(BaseModel):
    """One submission whose status a sync set or changed."""

    submission_id: int
    hotkey: str
    sha256: str
    status: str
    reason: str | None = None
    copy_of: int | None = None


class SyncSummary(BaseModel):
    """What one `sync_submissions` saw and did."""

    block: int
    neurons: int
    commitments: int
    ignored: int = 0  # commitments that are not ours
    unregistered: int = 0  # ours, from hotkeys no longer on the metagraph
    new: int = 0  # submissions stored for the first time
    fetched: int = 0  # bundles downloaded and verified
    waiting: int = 0  # pending retries not yet due
    changes: list[SubmissionChange] = Field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for change in self.changes if change.status == status)

    @property
    def accepted(self) -> int:
        return self.count("accepted")

    @property
    def rejected(self) -> int:
        return self.count("rejected")

    @property
    def copies(self) -> int:
        return self.count("copy")

    @property
    def retrying(self) -> int:
        return self.count("pending")


def short(text: str, limit: int = 160) -> str:
    """`text` on one line, cut to `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
