"""Dating a copy pair by pair: since which block a miner has held the code it shares with another miner's agent.

Two raced agents x and y that share code are ordered by who held that code first. What they share is ``S``: the
fingerprints common to their raced bundles, less those of the public templates (anyone could have held those at any
time); when that leaves too little to tell (one of the two is a template, or a copy of one), the common fingerprints
whole. Miner x is dated against y by the earliest of its submissions that holds at least ``threshold`` of ``S`` (its
raced bundle holds all of it, so it dates x at the latest). So a miner's old submission dates it only if it already
held the shared code: a seed committed early (the public template, any code that does not hold what the other wrote)
dates nothing, however much of it the later bundle contains. Against a template, ``S`` is what x's raced bundle
shares with the template.

Pure: the same fingerprints give the same dates on every validator."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from arena.copies.fingerprint import MIN_FINGERPRINTS, Fingerprint


def public_hashes(templates: Iterable[Fingerprint]) -> np.ndarray:
    """The fingerprints of every public template, sorted (what dates nothing)."""
    arrays = [t.array() for t in templates]
    return np.unique(np.concatenate(arrays)) if arrays else np.array([], dtype=np.int64)


def shared_code(mine: Fingerprint, theirs: Fingerprint, public: np.ndarray) -> np.ndarray:
    """What two raced bundles share: their common fingerprints less the public ones, or all their common ones when
    fewer than `MIN_FINGERPRINTS` are left; empty when even those are too few to tell."""
    common = np.intersect1d(mine.array(), theirs.array(), assume_unique=True)
    own = np.setdiff1d(common, public, assume_unique=True) if len(public) else common
    if len(own) >= MIN_FINGERPRINTS:
        return own
    return common if len(common) >= MIN_FINGERPRINTS else np.array([], dtype=np.int64)


def held_since(shared: np.ndarray, history: Iterable[tuple[int, Fingerprint]], *, threshold: float) -> int | None:
    """The earliest block of a submission (block, fingerprints) holding at least ``threshold`` of ``shared``; None
    when none does or ``shared`` is empty."""
    if not len(shared):
        return None
    for block, fp in sorted(history, key=lambda item: item[0]):
        held = np.count_nonzero(np.isin(shared, fp.array(), assume_unique=True))
        if held >= threshold * len(shared):
            return int(block)
    return None


__all__ = ["held_since", "public_hashes", "shared_code"]
