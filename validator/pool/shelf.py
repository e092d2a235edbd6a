"""Results bundles on disk under the node's data dir: ``<root>/<sha256>`` (the signed envelope, as served: a copy of
the folder at ``<bucket>/results/`` serves the same path, ``<url>/results/<sha256>``) and ``<root>/<sha256>.meta.json``
(when it may be served to whom: `Release`). Each file is written atomically (a temporary sibling, fsynced, then linked
into place) and never overwritten: putting the same bundle twice (even signed again) keeps the first copy, putting
other bytes under a held id is refused."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

import orjson
from pydantic import BaseModel

from validator.pool.build import PoolError
from validator.pool.bundle import bundle_id

_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class Release(BaseModel):
    """Who may fetch a held bundle: before `public_block` only validator-permit holders that committed a results
    bundle of their own at or after `race_start` (they raced this race too); from `public_block` on, any signed
    request (auditors, miners). `public_block` 0: public at once."""

    race_id: str
    race_start: int
    public_block: int = 0


def _write_new(path: Path, data: bytes) -> bool:
    """Write `data` at `path` atomically unless a file is there; False when it was there already (unchanged)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, path)  # atomic create-if-absent: never replaces a file written meanwhile
        except FileExistsError:
            return False
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _same_body(data: bytes, sha256: str) -> bool:
    """Whether `data` is an envelope of the body `sha256` (signed again: an sr25519 signature differs every time)."""
    try:
        return bundle_id(orjson.loads(data)["body"]) == sha256
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return False


class ResultsShelf:
    """The results bundles a node holds (its own, and others' it verified)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def _path(self, sha256: str, suffix: str = "") -> Path:
        if not _SHA256.match(sha256):
            raise PoolError(f"{sha256[:80]!r} is not a sha256 (64 lowercase hex digits)")
        return self.root / f"{sha256}{suffix}"

    def put(self, sha256: str, data: bytes, release: Release) -> Path:
        """Hold the envelope `data` of bundle `sha256` and its `release`; the envelope's path."""
        path = self._path(sha256)
        self.root.mkdir(parents=True, exist_ok=True)
        if not _write_new(path, data) and path.read_bytes() != data and not _same_body(data, sha256):
            raise PoolError(
                f"{path} already holds bundle {sha256}; these bytes are not it, and it is never overwritten"
            )
        meta = self._path(sha256, ".meta.json")
        _write_new(meta, release.model_dump_json().encode())
        return path

    def get(self, sha256: str) -> bytes | None:
        try:
            return self._path(sha256).read_bytes()
        except (FileNotFoundError, PoolError):
            return None

    def release(self, sha256: str) -> Release | None:
        try:
            return Release.model_validate_json(self._path(sha256, ".meta.json").read_bytes())
        except (FileNotFoundError, PoolError):
            return None

    def has(self, sha256: str) -> bool:
        return self.get(sha256) is not None


__all__ = ["Release", "ResultsShelf"]
