"""The temporary folders of a catalog build that was killed before it could remove them (SIGKILL, a power cut).

A build names its temporary folders with its process id (`tagged`): the catalog's sibling it is written in (and the
catalog it replaces, on its way out), and the folder its generator workers leave their chunks in; it holds a lock on a
file in each while it lives (`hold`). The next build clears (`clear_dead`) those whose process is gone (or whose id
a process started after the lock was taken now has), whose lock nobody holds (`arena.owner`), and that nothing has
changed for a minute: the lock covers a folder shared with another pid namespace,
whose live process ids this one cannot see (tantivy writes a build's index files without touching its folders' times
until the end), the minute the moment between a folder's making and its lock. SIGTERM and Ctrl-C end a build through
its clean-up, so only what a kill left is found here.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path
from typing import IO

from arena import owner
from arena.log import get_logger

log = get_logger("arena.catalog")

#: a dead build's folder untouched this long is cleared
STALE_SECONDS = 60.0

#: the file in a build's temporary folder that the build holds locked while it lives
LOCK = ".lock"

#: what follows the prefix in a tagged folder's name: the process id, then the temporary name's random part
#: (`tempfile`'s 8 letters) and the writer's suffix, or ``old`` (the catalog being replaced); another catalog's folder
#: (``cat.2`` beside ``cat``) or a user's (``.cat.20241206.bak``) does not match
_TAIL = re.compile(r"(\d+)\.(?:[a-z0-9_]{8}(?:\.tmp)?|old)")


def tagged(prefix: str) -> str:
    """``prefix`` and this process's id: the start of a temporary folder's name that `clear_dead` can read."""
    return f"{prefix}{os.getpid()}."


def hold(folder: str | os.PathLike[str]) -> IO[bytes]:
    """Lock ``folder``'s `LOCK` file for as long as the returned file stays open (or its process lives)."""
    fh = owner.claim(Path(folder) / LOCK)
    if fh is None:
        raise BlockingIOError(f"{folder} is held by another build")
    return fh


def clear_dead(parent: str | os.PathLike[str], prefix: str, *, now: float | None = None) -> list[Path]:
    """Remove the folders in ``parent`` named ``tagged(prefix)`` by a process that is gone, whose lock is free and
    that are untouched for `STALE_SECONDS`; returns them. Anything else (another name, a live build) is left."""
    removed = []
    for path, pid in _dead(parent, prefix, now):
        shutil.rmtree(path, ignore_errors=True)
        log.info("catalog.leftover_removed", path=str(path), pid=pid)
        removed.append(path)
    return removed


def restore_replaced(out: Path) -> Path | None:
    """Where ``out`` is missing and a dead build had moved the catalog there aside to replace it (killed between its
    two renames), that catalog goes back to ``out``; returns where it was."""
    if out.exists():
        return None
    for path, pid in _dead(out.parent, f".{out.name}."):
        if path.name.endswith(".old"):
            path.rename(out)
            log.warning("catalog.replaced_restored", path=str(out), moved_from=str(path), pid=pid)
            return path
    return None


def _dead(parent: str | os.PathLike[str], prefix: str, now: float | None = None) -> list[tuple[Path, int]]:
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return []
    now = time.time() if now is None else now
    found = []
    for entry in entries:
        if not entry.name.startswith(prefix) or not entry.is_dir(follow_symlinks=False):
            continue
        tail = _TAIL.fullmatch(entry.name[len(prefix) :])
        if tail is None or not _gone(pid := int(tail.group(1)), entry.path):
            continue
        try:
            if now - _last_write(entry.path) < STALE_SECONDS:
                continue
        except OSError:  # gone meanwhile
            continue
        found.append((Path(entry.path), pid))
    return found


def _gone(pid: int, path: str) -> bool:
    """Whether the build that made the folder at ``path`` is gone: its lock is free and its process no longer runs,
    or runs a process started after the build took its lock (the id reused). With no lock file (the catalog being
    replaced, the moment before the lock) a process of that id keeps the folder."""
    lock = os.path.join(path, LOCK)
    try:
        locked_at: float | None = os.stat(lock).st_mtime
    except OSError:
        locked_at = None
    return owner.gone(pid, since=locked_at) and not owner.held(lock)


def _last_write(path: str) -> float:
    """The latest change of the folder or a folder in it (files come and go inside those)."""
    newest = os.stat(path).st_mtime
    for entry in os.scandir(path):
        if entry.is_dir(follow_symlinks=False):
            newest = max(newest, entry.stat(follow_symlinks=False).st_mtime)
    return newest
