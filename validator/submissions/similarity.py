"""Bundles' code fingerprints (`arena.copies`) as the node and `arena-validator submissions compare` read them: from
a bundle folder or archive, cached beside a stored bundle, and the templates every submission counts as later than.

Nothing here parses Python: every file of a bundle is read (`arena.copies.fingerprint.reading`); what cannot be (an
archive that is not a bundle, binary files beyond their readable runs, what lies past the reading cap) is noted in
the fingerprint and compared on what could be read."""

from __future__ import annotations

import itertools
import os
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from arena.copies import COPY_THRESHOLD, VERSION, Fingerprint, fingerprint_files, similarity
from arena.copies.dating import held_since, public_hashes, shared_code
from arena.copies.fork import Similar
from sandbox.bundle import SKIP_DIRS, BundleError, unpack

#: The public agents every miner may start from: a submission similar to one counts as later than it.
TEMPLATES = {
    "template:offline": Path(__file__).resolve().parents[2] / "miner_template" / "offline",
    "template:llm": Path(__file__).resolve().parents[2] / "miner_template" / "llm",
    "template:sn15": Path(__file__).resolve().parents[2] / "miner_template" / "sn15",
}


class Comparison(BaseModel):
    """Whether ``later`` is similar enough to ``earlier`` to be a copy (it then earns only by beating ``earlier``
    beyond noise), and the evidence."""

    model_config = ConfigDict(frozen=True)

    earlier: str
    later: str
    copy_: bool
    similarity: float
    threshold: float
    fingerprints: tuple[int, int]
    notes: tuple[str, ...] = ()

    def as_json(self) -> dict[str, object]:
        out = self.model_dump(mode="json")
        out["copy"] = out.pop("copy_")
        return out


def folder_files(root: Path) -> dict[str, bytes]:
    """Every file of a bundle folder as it is packed (no caches, no symlinks): {relative path: content}."""
    files: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and not path.is_symlink() and not any(part in SKIP_DIRS for part in rel.parts):
            files[rel.as_posix()] = path.read_bytes()
    return files


def fingerprint_path(path: str | os.PathLike[str]) -> Fingerprint:
    """The fingerprints of a bundle folder, an agent file, or a bundle archive (``.tar.gz``, unpacked with the
    bundle limits); what cannot be read is noted, never raised."""
    root = Path(path)
    if root.is_dir():
        return fingerprint_files(folder_files(root))
    if not root.is_file():
        return Fingerprint(notes=(f"{root}: no such file or folder",))
    if root.suffix == ".py":
        return fingerprint_files({root.name: root.read_bytes()})
    with tempfile.TemporaryDirectory(prefix="compare-") as tmp:
        try:
            unpack(root.read_bytes(), Path(tmp) / "bundle")
        except BundleError as exc:
            return Fingerprint(notes=(f"{root.name}: not a readable bundle ({'; '.join(exc.problems)})",))
        return fingerprint_files(folder_files(Path(tmp) / "bundle"))


_MEMO: dict[Path, Fingerprint] = {}
_MEMO_LOCK = threading.Lock()  # several submissions are fetched and fingerprinted at once


def cached_fingerprint(folder: Path) -> Fingerprint:
    """A stored bundle's fingerprints (a bundle's folder is named by its sha256 and never changes): kept in memory
    and in ``<folder>.fingerprint.json`` once computed (written by rename). The memory holds the bundles still on
    disk: a new entry first forgets those whose folder the janitor removed (`forget_removed`), so a node that sees
    new submissions for weeks keeps the fingerprints its retention keeps, not every bundle it ever saw (a few
    hundred KiB each)."""
    with _MEMO_LOCK:
        if folder in _MEMO:
            return _MEMO[folder]
    fp = _disk_fingerprint(folder)
    forget_removed()
    with _MEMO_LOCK:
        if len(_MEMO) < 4096:
            _MEMO[folder] = fp
    return fp


def forget_removed() -> int:
    """Drop the in-memory fingerprints of bundles whose folder is gone. Returns how many were dropped."""
    with _MEMO_LOCK:
        held = list(_MEMO)
    gone = [folder for folder in held if not folder.is_dir()]
    with _MEMO_LOCK:
        for folder in gone:
            _MEMO.pop(folder, None)
    return len(gone)


