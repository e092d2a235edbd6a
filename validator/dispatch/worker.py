"""What a Ray worker does with a run the node sent it (`validator.dispatch.ray` sends it; Ray calls `execute`).

A worker host holds its own copy of the catalog, named by `ARENA_CATALOG` in the environment `ray start` ran in (the
worker image sets it). For each run the worker process checks that catalog's digest against the node's (another
catalog: the run is refused with one line, never run), opens the configured sandbox backend (Docker or bubblewrap),
serves a gateway on a private unix socket beside it, stages the agent from the bundle's bytes the node shipped, runs
the problem exactly as `sandbox.run.run_one` runs it on one host, and returns the gateway's log and the
sandbox's result. The catalog, gateway, sandbox and staged agents are kept for the worker process's next runs, and
`warm` readies a process before its first run (the imports, the catalog, the gateway: about 1.5 s per process).

The node runs its attempts in `Runner`s: detached named Ray actors, one per run slot of a worker, that outlive the
node's Ray driver. A runner runs each attempt on its runs' event loop and keeps the reply until the node has it
(its next run call says so), so a node restarted after a crash finds its runs still executing (`held`) and takes
their replies instead of running them again. A reply nobody collects is dropped after `ORPHAN_SECONDS`; a runner
with nothing to hand over and no call for its idle time ends itself (a node that never came back), and so does one
the cluster killed whose process lived on (`_given_up`).

Nothing here imports Ray at module level: the module is importable where Ray is not installed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import gc
import os
import socket
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.tasks import ProblemBase
from sandbox.backends import Limits
from sandbox.gateway import Budgets, Upstream
from sandbox.run import RunOutcome
from validator.dispatch.wire import packed

#: The node label a Ray node carries when it takes ShopArena runs (`ray start --labels shoparena=worker`).
WORKER_LABEL = ("shoparena", "worker")

#: seconds a runner keeps a finished attempt's reply that no node collected (the node died for good)
ORPHAN_SECONDS = 3600.0

#: seconds between a runner's looks at itself: replies nobody collected, its idle time, whether the cluster gave it up
WATCH_SECONDS = 5.0


class Refused(Exception):
    """This worker cannot take runs (another catalog, no catalog, no sandbox): one line that says what to do."""


@dataclass
class RunRequest:
    run_id: str
    sha256: str
    problem: ProblemBase  # whole: the worker's gateway serves its family's tools; the sandbox sees public()
    limits: Limits
    budgets: Budgets
    catalog_digest: str  # the node's catalog: the worker's must be the same
    backend: str  # process (bubblewrap) or docker
    image: str | None
    upstream: Upstream
    shown_id: str | None = None  # the problem's id as the agent is shown it (`arena.problems.alias`)


@dataclass
class WorkerReply:
    node_id: str
    host: str
    outcome: RunOutcome | None = None
    refused: str | None = None  # why the worker did not run it (one line)
    gateway_died: bool = False  # the worker's gateway stopped serving during the run
    facts: dict[str, Any] = field(default_factory=dict)  # `survey`'s answer


def _here() -> tuple[str, str]:
    import ray

    return ray.get_runtime_context().get_node_id(), socket.gethostname()


class _Host:
    """The worker process's state, kept between runs: catalog, gateway server, sandboxes, staged agents."""

    def __init__(self) -> None:
        self.work = Path(tempfile.mkdtemp(prefix="shoparena-worker-"))
        os.chmod(self.work, 0o711)
        self.catalog: Any = None
        self.gateway: Any = None
        self.server: Any = None
        self.upstream: str | None = None
        self.sandboxes: dict[tuple[str, str | None], Any] = {}
        self.staging: dict[str, threading.Lock] = {}  # sha256 -> held while that bundle is being staged

    def open_catalog(self, digest: str, node_id: str, host: str) -> Any:
        from arena.catalog import Catalog, CatalogError

        where = f"worker {node_id[:12]} on {host}"
        path = os.environ.get("ARENA_CATALOG")
        if not path:
            raise Refused(
                f"{where} has no catalog: start it (ray start) with ARENA_CATALOG set to its copy of the "
                f"node's catalog (digest {digest[:12]})"
            )
        if self.catalog is None or str(self.catalog.path) != str(Path(path).expanduser()):
            try:
                self.catalog = Catalog.open(Path(path).expanduser())
            except CatalogError as exc:
                raise Refused(f"{where} cannot open its catalog {path}: {exc}") from None
            self.gateway = None
        if self.catalog.digest != digest:
            raise Refused(
                f"{where} refuses runs: its catalog {path} has digest {self.catalog.digest[:12]}, the "
                f"node's has {digest[:12]}; give it a copy of the node's catalog"
            )
        return self.catalog

    def open_sandbox(self, backend: str, image: str | None, node_id: str, host: str) -> Any:
        from sandbox.backends import BackendUnavailable, open_backend

        key = (backend, image)
        if key not in self.sandboxes:
            try:
                self.sandboxes[key] = open_backend(backend, image=image)
            except (BackendUnavailable, ValueError) as exc:
                raise Refused(f"worker {node_id[:12]} on {host} cannot run the {backend} sandbox: {exc}") from None
        return self.sandboxes[key]

    def serve(self, upstream: Upstream) -> Any:
        """The worker's gateway over its catalog and the node's upstream, served on a private socket."""
        from sandbox.gateway import Gateway, GatewayServer

        wanted = upstream.model_dump_json()
        if self.gateway is None or self.upstream != wanted:
            if self.server is not None:
                self.server.stop()
                self.server = None
            self.gateway, self.upstream = Gateway(self.catalog, upstream=upstream), wanted
        if self.server is None or not self.server.alive:
            if self.server is not None:
                self.server.stop()
            self.server = GatewayServer(self.gateway, self.work / "gw" / "gateway.sock").start()
        return self.gateway

    def stage(self, sha256: str, bundle: bytes | list[Any]) -> tuple[Path, bool]:
        """The agent, staged once per bundle into the worker's private folder (`sandbox.bundle.stage`), from its bytes
        or a list holding their object ref (fetched only when the agent is not staged yet); and whether this call
        staged it. One staging of a bundle at a time: a run waits for the staging ahead of it, never does it twice."""
        from sandbox.bundle import stage

        with self.staging.setdefault(sha256, threading.Lock()):
            target = self.work / "agents" / sha256
            if target.is_dir():
                return target, False
            if isinstance(bundle, list):
                import ray

                bundle = ray.get(bundle[0])
            assert isinstance(bundle, bytes)
            return stage(self.work, sha256, bundle), True


