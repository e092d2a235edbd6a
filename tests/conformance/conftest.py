"""The sandbox conformance suite's fixtures: every backend and runtime present on this machine, each with the
seccomp allowlist on (`sandbox.seccomp`), behind one gateway; the same cases run against each (as inspect_ai runs its
sandbox suite against every provider).

Backends: ``process`` (bubblewrap), ``docker`` (runc), ``docker-runsc`` (gVisor, when the engine has the runtime:
scripts/dockerd registers it when runsc is installed). A known difference of one backend is an expected failure,
with its reason, in `KNOWN_GAPS` (`known_gap`)."""

from __future__ import annotations

import asyncio
import os
import textwrap
from pathlib import Path

import pytest

from sandbox.backends import Limits
from sandbox.backends.process import ProcessSandbox
from sandbox.bundle import pack_dir, unpack
from sandbox.gateway import Gateway, GatewayServer
from sandbox.run import run_one
from tests.support.engine import docker_runtimes

_GVISOR_KERNEL = (
    "gVisor runs without the seccomp profile (this runsc ignores errnoRet, so with --oci-seccomp no thread starts): "
    "the calls reach gVisor's own kernel, never the host's"
)
#: (backend, case) -> why the case fails there (docs/validator.md, "gVisor")
KNOWN_GAPS: dict[tuple[str, str], str] = {
    ("docker-runsc", "probe"): _GVISOR_KERNEL,
    ("docker-runsc", "kill-named"): _GVISOR_KERNEL + ": a call the filter kills for does not end the agent",
    ("docker-runsc", "eperm"): _GVISOR_KERNEL + ": unshare of a user namespace succeeds there",
    ("docker-runsc", "fork-bomb"): "the pids limit counts gVisor's own threads: a fork bomb ends the whole sandbox "
    "with no report (2001, the validator's) instead of failing the agent's fork",
    ("docker-runsc", "memory-bomb"): "gVisor's memory is the whole sandbox's: a memory bomb is at times killed with "
    "the harness, no report (2001, the validator's), instead of the agent alone (1004)",
}
#: gaps that show on some runs only (the test may pass there): not strict
INTERMITTENT = {("docker-runsc", "memory-bomb")}


BACKENDS = ["process", *docker_runtimes()]


@pytest.fixture(scope="session")
def docker_image() -> str:
    from sandbox.image.build import build_image, image_tag

    build_image(log=lambda message: None)
    return image_tag()


@pytest.fixture(scope="session")
def docker_sandbox(docker_image):
    from sandbox.backends.docker import DockerSandbox

    return DockerSandbox(docker_image)


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request):
    if request.param == "docker":
        return request.getfixturevalue("docker_sandbox")
    if request.param == "docker-runsc":
        from sandbox.backends.docker import DockerSandbox

        return DockerSandbox(request.getfixturevalue("docker_image"), runtime="runsc")
    return ProcessSandbox("bwrap")


def known_gap(request: pytest.FixtureRequest, backend: object, case: str) -> None:
    """Mark the running test an expected failure (strict) when ``case`` is a known gap of ``backend``."""
    reason = KNOWN_GAPS.get((_kind(backend), case))
    if reason is not None:
        strict = (_kind(backend), case) not in INTERMITTENT
        request.applymarker(pytest.mark.xfail(reason=reason, strict=strict))


def _kind(backend: object) -> str:
    name = str(getattr(backend, "name", ""))
    return "process" if name.startswith("process") else name


@pytest.fixture(scope="module")
def node(tiny_catalog, tmp_path_factory, backend):
    root = tmp_path_factory.mktemp("sbx")
    os.chmod(root, 0o711)
    for parent in list(root.parents)[:-1]:
        os.chmod(parent, os.stat(parent).st_mode | 0o011)  # let uid 65534 traverse to the run folders
    gw = Gateway(tiny_catalog)
    with GatewayServer(gw, root / "gw" / "gateway.sock"):
        yield gw, root, backend


RUNS = iter(range(10**6))


def bundle(root: Path, name: str, code: str, files: dict[str, str] | None = None) -> Path:
    """An agent bundle of ``agent.py`` (and ``files``, name to source), unpacked as a validator unpacks it."""
    src = root / f"src-{name}"
    src.mkdir()
    (src / "agent.py").write_text(textwrap.dedent(code))
    for file_name, source in (files or {}).items():
        (src / file_name).write_text(textwrap.dedent(source))
    return unpack(pack_dir(src).data, root / f"agent-{name}")


def run_agent(node, code, name, *, limits=None, budgets=None, problem=None, files=None):
    gw, root, backend = node
    name = f"{name}-{next(RUNS)}"
    agent_dir = bundle(root, name, code, files)
    problem = problem or {"problem_id": name, "task": "product", "query": "desk lamp", "n_products": 1}
    return asyncio.run(
        run_one(
            gw,
            backend,
            agent_dir,
            root / "gw",
            problem,
            limits=limits or Limits(wall_seconds=20),
            budgets=budgets,
            run_id=name,
        )
    )
