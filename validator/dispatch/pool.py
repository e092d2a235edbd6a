"""The node's run slots on a Ray cluster (`validator.dispatch.ray`): one `Runner` actor per run slot of each worker.

A runner is a detached named actor (`runner-<worker node id>-<slot>`, in the node's own Ray namespace) pinned to its
worker, holding that slot's CPUs and memory for as long as it lives and its process warm between runs (catalog,
sandbox, gateway, the agents sent to it). Detached, it outlives the node's Ray driver: a node that starts adopts
the runners of its namespace as they are (`get_if_exists`), learns from their warm-up which runs an earlier node
left executing on them (`held`), and collects those runs' replies instead of running them again. A runner whose
worker died is dropped; one that is stuck or whose run the node gives up is killed (its sandbox with it) and made
anew on the next refresh.

Nothing here imports Ray at module level: the dispatcher hands it the `ray` module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from validator.dispatch.worker import Runner, WorkerReply

#: seconds a runner with no call and nothing to hand over lives on (a node that stopped for good frees its slots)
IDLE_SECONDS = 900.0


@dataclass
class Slot:
    name: str
    node_id: str
    handle: Any
    warming: Any = None  # the warm-up's object ref until it answered
    pid: int | None = None  # the runner's process (for an operator, and the tests' faults)
    work: str | None = None  # its private work folder on the worker (staged agents, the gateway's socket)
    busy: set[str] = field(default_factory=set)  # the run(s) it runs or holds a reply of
    staged: set[str] = field(default_factory=set)  # the bundles it staged: not sent again
    #: bundles sent to it to stage ahead of their runs (`stage_ahead`): the call's ref until it answered, then None
    #: for one that failed there (its runs send it, and stage it as they did before)
    staging: dict[str, Any] = field(default_factory=dict)
    collected: list[str] = field(default_factory=list)  # replies the node has: dropped by its next run call
    #: a run given up while still running here (`RunnerPool.give_up`): the runner takes no run and is killed once
    #: it has nothing else to run or hand over
    doomed: bool = False


class RunnerPool:
    def __init__(
        self, ray: Any, namespace: str, *, cpus: float, memory_mb: int, warm_args: tuple[Any, ...], idle: float
    ) -> None:
        self.ray, self.namespace = ray, namespace
        self.cpus, self.memory_mb, self.warm_args, self.idle = cpus, memory_mb, warm_args, idle
        self.slots: dict[str, Slot] = {}
        self.held: dict[str, str] = {}  # run id -> the slot holding it, left executing by an earlier node
        self._runner = ray.remote(Runner)

    def refresh(self, workers: list[dict[str, Any]]) -> None:
        """A runner for every slot of the live workers given (adopted where one is there already); the slots of
        workers no longer listed dropped."""
        alive = {w["node_id"] for w in workers}
        for slot in [s for s in self.slots.values() if s.node_id not in alive]:
            self.drop(slot, kill=False)
        for worker in workers:
            for i in range(worker["slots"]):
                name = f"runner-{worker['node_id'][:16]}-{i}"
                if name not in self.slots:
                    self.slots[name] = self._open(name, worker["node_id"])

    def _open(self, name: str, node_id: str) -> Slot:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        handle = self._runner.options(
            name=name,
            namespace=self.namespace,
            lifetime="detached",
            get_if_exists=True,
            num_cpus=self.cpus,
            memory=self.memory_mb * 2**20,
            max_restarts=0,
            max_concurrency=8,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
        ).remote(self.idle, self.namespace)
        return Slot(name, node_id, handle, warming=handle.warm.remote(*self.warm_args))

    def settle(self, refused: dict[str, str], timeout: float = 0.0) -> dict[str, str]:
        """Take the warm-ups that answered (within `timeout` seconds for all): a runner holding runs of an earlier
        node is busy with them; one that refused (its worker put in `refused`) or died is dropped. Returns node id
        -> why, for those."""
        pending = {s.warming: s for s in self.slots.values() if s.warming is not None}
        if not pending:
            return {}
        ready, _ = self.ray.wait(list(pending), num_returns=len(pending), timeout=timeout)
        problems: dict[str, str] = {}
        for ref in ready:
            slot = pending[ref]
            slot.warming = None
            try:
                reply: WorkerReply = self.ray.get(ref)
            except self.ray.exceptions.RayError as exc:
                problems[slot.node_id] = f"{type(exc).__name__}: {first_line(exc)}"
                self.drop(slot, kill=not isinstance(exc, self.ray.exceptions.RayActorError))
                continue
            if reply.refused is not None:
                problems[slot.node_id] = refused[slot.node_id] = reply.refused
                self.drop(slot, kill=True)
                continue
            slot.pid, slot.work = reply.facts.get("pid"), reply.facts.get("work")
            for run_id in reply.facts.get("held", []):
                self.held[run_id] = slot.name
            slot.busy |= set(reply.facts.get("running", []))  # a reply waiting there leaves the slot free
        return problems

    def free(self) -> list[Slot]:
        """The runners taking a run now: warmed up, with nothing to run or hand over (one still waiting for its
        worker's resources, or warming up, takes none yet)."""
        return [s for s in self.slots.values() if not s.busy and s.warming is None and not s.doomed]

    def stage_ahead(self, bundles: dict[str, Any]) -> None:
        """Bundles (sha256 -> their bytes in the object store) sent to every warm runner that neither staged them nor
        was sent them, in one call a runner (`Runner.stage`: one after the other, beside its run)."""
        # a copy taken at once (in C, under the GIL): the event loop adds and drops slots while a race's opening
        # thread stages ahead, and a loop over the dict itself could meet it changed
        for slot in [s for s in list(self.slots.values()) if s.warming is None]:
            wanted = {sha: ref for sha, ref in bundles.items() if sha not in slot.staged and sha not in slot.staging}
            if wanted:
                ref = slot.handle.stage.remote(wanted)
                slot.staging.update(dict.fromkeys(wanted, ref))

    def staged_ahead(self, slot: Slot) -> None:
        """The slot's ahead stagings that answered, taken (never waited for): each agent it staged is sent with no
        run of it any more; one that failed there is sent with its runs."""
        pending = {id(ref): ref for ref in slot.staging.values() if ref is not None}
        if not pending:
            return
        ready, _ = self.ray.wait(list(pending.values()), num_returns=len(pending), timeout=0)
        for ref in ready:
            try:
                done = set(self.ray.get(ref))
            except self.ray.exceptions.RayError:  # the runner's fault shows in its runs, if it is one
                done = set()
            for sha in [sha for sha, sent in slot.staging.items() if sent is ref]:
                slot.staging[sha] = None
                if sha in done:
                    del slot.staging[sha]
                    slot.staged.add(sha)

    def holding(self, run_id: str) -> Slot | None:
        name = self.held.get(run_id)
        return None if name is None else self.slots.get(name)

    def release(self, slot: Slot, run_id: str) -> None:
        """The node has the run's reply (or gave it up): the slot takes the next run, and the runner drops the reply
        when it gets it (or, with no next run, when it ends)."""
        slot.busy.discard(run_id)
        self.held.pop(run_id, None)
        slot.collected.append(run_id)  # told with the next run: one call a run, not two
        if slot.doomed and not self.keeps(slot):
            self.drop(slot, kill=True)

    def keeps(self, slot: Slot, run_id: str | None = None) -> bool:
        """Whether the slot's runner has a run other than `run_id` to run or to hand over: one it runs (`busy`) or
        one an earlier node left there whose reply waits (`held`, not busy by design: `settle`)."""
        return bool(slot.busy - {run_id}) or any(n == slot.name for r, n in self.held.items() if r != run_id)

    def give_up(self, slot: Slot, run_id: str, *, running: bool) -> None:
        """The node gives up the run on its runner (docs/cluster.md, "Faults"): the runner killed (its sandbox with
        it) and made anew on the next refresh; unless it has another run to run or hand over (`keeps`), which would
        die with it, a finished run's result lost: then the run is released and that other run goes on. A run given
        up while `running` still there (stuck) has its runner take no run more and killed once the others are done."""
        if not self.keeps(slot, run_id):
            self.drop(slot, kill=True)
            return
        slot.doomed = slot.doomed or running
        self.release(slot, run_id)

    def drop(self, slot: Slot, *, kill: bool) -> None:
        """The slot out of the pool (made anew on the next refresh); `kill`: its runner ended, its sandbox with it."""
        if self.slots.get(slot.name) is slot:
            del self.slots[slot.name]
        for run_id in slot.busy:
            self.held.pop(run_id, None)
        if kill:
            try:
                self.ray.kill(slot.handle, no_restart=True)
            except Exception:  # noqa: BLE001 - gone already
                pass

    def close(self) -> None:
        """A node that stops cleanly frees the slots it is not running or holding anything on."""
        for slot in list(self.slots.values()):
            if not self.keeps(slot):
                self.drop(slot, kill=True)


def first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__
