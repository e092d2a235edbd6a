"""Whether a folder's owner is gone, the two ways the code base asks it: its lock is free (`held`, `claim`), its
process no longer runs (`gone`). A catalog build's temporary folders (`arena.catalog.leftovers`), a dead node's work
folder and a corpus export's workspace (`validator.upkeep.sweeps`, `validator.corpus.workspace`) are judged by these.

A lock is `flock`'s on a file in the folder: the kernel lets it go when its holder's last descriptor closes, so a
killed owner's lock is free, and it holds across pid namespaces, where a process id means nothing. A process id is
reused once its process is gone; an owner that wrote a file when it started gives the time it is known to have run
by, and a process of that id started later is another (`gone`'s ``since``).
"""

from __future__ import annotations

import fcntl
import os
from typing import IO

import psutil

#: how much later than ``since`` a process's start may read and still be the owner: psutil derives a start from the
#: boot time, which the kernel gives in whole seconds
CLOCK_SLACK = 1.0


def gone(pid: int, since: float | None = None) -> bool:
    """Whether process ``pid`` is gone: no process has that id, or (given ``since``, a time by which the owner was
    running, such as a file it wrote) the one that has it started after ``since``, the id reused. A process this one
    may not inspect (another user's) is taken to live."""
    try:
        started = psutil.Process(pid).create_time()
    except psutil.NoSuchProcess:  # an id out of range too
        return True
    except psutil.Error:
        return False
    return since is not None and started > since + CLOCK_SLACK


def claim(path: str | os.PathLike[str]) -> IO[bytes] | None:
    """The exclusive lock on the file at ``path`` (made if missing), held until the returned file is closed (or this
    process ends); None when another holds it. The file is not written (a new one's time is when it was taken). A
    file that cannot be opened raises `OSError`."""
    fh = open(path, "ab")  # noqa: SIM115 - the caller holds it
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        return None
    return fh


def held(path: str | os.PathLike[str]) -> bool:
    """Whether another holds the lock on the file at ``path``; a missing (or unreadable) file is held by nobody."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError:
        return False
    with fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(fh, fcntl.LOCK_UN)
    return False
