"""`paused_gc`: Python's cyclic garbage collector paused for a block of work, and back on after it (only if it was
on before). For work that makes many objects none of which is in a cycle: each collection walks every live object,
so collecting while they are made can cost more than the work itself (a generated catalog build,
`arena.catalog.build`; a results bundle, `validator.pool.bundle`), or can run Python code where none may run
(`arena.syntax`)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


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
