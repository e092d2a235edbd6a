"""The process sandbox's cgroups (v1: memory with swap off, pids, cpu shares, each under ``shoparena/<run id>`` where
the hierarchy is writable) and how the sandbox's processes enter them (`place`)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from sandbox.backends import SandboxSpec

CGROUP_ROOT = Path("/sys/fs/cgroup")


def dirs_for(run_id: str) -> dict[str, Path]:
    dirs: dict[str, Path] = {}
    for controller in ("memory", "pids", "cpu"):
        base = CGROUP_ROOT / controller
        if (base / "cgroup.procs").exists() and os.access(base, os.W_OK):
            dirs[controller] = base / "shoparena" / run_id
    return dirs


def setup(dirs: dict[str, Path], spec: SandboxSpec) -> None:
    limits = spec.limits
    for controller, path in dirs.items():
        path.mkdir(parents=True, exist_ok=True)
        if controller == "memory":
            (path / "memory.limit_in_bytes").write_text(str(limits.memory_mb * 2**20))
            swap = path / "memory.memsw.limit_in_bytes"
            if swap.exists():
                swap.write_text(str(limits.memory_mb * 2**20))
        elif controller == "pids":
            (path / "pids.max").write_text(str(limits.pids))
        elif controller == "cpu":
            (path / "cpu.shares").write_text(str(limits.cpu_shares))


def kill(dirs: dict[str, Path]) -> None:
    for _ in range(20):
        alive = False
        for path in dirs.values():
            try:
                pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
            except OSError:
                continue
            for pid in pids:
                alive = True
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if not alive:
            break
        time.sleep(0.05)
    for path in dirs.values():
        try:
            path.rmdir()
        except OSError:
            pass


def oom(dirs: dict[str, Path]) -> bool:
    memory = dirs.get("memory")
    if memory is None:
        return False
    try:
        control = (memory / "memory.oom_control").read_text()
        if "oom_kill " in control and int(control.split("oom_kill ")[1].split()[0]) > 0:
            return True
        return int((memory / "memory.failcnt").read_text()) > 0
    except (OSError, ValueError, IndexError):
        return False


def place(pid: int, dirs: dict[str, Path]) -> None:
    """``pid`` and every process under it into the run's cgroups (``dirs``), each process before its children are
    listed, so whatever forks later is born inside (the harness may be forking the agent's process meanwhile: a
    process forked before its parent moved is listed after). Called before the run's input is written, so before
    any of the agent's code can run; OSError (the run does not
    start) when one cannot be placed."""
    todo = [pid]
    while todo and dirs:
        proc = todo.pop()
        for path in dirs.values():
            (path / "cgroup.procs").write_text(str(proc))
        for task in os.listdir(f"/proc/{proc}/task"):
            todo += [int(child) for child in Path(f"/proc/{proc}/task/{task}/children").read_text().split()]
