"""The one way this code base turns Python source into a syntax tree: `parse`, safe from several threads at once.

CPython before 3.11.8 keeps the AST constructor's recursion depth in state the whole interpreter shares. The
constructor runs no Python code of its own, so a thread building a tree keeps the GIL, except when one of its
allocations starts a garbage collection: the finalizers, weakref callbacks and gc callbacks a collection runs are
Python code, and there the thread can hand the GIL to another. If that other thread parses too (the node fetches
several submissions at once, each checked by `sandbox.bundle.check_dir`, `sandbox.contracts.inspect_bundle` and
`validator.submissions.copies.normalize_source`; on 3.11 formatting a traceback parses too), it resets the shared
depth, and the first thread's parse fails with ``SystemError: AST constructor recursion depth mismatch`` for a tree
it built correctly: a miner's fetch attempt lost to a fault of the node's.

`parse` holds one process-wide lock and holds garbage collection off while the tree is built, so the constructor runs
no Python code and no other thread runs until the tree is whole. Nothing is caught or retried: a syntax error, and
every other error, is raised as `ast.parse` raises it. Every ``ast.parse`` of ``arena``, ``sandbox``, ``validator``
and ``miner_template`` goes through here (`tests/unit/test_syntax.py` holds both).
"""

from __future__ import annotations

import ast
import threading
from typing import Any

from arena.gcpause import paused_gc

_LOCK = threading.Lock()


def parse(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse` of a module's source, one at a time in this process and with no garbage collection inside."""
    with _LOCK, paused_gc():
        return ast.parse(source, filename=filename)


def literal(source: str) -> Any:
    """`ast.literal_eval` of a literal's source (a string, bytes, number, tuple, ...), its tree built as `parse`
    builds one: one at a time and with no garbage collection inside."""
    with _LOCK, paused_gc():
        tree = ast.parse(source.lstrip(" \t"), mode="eval")
    return ast.literal_eval(tree)
