"""The harness: what runs inside a sandbox (standard library only, any Python 3.11).

Reads one object on stdin, in ``marshal``'s format (`sandbox.backends.harness_input`: read with no import):
``{"problem", "problem_json", "token", "socket", "timeout", "agent_dir", "sdk_dir", "max_output", "model", "killed"}``
(``problem_json``: the problem's JSON text, the agent's ``PROBLEM_DATA``; ``model``: the node's LLM model, given to the
agent as ``ARENA_LLM_MODEL``; absent or null when the node has no LLM endpoint). Then it:

1. forks the agent's process (step 3; `start` said on stdout that the harness is ready, `READY`, before it imported
   this module), makes itself undumpable, so the agent cannot read the run token from its memory or environment;
2. serves ``127.0.0.1:8080``, forwarding each HTTP request to the gateway socket with the run's token attached;
3. runs the agent in a child process (its own session; under gVisor its own uid, `spawn.fork_agent`): forked before
   the harness reads its input, so nothing of the run's is in its memory and no second interpreter starts; the child
   imports the agent and calls ``agent_main`` (`runner`). Once the input is read, just before the agent begins, the
   harness says so on stdout (`BEGINS`): the node charges its deadline to the agent only past that line;
4. enforces the wall-clock limit, kills the child's whole process group at the end (no daemon outlives a run);
5. when the agent returned subnet-15 dialogue steps, hands their last ``recommend_product`` to the gateway as a
   ``recommend_product`` call (marked ``X-Arena-Origin: returned-steps``), so the gateway's log stays the only
   trajectory and the only source of the answer;
6. prints one JSON line (the last on its stdout): status (``ok``, ``import_failed``, ``raised``, ``timeout``,
   ``bad_return``, ``killed``, ``no_result``, ``syscall_denied``: SIGSYS ended the agent, a call the seccomp filter
   kills for, those calls named (``killed``); ``harness_fault``), the error, the bounded return value, the tails of
   the agent's output.

Nothing the agent prints or returns is trusted for scoring; the gateway's log is the trajectory.

Between its ready line and the run's input the node places the sandbox in the run's cgroups, and the first move into a
cgroup waits for the kernel (an RCU grace period: 7-18 ms on this machine). Everything that needs nothing of the input
is done meanwhile (`_before_input`): ``_ctypes`` and the forwarder imported, every thread of
the harness's started (the reaper, the output readers, the forwarder's), the forwarder's socket listening. Once the
input is read the agent begins at once. ``json`` is imported only for the report, after the agent ended.
"""

from __future__ import annotations

import marshal
import os
import sys
import time

TYPE_CHECKING = False  # typing is for mypy only (mypy takes this name as true): its import is 2-3 ms of every start
if TYPE_CHECKING:
    from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:  # the harness runs isolated (-I): its own folder is not on the path by itself
    sys.path.insert(0, HERE)

from spawn import NOT_DROPPED, AgentProcess, Flag, fork_agent, start_thread  # type: ignore[import-not-found]  # noqa: E402  (the harness's folder, as it runs)

LISTEN = ("127.0.0.1", 8080)
AGENT_OUTCOMES = ("ok", "import_failed", "raised", "bad_return")
SIGSYS = 31
SIGKILL = 9
#: the first line on stdout, written by start.py before it imports this module: the process sandbox places the
#: sandbox's processes in the run's cgroups then, and writes the run's input only after (the agent's process, forked
#: meanwhile, is born in them or moved with the rest; `sandbox.backends.HARNESS_READY`)
READY = b"ready\n"
#: the second line, once the run's input is read, just before the agent's code starts: only past it is the deadline
#: the agent's (`sandbox.backends.HARNESS_BEGINS`)
BEGINS = b"begin\n"
#: how deep an agent's return may nest (dicts, lists): deeper is a bad return; the node's `arena.trajectory.MAX_DEPTH`
MAX_DEPTH = 100


def _undumpable() -> None:
    """Step 1, once the agent's process is forked: ``prctl(PR_SET_DUMPABLE, 0)``, /proc/self/{mem,environ} made
    root-only. Called through ``_ctypes``, the C half of ``ctypes``, whose own import is 2-3 ms more of every start
    here; through ``ctypes`` where ``_ctypes`` lacks the calls."""
    try:
        import _ctypes

        prctl = _ctypes.dlsym(_ctypes.dlopen(None), "prctl")  # type: ignore[arg-type]  # None: the program, as CDLL(None)
        _ctypes.call_function(prctl, (4, 0, 0, 0, 0))  # PR_SET_DUMPABLE = 4
        return
    except (OSError, AttributeError):
        pass
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


