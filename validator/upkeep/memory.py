"""The node's memory as glibc's malloc holds it, so a node left alone for weeks does not grow (docs/validator.md,
"Left alone: the soak").

glibc gives each new thread a malloc arena of its own until there are 8 per core; the node's threads (asyncio's
`to_thread` pool the jobs run in, the gateway's and the API server's, the pools that fetch bundles) each allocate and
free in theirs, and the free space left between live blocks in 15 arenas is memory the process keeps: the soak saw
RSS grow about 39 MiB per 100 races while Python's own allocations stayed flat. `limit_arenas` caps the arenas when
the node starts (before its threads: `mallopt(M_ARENA_MAX)`), unless the operator set `MALLOC_ARENA_MAX` (or a glibc
tunable) already; `trim` hands the free pages inside every arena back to the kernel (`malloc_trim(0)`), called after
each race closes. Where the C library is not glibc (musl, macOS) both do nothing.

`freeze_held` moves what the node holds for good once it started out of Python's cyclic garbage collector's way;
`thaw` hands it back once the node stopped (a process may start another node: the demo, the tests).
"""

from __future__ import annotations

import gc
import os

from arena.gcpause import glibc

ARENAS = 2  # the node's malloc arenas: the main one and one its threads share (the node's work is under the GIL)
M_ARENA_MAX = -8  # glibc's malloc.h


def limit_arenas(arenas: int = ARENAS) -> int | None:
    """Cap glibc's malloc arenas at `arenas` for the threads started from now on. Returns the cap set, or None when
    nothing was set: not glibc, or the operator chose already (`MALLOC_ARENA_MAX`, or `arena_max` in
    `GLIBC_TUNABLES`, which glibc read when the process started)."""
    if arenas < 1:
        raise ValueError(f"arenas must be at least 1, got {arenas}")
    if os.environ.get("MALLOC_ARENA_MAX") or "arena_max" in os.environ.get("GLIBC_TUNABLES", ""):
        return None
    libc = glibc()
    if libc is None or libc.mallopt(M_ARENA_MAX, arenas) != 1:
        return None
    return arenas


def freeze_held() -> int:
    """What the node holds for good once it started (imports, catalog, pack, store, dispatcher) frozen out of the
    cyclic garbage collector's way (`gc.freeze`, as a Ray runner does after its warm-up), the garbage of starting
    collected first. A full collection walks every object the collector tracks, with the GIL held, in whichever thread
    allocated: the event loop and every run stand still meanwhile (170 to 380 ms on bench/race.py's node, a few times
    a race). Objects frozen are still freed when their last reference goes; only a cycle among them is never
    collected. Returns how many objects are frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def thaw() -> None:
    """What `freeze_held` froze handed back to the garbage collector (`gc.unfreeze`) once the node stopped: a cycle
    among the stopped node's objects is collected again rather than kept for the rest of the process."""
    gc.unfreeze()


def trim() -> int | None:
    """Give the free pages of every malloc arena back to the kernel. Returns the resident bytes freed (what the
    process's RSS dropped by), or None where the C library is not glibc."""
    libc = glibc()
    if libc is None:
        return None
    before = _rss()
    libc.malloc_trim(0)
    return max(before - _rss(), 0)


def _rss() -> int:
    """The process's resident bytes (/proc/self/statm), 0 where there is no /proc."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
