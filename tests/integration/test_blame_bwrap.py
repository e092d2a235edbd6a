"""The bubblewrap backend's deadline: the agent's (1003) only once the harness said the agent begins, its input read
(`sandbox.backends.HARNESS_BEGINS`); before, no agent code ran and the run is the node's sandbox failing (2001,
retried). The hang is real: the harness's own files, staged as every run's are, with one of them a FIFO nobody writes,
whose first read hangs as a hung mount's do (the Docker backend's the same: test_blame_docker.py)."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import blame
from sandbox.backends import Limits, SandboxResult, SandboxSpec
from sandbox.backends.process import ProcessSandbox
from sandbox.bundle import pack_dir, unpack
from sandbox.env import staged_runtime

pytestmark = pytest.mark.slow  # bubblewrap, 11 s a run

SLEEPER = """
import time


def agent_main(problem):
    time.sleep(40)
    return None
"""


@pytest.fixture
def runtime() -> Iterator[Path]:
    """A copy of the staged harness and SDK (with their bytecode), readable by the sandbox's user, that the backend
    mounts in place of the node's (its ``runtime``); the test makes one of its files hang."""
    harness, sdk = staged_runtime()
    root = Path(tempfile.mkdtemp(prefix="shoparena-hung-runtime-"))
    try:
        root.chmod(0o755)
        shutil.copytree(harness, root / "harness")
        shutil.copytree(sdk, root / "sdk")
        yield root
    finally:
        shutil.rmtree(root)


def hang(path: Path) -> None:
    """``path`` a FIFO nobody writes: its first read waits for ever."""
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    path.chmod(0o644)


def run_until_the_deadline(runtime: Path, run_id: str) -> SandboxResult:
    folder = Path(tempfile.mkdtemp(prefix="shoparena-run-"))  # traversable by the sandbox's user (nobody)
    try:
        folder.chmod(0o711)
        (folder / "src").mkdir()
        (folder / "src" / "agent.py").write_text(textwrap.dedent(SLEEPER))
        (folder / "gw").mkdir(mode=0o711)
        spec = SandboxSpec(
            run_id=run_id,
            bundle_dir=unpack(pack_dir(folder / "src").data, folder / "agent"),
            problem={"problem_id": "p", "query": "lamp"},
            token="t",
            socket_dir=folder / "gw",
            limits=Limits(wall_seconds=1),
        )
        return asyncio.run(ProcessSandbox("bwrap", runtime=runtime).run(spec))
    finally:
        shutil.rmtree(folder)


def test_a_harness_hung_after_its_ready_line_before_its_input_is_2001_not_the_agents_timeout(runtime: Path) -> None:
    """The harness's bytecode hangs: start.py said the harness is ready, then its import waits, before the run's input
    is read and the agent begins. No agent code ran: the node's fault (2001), not the agent's timeout (1003)."""
    (compiled,) = (runtime / "harness" / "__pycache__").glob("harness.*.pyc")
    hang(compiled)
    result = run_until_the_deadline(runtime, "bwrap-ready-then-hung")
    assert (result.status, result.error_code, result.timed_out) == ("sandbox_failed", blame.SANDBOX_FAILED, False), (
        result.error
    )
    assert blame.blame_of(result.error_code) == "validator"
    assert "not started within 11s: the harness was ready but had not read its input" in (result.error or "")


def test_the_deadline_passing_once_the_agent_began_is_the_agents_timeout(runtime: Path) -> None:
    """A ``json`` module in the harness's folder (first on its path) whose bytecode hangs: the harness read its input,
    said the agent begins, ended the agent at its wall-clock limit, then waits at ``import json`` for its report. The
    deadline passed once the agent began: the run's timeout (1003)."""
    (compiled,) = (runtime / "harness" / "__pycache__").glob("harness.*.pyc")
    (runtime / "harness" / "json.py").write_text("")
    (runtime / "harness" / "json.py").chmod(0o644)
    hang(compiled.with_name("json." + compiled.name.partition(".")[2]))
    result = run_until_the_deadline(runtime, "bwrap-begun-then-hung")
    assert (result.status, result.error_code, result.timed_out) == ("timeout", blame.TIMED_OUT, True), result.error
    assert result.error == "the sandbox outlived its deadline and was killed"  # the node's deadline, not the harness's
    assert blame.blame_of(result.error_code) == "agent"
