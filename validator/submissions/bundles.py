"""Where verified bundles live: ``data_dir/bundles/<sha256>/`` (unpacked, agent.py at its root) beside
``<sha256>.tar.gz`` (the bytes as committed), both written atomically (temp + rename)."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
import uuid
from contextlib import suppress
from pathlib import Path

from sandbox.bundle import BundleError, check_dir, unpack
from validator.submissions.models import FetchedBundle, SubmissionError, short

_TMP_PREFIX = ".tmp-"
_STALE_TMP_SECONDS = 600.0


def bundles_dir(data_dir: str | os.PathLike[str]) -> Path:
    return Path(data_dir) / "bundles"


def bundle_path(data_dir: str | os.PathLike[str], sha256: str) -> Path:
    """The unpacked, verified bundle folder for `sha256` (exists once a sync has verified it)."""
    return bundles_dir(data_dir) / sha256


def archive_path(folder: Path) -> Path:
    return folder.with_name(folder.name + ".tar.gz")


def stored(folder: Path, sha256: str) -> bool:
    """A bundle a sync verified before (the folder appears only after its archive, both by rename)."""
    archive = archive_path(folder)
    if not (folder.is_dir() and archive.is_file()):
        return False
    try:
        return hashlib.sha256(archive.read_bytes()).hexdigest() == sha256
    except OSError:
        return False


def store_bundle(data: bytes, sha256: str, into: Path, source: str) -> FetchedBundle:
    into.mkdir(parents=True, exist_ok=True)
    folder = into / sha256
    archive = archive_path(folder)
    tmp = into / f"{_TMP_PREFIX}{sha256[:16]}-{uuid.uuid4().hex[:8]}"
    try:
        try:
            unpack(data, tmp)
        except BundleError as exc:
            raise SubmissionError("bad_bundle", short(f"bundle refused: {'; '.join(exc.problems)}", 300)) from None
        try:
            problems = check_dir(tmp)
        except RecursionError:
            problems = ["a Python file is too deeply nested to parse"]
        if problems:
            raise SubmissionError("bad_bundle", short(f"bundle fails `arena-miner check`: {'; '.join(problems)}", 300))
        files = sum(1 for p in tmp.rglob("*") if p.is_file())
        tmp_archive = into / f"{tmp.name}.tar.gz"
        tmp_archive.write_bytes(data)
        os.replace(tmp_archive, archive)
        try:
            os.rename(tmp, folder)
        except OSError:
            if not folder.is_dir():  # not a concurrent identical fetch: a real failure
                raise
    except OSError as exc:
        raise SubmissionError("store_failed", f"cannot store the bundle under {into}: {exc}", retryable=True) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        with suppress(OSError):
            (into / f"{tmp.name}.tar.gz").unlink(missing_ok=True)
    return FetchedBundle(sha256=sha256, path=folder, archive=archive, size_bytes=len(data), files=files, source=source)


def clean_tmp(into: Path) -> None:
    """Remove temp entries a crashed sync left behind (old enough not to be another sync's work in progress)."""
    if not into.is_dir():
        return
    cutoff = time.time() - _STALE_TMP_SECONDS
    for entry in into.glob(f"{_TMP_PREFIX}*"):
        with suppress(OSError):
            if entry.lstat().st_mtime < cutoff:
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink()
