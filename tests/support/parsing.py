"""Garbage collections that parse and hand the GIL over, the way a node's collections can: on CPython 3.11 before
3.11.8 an ``ast.parse`` that meets another mid-construction fails with ``SystemError: AST constructor recursion depth
mismatch`` (`arena/syntax.py` says why). Inside `collections_that_parse` such meetings are frequent, so a parse that
is not safe from several threads fails within a few dozen."""

from __future__ import annotations

import ast
import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def collections_that_parse() -> Iterator[None]:
    """Every garbage collection parses a line (as formatting a traceback does on 3.11) and yields the GIL, and
    collections are frequent. Leave the block before asserting, so that pytest's own parsing is left alone."""

    def during_collection(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            ast.parse("caret = anchors[1:]")
            time.sleep(0)

    threshold = gc.get_threshold()
    gc.callbacks.append(during_collection)
    gc.set_threshold(50)
    try:
        yield
    finally:
        gc.callbacks.remove(during_collection)
        gc.set_threshold(*threshold)
