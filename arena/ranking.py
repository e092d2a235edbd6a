"""The one ranking of miners: higher score first, a tie to the earlier commitment, then the hotkey."""

from __future__ import annotations

from collections.abc import Mapping


def ranked(scores: Mapping[str, float], commitment_blocks: Mapping[str, int]) -> list[str]:
    """The miners of ``scores`` best first: by score, then the earliest commitment block (0 when unknown), then the
    hotkey, so every validator with the same results ranks them alike."""
    return sorted(scores, key=lambda m: (-scores[m], commitment_blocks.get(m, 0), m))
