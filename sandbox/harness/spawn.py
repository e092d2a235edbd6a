"""The agent's process, as the harness starts it (standard library only): forked from the harness, not a new
interpreter, before the harness reads the run's input (so nothing of the run's, the token least of all, is in its
memory).

The forked process waits for its setup (its environment and code folders) on a pipe of its own, then the problem on
stdin, and runs `runner.forked`: one Python start a run instead of two. Both are written with ``marshal`` (built in:
neither process imports ``json`` on the agent's way to ``agent_main``).

Under gVisor the harness starts as root and the agent's process drops to a uid of its own as it is forked (``uid``):
gVisor lets a process signal its pid namespace's pid 1, which Linux does not, and kill(2) needs the sender's uid or
CAP_KILL, which the agent then lacks (docs/validator.md, "gVisor")."""

from __future__ import annotations

import _thread
import marshal
import os
import sys

TYPE_CHECKING = False  # typing is for mypy only (mypy takes this name as true): its import is 2-3 ms of every start
if TYPE_CHECKING:
    from typing import Any

#: the uid the agent's process runs as, where the sandbox names one: Docker under gVisor, whose harness starts as root
#: (`sandbox.backends.docker`); elsewhere unset, and the agent runs as the harness's own uid (65534)
AGENT_UID = "ARENA_AGENT_UID"
CAP_KILL = 5
#: what the harness reports when the agent's process did not get to its uid (`AgentProcess.dropped`)
NOT_DROPPED = "the agent's process ended before it ran as its own uid; no agent code ran"


def fork_agent() -> AgentProcess:
    """The agent's process, forked; where the sandbox names its uid (`AGENT_UID`), as that uid, and the harness then
    keeps of root's capabilities only CAP_KILL, which ends the agent's process group at the run's end (`keep_kill`).
    OSError when it cannot fork or drop, ValueError when the uid named is not a number."""
    named = os.environ.get(AGENT_UID)
    if named is None:
        return AgentProcess()
    child = AgentProcess(int(named))
    keep_kill()
    return child


def start_thread(target: Any, *args: Any) -> None:
    """Run ``target(*args)`` in a thread of its own (none is waited for at exit). The harness starts its threads with
    ``_thread``, under ``threading``: that module's import (``functools`` and ``collections`` with it) is about 4 ms
    of every sandbox's start here."""
    _thread.start_new_thread(target, args)


class Flag:
    """What the harness uses of ``threading.Event`` (`start_thread` says why not it): set once, waited for."""

    def __init__(self) -> None:
        self._set = False
        self._lock = _thread.allocate_lock()
        self._lock.acquire()

    def set(self) -> None:
        self._set = True
        self._lock.release()

    def is_set(self) -> bool:
        return self._set

    def wait(self, timeout: float | None = None) -> bool:
        """True once set, False when ``timeout`` seconds passed first."""
        if not self._lock.acquire(timeout=-1 if timeout is None else timeout):
            return False
        self._lock.release()
        return True


