"""A generated build's forked workers (`arena.catalog.workers`, docs/operator.md section 1): a worker that ends
before the builder's next word to it ends the build with one `CatalogError` line that names it, never a bare
`BrokenPipeError` (which `arena catalog build` turned into exit 1 and no line at all: typer takes an EPIPE for a closed
stdout and exits quietly)."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest

from arena.catalog import CatalogError
from arena.catalog.workers import made_products


def test_workers_gone_before_their_next_chunk_end_the_build_with_one_line(tmp_path: Path) -> None:
    parts = [tmp_path / "part0", tmp_path / "part1"]
    (tmp_path / "handoff").mkdir()
    with made_products(3, 8 * 1024, parts, str(tmp_path / "handoff")) as made:
        workers = psutil.Process().children()
        assert len(workers) == 2, "two parts: a forked worker each"
        for worker in workers:  # both: no process is left holding their task pipes open
            worker.kill()
        psutil.wait_procs(workers)
        with pytest.raises(CatalogError) as failed:
            next(made.chunks)
    message = str(failed.value)
    assert "ended mid-build" in message and "build again" in message and "\n" not in message
    assert any(f"pid {worker.pid}" in message for worker in workers)
