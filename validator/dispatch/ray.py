"""Ray dispatch (`--dispatch ray --ray.address ADDR`): each run goes to a runner on a worker of the cluster.

Worker nodes are the Ray nodes labelled `shoparena=worker` (`ray start --labels shoparena=worker`). The node keeps a
runner (`validator.dispatch.pool`: a detached named Ray actor, warm between runs) on each run slot of every worker,
a slot being the CPUs (`--ray.cpus_per_run`) and memory (`--sandbox.memory_mb`) one run needs, so a worker takes as
many runs at once as its resources hold, and the node keeps as many in flight as the cluster holds (`capacity`). The
runner (`validator.dispatch.worker.Runner`) runs the sandbox behind a gateway on the worker over the worker's own
catalog and returns the gateway's log and the sandbox's result, which the node records as a local run's. Each
bundle goes to a runner once (through Ray's object store); a run sends only its request, and its reply comes back
pickled and compressed (`validator.dispatch.wire`: small enough for Ray to send inline, not by its object store).

Faults, each a `DispatchError` (validator-blamed, retried with backoff, never a miner's zero):

- a worker lost mid-run (killed, out of memory, network gone) or one that has not returned the run within its wall
  clock plus `grace`: 2008 (`arena.blame.WORKER_LOST`); a stuck runner is killed (its sandbox with it) and made anew;
  nothing is retried by Ray itself (`max_restarts=0`), so nothing runs twice;
- a worker that refuses the run (another catalog, no sandbox): 2009 (`WORKER_REFUSED`); the node sends no more runs
  to that worker (until it restarts), so the retry lands elsewhere; a refusal is mostly found when the runner warms
  up, before any run;
- the sandbox failing on the worker: 2001, as on one host.

A node that stops (SIGTERM) waits for its runs up to --stop.drain_seconds and records them as local runs; the runners
whose runs the deadline cuts are killed and their runs put back to pending; its idle runners end. A node that dies
mid-race leaves its runners running: a restarted node (same --data-dir, so the same Ray namespace) adopts them,
`Arena.recover` leaves the runs they hold alone (`held`) and the dispatch job collects their replies (`reattach`):
each such run finishes once, on its first attempt. A run no runner holds any more ends 2006 and runs again.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from arena import blame
from arena.log import get_logger
from sandbox.gateway import Upstream
from sandbox.run import RunOutcome
from validator.dispatch import AgentBundle, Attempt, DispatchError
from validator.dispatch.pool import IDLE_SECONDS, RunnerPool, Slot, first_line
from validator.dispatch.wire import ReplyError, unpacked
from validator.dispatch.worker import WORKER_LABEL, RunRequest, WorkerReply

log = get_logger("validator.dispatch")

#: seconds past a run's wall clock after which a worker that has not returned it is taken as lost
GRACE = 60.0


class RayUnavailable(RuntimeError):
    """Ray is not installed, or its cluster cannot be reached: one line that says what to do."""


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailable(
            "--dispatch ray needs Ray: pip install 'shoparena[ray]' (or pip install 'ray>=2.60')"
        ) from None
    return ray


class RayDispatcher:
    name = "ray"

    def __init__(
        self,
        ray: Any,
        address: str,
        *,
        catalog_digest: str,
        backend: str = "process",
        image: str | None = None,
        upstream: Upstream | None = None,
        cpus_per_run: float = 1.0,
        memory_mb: int = 1024,
        grace: float = GRACE,
        namespace: str = "shoparena",
        idle: float = IDLE_SECONDS,
    ) -> None:
        self.ray, self.address = ray, address
        self.catalog_digest, self.backend, self.image = catalog_digest, backend, image
        self.upstream = upstream or Upstream()
        self.cpus_per_run, self.memory_mb, self.grace = cpus_per_run, memory_mb, grace
        self.refused: dict[str, str] = {}  # node id -> why it refused (it gets no more runs)
        #: sha256 -> the bundle's bytes in the object store (their ref), once put; being put until then
        self._bundles: dict[str, Future[Any]] = {}
        self._putting = threading.Lock()  # the race opening's thread and the event loop both ask (`bundle_ref`)
        self._ahead = threading.Lock()  # `prepare` may come from the race opening's thread
        self.last_facts: dict[str, Any] = {}
        self.pool = RunnerPool(
            ray,
            namespace,
            cpus=cpus_per_run,
            memory_mb=memory_mb,
            warm_args=(catalog_digest, backend, image, self.upstream),
            idle=idle,
        )

    @classmethod
    def connect(cls, address: str | None, **kw: Any) -> RayDispatcher:
        """Join the cluster at `address` as a driver (once per process)."""
        ray = import_ray()
        if not address:
            raise RayUnavailable(
                "--dispatch ray needs --ray.address: the Ray head's host:port (ray start --head prints it)"
            )
        if not ray.is_initialized():
            _reachable(address)
            try:
                ray.init(
                    address=address,
                    namespace="shoparena",
                    logging_level="WARNING",
                    log_to_driver=False,
                    configure_logging=False,
                )
            except Exception as exc:  # noqa: BLE001 - ConnectionError and Ray's own: said in one line
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise RayUnavailable(
                    f"cannot join the Ray cluster at {address}: {first}; start its head (ray start "
                    "--head) or fix --ray.address"
                ) from None
        return cls(ray, address, **kw)

    # --- placement

    def workers(self) -> list[dict[str, Any]]:
        """The cluster's live worker nodes (labelled shoparena=worker), with how many runs each takes at once."""
        key, value = WORKER_LABEL
        found = []
        for node in self.ray.nodes():
            if not node.get("Alive") or (node.get("Labels") or {}).get(key) != value:
                continue
            resources = node.get("Resources") or {}
            slots = min(
                math.floor(resources.get("CPU", 0.0) / self.cpus_per_run + 1e-9),
                math.floor(resources.get("memory", 0.0) / (self.memory_mb * 2**20) + 1e-9),
            )
            found.append(
                {
                    "node_id": node["NodeID"],
                    "host": node.get("NodeManagerHostname") or "?",
                    "address": node.get("NodeManagerAddress"),
                    "cpus": resources.get("CPU", 0.0),
                    "memory_mb": int(resources.get("memory", 0.0) / 2**20),
                    "slots": max(slots, 0),
                    "refused": self.refused.get(node["NodeID"]),
                }
            )
        return found

    def _refresh(self, timeout: float = 0.0) -> dict[str, str]:
        """The runner pool over the live workers that take runs; returns node id -> why, for runners that refused
        or died on warming up (a refusing worker gets no more runs)."""
        self.pool.refresh([w for w in self.workers() if w["refused"] is None])
        return self.pool.settle(self.refused, timeout)

    def capacity(self, concurrency: int) -> int:
        """Runs the cluster's live workers take now (those that refused work left out, the slots running or holding
        a run too); --concurrency does not apply: each worker's CPUs and memory set its share."""
        self._refresh()
        return len(self.pool.free())

    def bundle_ref(self, sha256: str, agent_dir: Path, packed: Path | None) -> Any:
        """The bundle's ref in the object store for the workers, put once: the first to ask (the race opening's
        thread staging ahead, or a run on the event loop) puts its bytes as committed, else packed (0.1 s); whoever
        asks meanwhile waits for that put. A put that fails is not kept: its error goes to all who waited, and the
        next to ask tries again."""
        with self._putting:
            put = self._bundles.get(sha256)
            first = put is None
            if put is None:
                put = self._bundles[sha256] = Future()
        if first:
            try:
                put.set_result(self.ray.put(_bundle_bytes(sha256, agent_dir, packed)))
            except BaseException as exc:
                with self._putting:
                    if self._bundles.get(sha256) is put:
                        del self._bundles[sha256]
                put.set_exception(exc)
                raise
        return put.result()

    def prepare(self, bundles: Sequence[AgentBundle]) -> None:
        """Every agent put in the object store (once) and sent to each warm runner that has not had it, to stage now
        (`RunnerPool.stage_ahead`), beside the runs and with none waiting on it: a runner's first run of an agent
        then finds it staged, fetched and unpacked already. A bundle that cannot be read here, or fails to stage
        there, is left to its runs: each sends it and stages it as before, and fails as before."""
        from sandbox.bundle import BundleError

        refs = {}
        for agent in bundles:
            try:
                refs[agent.sha256] = self.bundle_ref(agent.sha256, agent.folder, agent.packed)
            except (BundleError, OSError):  # its run finds it so, and is blamed for it as ever
                continue
        with self._ahead:
            self.pool.stage_ahead(refs)

    async def _free_slot(self, bound: float) -> Slot:
        """A runner taking a run: there is one while the dispatch job keeps within `capacity`; a worker lost
        meanwhile can leave none for a while."""
        deadline = time.monotonic() + bound
        while True:
            free = self.pool.free()
            if free:
                return free[0]
            if time.monotonic() > deadline:
                raise DispatchError(blame.WORKER_LOST, f"no worker took the run within {bound:g}s")
            await asyncio.sleep(0.2)
            self._refresh()

    # --- one run

    async def run(self, attempt: Attempt) -> RunOutcome:
        run_id, sha256, limits = attempt.run_id, attempt.sha256, attempt.limits
        request = RunRequest(
            run_id=run_id,
            sha256=sha256,
            problem=attempt.problem,
            limits=limits,
            budgets=attempt.budgets,
            catalog_digest=self.catalog_digest,
            backend=self.backend,
            image=self.image,
            upstream=self.upstream,
            shown_id=attempt.shown_id,
        )
        slot = await self._free_slot(self.grace)
        slot.busy.add(run_id)
        try:
            with self._ahead:
                self.pool.staged_ahead(slot)
            # boxed: Ray hands the runner the ref, which it fetches only if it has not staged the agent (ahead)
            bundle = None if sha256 in slot.staged else [self.bundle_ref(sha256, attempt.agent_dir, attempt.packed)]
        except BaseException:
            slot.busy.discard(run_id)
            raise
        # the miner's key (where it pays) is its own small argument: inlined in the call to the runner, never put in
        # the object store (whose objects may spill to disk); it lives in the runner's memory for the run only
        collected, slot.collected = tuple(slot.collected), []
        ref = slot.handle.run.options(name=f"run-{run_id}").remote(request, bundle, attempt.route, collected)
        reply = await self._reply(ref, limits.wall_seconds + self.grace, slot, run_id)
        slot.staged.add(sha256)
        return self._outcome(reply)

    def held(self, live: set[str]) -> set[str]:
        """Of the runs `live` (left starting or running by an earlier node), those still executing on a runner (or
        with a reply waiting there): `reattach` takes them. Replies of runs not live are dropped."""
        for run_id in set(self.pool.held) - live:
            slot = self.pool.holding(run_id)
            if slot is not None:
                self.pool.release(slot, run_id)
        return set(self.pool.held) & live

    async def reattach(self, run_id: str, limits: Any) -> RunOutcome:
        """The reply of a run an earlier node started on a runner that is still there (`held`)."""
        slot = self.pool.holding(run_id)
        if slot is None:
            raise DispatchError(blame.NODE_INTERRUPTED, "the node lost the run: no worker holds it any more")
        reply = await self._reply(slot.handle.collect.remote(run_id), limits.wall_seconds + self.grace, slot, run_id)
        if reply is None:
            raise DispatchError(blame.NODE_INTERRUPTED, "the node lost the run: its worker no longer holds it")
        return self._outcome(reply)

    def _outcome(self, reply: WorkerReply) -> RunOutcome:
        self.last_facts = reply.facts  # the worker's timing of the run (setup_ms, run_ms): bench/ray_overhead.py
        if reply.refused is not None:
            self.refused[reply.node_id] = reply.refused
            for slot in [s for s in self.pool.slots.values() if s.node_id == reply.node_id]:
                self.pool.drop(slot, kill=not slot.busy)
            raise DispatchError(blame.WORKER_REFUSED, reply.refused)
        assert reply.outcome is not None
        if reply.gateway_died and blame.blame_of(reply.outcome.error_code()[0]) != "validator":
            raise DispatchError(
                blame.GATEWAY_FAULT,
                f"the gateway of worker {reply.node_id[:12]} on {reply.host} stopped serving during the run",
            )
        return reply.outcome

    async def _reply(self, ref: Any, bound: float, slot: Slot, run_id: str) -> Any:
        """The runner's reply to a run within ``bound`` seconds (then the runner drops it and takes the next run),
        `decoded` (None when the runner holds no such run); a lost, stuck or failing worker, or one whose reply
        cannot be read, is a `DispatchError` with its code (the validator's fault, retried)."""
        try:
            reply = await asyncio.wait_for(asyncio.shield(self._future(ref)), timeout=bound)
        except asyncio.CancelledError:
            self.pool.drop(slot, kill=True)  # the node stops: the remote sandbox goes with its runner
            raise
        except TimeoutError:
            self.pool.give_up(slot, run_id, running=True)
            raise DispatchError(
                blame.WORKER_LOST,
                f"the worker did not return the run within its wall clock plus "
                f"{self.grace:g}s ({bound:g}s); its runner is killed",
            ) from None
        except self.ray.exceptions.RayTaskError as exc:  # our code failed on the worker: the sandbox's fault
            self.pool.release(slot, run_id)
            with self._ahead:
                slot.staged.clear()
                slot.staging.clear()
            cause = getattr(exc, "cause", None) or exc
            raise DispatchError(
                blame.SANDBOX_FAILED, f"the run failed on its worker: {type(cause).__name__}: {first_line(cause)}"
            ) from None
        except self.ray.exceptions.RayError as exc:  # the node, the runner or the object is gone
            if isinstance(exc, self.ray.exceptions.RayActorError):  # the runner is gone, and all it held
                self.pool.drop(slot, kill=True)
            else:  # the reply lost on its way: as one that cannot be read
                self.pool.give_up(slot, run_id, running=False)
            raise DispatchError(
                blame.WORKER_LOST, f"worker lost mid-run: {type(exc).__name__}: {first_line(exc)}"
            ) from None
        try:
            reply = None if reply is None else decoded(reply)
        except DispatchError:  # its runner made anew, as on Ray's own failure to read a reply (`RayError` above),
            self.pool.give_up(slot, run_id, running=False)  # unless another run of it would die with it
            raise
        self.pool.release(slot, run_id)
        return reply

    @staticmethod
    def _future(ref: Any) -> Any:
        return asyncio.wrap_future(ref.future())

    # --- runners readied before the first run

    def warm(self, timeout: float = 120.0) -> dict[str, str]:
        """Ready a runner for each run slot of every live worker (`worker.warm`: about 1.5 s of imports, catalog and
        gateway per process, otherwise paid by the first run), adopting those an earlier node of this namespace
        left (and learning which of its runs they hold). A worker that refuses is left out of placement, as a
        refused run leaves it; one that does not answer within `timeout` seconds in all is only reported (a node
        that died just now and is still listed cannot be warmed). Returns node id -> problem."""
        problems = self._refresh(timeout)
        for node_id, problem in problems.items():
            log.warning("ray.warm_failed", node=node_id[:12], problem=problem)
        return problems

    def close(self) -> None:
        """The node stops cleanly: its idle runners end (their slots free for other work); those holding a run
        stay for the next start."""
        self.pool.close()
        with self._putting:
            self._bundles.clear()


