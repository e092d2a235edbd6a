"""Hostile agents on the real sandbox backends (bubblewrap, Docker, and Docker under gVisor where the engine has it):
whatever an agent does to the harness or returns, its run ends in an outcome of the agent's own (docs/validator.md,
"Error codes"), never in a fault of the validator's (2001: retried for free, and a run kept at it past its retry
budget voids the race)."""

from __future__ import annotations

import asyncio
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

from arena import blame
from arena.trajectory import MAX_DEPTH
from sandbox.backends import Limits, SandboxResult, SandboxSpec
from sandbox.bundle import pack_dir, unpack
from tests.support.engine import docker_runtimes

pytestmark = pytest.mark.slow  # bubblewrap and a Docker engine

#: the signals an agent can send its harness (pid 1 of the sandbox, its parent), then it returns (a signal refused,
#: EPERM, is one the harness does not get: under gVisor the agent runs as a uid of its own, docs/validator.md)
SIGNALLER = """
import os, signal, time


def agent_main(problem):
    for target in (1, os.getppid()):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT, signal.SIGHUP, signal.SIGUSR1, signal.SIGALRM,
                    signal.SIGKILL):
            try:
                os.kill(target, sig)
            except PermissionError:
                pass
    time.sleep(1)  # the harness, were it to act on one, would end meanwhile (and the sandbox with it)
    return {"alive": True}
"""

#: the agent sets its harness's limits (pid 1 of the sandbox, its parent): one open file, 1 MiB of address space, no
#: process (each refused, EPERM, is one the harness keeps); then its own, which are its to set
LIMITER = """
import os, resource, time


def agent_main(problem):
    for target in (1, os.getppid()):
        for limit, value in ((resource.RLIMIT_NOFILE, 1), (resource.RLIMIT_AS, 1 << 20), (resource.RLIMIT_NPROC, 0)):
            try:
                resource.prlimit(target, limit, (value, value))
            except PermissionError:
                pass
    time.sleep(1)  # the harness, were its limits set, would fail meanwhile or at its report
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    return {"alive": True, "own": resource.getrlimit(resource.RLIMIT_NOFILE)}
"""

#: the agent writes its own frame on the runner's result pipe, nested 200000 deep
DEEP_FRAME = """
import os, sys


def agent_main(problem):
    result = sys._getframe(1).f_locals["result"]
    result.write(PREFIX + "[" * 200000 + "]" * 200000 + SUFFIX)
    result.flush()
    os._exit(0)
"""


def nested(depth: int) -> str:
    """An agent returning a dict ``depth`` deep (the dict itself 1, then lists)."""
    return f"""
def agent_main(problem):
    value = 1
    for _ in range({depth - 1}):
        value = [value]
    return {{"x": value}}
"""


#: bubblewrap and Docker (runc) always; gVisor where the engine has its runtime (as tests/conformance/ selects it)
BACKENDS = ["process", "docker", *(["docker-runsc"] if "docker-runsc" in docker_runtimes() else [])]


@pytest.fixture(scope="module", params=BACKENDS)
def sandbox(request: pytest.FixtureRequest) -> Any:
    if request.param == "process":
        from sandbox.backends.process import ProcessSandbox

        return ProcessSandbox("bwrap")
    from sandbox.backends.docker import DockerSandbox
    from sandbox.image.build import build_image

    build_image(log=lambda message: None)  # the harness is baked into the image: built again when it changed
    return DockerSandbox(runtime="runsc" if request.param == "docker-runsc" else None)


def run(sandbox: Any, tmp_path: Path, source: str) -> SandboxResult:
    os.chmod(tmp_path, 0o711)
    for parent in list(tmp_path.parents)[:-1]:
        os.chmod(parent, os.stat(parent).st_mode | 0o011)  # let uid 65534 traverse to the run folders
    (tmp_path / "gw").mkdir()
    os.chmod(tmp_path / "gw", 0o711)
    src = tmp_path / "src"
    src.mkdir()
    (src / "agent.py").write_text(textwrap.dedent(source))
    spec = SandboxSpec(
        run_id=tmp_path.name,
        bundle_dir=unpack(pack_dir(src).data, tmp_path / "agent"),
        problem={"problem_id": "p", "query": "lamp"},
        token="t",
        socket_dir=tmp_path / "gw",
        limits=Limits(wall_seconds=60),
    )
    return asyncio.run(sandbox.run(spec))


def test_signals_an_agent_sends_its_harness_do_not_end_it(sandbox: Any, tmp_path: Path) -> None:
    result = run(sandbox, tmp_path, SIGNALLER)
    assert (result.status, result.error_code, result.returned) == ("ok", None, {"alive": True}), result.error


def test_limits_an_agent_sets_on_its_harness_do_not_end_it(sandbox: Any, tmp_path: Path) -> None:
    result = run(sandbox, tmp_path, LIMITER)
    assert (result.status, result.error_code, result.returned) == ("ok", None, {"alive": True, "own": [64, 64]}), (
        result.error
    )


@pytest.mark.parametrize(
    ("prefix", "suffix"), [("", ""), ('{"status": "ok", "return": ', "}")], ids=["bare", "in-a-runner-frame"]
)
def test_a_result_too_deep_to_parse_is_the_agents_bad_return(
    sandbox: Any, tmp_path: Path, prefix: str, suffix: str
) -> None:
    source = DEEP_FRAME.replace("PREFIX", repr(prefix)).replace("SUFFIX", repr(suffix))
    result = run(sandbox, tmp_path, source)
    assert (result.status, result.error_code) == ("bad_return", blame.BAD_RETURN), result.error
    assert blame.blame_of(blame.BAD_RETURN) == "agent"


def test_a_return_nested_past_the_limit_is_a_bad_return_naming_it(sandbox: Any, tmp_path: Path) -> None:
    result = run(sandbox, tmp_path, nested(900))  # the node's own walk of it once met RecursionError (2001)
    assert (result.status, result.error_code) == ("bad_return", blame.BAD_RETURN), result.error
    assert f"the limit is {MAX_DEPTH}" in (result.error or "")


@pytest.mark.parametrize(("depth", "status"), [(MAX_DEPTH, "ok"), (MAX_DEPTH + 1, "bad_return")])
def test_the_depth_limit_is_where_the_docs_put_it(sandbox: Any, tmp_path: Path, depth: int, status: str) -> None:
    result = run(sandbox, tmp_path, nested(depth))
    assert result.status == status, result.error


FRAME = """
import os, sys


def agent_main(problem):
    result = sys._getframe(1).f_locals["result"]
    result.write(FRAME)
    result.flush()
    os._exit(0)
"""


@pytest.mark.parametrize(
    "frame",
    [
        '{"status": "raised", "error": ' + "[" * 900 + "]" * 900 + "}",
        '{"status": "ok", "return": null, "steps": {"count": "many"}}',
        '{"status": "ok", "return": null, "steps": {"count": 1e400}}',
    ],
    ids=["error-not-text", "count-not-a-number", "count-infinite"],
)
def test_a_frame_of_the_agents_own_with_the_wrong_types_is_its_bad_return(
    sandbox: Any, tmp_path: Path, frame: str
) -> None:
    result = run(sandbox, tmp_path, FRAME.replace("FRAME", repr(frame)))
    assert (result.status, result.error_code) == ("bad_return", blame.BAD_RETURN), result.error
