"""A bundle's code fingerprints: token k-grams winnowed (MOSS's method, by the `copydetect` library) over every
Python file of the bundle, and the similarity of two bundles' fingerprints.

`copydetect.utils.filter_code` tokenizes each file with Pygments and drops what a copier changes for free: comments,
docstrings' text, whitespace and every name (variables, functions, classes and modules all become one letter), so
renaming, reformatting and re-commenting change nothing. Each file is fingerprinted on its own and the bundle's
fingerprints are the union, so reordering functions, moving one into a new module or renaming the package folder
keep nearly all of them; a changed constant loses only the k-grams around it. `copydetect.utils.winnow` picks the
fingerprints; the k-gram hashes are ours only because copydetect's use Python's `hash`, which is salted per process:
blake2b makes the same bundle give the same fingerprints on every validator.

Nothing here parses Python (no `ast`): a file that is not Python, not UTF-8 or binary is tokenized as far as it reads
and noted; a file or a bundle over the size caps is read up to the cap and noted. The check never fails on content.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import numpy as np
from copydetect.utils import filter_code, winnow
from pydantic import BaseModel, ConfigDict, PrivateAttr

#: Characters of filtered code per k-gram: a match shorter than K is noise (``def F(V):return V`` is everywhere).
K = 25
#: Winnowing window: every match of at least K + WINDOW - 1 filtered characters shares a fingerprint.
WINDOW = 4
#: What one file contributes at most (bytes read); the rest is noted, not read.
FILE_CAP = 512 * 1024
#: What one bundle contributes at most (bytes read over all its files).
BUNDLE_CAP = 4 * 1024 * 1024
#: A bundle with fewer fingerprints than this is too small to call anything a copy of it (or it a copy).
MIN_FINGERPRINTS = 40
#: The version of the fingerprints (K, WINDOW, the filter): stored fingerprints of another version are recomputed.
VERSION = f"copydetect-0.5/k{K}/w{WINDOW}/blake2b"


class Fingerprint(BaseModel):
    """A bundle's fingerprints (sorted, unique), how many Python files were read, and what could not be."""

    model_config = ConfigDict(frozen=True)

    version: str = VERSION
    hashes: tuple[int, ...] = ()
    files: int = 0
    notes: tuple[str, ...] = ()
    _array: np.ndarray | None = PrivateAttr(None)

    def array(self) -> np.ndarray:
        """The fingerprints as a sorted array, made once (a node compares each new bundle with every earlier one)."""
        if self._array is None:
            self._array = np.array(self.hashes, dtype=np.int64)
        return self._array


def shared(a: Fingerprint, b: Fingerprint) -> int:
    """How many fingerprints two bundles have in common (a binary search of the smaller in the larger)."""
    small, large = sorted((a.array(), b.array()), key=len)
    if not len(small) or not len(large):
        return 0
    at = np.minimum(np.searchsorted(large, small), len(large) - 1)
    return int(np.count_nonzero(large[at] == small))


def _kgram_hashes(text: str) -> np.ndarray:
    """A stable 63-bit hash of every K-character window of ``text`` (blake2b: the same on every machine)."""
    data = [text[i : i + K].encode("utf-8", "surrogatepass") for i in range(len(text) - K + 1)]
    return np.array(
        [int.from_bytes(hashlib.blake2b(d, digest_size=8).digest(), "big") >> 1 for d in data], dtype=np.int64
    )


def _file_hashes(text: str) -> np.ndarray:
    filtered, _ = filter_code(text, "bundle.py", "python")
    hashes = _kgram_hashes(filtered)
    if len(hashes) < WINDOW:
        return hashes
    selected, _ = winnow(hashes, WINDOW)
    return np.asarray(selected, dtype=np.int64)


def _decode(name: str, raw: bytes, notes: list[str]) -> str:
    if b"\0" in raw:
        notes.append(f"{name}: binary (NUL bytes); its readable text compared")
        raw = raw.replace(b"\0", b" ")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        notes.append(f"{name}: not UTF-8; compared with the undecodable bytes replaced")
        return raw.decode("utf-8", errors="replace")


def fingerprint_files(files: Mapping[str, bytes]) -> Fingerprint:
    """The fingerprints of a bundle given as ``{relative path: content}``; only ``*.py`` files count."""
    notes: list[str] = []
    found: set[int] = set()
    budget = BUNDLE_CAP
    count = 0
    for name in sorted(files):
        if not name.endswith(".py"):
            continue
        raw = files[name]
        if budget <= 0:
            notes.append(f"{name}: not read (the bundle's first {BUNDLE_CAP // 1024} KiB of Python were)")
            continue
        cap = min(FILE_CAP, budget)
        if len(raw) > cap:
            notes.append(f"{name}: {len(raw)} bytes, only the first {cap} read")
            raw = raw[:cap]
        budget -= len(raw)
        count += 1
        found.update(int(h) for h in _file_hashes(_decode(name, raw, notes)))
    if count == 0:
        notes.append("no Python file (*.py) to compare")
    return Fingerprint(hashes=tuple(sorted(found)), files=count, notes=tuple(notes))


def containment(of: Fingerprint, within: Fingerprint) -> float:
    """The share of ``of``'s fingerprints found in ``within`` (0 when ``of`` is too small to tell)."""
    if len(of.hashes) < MIN_FINGERPRINTS:
        return 0.0
    return shared(of, within) / len(of.hashes)


def similarity(earlier: Fingerprint, later: Fingerprint) -> float:
    """How much of the earlier bundle the later one holds, or of the later one the earlier holds: shared
    fingerprints over the smaller bundle's, where a later bundle counts as at least half the earlier's size. So code
    added to a copy (dead code, a fork's own) leaves it similar, and so does code cut from it (unused parts
    dropped) while it keeps at least 40% of the earlier at the 0.8 threshold; one borrowed module is not a copy."""
    if len(earlier.hashes) < MIN_FINGERPRINTS or len(later.hashes) < MIN_FINGERPRINTS:
        return 0.0
    common = shared(earlier, later)
    return round(common / min(len(earlier.hashes), max(len(later.hashes), len(earlier.hashes) / 2)), 4)
