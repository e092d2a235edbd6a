"""The one backoff: how long to wait before trying again after some failures in a row."""

from __future__ import annotations


def doubling(base: float, failures: int, cap: float | None = None) -> float:
    """The wait after ``failures`` failures in a row: ``base`` after the first, doubling with each more (``base``,
    ``2 base``, ``4 base`` ...), at most ``cap``; 0 before any failure."""
    if failures <= 0:
        return 0.0
    delay = float(base) * 2.0 ** (failures - 1)
    return delay if cap is None else min(float(cap), delay)
