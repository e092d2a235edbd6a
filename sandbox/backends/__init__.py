"""Sandbox backends behind one protocol: ``async run(spec) -> SandboxResult``, cleanup in ``finally``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

HARNESS_DIR = Path(__file__).resolve().parent.parent / "harness"
SDK_DIR = Path(__file__).resolve().parent.parent / "agent_sdk"

#: Harness statuses -> the run error code of DESIGN (1xxx: the agent is to blame; 2xxx: the validator).
ERROR_CODES = {
    "import_failed": 1001, "raised": 1002, "timeout": 1003, "killed": 1004, "bad_return": 1005,
    "no_result": 1002, "harness_fault": 2001, "sandbox_failed": 2001,
}


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
    """One run: the unpacked bundle, the public problem, the run token, the gateway socket's folder, limits."""

    run_id: str
    bundle_dir: Path
    problem: dict[str, Any]
    token: str
    socket_dir: Path
    socket_name: str = "gateway.sock"
    limits: Limits = field(default_factory=Limits)


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

    @property
    def error_code(self) -> int | None:
        return None if self.status == "ok" else ERROR_CODES.get(self.status, 2001)


class Sandbox(Protocol):
    name: str

    async def run(self, spec: SandboxSpec) -> SandboxResult: ...
