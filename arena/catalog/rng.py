"""Deterministic random draws for the generators, built only on ``random.Random.random()``.

Python guarantees the sequence of ``random()`` for a given seed across versions and platforms; choices, samples,
weights and normals are computed from those floats here, never with numpy's version-dependent samplers, ``hash()``
or set order. Seeds are SHA-256 of the parts, so any tuple of labels and numbers names its own stream.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import random
from collections.abc import Callable, Sequence
from typing import Any


def _seed_int(*parts: object) -> int:
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def seed_prefix(*parts: object) -> Any:
    """The hash of leading seed parts: `_seed_int(*leading, *parts)` is this hash updated with the rest
    (``"\\x1f".join`` of their texts), first 8 bytes (many streams that share leading parts, seeded faster)."""
    return hashlib.sha256("".join(f"{p}\x1f" for p in parts).encode())


class Rng:
    """Deterministic draws built only on ``random.Random.random()``."""

    __slots__ = ("_r", "u")

    def __init__(self, *parts: object) -> None:
        self._r = random.Random(_seed_int(*parts))
        self.u = self._r.random  # a float in [0, 1): random() * n < n for every n < 2**53

    def below(self, n: int) -> int:
        return int(self.u() * n)

    def pick(self, seq: Sequence[Any]) -> Any:
        return seq[int(self.u() * len(seq))]

    def chance(self, p: float) -> bool:
        return self.u() < p

    def normal(self) -> float:
        u1 = self.u() or 1e-12
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * self.u())

    def weighted(self, cumulative: Sequence[float]) -> int:
        return min(bisect.bisect_right(cumulative, self.u() * cumulative[-1]), len(cumulative) - 1)

    def sample(self, seq: Sequence[Any], k: int) -> list[Any]:
        """``k`` distinct items of ``seq`` in draw order."""
        return draw_sample(self.u, seq, k)

    def shuffle(self, items: list[Any]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def draw_sample(u: Callable[[], float], seq: Sequence[Any], k: int) -> list[Any]:
    """`Rng.sample` with a stream's ``random`` (``u``): ``k`` distinct items of ``seq`` in draw order."""
    n = len(seq)
    k = min(k, n)
    if 4 * k <= n:  # few of many: redraw the rare repeat instead of copying the pool
        chosen: list[int] = []
        while len(chosen) < k:
            j = int(u() * n)
            if j not in chosen:
                chosen.append(j)
        return [seq[j] for j in chosen]
    pool = list(seq)
    return [pool.pop(int(u() * len(pool))) for _ in range(k)]


def cumulative(weights: Sequence[float]) -> list[float]:
    out, total = [], 0.0
    for w in weights:
        total += w
        out.append(total)
    return out
