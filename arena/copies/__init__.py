"""Copies: a bundle's code fingerprints (`fingerprint`), how similar two bundles are, and the threshold past which
a later bundle counts as a copy of an earlier one (calibrated in `docs/validator.md`, "Copies")."""

from arena.copies.fingerprint import VERSION, Fingerprint, containment, fingerprint_files, similarity

#: Similarity at or above which a later bundle is a copy of an earlier one unless it beats it beyond noise. Honest,
#: different agents stay at or below 0.585; the nine kinds of copy variants of the offline template are at 0.95 or
#: above (`docs/validator.md`, "Copies").
COPY_THRESHOLD = 0.8


def pinned_threshold(pack: object, setting: float) -> float:
    """The code similarity threshold a race of ``pack`` is judged at: its rotation's ``copy_similarity`` where it
    pins one (so pooled validators agree), else the operator's ``setting`` (``--copies.similarity``)."""
    pinned = getattr(getattr(pack, "rotation", None), "copy_similarity", None)
    return float(pinned) if pinned is not None else setting


__all__ = [
    "COPY_THRESHOLD",
    "pinned_threshold",
    "VERSION",
    "Fingerprint",
    "containment",
    "fingerprint_files",
    "similarity",
]
