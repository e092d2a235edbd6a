"""ProcessSandbox: a bubblewrap process sandbox for laptops (and a bare mode for ``--unsafe-local`` only).

bubblewrap mode: ``bwrap --unshare-all`` (network, pids, ipc, uts, user, cgroup namespaces) launched as uid 65534
(``setpriv``; bwrap's own ``--uid`` is cosmetic when root launches it), a new root holding only ``/usr`` (read-only),
the sandbox's Python environment (read-only), the harness and SDK (read-only), the bundle (read-only), the gateway
socket's folder (read-only) and a size-capped ``/tmp``. cgroup v1 memory (swap off), pids and cpu limits where the
hierarchy is writable (`sandbox.backends.cgroups`), rlimits for open files and core dumps, and on the deadline the
whole tree is killed. The start runs in the node's own cgroup until the harness is ready (its interpreter's first
act); every process of the sandbox is then placed in the run's cgroups (the agent's process, forked meanwhile, born in
them or moved), before the input is written and so before any of the agent's code runs (`cgroups.place`).

Bare mode runs the harness as a plain subprocess of the node: **no isolation at all** (the agent can read your files
and reach your network). It exists so a miner can debug an agent quickly; validators never use it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path

from sandbox import seccomp
from sandbox.backends import HARNESS_BEGINS as BEGINS
from sandbox.backends import HARNESS_READY, SandboxResult, SandboxSpec, cgroups, harness_input, result_from_report
from sandbox.env import HARNESS_DIR, SDK_DIR, sandbox_python, staged_runtime

# Not root: no setpriv and no cgroups; bwrap's own user namespace, rlimits, tmpfs cap and the deadline remain.
NOBODY = 65534

#: a process's first move into a cgroup after a quiet moment waits for the kernel's RCU grace period (7-18 ms here,
#: docs/validator.md): placing a run's processes and removing its cgroups run in threads, off the event loop, where
#: the other runs' tool calls would wait on them; apart, so that a removal (up to 1 s where processes linger) never
#: holds up a placement, whose wait is the next run's time
_PLACING = ThreadPoolExecutor(max_workers=2, thread_name_prefix="cgroups-place")
_REMOVING = ThreadPoolExecutor(max_workers=2, thread_name_prefix="cgroups-remove")


class SandboxUnavailable(RuntimeError):
    """The backend cannot run here (missing bwrap, no sandbox Python): the message says what to install."""


def _check_profile() -> None:
    """The seccomp profile builds and loads (`sandbox.seccomp.check_loads`); `SandboxUnavailable` (one line) when
    not: agents never run with one wall less."""
    try:
        seccomp.check_loads()
    except seccomp.ProfileError as exc:
        raise SandboxUnavailable(f"{exc}; agents are not run without it") from None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ProcessSandbox:
    """``mode="bwrap"`` (default, isolated) or ``mode="bare"`` (unsafe, local debugging only)."""

    def __init__(
        self, mode: str = "bwrap", python: str | None = None, *, seccomp: bool = True, runtime: Path | None = None
    ) -> None:
        if mode not in ("bwrap", "bare"):
            raise ValueError(f"unknown process sandbox mode {mode!r}; use bwrap, or bare with --unsafe-local")
        self.mode = mode
        self.name = f"process-{mode}"
        self._running: dict[str, tuple[int, dict[str, Path]]] = {}  # run id -> (the sandbox's pid, its cgroups)
        self.python = python or sandbox_python()
        self.runtime = runtime  # the staged harness/ and sdk/ (`staged_runtime`, None: the node's own)
        if not Path(self.python).exists():
            raise SandboxUnavailable(
                f"the agents' Python environment is missing at {self.python}; create it with "
                "`python -m sandbox.env` (scripts/setup does)"
            )
        #: where bwrap and setpriv are, found once: each run starts them by path (no search of the node's PATH)
        self._tools: dict[str, str] = {}
        if mode == "bwrap":
            for tool in ("bwrap", "setpriv"):
                self._tools[tool] = shutil.which(tool) or ""
                if not self._tools[tool]:
                    raise SandboxUnavailable(
                        f"{tool} is not installed; install it (apt-get install -y bubblewrap "
                        "util-linux) or use the docker backend"
                    )
        #: the seccomp allowlist (`sandbox.seccomp`), on in bwrap mode; off only to record it or measure its cost
        self.seccomp = seccomp and mode == "bwrap"
        if self.seccomp:
            _check_profile()

    def health(self) -> str:
        """What this sandbox needs is still here (the agents' Python, bubblewrap and setpriv); `SandboxUnavailable`
        (one line) when not."""
        if not Path(self.python).exists():
            raise SandboxUnavailable(f"the agents' Python environment is gone from {self.python}")
        missing = [t for t in ("bwrap", "setpriv") if self.mode == "bwrap" and shutil.which(t) is None]
        if missing:
            raise SandboxUnavailable(f"{', '.join(missing)} no longer installed")
        return f"{self.name}: ready"

    def reap(self, run_ids: set[str] | None = None) -> int:
        """Kill what is left in the cgroups of runs a previous node left behind (all of them, or only these runs')
        and remove the cgroups. Call it for runs that are not in progress. Returns how many runs were reaped."""
        found = self.leftovers()
        targets = found if run_ids is None else found & run_ids
        for run_id in targets:
            cgroups.kill(cgroups.dirs_for(run_id))
        return len(targets)

    def leftovers(self) -> set[str]:
        """The run ids of every cgroup of this backend on the host (processes left in them or not), for the janitor:
        it reaps those whose runs are final (`validator.upkeep`)."""
        found: set[str] = set()
        for controller in ("memory", "pids", "cpu"):
            base = cgroups.CGROUP_ROOT / controller / "shoparena"
            if base.is_dir():
                found |= {d.name for d in base.iterdir() if d.is_dir()}
        return found

    def stop_running(self) -> int:
        """Kill the whole process tree of every run in progress (in bare mode the agent runs in a session of its own,
        which killing the harness's group would leave running) and empty its cgroups."""
        running = list(self._running.values())
        for pid, dirs in running:
            _kill_tree(pid)
            cgroups.kill(dirs)
        return len(running)

    def _command(self, spec: SandboxSpec, seccomp_fd: int | None = None) -> list[str]:
        if self.mode == "bare":  # the forwarder's port, one free on the host (the harness's argument)
            return [self.python, str(HARNESS_DIR / "start.py"), str(_free_port())]
        venv = Path(self.python).parent.parent
        harness = self.runtime / "harness" if self.runtime else staged_runtime()[0]
        tmp_bytes = spec.limits.tmp_mb * 2**20
        bwrap = [
            self._tools["bwrap"],
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            "--as-pid-1",
            "--ro-bind",
            "/usr",
            "/usr",
            "--symlink",
            "usr/bin",
            "/bin",
            "--symlink",
            "usr/lib",
            "/lib",
            "--symlink",
            "usr/lib64",
            "/lib64",
            "--symlink",
            "usr/sbin",
            "/sbin",
            "--ro-bind",
            str(venv),
            "/opt/agent",
            "--ro-bind",  # the harness and the SDK, one mount: /opt/arena/harness, /opt/arena/sdk
            str(harness.parent),
            "/opt/arena",
            "--ro-bind",
            str(spec.bundle_dir),
            "/agent",
            "--ro-bind",
            str(spec.socket_dir),
            "/run/arena",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--size",
            str(tmp_bytes),
            "--tmpfs",
            "/tmp",
            "--clearenv",
            "--setenv",
            "PATH",
            "/opt/agent/bin:/usr/bin:/bin",
            "--setenv",
            "HOME",
            "/tmp",
            "--setenv",
            "LANG",
            "C.UTF-8",
            "--chdir",
            "/tmp",
            *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
            "/opt/agent/bin/python",
            "-I",
            "-S",  # the harness is standard library only: no site-packages to set up
            "/opt/arena/harness/start.py",
        ]
        if os.geteuid() != 0:  # an unprivileged user: bwrap's user namespace maps it to 65534 inside
            return [bwrap[0], "--uid", str(NOBODY), "--gid", str(NOBODY), *bwrap[1:]]
        return [
            self._tools["setpriv"],
            f"--reuid={NOBODY}",
            f"--regid={NOBODY}",
            "--clear-groups",
            "--inh-caps=-all",
            *bwrap,
        ]

    def _payload(self, spec: SandboxSpec) -> dict[str, object]:
        """The harness's input (`sandbox.harness.harness`)."""
        inside = self.mode == "bwrap"
        return {
            "problem": spec.problem,
            "token": spec.token,
            "timeout": spec.limits.wall_seconds,
            "socket": "/run/arena/" + spec.socket_name if inside else str(spec.socket_dir / spec.socket_name),
            "agent_dir": "/agent" if inside else str(spec.bundle_dir),
            "sdk_dir": "/opt/arena/sdk" if inside else str(SDK_DIR),
            "max_output": spec.limits.output_bytes,
            "model": spec.model,
            "killed": seccomp.killed() if self.seccomp else [],
        }

    def _creation(self, spec: SandboxSpec, seccomp_fd: int | None) -> asyncio.Future[asyncio.subprocess.Process]:
        """The sandbox's process being created (sh, setpriv, bwrap, the harness), as a task of its own (`_created`)."""
        limits = spec.limits
        # no LANG: setpriv would load a locale at every start (bwrap sets the sandbox's own environment)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        # the rlimits by sh, lowered for itself before it becomes the sandbox (lowering another process's needs
        # CAP_SYS_RESOURCE, which a node in a container may lack); the cgroups once the harness is ready
        script = f'ulimit -n {limits.open_files}; ulimit -c 0; exec "$@"'
        return asyncio.ensure_future(
            asyncio.create_subprocess_exec(
                "/bin/sh",
                "-c",
                script,
                "sh",
                *self._command(spec, seccomp_fd),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                start_new_session=True,
                pass_fds=() if seccomp_fd is None else (seccomp_fd,),
            )
        )

    async def run(self, spec: SandboxSpec) -> SandboxResult:
        started = time.monotonic()
        limits = spec.limits
        inside = self.mode == "bwrap"
        payload = self._payload(spec)
        dirs = cgroups.dirs_for(spec.run_id) if inside and os.geteuid() == 0 else {}
        proc = None
        timed_out = False
        seccomp_fd = None
        try:
            if dirs:
                cgroups.setup(dirs, spec)
            if self.seccomp:
                seccomp_fd = seccomp.bpf_fd()
            creating = self._creation(spec, seccomp_fd)
            try:
                proc = await asyncio.shield(creating)
            except asyncio.CancelledError:  # the creation finishes first (`_created`), then the clean-up ends it
                with suppress(Exception):
                    proc = await _created(creating)
                raise
            if seccomp_fd is not None:
                os.close(seccomp_fd)
                seccomp_fd = None
            self._running[spec.run_id] = (proc.pid, dirs)
            said: list[bytes] = []  # the harness's lines so far: ready, then begin (the agent's time from then on)
            try:
                out, err = await asyncio.wait_for(
                    _placed_then_input(proc, dirs, harness_input(payload), said), timeout=limits.wall_seconds + 10
                )
            except TimeoutError:
                _killpg(proc.pid)
                out, err = await proc.communicate()
                if BEGINS not in said:  # no agent code ran: the start, placement or input is the validator's
                    raise OSError(_not_started(said, limits.wall_seconds + 10)) from None
                timed_out = True
            return result_from_report(
                out.decode("utf-8", errors="replace"),
                err.decode("utf-8", errors="replace"),
                proc.returncode,
                time.monotonic() - started,
                timed_out=timed_out,
                oom=cgroups.oom(dirs),
                limit=limits.output_bytes,
                backend=self.name,
            )
        except OSError as exc:
            return SandboxResult(
                "sandbox_failed",
                f"could not start the sandbox: {exc}",
                None,
                time.monotonic() - started,
                backend=self.name,
            )
        finally:
            if seccomp_fd is not None:
                os.close(seccomp_fd)
            self._running.pop(spec.run_id, None)
            if proc is not None and proc.returncode is None:
                _killpg(proc.pid)
                await proc.wait()
            if proc is not None:
                _killpg(proc.pid)  # a daemon left in the session dies with the run
            if dirs:  # shielded: a second cancellation leaves the removal to finish, not unqueued
                await asyncio.shield(asyncio.get_running_loop().run_in_executor(_REMOVING, cgroups.kill, dirs))


async def _created(creating: asyncio.Future[asyncio.subprocess.Process]) -> asyncio.subprocess.Process:
    """The sandbox's process once its creation is done, whatever cancels the run meanwhile. asyncio cancelled while
    it connects a new process's pipes closes what it made and waits for that process's end with pipes it never
    connected, which can be for ever (a node that would not stop, its drain waiting on that run); and the seccomp
    profile's descriptor must stay open until the process has it."""
    while True:
        try:
            return await asyncio.shield(creating)
        except asyncio.CancelledError:
            if creating.done():
                return creating.result()


async def _placed_then_input(
    proc: asyncio.subprocess.Process, dirs: dict[str, Path], data: bytes, said: list[bytes]
) -> tuple[bytes, bytes]:
    """The harness's ready line (its interpreter's first; it goes on with its setup, forks the agent's process and
    waits for the run's input), then the sandbox's processes placed in the run's cgroups (`cgroups.place`: the start
    until then ran in the node's cgroup, at a host process's weight, not the run's), then the input, then its line
    saying the agent begins (`HARNESS_BEGINS`, in ``said`` with the ready line); what the harness wrote."""
    assert proc.stdout is not None and proc.stdin is not None
    first = await proc.stdout.readline()
    if first != HARNESS_READY:  # it failed before it was ready: what it wrote is its report
        out, err = await proc.communicate(b"")
        return first + out, err
    said.append(first)
    if dirs:
        await asyncio.get_running_loop().run_in_executor(_PLACING, cgroups.place, proc.pid, dirs)
    with suppress(BrokenPipeError, ConnectionResetError):  # it ended without reading it: what it wrote says why
        proc.stdin.write(data)
        await proc.stdin.drain()
        proc.stdin.close()
    second = await proc.stdout.readline()  # a line of the harness's own: the agent's output goes through its pipes
    if second == BEGINS:
        said.append(second)
    out, err = await proc.communicate()
    return (b"" if second == BEGINS else second) + out, err


def _not_started(said: list[bytes], deadline: float) -> str:
    """Why a sandbox whose deadline passed before the agent began is the node's fault (2001), by how far it got."""
    if HARNESS_READY not in said:
        return f"not ready to run within {deadline:g}s (its start and placement)"
    return f"not started within {deadline:g}s: the harness was ready but had not read its input; no agent code ran"


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_tree(pid: int) -> None:
    """SIGKILL a process and every descendant, each with its process group (never this process's own), until none is
    left: a process may fork while its parent is being killed."""
    import psutil

    ours = os.getpgrp()
    for _ in range(10):
        try:
            root = psutil.Process(pid)
            tree = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return
        alive = []
        for proc in tree:
            with suppress(psutil.Error, OSError):
                if proc.status() == psutil.STATUS_ZOMBIE:
                    continue
                group = os.getpgid(proc.pid)
                if group != ours:
                    os.killpg(group, signal.SIGKILL)
                proc.kill()
                alive.append(proc)
        if not alive:
            return
        psutil.wait_procs(alive, timeout=0.5)