class _Door:
    """Where the forwarder takes the agent's calls (the gateway's socket) and the token it attaches: known once the
    run's input is read, after the serving thread started. No connection can come before: only the agent's process
    could make one, and it begins after (`main`)."""

    def __init__(self) -> None:
        self.known = Flag()
        self.socket_path = self.token = ""

    def open(self, socket_path: str, token: str) -> None:
        self.socket_path, self.token = socket_path, token
        self.known.set()


def _serve(server: Any, door: _Door) -> None:
    """Takes the agent's connections, each to a thread of its own (`forwarder.forward`)."""
    from forwarder import accept, forward  # type: ignore[import-not-found]  # the harness's folder, as it runs

    while True:
        conn = accept(server)
        door.known.wait()
        start_thread(forward, conn, door.socket_path, door.token)


def _unix_connection(path: str, timeout: float) -> Any:
    """An HTTP connection to the gateway's socket (http.client, the largest import, only when SN15 hands over)."""
    import http.client
    import socket

    class UnixConnection(http.client.HTTPConnection):
        def connect(self) -> None:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(self.timeout)
            self.sock.connect(path)

    return UnixConnection("gateway", timeout=timeout)


def _to_gateway(spec: dict[str, Any], path: str, body: Any, headers: dict[str, str]) -> dict[str, Any]:
    """A call of the harness's own at the gateway (``X-Arena-Origin``: the forwarder strips it from the agent's): an
    SN15 agent's last ``recommend_product``, or the note that the syscall filter ended the agent."""
    import json

    conn = _unix_connection(spec["socket"], timeout=60)
    auth = {"Authorization": f"Bearer {spec['token']}", "Content-Type": "application/json"}
    try:
        conn.request("POST", path, body=json.dumps(body).encode(), headers={**auth, **headers})
        response = conn.getresponse()
        response.read()
        return {"status": response.status}
    except OSError as exc:
        return {"error": f"the gateway did not take {path}: {exc}"}
    finally:
        conn.close()


def _tail(data: bytes, limit: int) -> str:
    text = data.decode("utf-8", errors="replace")
    return text if len(text) <= limit else "...[cut]..." + text[-limit:]


def _fault(error: str) -> int:
    """The harness's own failure, reported as its one JSON line."""
    import json

    print(json.dumps({"harness": 1, "status": "harness_fault", "error": error}))
    return 0


def _read_spec() -> dict[str, Any]:
    """The harness's input (both backends write it to its stdin); ValueError when it is not an object of it."""
    spec = marshal.loads(sys.stdin.buffer.read())
    if not isinstance(spec, dict):
        raise ValueError(f"the input is {type(spec).__name__}, not a dict")
    return spec


def _listen(port: int) -> Any:
    """Step 2's socket, listening before the run's input is read (the agent's first call waits in the backlog until
    the serving thread takes it); None when it cannot listen."""
    import _socket

    server = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    try:
        server.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
        server.bind((LISTEN[0], port))
        server.listen(64)
    except OSError:
        server.close()
        return None
    return server