_HOST: _Host | None = None  # this process's, made by its first warm-up or run


def _host() -> _Host:
    global _HOST
    if _HOST is None:
        _HOST = _Host()
    return _HOST


_SETUP = threading.RLock()  # a runner's attempts and warm-ups share the process's catalog, gateway and sandboxes
_LOOP: asyncio.AbstractEventLoop | None = None


def _runs_loop() -> asyncio.AbstractEventLoop:
    """The process's event loop for its runs, on a thread of its own: made once, not once per run."""
    global _LOOP
    with _SETUP:
        if _LOOP is None:
            _LOOP = asyncio.new_event_loop()
            threading.Thread(target=_LOOP.run_forever, daemon=True, name="runs").start()
        return _LOOP


def execute(request: RunRequest, bundle: bytes | list[Any] | None, route: Any = None) -> WorkerReply:
    """Run one attempt here (`attempt`, on the runs' event loop), waiting for its reply."""
    return asyncio.run_coroutine_threadsafe(attempt(request, bundle, route), _runs_loop()).result()


async def attempt(request: RunRequest, bundle: bytes | list[Any] | None, route: Any = None) -> WorkerReply:
    """One attempt, on the runs' event loop (this runner's alone: its setup may block it); a worker that cannot take it
    says why in `refused`. `bundle` None: staged already; else its bytes, or a list holding their object ref (fetched
    only if not staged ahead). `route`: the miner's provider and key where it pays (`sandbox.gateway.MinerRoute`), in
    this process's memory for the run only, added by the gateway to the run's upstream requests as on the node."""
    from sandbox.run import run_one

    began = time.perf_counter()
    node_id, host = _here()
    state = _host()
    with _SETUP:
        try:
            state.open_catalog(request.catalog_digest, node_id, host)
            sandbox = state.open_sandbox(request.backend, request.image, node_id, host)
        except Refused as exc:
            return WorkerReply(node_id, host, refused=str(exc))
        gateway = state.serve(request.upstream)
    agent_dir, staged = state.work / "agents" / request.sha256, False
    if bundle is not None:  # outside the setup lock: a staging ahead (`Runner.stage`) may hold this bundle now
        agent_dir, staged = state.stage(request.sha256, bundle)
    elif not agent_dir.is_dir():  # the node sends each bundle once per runner: this one lost it
        raise FileNotFoundError(f"agent {request.sha256[:12]} is not staged on this worker")
    ready = time.perf_counter()
    outcome = await run_one(
        gateway,
        sandbox,
        agent_dir,
        state.work / "gw",
        request.problem,
        limits=request.limits,
        budgets=request.budgets,
        run_id=request.run_id,
        shown_id=request.shown_id,
        route=route,
    )
    outcome.worker = node_id[:12]
    ran = time.perf_counter()
    facts = {"setup_ms": (ready - began) * 1e3, "run_ms": (ran - ready) * 1e3, "staged": staged}
    return WorkerReply(node_id, host, outcome=outcome, gateway_died=not state.server.alive, facts=facts)


