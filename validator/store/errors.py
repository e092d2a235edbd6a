"""The store's one error type (re-exported by `validator.store.repository`)."""

from __future__ import annotations

from arena.errors import CodedError


class StoreError(CodedError):
    """A store operation that cannot be done; `code` is short and stable (`unreachable`, `bad_url`, `conflict`...)."""