def _agent_env(spec: dict[str, Any], port: int) -> dict[str, str]:
    """The agent's whole environment: the gateway's door (ours and subnet 15's names), its code, the result pipe."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": os.pathsep.join([spec["agent_dir"], spec["sdk_dir"]]),
        "PYTHONDONTWRITEBYTECODE": "1",
        "ARENA_GATEWAY_URL": f"http://{LISTEN[0]}:{port}",
        "PROBLEM_DATA": spec["problem_json"],  # the problem as JSON text: subnet 15's sandbox sets it too
        "OPENAI_BASE_URL": f"http://{LISTEN[0]}:{port}/v1",
        "OPENAI_API_KEY": "sandbox-placeholder",
    }
    # subnet 15's names for the same door: ProxyClient reads SANDBOX_PROXY_URL, its agents SANDBOX_MODEL
    env["SANDBOX_PROXY_URL"] = f"http://{LISTEN[0]}:{port}"
    if isinstance(spec.get("model"), str) and spec["model"]:
        env["ARENA_LLM_MODEL"] = env["SANDBOX_MODEL"] = spec["model"]
    return env


class _Outputs:
    """The agent's result pipe, stdout and stderr, each drained by a thread from the start (their last bytes kept:
    ``limit``, the run's ``max_output``, set from its input before the agent begins)."""

    def __init__(self, child: AgentProcess) -> None:
        self.limit = 65536
        self.result: list[bytes] = []
        self.out: list[bytes] = []
        self.err: list[bytes] = []
        self.drained = [Flag(), Flag(), Flag()]
        start_thread(self._drain, child.result, self.result, 1 << 20, self.drained[0])
        start_thread(self._drain, child.stdout, self.out, None, self.drained[1])
        start_thread(self._drain, child.stderr, self.err, None, self.drained[2])

    def join(self) -> None:
        for drained in self.drained:
            # a process that escaped the group may hold a pipe open: what was written before the agent ended is
            # read by now, and the sandbox's end (this harness is its pid 1) takes the rest
            drained.wait(0.5)

    def _drain(self, fd: int, chunks: list[bytes], limit: int | None, drained: Flag) -> None:
        """Keep the last ``limit`` bytes of a pipe (None: `limit`'s; an output flood costs nothing but CPU)."""
        try:
            self._keep(fd, chunks, limit)
        finally:
            drained.set()

    def _keep(self, fd: int, chunks: list[bytes], limit: int | None) -> None:
        kept = 0
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            chunks.append(chunk)
            kept += len(chunk)
            cap = self.limit if limit is None else limit
            while kept - len(chunks[0]) > cap and len(chunks) > 1:
                kept -= len(chunks.pop(0))


def _wait(child: AgentProcess, timeout: float, outputs: _Outputs) -> bool:
    """Step 4: the agent's end, or the wall-clock limit (True); then its whole process group killed."""
    timed_out = not child.wait(timeout)  # the agent's own process; what it forked must not keep the run alive
    _kill_group(child.pid)  # whatever the agent left running in its session dies with the run
    child.wait()
    outputs.join()
    return timed_out


def _take_outcome(report: dict[str, Any], raw: bytes, spec: dict[str, Any]) -> None:
    """The runner's result (only agent outcomes are taken) into the report; step 5 for returned SN15 steps."""
    import json

    # the runner shares its process with the agent, so its word is the agent's: only agent outcomes are taken
    try:
        outcome = json.loads(raw)
    except Exception as exc:  # noqa: BLE001 - anything the agent's result makes the parser do is the agent's
        error = f"unreadable result ({type(exc).__name__}): a JSON dict or None, at most {MAX_DEPTH} deep, is expected"
        outcome = {"status": "bad_return", "error": error}
    steps = outcome.get("steps") if isinstance(outcome, dict) else None
    if not isinstance(outcome, dict) or outcome.get("status") not in AGENT_OUTCOMES or not _shaped(outcome, steps):
        outcome = {"status": "bad_return", "error": "the result pipe held something other than a runner result"}
    if max(map(_depth, (outcome.get("return"), steps.get("recommend") if isinstance(steps, dict) else 0))) > MAX_DEPTH:
        error = f"agent_main returned a value nested more than {MAX_DEPTH} deep (the limit is {MAX_DEPTH})"
        outcome, steps = {"status": "bad_return", "error": error}, None
    report.update({k: outcome.get(k) for k in ("status", "error", "return") if k in outcome})
    if report.get("status") == "ok" and isinstance(steps, dict):
        count = int(steps.get("count") or 0)
        report.update(contract="sn15", steps=count)
        if steps.get("recommend") is not None:
            origin = {"X-Arena-Origin": "returned-steps", "X-Arena-Steps": str(count)}
            report["handover"] = _to_gateway(spec, "/tools/recommend_product", steps["recommend"], origin)


def _shaped(outcome: dict[str, Any], steps: Any) -> bool:
    """Whether a result has the runner's fields' types (its error text, its steps' count a whole number)."""
    steps_ok = steps is None or (isinstance(steps, dict) and type(steps.get("count", 0)) is int)
    return isinstance(outcome.get("error") or "", str) and steps_ok


