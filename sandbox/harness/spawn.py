"""The agent's process, as the harness starts it (standard library only): forked from the harness, not a new
interpreter, before the harness reads the run's input (so nothing of the run's, the token least of all, is in its
memory).

The forked process waits for its setup (its environment and code folders) on a pipe of its own, then the problem on
stdin, and runs `runner.forked`: one Python start a run instead of two. Both are written with ``marshal`` (built in:
neither process imports ``json`` on the agent's way to ``agent_main``)."""

from __future__ import annotations

import _thread
import marshal
import os

TYPE_CHECKING = False  # typing is for mypy only (mypy takes this name as true): its import is 2-3 ms of every start
if TYPE_CHECKING:
    from typing import Any


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
    """The agent's process: forked at construction (its own session), reaped from `watch`, started by `begin`;
    ``stdout``, ``stderr`` and ``result`` are the read ends of its output and result pipes."""

    def __init__(self) -> None:
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
        self.result_fd = result_w  # its number in the agent's process (the harness closed its own copy)

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


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
