"""The one shape of our errors that callers branch on: a short, stable `code` and a one-line `message` a person can
act on (what `str()` gives)."""

from __future__ import annotations


class CodedError(Exception):
    """An error with a stable `code` (what a caller branches on) and a one-line `message` (what a person reads)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message
