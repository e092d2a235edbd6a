"""The temporary folders of a catalog build that was killed before it could remove them (SIGKILL, a power cut).

A build names its temporary folders with its process id (`tagged`): the catalog's sibling it is written in, and the
folder its generator workers leave their chunks in. The next build clears (`clear_dead`) those whose process is gone
and that nothing has written for a minute: a live build writes in its folders continuously, and the minute covers a
folder shared with another pid namespace, whose live process ids this one cannot see. SIGTERM and Ctrl-C end a build
through its clean-up, so only what a kill left is found here.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

from arena.log import get_logger

log = get_logger("arena.catalog")

#: a dead build's folder untouched this long is cleared
STALE_SECONDS = 60.0

#: what follows the prefix in a tagged folder's name: the process id, the temporary name's random part (`tempfile`'s
#: letters) and the writer's suffix; another catalog's folder (``cat.2`` beside ``cat``) does not match
_TAIL = re.compile(r"(\d+)\.[a-z0-9_]+(?:\.tmp)?")


def tagged(prefix: str) -> str:
    """``prefix`` and this process's id: the start of a temporary folder's name that `clear_dead` can read."""
    return f"{prefix}{os.getpid()}."


def clear_dead(parent: str | os.PathLike[str], prefix: str, *, now: float | None = None) -> list[Path]:
    """Remove the folders in ``parent`` named ``tagged(prefix)`` by a process that is gone and untouched for
    `STALE_SECONDS`; returns them. Anything else (another name, a live process, a recent write) is left."""
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return []
    now = time.time() if now is None else now
    removed = []
    for entry in entries:
        if not entry.name.startswith(prefix) or not entry.is_dir(follow_symlinks=False):
            continue
        tail = _TAIL.fullmatch(entry.name[len(prefix) :])
        if tail is None or _alive(pid := int(tail.group(1))):
            continue
        try:
            if now - _last_write(entry.path) < STALE_SECONDS:
                continue
        except OSError:  # gone meanwhile
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        log.info("catalog.leftover_removed", path=entry.path, pid=pid)
        removed.append(Path(entry.path))
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: alive
        return True
    return True


def _last_write(path: str) -> float:
    """The latest change of the folder or a folder in it (files come and go inside those)."""
    newest = os.stat(path).st_mtime
    for entry in os.scandir(path):
        if entry.is_dir(follow_symlinks=False):
            newest = max(newest, entry.stat(follow_symlinks=False).st_mtime)
    return newest
