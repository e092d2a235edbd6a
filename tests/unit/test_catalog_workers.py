"""A generated build's forked workers (`arena.catalog.workers`, docs/operator.md section 1): a worker that ends
before the builder's next word to it ends the build with one `CatalogError` line that names it, never a bare
`BrokenPipeError` (which `arena catalog build` turned into exit 1 and no line at all: typer takes an EPIPE for a closed
stdout and exits quietly)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from arena.catalog import CatalogError
from arena.catalog.workers import made_products


def _ended(workers: list[psutil.Process]) -> list[psutil.Process]:
    """Those of ``workers`` that have ended, once one has: left unreaped, for the builder to read their exit."""
    while not (ended := [w for w in workers if w.status() == psutil.STATUS_ZOMBIE]):
        time.sleep(0.02)
    return ended


def _next_chunk_once_both_ended(made: Any, workers: list[psutil.Process], kill: list[psutil.Process]) -> str:
    """``kill`` killed, both workers ended (none left holding the task pipes open): the builder's line as it asks for
    the next chunk."""
    for worker in kill:
        worker.kill()
    while len(_ended(workers)) < 2:
        time.sleep(0.02)
    with pytest.raises(CatalogError) as failed:
        next(made.chunks)
    return str(failed.value)


def test_workers_gone_before_their_next_chunk_end_the_build_with_one_line(tmp_path: Path) -> None:
    parts = [tmp_path / "part0", tmp_path / "part1"]
    (tmp_path / "handoff").mkdir()
    with made_products(3, 8 * 1024, parts, str(tmp_path / "handoff")) as made:
        workers = psutil.Process().children()
        assert len(workers) == 2, "two parts: a forked worker each"
        message = _next_chunk_once_both_ended(made, workers, workers)
    assert "ended mid-build" in message and "build again" in message and "\n" not in message
    assert any(f"pid {worker.pid}) ended mid-build (exit code -9)" in message for worker in workers)


def test_a_worker_that_failed_before_its_next_chunk_is_named_by_its_failure_in_one_line(tmp_path: Path) -> None:
    """Its failure, not that it ended (it ends well, exit code 0, once it has sent it), even where the builder finds
    its pipe closed before reading it (the other worker killed too: none holds that pipe open)."""
    parts = [tmp_path / "part0", tmp_path / "part1"]
    parts[0].mkdir()  # a part is a new folder: its worker fails at once
    (tmp_path / "handoff").mkdir()
    with made_products(3, 8 * 1024, parts, str(tmp_path / "handoff")) as made:
        workers = psutil.Process().children()
        (failing,) = _ended(workers)
        message = _next_chunk_once_both_ended(made, workers, [w for w in workers if w != failing])
    assert message.startswith("a catalog generator worker failed: FileExistsError:") and "\n" not in message
    assert str(parts[0]) in message