def _disk_fingerprint(folder: Path) -> Fingerprint:
    cache = folder.with_name(folder.name + ".fingerprint.json")
    try:
        fp = Fingerprint.model_validate_json(cache.read_bytes())
        if fp.version == VERSION:
            return fp
    except (OSError, ValueError):
        pass
    fp = fingerprint_path(folder)
    try:
        tmp = cache.with_name(f".tmp-{cache.name}-{os.getpid()}")
        tmp.write_text(fp.model_dump_json())
        os.replace(tmp, cache)
    except OSError:
        pass  # a cache that cannot be written only costs time
    return fp


@lru_cache(maxsize=1)
def template_fingerprints() -> dict[str, Fingerprint]:
    return {name: fingerprint_path(folder) for name, folder in TEMPLATES.items()}


def compare(
    earlier: Fingerprint,
    later: Fingerprint,
    *,
    names: tuple[str, str] = ("earlier", "later"),
    threshold: float = COPY_THRESHOLD,
) -> Comparison:
    figure = similarity(earlier, later)
    notes = [f"{names[0]}: {n}" for n in earlier.notes] + [f"{names[1]}: {n}" for n in later.notes]
    return Comparison(
        earlier=names[0],
        later=names[1],
        copy_=figure >= threshold,
        similarity=figure,
        threshold=threshold,
        fingerprints=(len(earlier.hashes), len(later.hashes)),
        notes=tuple(notes),
    )


def copies_of(
    later: Fingerprint,
    earlier: Iterable[tuple[str, Fingerprint]],
    *,
    name: str = "later",
    threshold: float = COPY_THRESHOLD,
) -> list[Comparison]:
    """Every earlier bundle ``later`` is similar to at ``threshold`` or above, the most similar first (equals in the
    order given: earliest first)."""
    found = [compare(fp, later, names=(label, name), threshold=threshold) for label, fp in earlier]
    return sorted((c for c in found if c.copy_), key=lambda c: -c.similarity)


def code_evidence(
    agents: Iterable[tuple[str, Path]],
    *,
    threshold: float = COPY_THRESHOLD,
    first: Callable[[str, str], tuple[str, str]] | None = None,
) -> list[Similar]:
    """Every pair of stored bundles (hotkey, bundle folder) similar at ``threshold`` or above, the earlier of each
    pair first (``first``: (earlier, later) of two hotkeys; default the order given), and every bundle similar to a
    template (the template first: it counts as earlier). A folder this node does not hold is left out."""
    held = [(h, cached_fingerprint(folder)) for h, folder in agents if folder.is_dir()]
    out = [
        Similar(a=name, b=h, kind="code", similarity=figure)
        for name, template in template_fingerprints().items()
        for h, fp in held
        if (figure := similarity(template, fp)) >= threshold
    ]
    prints = dict(held)
    for (a, _), (b, _) in itertools.combinations(held, 2):
        a, b = first(a, b) if first is not None else (a, b)
        if (figure := similarity(prints[a], prints[b])) >= threshold:
            out.append(Similar(a=a, b=b, kind="code", similarity=figure))
    return out


@lru_cache(maxsize=1)
def _public() -> Any:
    return public_hashes(template_fingerprints().values())


def held_dates(
    raced: Mapping[str, Path], history: Mapping[str, Iterable[tuple[int, Path]]], *, threshold: float = COPY_THRESHOLD
) -> dict[str, dict[str, int]]:
    """Pair by pair, since which block each raced miner (hotkey -> its raced bundle's folder) has held the code it
    shares with each other raced miner's agent and with each template (`arena.copies.dating`), from its stored
    submissions (``history``: hotkey -> (commitment block, folder), its raced bundle among them): x -> y -> block,
    a pair with no such block left out, as is a miner whose raced bundle this node does not hold."""
    prints = {h: cached_fingerprint(folder) for h, folder in sorted(raced.items()) if folder.is_dir()}
    others = {**prints, **template_fingerprints()}
    out: dict[str, dict[str, int]] = {}
    for x, mine in prints.items():
        held = [(block, cached_fingerprint(folder)) for block, folder in history.get(x, ()) if folder.is_dir()]
        for y, theirs in others.items():
            if y == x:
                continue
            block = held_since(shared_code(mine, theirs, _public()), held, threshold=threshold)
            if block is not None:
                out.setdefault(x, {})[y] = block
    return out
