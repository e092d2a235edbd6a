"""A Docker engine fault while the backend waits on a container is the node's fault (2001, retried), never the
agent's timeout. The engine is the real one; the fault is real too: the backend's connection to the engine is cut
mid-wait (a unix-socket relay between the backend and dockerd, whose connections are severed while the engine stays
up), or the container is removed from under the backend; and a container whose harness has not read its input by the
deadline (its Python's or its own bytecode's first read hangs, as on a hung filesystem) is the node's sandbox failing,
2001, as on bubblewrap, while a harness hung once the agent began is the run's timeout (1003). A container that ends
as its deadline passes keeps its own result."""

from __future__ import annotations

import asyncio
import io
import os
import tarfile
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena import blame
from sandbox.backends import Limits, SandboxResult, SandboxSpec
from sandbox.bundle import pack_dir, unpack
from tests.support.engine import EngineRelay

pytestmark = pytest.mark.slow  # a Docker engine

SLEEPER = """
import time


def agent_main(problem):
    time.sleep(40)
    return None
"""


@pytest.fixture(scope="module")
def engine() -> Any:
    import docker

    from sandbox.image.build import build_image

    build_image(log=lambda message: None)
    return docker.from_env()


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    os.chmod(tmp_path, 0o711)
    for parent in list(tmp_path.parents)[:-1]:
        os.chmod(parent, os.stat(parent).st_mode | 0o011)  # let uid 65534 traverse to the run folders
    (tmp_path / "gw").mkdir()
    os.chmod(tmp_path / "gw", 0o711)
    return tmp_path


def spec_for(run_dir: Path, run_id: str, agent: str = SLEEPER) -> SandboxSpec:
    src = run_dir / "src"
    src.mkdir()
    (src / "agent.py").write_text(textwrap.dedent(agent))
    agent_dir = unpack(pack_dir(src).data, run_dir / "agent")
    return SandboxSpec(
        run_id=run_id,
        bundle_dir=agent_dir,
        problem={"problem_id": "p", "query": "lamp"},
        token="t",
        socket_dir=run_dir / "gw",
        limits=Limits(wall_seconds=60),
    )


def run_in_thread(sandbox: Any, spec: SandboxSpec) -> tuple[threading.Thread, dict[str, SandboxResult]]:
    out: dict[str, SandboxResult] = {}
    thread = threading.Thread(target=lambda: out.setdefault("result", asyncio.run(sandbox.run(spec))), daemon=True)
    thread.start()
    return thread, out


def wait_for(predicate: Any, what: str, timeout: float = 120.0) -> None:
    deadline = time.time() + timeout
    while not predicate():
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def running(engine: Any, run_id: str) -> bool:
    from sandbox.backends.docker import LABEL

    return any(c.status == "running" for c in engine.containers.list(filters={"label": f"{LABEL}={run_id}"}))


@pytest.fixture
def relay(tmp_path_factory: pytest.TempPathFactory, engine: Any) -> Iterator[EngineRelay]:
    target = engine.api.base_url
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    assert host.startswith("unix://"), f"the relay needs dockerd on a unix socket, not {host} ({target})"
    relay = EngineRelay(host[len("unix://") :], tmp_path_factory.mktemp("relay") / "docker.sock")
    yield relay
    relay.close()


