"""`arena catalog build` stopped part way: SIGTERM ends it through its clean-up (exit 143, one line, no temporary
folder left, no worker left); after a SIGKILL, the next build of that catalog removes what the killed one left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from arena.catalog import Catalog
from arena.catalog.leftovers import LOCK
from arena.catalog.workers import handoff_dir


def _start_build(out: Path, size: str = "1M") -> subprocess.Popen[str]:
    command = [sys.executable, "-c", "from arena.cli import app; app()", "catalog", "build", "--out", str(out)]
    return subprocess.Popen(
        [*command, "--size", size, "--workers", "2", "--seed", "5"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )


def _its_folders(build: subprocess.Popen[str], out: Path) -> list[Path]:
    """The build's temporary sibling of ``out`` and its chunks' folder, once both exist and a chunk is made."""
    where = [
        (out.parent, f".{out.name}.{build.pid}."),
        (Path(handoff_dir(2) or tempfile.gettempdir()), f"arena-catalog-{build.pid}."),
    ]
    while True:
        found = [p for parent, prefix in where for p in parent.iterdir() if p.name.startswith(prefix)]
        if len(found) == 2 and any(p.name != LOCK for p in found[1].iterdir()):
            return found
        assert build.poll() is None, build.communicate()
        time.sleep(0.05)


@pytest.fixture
def workers_of() -> Iterator[list[psutil.Process]]:
    seen: list[psutil.Process] = []
    yield seen
    for process in seen:  # whatever a failed assertion left running
        if process.is_running():
            process.kill()


def test_sigterm_ends_a_build_through_its_clean_up(tmp_path: Path, workers_of: list[psutil.Process]) -> None:
    out = tmp_path / "cat"
    build = _start_build(out)
    folders = _its_folders(build, out)
    workers_of.extend(psutil.Process(build.pid).children(recursive=True))
    assert workers_of, "a 2-worker build forks its generator workers"
    build.send_signal(signal.SIGTERM)
    _, stderr = build.communicate(timeout=120)
    assert build.returncode == 143
    assert "stopped by SIGTERM: the catalog not made" in stderr
    assert not any(folder.exists() for folder in folders)
    assert not out.exists()
    psutil.wait_procs(workers_of, timeout=60)
    assert not [w for w in workers_of if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]


def test_the_next_build_removes_what_a_killed_build_left(tmp_path: Path) -> None:
    out = tmp_path / "cat"
    killed = _start_build(out)
    folders = _its_folders(killed, out)
    workers = psutil.Process(killed.pid).children(recursive=True)
    assert workers, "a 2-worker build forks its generator workers"
    killed.kill()
    killed.communicate(timeout=60)
    _, alive = psutil.wait_procs(workers, timeout=60)
    assert not alive  # they die with the builder: nothing more is written into its folders
    assert all(folder.exists() for folder in folders)  # SIGKILL: no clean-up ran
    an_hour_ago = time.time() - 3600  # as if the build had died an hour ago: nothing written since
    for folder in folders:
        for path in [*folder.iterdir(), folder]:
            os.utime(path, (an_hour_ago, an_hour_ago))

    again = _start_build(out, size="5k")
    stdout, stderr = again.communicate(timeout=300)
    assert again.returncode == 0, stderr
    assert not any(folder.exists() for folder in folders)
    assert Catalog.open(out).manifest["products"] == 5000
    assert [p.name for p in tmp_path.iterdir()] == ["cat"]


def test_a_worker_killed_mid_build_ends_the_build_with_one_line(
    tmp_path: Path, workers_of: list[psutil.Process]
) -> None:
    """A generator worker killed (the kernel's out-of-memory killer, an operator) takes its part of the index with
    it: the build ends, says so in one line, and leaves nothing."""
    out = tmp_path / "cat"
    build = _start_build(out)
    folders = _its_folders(build, out)
    workers_of.extend(psutil.Process(build.pid).children(recursive=True))
    workers_of[0].kill()
    _, stderr = build.communicate(timeout=120)
    assert build.returncode == 2
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and f"worker (pid {workers_of[0].pid}) ended mid-build" in errors[0], stderr
    assert not any(folder.exists() for folder in folders)
    assert not out.exists()
    psutil.wait_procs(workers_of, timeout=60)
    assert not [w for w in workers_of if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