def ready_run_path() -> None:
    """What `attempt` imports and starts once per process, done now rather than by its first run: the run path, staging
    (`sandbox.bundle` reads the copy check's formats: numpy, copydetect; 0.4 s idle, over 1.5 s on a loaded host) and
    the runs' event loop with its executor's thread."""
    import sandbox.bundle  # noqa: F401
    import sandbox.run  # noqa: F401

    asyncio.run_coroutine_threadsafe(asyncio.to_thread(int), _runs_loop()).result()


def warm(catalog_digest: str, backend: str, image: str | None, upstream: Upstream, hold: float = 0.0) -> WorkerReply:
    """Make this worker process ready for runs before the first one comes (`RayDispatcher.warm`): the run path
    imported and started (`ready_run_path`), the catalog and sandbox opened, the gateway served; `hold` seconds kept
    busy after, so that the warm-ups of one node's slots land in as many processes. A worker that cannot take runs
    says why in `refused`."""
    ready_run_path()  # outside the setup lock: it waits on the runs' loop, where an attempt may wait for the lock
    node_id, host = _here()
    state = _host()
    with _SETUP:
        try:
            state.open_catalog(catalog_digest, node_id, host)
            state.open_sandbox(backend, image, node_id, host)
        except Refused as exc:
            return WorkerReply(node_id, host, refused=str(exc))
        state.serve(upstream)
    gc.freeze()  # what the process holds for good (imports, catalog) out of the collector's way: no run pays for it
    time.sleep(hold)
    return WorkerReply(node_id, host, facts={"pid": os.getpid(), "work": str(state.work)})


@dataclass
class _Held:
    done: threading.Event = field(default_factory=threading.Event)
    reply: WorkerReply | None = None
    error: BaseException | None = None
    ended: float = 0.0  # time.monotonic() when it ended