def _bundle_bytes(sha256: str, agent_dir: Path, packed: Path | None) -> bytes:
    """The bundle's bytes as committed (``packed``) where they are there and whole, else ``agent_dir`` packed."""
    from sandbox.bundle import pack_dir

    data = packed.read_bytes() if packed is not None and packed.is_file() else b""
    if hashlib.sha256(data).hexdigest() != sha256:
        data = pack_dir(agent_dir).data
    return data


def _reachable(address: str, timeout: float = 5.0) -> None:
    """A head's GCS port (host:port) that does not answer is one line now, not a join that waits for minutes."""
    import re
    import socket

    found = re.fullmatch(r"\[?([^\]]+?)\]?:(\d+)", address.strip())
    if found is None:  # ray://host:port (Ray Client) or "auto": Ray's own join says what is wrong
        return
    try:
        socket.create_connection((found.group(1), int(found.group(2))), timeout=timeout).close()
    except OSError as exc:
        raise RayUnavailable(
            f"cannot reach the Ray head at {address}: {exc.strerror or exc}; start it (ray start "
            "--head) or fix --ray.address"
        ) from None


def decoded(reply: Any) -> WorkerReply:
    """A runner's reply as the node reads it (`validator.dispatch.wire.unpacked`); one that does not unpack, or is
    not a `WorkerReply` (a runner of another version), is the runner's fault: `WORKER_LOST`, retried elsewhere."""
    try:
        got = unpacked(reply)
    except ReplyError as exc:
        raise DispatchError(blame.WORKER_LOST, str(exc)) from None
    if not isinstance(got, WorkerReply):
        raise DispatchError(
            blame.WORKER_LOST,
            f"the worker's reply is of an unknown format ({type(got).__name__}): run its workers at the node's version",
        )
    return got
