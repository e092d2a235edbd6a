"""`paused_gc`: Python's cyclic garbage collector paused for a block of work, and back on after it (only if it was
on before). For work that makes many objects none of which is in a cycle: each collection walks every live object,
so collecting while they are made can cost more than the work itself (a generated catalog build,
`arena.catalog.build`; a results bundle, `validator.pool.bundle`), or can run Python code where none may run
(`arena.syntax`). `keep_freed_heap`: for a process that makes and frees much the same objects over and over."""

from __future__ import annotations

import functools
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def paused_gc() -> Iterator[None]:
    """The collector off inside the block; on again after it if it was on (a nested pause leaves it off)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


#: glibc's ``mallopt`` parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_TOP_PAD = -1, -2


@functools.cache
def glibc() -> Any:
    """The process's C library when it is glibc (it has `gnu_get_libc_version`, `mallopt` and `malloc_trim`, typed
    here), else None (musl, macOS): what `keep_freed_heap` and the node's arena cap and trim
    (`validator.upkeep.memory`) call, and what their tests skip without."""
    import ctypes  # here: most users of this module never need it

    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    if not all(hasattr(libc, name) for name in ("gnu_get_libc_version", "mallopt", "malloc_trim")):
        return None
    libc.mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    libc.mallopt.restype = ctypes.c_int
    libc.malloc_trim.argtypes = (ctypes.c_size_t,)
    libc.malloc_trim.restype = ctypes.c_int
    return libc


def keep_freed_heap(trim_threshold: int = 256 * 2**20, top_pad: int = 64 * 2**20) -> bool:
    """glibc's malloc hands the top of its heap back to the system once 128 KiB of it is free, and takes it back
    page by page, each page faulted in and zeroed by the kernel: a process that frees a batch of objects and makes
    the next (a catalog generator worker, a chunk of 1,024 products at a time) paid that on every batch. Here the
    heap keeps up to `trim_threshold` bytes free and grows by `top_pad` more than asked (untouched pages cost no
    memory). Returns whether the C library took it (glibc; elsewhere nothing changes)."""
    libc = glibc()
    if libc is None:
        return False
    return bool(libc.mallopt(_M_TRIM_THRESHOLD, trim_threshold)) and bool(libc.mallopt(_M_TOP_PAD, top_pad))