class Runner:
    """A run slot of a worker: a detached named Ray actor (`validator.dispatch.ray`) that runs one attempt at a time
    in a thread of its own and keeps its reply until the node collects it, so the attempt outlives a node that
    dies meanwhile and a restarted node takes its reply (`held`, `collect`). Ends itself after `idle` seconds
    with no call and nothing to hand over, or once the cluster gave it up (`_given_up`, by its `namespace`)."""

    def __init__(self, idle: float = 900.0, namespace: str | None = None) -> None:
        self.idle, self.last, self.namespace = idle, time.monotonic(), namespace  # the Ray namespace it is named in
        self.runs: dict[str, _Held] = {}
        self.lock = threading.Lock()
        threading.Thread(target=self._watch, daemon=True, name="runner-watch").start()

    def warm(self, catalog_digest: str, backend: str, image: str | None, upstream: Upstream) -> WorkerReply:
        """`warm`, and what this runner holds: the run ids it is running or has a reply for (`facts['held']`), and
        of those the ones still running (`facts['running']`)."""
        self.last = time.monotonic()
        reply = warm(catalog_digest, backend, image, upstream)
        reply.facts["held"] = self.held()
        with self.lock:
            reply.facts["running"] = sorted(r for r, held in self.runs.items() if not held.done.is_set())
        return reply

    def held(self) -> list[str]:
        with self.lock:
            return sorted(self.runs)

    def stage(self, bundles: dict[str, Any]) -> list[str]:
        """Stage agents ahead of their runs (`RunnerPool.stage_ahead`; sha256 -> their bytes' ref) in turn, beside a
        run; a run of one being staged waits for it. Returns those staged (the others are left to their runs)."""
        self.last = time.monotonic()
        done = []
        for sha256, ref in bundles.items():
            try:
                _host().stage(sha256, [ref])
            except Exception:  # noqa: BLE001 - its runs stage it again, and say what is wrong
                continue
            done.append(sha256)
        return done

    def run(self, request: RunRequest, bundle: Any, route: Any = None, collected: tuple[str, ...] = ()) -> bytes:
        """Start the attempt (on the runs' event loop: it outlives this call and the node) and wait for its reply
        (`packed`); the replies the node has meanwhile (`collected`) are dropped."""
        self.last = time.monotonic()
        held = _Held()
        with self.lock:
            for run_id in collected:
                self.runs.pop(run_id, None)
            self.runs[request.run_id] = held
        started = asyncio.run_coroutine_threadsafe(attempt(request, bundle, route), _runs_loop())
        started.add_done_callback(functools.partial(self._ended, held))
        return packed(self._wait(held))

    def collect(self, run_id: str) -> bytes | None:
        """The reply (`packed`) of an attempt an earlier node started (waiting for it); None: this runner has none."""
        self.last = time.monotonic()
        with self.lock:
            held = self.runs.get(run_id)
        return None if held is None else packed(self._wait(held))

    @staticmethod
    def _ended(held: _Held, ended: concurrent.futures.Future[WorkerReply]) -> None:
        try:
            held.reply = ended.result()
        except BaseException as exc:  # noqa: BLE001 - handed to the node as the run's failure
            held.error = exc
        held.ended = time.monotonic()
        held.done.set()

    def _wait(self, held: _Held) -> WorkerReply:
        while not held.done.wait(5.0):
            self.last = time.monotonic()  # a node waiting on a run is a call
        if held.error is not None:
            raise held.error
        assert held.reply is not None
        return held.reply

    def _watch(self) -> None:
        while True:
            time.sleep(min(WATCH_SECONDS, self.idle / 3))
            if self.namespace is not None and _given_up(self.namespace):
                _end_given_up()
            now = time.monotonic()
            with self.lock:
                for run_id, held in list(self.runs.items()):
                    if held.done.is_set() and now - held.ended > ORPHAN_SECONDS:
                        del self.runs[run_id]  # a reply no node came back for
                empty = not self.runs
            if empty and now - self.last > self.idle:
                import ray  # a runner no node has used for its idle time: it ends (its slot is free again)

                ray.kill(ray.get_runtime_context().current_actor)
                return


def _given_up(namespace: str) -> bool:
    """Whether the cluster no longer holds this process as the runner of its name: the actor was killed (`ray.kill`
    records it dead at once, and its name goes to the runner made in its place) but the process was not ended.
    Ray ends a killed actor by one message to its process, and by SIGKILL from its raylet only if the process has
    not answered within 5 s; a runner frozen when it was killed (a stopped process, a host too loaded to answer)
    and woken about then can be missed by both, and lives on holding its slot's CPUs and memory."""
    import ray

    context = ray.get_runtime_context()
    name = context.get_actor_name()
    if not name:  # not one of the pool's runners (each is named): nothing to tell by
        return False
    try:
        return bool(ray.get_actor(name, namespace=namespace) != context.current_actor)
    except ValueError:  # no live actor of this name: this one was killed and no other was made in its place yet
        return True
    except Exception:  # noqa: BLE001 - the cluster not answering now (its GCS restarting) is no verdict
        return False


def _end_given_up() -> None:
    """End this process and its sandboxes now (`os._exit`: nothing of the runner is kept, its replies go unsent:
    the node gave up the run and ran it again)."""
    import sys

    for sandbox in _HOST.sandboxes.values() if _HOST is not None else ():
        try:
            sandbox.stop_running()
        except Exception:  # noqa: BLE001 - the process ends below whatever the sandbox says
            pass
    print("runner ends: the cluster killed it while it could not take the kill", file=sys.stderr, flush=True)
    os._exit(1)
