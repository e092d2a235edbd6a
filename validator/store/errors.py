"""The store's one error type (re-exported by `validator.store.repository`)."""

from __future__ import annotations


class StoreError(Exception):
    """A store operation that cannot be done; `code` is short and stable (`unreachable`, `bad_url`, `conflict`...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message