def _depth(value: Any) -> int:
    """How deeply ``value`` nests (a scalar 0, ``[]`` 1), walked without recursion."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            todo.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _report(
    spec: dict[str, Any],
    child: AgentProcess,
    outputs: _Outputs,
    *,
    timed_out: bool,
    timeout: float,
    limit: int,
    started: float,
) -> dict[str, Any]:
    """Step 6: what the run came to, with the tails of the agent's output."""
    out, err = b"".join(outputs.out), b"".join(outputs.err)
    raw = b"".join(outputs.result)
    report: dict[str, Any] = {
        "harness": 1,
        "elapsed_s": round(time.monotonic() - started, 3),
        "exit_code": child.returncode,
        "stdout": _tail(out, limit),
        "stderr": _tail(err, limit),
    }
    if timed_out:
        report.update(status="timeout", error=f"agent_main did not return within {timeout:g}s")
    elif child.returncode == -SIGSYS:  # the filter's kill: no handler of the agent's runs, whatever it wrote
        report.update(
            status="syscall_denied",
            error="the agent's process was ended by SIGSYS: it made a call the sandbox's syscall filter kills for "
            f"({', '.join(spec.get('killed') or []) or 'see docs/validator.md'}); the call did not run",
        )
    elif raw:
        _take_outcome(report, raw, spec)
    elif child.returncode is not None and child.returncode < 0:
        import signal

        sig = -child.returncode
        report.update(
            status="killed",
            error=f"agent killed by signal {sig} ({signal.Signals(sig).name}); out of memory or over the process limit",
        )
    else:
        report.update(status="no_result", error=f"agent process exited with code {child.returncode} and no result")
    return report


def main() -> int:
    started = time.monotonic()
    try:  # forked before the run's input is read: nothing of it (the token least of all) is in the agent's memory
        child = fork_agent()  # under gVisor as a uid of its own (`spawn.fork_agent`)
    except (OSError, ValueError) as exc:
        return _fault(f"cannot fork the agent: {exc}")
    _undumpable()
    door, outputs, server = _before_input(child)
    try:
        spec = _read_spec()
        timeout = float(spec.get("timeout", 300))
        outputs.limit = limit = int(spec.get("max_output", 65536))
        env, agent_dir, problem = _agent_env(spec, _port()), spec["agent_dir"], spec["problem"]
        door.open(spec["socket"], spec["token"])
    except (ValueError, TypeError, EOFError, KeyError) as exc:
        child.end()
        return _fault(f"bad harness input: {type(exc).__name__}: {exc}")
    if server is None or not child.dropped():  # dropped: it runs as the uid it was given (`spawn.fork_agent`)
        child.end()
        return _fault(f"the forwarder cannot listen on {LISTEN[0]}:{_port()}" if server is None else NOT_DROPPED)
    os.write(1, BEGINS)  # the node's clock for the agent starts here (its timeout is 1003 only past this line)
    child.begin(env, agent_dir, problem)  # the agent starts
    timed_out = _wait(child, timeout, outputs)
    report = _report(spec, child, outputs, timed_out=timed_out, timeout=timeout, limit=limit, started=started)
    if report.get("status") == "syscall_denied":  # the trajectory says so too
        _to_gateway(spec, "/harness/syscall_denied", {"error": report["error"]}, {"X-Arena-Origin": "harness"})
    import json

    print(json.dumps(report), flush=True)
    return 0


def _before_input(child: AgentProcess) -> tuple[_Door, _Outputs, Any]:
    """What needs nothing of the run's input, done while the node places the sandbox in the run's cgroups before it
    writes that input (the first move into a cgroup waits for the kernel, 7-18 ms here): every thread of the
    harness's started (the reaper, the output readers, the forwarder's), its imports done (the forwarder's), the
    forwarder's socket listening; the socket None when it cannot listen. Every thread starts before
    the agent begins: an agent's fork bomb takes the sandbox's pids limit at once, and a thread the harness could not
    start then would make its run the validator's fault."""
    from forwarder import forward  # noqa: F401  (imported here, not beside the agent)

    child.watch()
    outputs = _Outputs(child)
    door = _Door()
    server = _listen(_port())
    if server is not None:
        start_thread(_serve, server, door)
    return door, outputs, server


def _port() -> int:
    """The forwarder's port: 8080 in a sandbox; in the unsafe bare mode, the one the node names (the argument)."""
    return int(sys.argv[1]) if len(sys.argv) > 1 else LISTEN[1]


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


if __name__ == "__main__":
    os.write(1, READY)  # as start.py says it, before it imports this module
    sys.exit(main())
