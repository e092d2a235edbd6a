"""Sandbox backends behind one protocol: ``async run(spec) -> SandboxResult``, cleanup in ``finally``."""

from __future__ import annotations

import json
import marshal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from arena.blame import for_harness_status  # harness status -> run error code (arena.blame's one table)
from arena.trajectory import MAX_DEPTH, depth_of, without_nul


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 300.0
    memory_mb: int = 1024
    pids: int = 128
    cpu_shares: int = 512
    output_bytes: int = 64 * 1024
    tmp_mb: int = 64
    open_files: int = 1024


@dataclass
class SandboxSpec:
    """One run: the unpacked bundle, the public problem, the run token, the gateway socket's folder, limits, and the
    model the node serves agents (None when it has no LLM endpoint)."""

    run_id: str
    bundle_dir: Path
    problem: dict[str, Any]
    token: str
    socket_dir: Path
    socket_name: str = "gateway.sock"
    limits: Limits = field(default_factory=Limits)
    #: the node's LLM model (the first of the gateway's allowlist), given to the agent as ``ARENA_LLM_MODEL``
    model: str | None = None


@dataclass
class SandboxResult:
    status: str  # the harness status, or sandbox_failed
    error: str | None
    exit_code: int | None
    elapsed_s: float
    timed_out: bool = False
    oom: bool = False
    stdout: str = ""
    stderr: str = ""
    returned: Any = None
    backend: str = ""
    #: "sn15" when agent_main returned subnet-15 dialogue steps (their count in `steps`; the harness handed their
    #: last recommend_product to the gateway), else "arena"
    contract: str = "arena"
    steps: int | None = None

    def __post_init__(self) -> None:  # the agent's own text: stored alike on every database (`without_nul`)
        self.error = without_nul(self.error)
        self.stdout, self.stderr = without_nul(self.stdout), without_nul(self.stderr)
        self.returned = without_nul(self.returned)

    @property
    def error_code(self) -> int | None:
        return for_harness_status(self.status)


#: the harness's first line on its stdout, its interpreter's first act: the process sandbox places the sandbox's
#: processes in the run's cgroups then (the harness's import and the agent's fork run in that wait), and writes the
#: run's input after (`sandbox.harness.harness`'s READY)
HARNESS_READY = b"ready\n"
#: its second line, once it has read the run's input, just before the agent's code starts (`spawn.AgentProcess.begin`):
#: the deadline passing before it is the node's (2001, the sandbox not started), after it the agent's (1003). Only the
#: harness writes the sandbox's stdout (the agent's output goes through its pipes), so the agent cannot forge it
HARNESS_BEGINS = b"begin\n"


def harness_input(payload: dict[str, Any]) -> bytes:
    """The harness's input (`sandbox.harness.harness`) as both backends write it to its stdin: ``marshal`` (format 4,
    read by any Python 3), which the harness reads without importing ``json`` (with ``re`` and ``enum``, about 5 ms
    of every sandbox's start). The problem goes made JSON and read back, so the agent gets exactly the types JSON
    gives, and as its JSON text too (``PROBLEM_DATA``, as subnet 15's sandbox sets it)."""
    problem_json = json.dumps(payload["problem"])
    return marshal.dumps({**payload, "problem": json.loads(problem_json), "problem_json": problem_json}, 4)


def result_from_report(
    stdout: str, stderr: str, code: int | None, elapsed: float, *, timed_out: bool, oom: bool, limit: int, backend: str
) -> SandboxResult:
    """A run's result from the harness's one-line report (the last line of its stdout) and what the backend saw
    from outside (exit code, deadline, the kernel's OOM flag). Shared by every backend."""
    report: Any = None
    lines = stdout.strip().splitlines()
    if lines:
        try:
            report = json.loads(lines[-1])
        except ValueError:
            report = None
        except RecursionError:  # the harness's own fields are flat: only the agent's return can nest so deep
            report = {"harness": 1, "status": "bad_return", "error": _too_deep()}
    if isinstance(report, dict) and depth_of(report.get("return")) > MAX_DEPTH:
        report = {**report, "status": "bad_return", "error": _too_deep(), "return": None}
    stderr = stderr[-limit:]
    if timed_out:
        return SandboxResult(
            "timeout",
            "the sandbox outlived its deadline and was killed",
            code,
            elapsed,
            timed_out=True,
            oom=oom,
            stderr=stderr,
            backend=backend,
        )
    if not isinstance(report, dict) or report.get("harness") != 1:
        if oom:
            return SandboxResult(
                "killed", "agent killed: out of memory", code, elapsed, oom=True, stderr=stderr, backend=backend
            )
        return SandboxResult(
            "sandbox_failed",
            f"the harness gave no report (exit {code}): {stderr[-500:]}",
            code,
            elapsed,
            stderr=stderr,
            backend=backend,
        )
    status = report.get("status", "harness_fault")
    error = report.get("error")
    if status in ("killed", "no_result") and oom:
        status, error = "killed", "agent killed: out of memory"
    return SandboxResult(
        status,
        error,
        report.get("exit_code"),
        elapsed,
        timed_out=status == "timeout",
        oom=oom and status == "killed",
        stdout=report.get("stdout", ""),
        stderr=report.get("stderr", ""),
        returned=report.get("return"),
        backend=backend,
        contract="sn15" if report.get("contract") == "sn15" else "arena",
        steps=report.get("steps") if isinstance(report.get("steps"), int) else None,
    )


def _too_deep() -> str:
    return f"agent_main returned a value nested more than {MAX_DEPTH} deep (dicts and lists; the limit is {MAX_DEPTH})"


class Sandbox(Protocol):
    name: str

    async def run(self, spec: SandboxSpec) -> SandboxResult: ...

    def stop_running(self) -> int:
        """Kill every sandbox of this backend's runs still in progress (what a run's ``finally`` would do, for a
        process stopped by a signal before its runs could end); returns how many. Callable from a signal handler."""
        ...


class BackendUnavailable(RuntimeError):
    """A sandbox backend that cannot run on this host (no bubblewrap, no Docker engine...): the message, one line."""


def open_backend(
    name: str, *, image: str | None = None, unsafe_local: bool = False, runtime: str | None = None
) -> Sandbox:
    """The one choice of a sandbox backend: ``process`` (bubblewrap; with ``unsafe_local`` a bare subprocess, no
    isolation) or ``docker`` (``image``, else the default sandbox image; ``runtime``: an OCI runtime the engine knows,
    runsc for gVisor). Both apply the seccomp allowlist (`sandbox.seccomp`). `BackendUnavailable` (one line) when it
    cannot run here, its profile does not load or the runtime is absent; `ValueError` for an unknown name or options
    that do not go together."""
    if name not in ("process", "docker"):
        raise ValueError(f"unknown sandbox {name!r}; use process or docker")
    if runtime is not None and name != "docker":
        raise ValueError(
            "--sandbox.runtime applies to the docker backend only; drop it or use --sandbox.backend docker"
        )
    if name == "docker":
        if unsafe_local:
            raise ValueError("--unsafe-local applies to the process sandbox only; drop it or use --sandbox process")
        from sandbox.backends.docker import DockerSandbox, DockerUnavailable

        try:
            return DockerSandbox(image, runtime=runtime)
        except DockerUnavailable as exc:
            raise BackendUnavailable(str(exc)) from None
    from sandbox.backends.process import ProcessSandbox, SandboxUnavailable

    try:
        return ProcessSandbox("bare" if unsafe_local else "bwrap")
    except SandboxUnavailable as exc:
        raise BackendUnavailable(str(exc)) from None