class AgentProcess:
    """The agent's process: forked at construction (its own session; with ``uid``, every uid and gid of its own that
    one, no supplementary group, every capability gone: `dropped` says whether it got there), reaped from `watch`,
    started by `begin`; ``stdout``, ``stderr`` and ``result`` are the read ends of its output and result pipes."""

    def __init__(self, uid: int | None = None) -> None:
        #: with ``uid``, a pipe the agent's process writes one byte to once it runs as that uid
        self._dropped, dropped_w = os.pipe() if uid is not None else (-1, -1)
        setup_r, self._setup = os.pipe()
        stdin_r, self._stdin = os.pipe()
        self.stdout, out_w = os.pipe()
        self.stderr, err_w = os.pipe()
        self.result, result_w = os.pipe()
        self.returncode: int | None = None
        self._ended: Flag | None = None  # once the process is watched (`watch`)
        self.pid = os.fork()
        if self.pid == 0:  # the agent's side
            code = 1
            try:
                os.setsid()
                if uid is not None:
                    _become(uid, dropped_w)
                    os.close(self._dropped)
                os.dup2(stdin_r, 0)
                os.dup2(out_w, 1)
                os.dup2(err_w, 2)
                for fd in (stdin_r, out_w, err_w, self._setup, self._stdin, self.stdout, self.stderr, self.result):
                    os.close(fd)
                import runner  # type: ignore[import-not-found]  # the harness's folder, as it runs

                runner.forked(setup_r, result_w)
                code = 0
            finally:
                os._exit(code)
        for fd in (setup_r, stdin_r, out_w, err_w, result_w):
            os.close(fd)
        if uid is not None:
            os.close(dropped_w)
        self.result_fd = result_w  # its number in the agent's process (the harness closed its own copy)

    def dropped(self) -> bool:
        """Whether the process runs as the uid it was given (True when none was); False when it ended first. Asked
        once, before `begin`: no agent code has run yet, so a False is the harness's fault, never the agent's."""
        if self._dropped < 0:
            return True
        try:
            return os.read(self._dropped, 1) == b"1"
        finally:
            os.close(self._dropped)

    def watch(self) -> None:
        """Start the thread that reaps the process (before `begin`: an agent's fork bomb takes the sandbox's pids
        limit at once, and a reaper that could not start then would make its run the validator's fault)."""
        self._ended = Flag()
        start_thread(self._reap)

    def begin(self, env: dict[str, str], agent_dir: str, problem: Any) -> None:
        """Hand the process its setup and the problem (`watch` first): it runs the agent."""
        setup = {"env": env, "agent_dir": agent_dir}
        for fd, data in ((self._setup, marshal.dumps(setup)), (self._stdin, marshal.dumps(problem))):
            try:
                _write_all(fd, data)
            except OSError:
                pass
            finally:
                os.close(fd)

    def end(self) -> None:
        """The process never begun (the harness's input was bad): ended."""
        for fd in (self._setup, self._stdin):
            os.close(fd)
        if self._ended is None or not self._ended.is_set():
            try:
                os.kill(self.pid, 9)
            except OSError:
                pass
        if self._ended is not None:  # reaped by `watch`'s thread
            self._ended.wait()
            return
        try:
            os.waitpid(self.pid, 0)
        except OSError:
            pass

    def wait(self, timeout: float | None = None) -> bool:
        """True once the process ended (``returncode`` set, negative: the signal that ended it), False at timeout."""
        assert self._ended is not None, "watch() first"
        return self._ended.wait(timeout)

    def _reap(self) -> None:
        _, status = os.waitpid(self.pid, 0)
        self.returncode = os.waitstatus_to_exitcode(status)
        assert self._ended is not None
        self._ended.set()


def _become(uid: int, told: int) -> None:
    """The agent's process, forked by a harness that runs as root: every uid and gid ``uid``, no supplementary group;
    leaving uid 0 so clears every capability (setuid(2)), CAP_KILL and CAP_SETUID with the rest. One byte on ``told``
    once done (`AgentProcess.dropped`)."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    os.write(told, b"1")
    os.close(told)


def keep_kill() -> None:
    """This thread's capabilities (the harness has no other yet) cut to CAP_KILL alone, effective and permitted:
    ``capset(2)`` through ``_ctypes`` (as `harness._undumpable` calls prctl; ``ctypes`` is ms of every start), version
    3's header and two words of data. OSError when refused."""
    import _ctypes

    capset = _ctypes.dlsym(_ctypes.dlopen(None), "capset")  # type: ignore[arg-type]  # None: the program
    header = (0x20080522).to_bytes(4, sys.byteorder) + bytes(4)  # _LINUX_CAPABILITY_VERSION_3, pid 0: this thread
    words = (1 << CAP_KILL, 1 << CAP_KILL, 0, 0, 0, 0)  # effective, permitted, inheritable; then caps 32-63
    if _ctypes.call_function(capset, (header, b"".join(w.to_bytes(4, sys.byteorder) for w in words))) != 0:
        raise OSError("capset refused to cut the harness's capabilities to CAP_KILL")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
