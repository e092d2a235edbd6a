"""Reading imported records (both shopping families' importers): the records of a JSON Lines file, each line that is
not JSON reported in one line and skipped."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson


def json_lines(name: str, data: bytes, bad: list[str]) -> Iterator[tuple[int, str, Any]]:
    """(line number, ``name:line``, record) for each non-blank line of ``data``; a line that is not JSON adds
    ``name:line: not valid JSON (why)`` to ``bad`` and is skipped."""
    for lineno, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}:{lineno}"
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            bad.append(f"{where}: not valid JSON ({exc.msg})")
            continue
        yield lineno, where, record