def test_the_engine_connection_failing_mid_wait_is_2001_not_a_timeout(
    engine: Any, relay: EngineRelay, run_dir: Path
) -> None:
    import docker

    from sandbox.backends.docker import LABEL, DockerSandbox

    sandbox = DockerSandbox(client=docker.DockerClient(base_url=f"unix://{relay.path}", timeout=120))
    spec = spec_for(run_dir, "engine-cut")
    thread, out = run_in_thread(sandbox, spec)
    try:
        wait_for(lambda: running(engine, spec.run_id) and relay.waiting(), "the backend to wait on its container")
        relay.cut_waits()  # the engine stays up; the backend's wait dies with its connection
        thread.join(120)
        result = out["result"]
        assert (result.status, result.error_code, result.timed_out) == (
            "sandbox_failed",
            blame.SANDBOX_FAILED,
            False,
        ), result.error
        assert blame.blame_of(result.error_code) == "validator" and "waiting on the container" in (result.error or "")
        assert len(relay.waiting()) == 1  # it ended on the fault: the wait that died was not made again
    finally:
        for c in engine.containers.list(all=True, filters={"label": f"{LABEL}={spec.run_id}"}):
            c.remove(force=True)
    assert not engine.containers.list(all=True, filters={"label": f"{LABEL}={spec.run_id}"})


def test_a_container_removed_under_the_backend_is_2001(engine: Any, run_dir: Path) -> None:
    from sandbox.backends.docker import LABEL, DockerSandbox

    sandbox = DockerSandbox()
    spec = spec_for(run_dir, "engine-removed")
    thread, out = run_in_thread(sandbox, spec)
    wait_for(lambda: running(engine, spec.run_id), "the container to run")
    for container in engine.containers.list(filters={"label": f"{LABEL}={spec.run_id}"}):
        container.remove(force=True)
    thread.join(120)
    result = out["result"]
    assert (result.status, result.error_code, result.timed_out) == ("sandbox_failed", blame.SANDBOX_FAILED, False)
    assert blame.blame_of(result.error_code) == "validator"


def fifo_image(engine: Any, folder: str, name: str, empty: str | None = None) -> str:
    """The sandbox image with ``folder/name`` a FIFO nobody writes (``{tag}`` in it: the harness's bytecode's tag), and
    ``folder/empty`` an empty file: the first read of the FIFO hangs, as a hung mount's reads do. Made by the engine
    itself (a FIFO written into a container, committed), nothing built."""
    from sandbox.image.build import image_tag

    maker = engine.containers.create(image_tag(), command=["true"])
    try:
        if "{tag}" in name:  # the image's Python's cache tag, as its bytecode is named
            cache = "/opt/arena/harness/__pycache__"
            listing = tarfile.open(fileobj=io.BytesIO(b"".join(maker.get_archive(cache)[0])))
            found = [m.name for m in listing.getmembers() if m.name.rpartition("/")[2].startswith("harness.")]
            name = name.format(tag=found[0].rpartition("/")[2].split(".")[1])
        data = io.BytesIO()
        with tarfile.open(fileobj=data, mode="w") as tar:
            entry = tarfile.TarInfo(name)
            entry.type, entry.mode = tarfile.FIFOTYPE, 0o644
            tar.addfile(entry)
            if empty is not None:
                plain = tarfile.TarInfo(empty)
                plain.mode = 0o644
                tar.addfile(plain, io.BytesIO(b""))
        assert maker.put_archive(folder, data.getvalue())
        return str(maker.commit(repository="shoparena-test-hung", tag=maker.id[:12]).id)
    finally:
        maker.remove(force=True)


@pytest.fixture
def hung_python(engine: Any) -> Iterator[str]:
    """Its Python's ``pyvenv.cfg`` hangs: the interpreter waits at its first read, before the harness's ready line,
    however long the deadline."""
    image = fifo_image(engine, "/opt/agent", "pyvenv.cfg")
    yield image
    engine.images.remove(image, force=True)


@pytest.fixture
def hung_harness(engine: Any) -> Iterator[str]:
    """The harness's bytecode hangs: the ready line is said, then the harness's import waits, before the run's input
    is read."""
    image = fifo_image(engine, "/opt/arena/harness/__pycache__", "harness.{tag}.pyc")
    yield image
    engine.images.remove(image, force=True)


@pytest.fixture
def hung_report(engine: Any) -> Iterator[str]:
    """A ``json`` module in the harness's folder (first on its path) whose bytecode hangs: the harness reads its input,
    says the agent begins, ends the agent at its wall-clock limit, then waits at ``import json`` for its report."""
    image = fifo_image(engine, "/opt/arena/harness", "__pycache__/json.{tag}.pyc", empty="json.py")
    yield image
    engine.images.remove(image, force=True)


def run_until_the_deadline(image: str, run_dir: Path, run_id: str) -> SandboxResult:
    from sandbox.backends.docker import LABEL, DockerSandbox

    spec = spec_for(run_dir, run_id)
    spec.limits = Limits(wall_seconds=1)
    result = asyncio.run(DockerSandbox(image).run(spec))
    import docker

    assert not docker.from_env().containers.list(all=True, filters={"label": f"{LABEL}={run_id}"})
    return result


def test_a_container_not_ready_by_the_deadline_is_2001_not_the_agents_timeout(hung_python: str, run_dir: Path) -> None:
    """The deadline passes before the harness said it is ready: no agent code ran (the run's input is read after), so
    it is the node's sandbox failing (2001, retried), not the agent's timeout (1003), as on bubblewrap
    (tests/integration/test_blame.py)."""
    result = run_until_the_deadline(hung_python, run_dir, "not-ready")
    assert (result.status, result.error_code, result.timed_out) == ("sandbox_failed", blame.SANDBOX_FAILED, False), (
        result.error
    )
    assert blame.blame_of(result.error_code) == "validator"
    assert "not ready to run within 11s" in (result.error or ""), result.error


def test_a_harness_hung_after_its_ready_line_before_its_input_is_2001_not_the_agents_timeout(
    hung_harness: str, run_dir: Path
) -> None:
    """Ready, but hung before it read its input and started the agent: no agent code ran, so the deadline is the
    node's (2001, retried), as on bubblewrap (tests/integration/test_blame_bwrap.py); the engine's answer to a wait cut
    by the deadline (a read timeout, which requests raises as a ConnectionError with urllib3 2) is told apart from the
    engine failing."""
    result = run_until_the_deadline(hung_harness, run_dir, "ready-then-hung")
    assert (result.status, result.error_code, result.timed_out) == ("sandbox_failed", blame.SANDBOX_FAILED, False), (
        result.error
    )
    assert "not started within 11s: the harness was ready but had not read its input" in (result.error or "")


def test_the_deadline_passing_once_the_agent_began_is_the_runs_timeout_not_an_engine_fault(
    hung_report: str, run_dir: Path
) -> None:
    """Past the harness's line saying the agent begins, the deadline is the run's timeout (1003), as on bubblewrap."""
    result = run_until_the_deadline(hung_report, run_dir, "begun-then-hung")
    assert (result.status, result.error_code, result.timed_out) == ("timeout", blame.TIMED_OUT, True), result.error
    assert result.error == "the sandbox outlived its deadline and was killed"  # the node's deadline, not the harness's


def test_a_container_ending_as_its_deadline_passes_keeps_its_own_result(
    engine: Any, relay: EngineRelay, run_dir: Path
) -> None:
    """The container ends on its own, but the backend's wait runs out before the engine's answer reaches it (the
    relay holds the answer back until the wait's read timeout): the kill then finds it gone (409, not running), and
    the run is what its harness reported, not an engine fault (2001)."""
    import docker

    from sandbox.backends.docker import LABEL, DockerSandbox

    sandbox = DockerSandbox(client=docker.DockerClient(base_url=f"unix://{relay.path}", timeout=120))
    spec = spec_for(run_dir, "ended-at-deadline", "def agent_main(problem):\n    return {'done': 1}\n")
    spec.limits = Limits(wall_seconds=1)
    relay.holding = True
    result = asyncio.run(sandbox.run(spec))
    assert len(relay.waiting()) == 1  # the wait was made, and its answer held back
    assert (result.status, result.error_code, result.returned) == ("ok", None, {"done": 1}), result.error
    assert not engine.containers.list(all=True, filters={"label": f"{LABEL}={spec.run_id}"})
