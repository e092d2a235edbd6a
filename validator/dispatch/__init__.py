"""Where a run's sandbox runs: the node's own host (`local`, the default) or a worker of a Ray cluster (`ray`).

The race machinery (`validator.races.Arena`) hands every attempt to its dispatcher and gets back the gateway's log
and the sandbox's result (`sandbox.run.RunOutcome`), which it records the same way whichever dispatcher ran it, so
scores, trajectories and weight vectors do not depend on the dispatcher. The store, the chain, the scheduler, the
judge and the weights stay with the node.

A dispatcher that loses a run raises `DispatchError` with the run's error code (`arena.blame`): 2008 a worker lost
or stuck past the run's wall clock plus a grace, 2009 a worker that refused the run (another catalog, no sandbox),
2001 the sandbox failing on the worker. Each is the validator's fault: retried, never a miner's zero.

Ray is an optional dependency (`pip install 'shoparena[ray]'`): nothing here imports it until `--dispatch ray`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena.tasks import ProblemBase
from sandbox.backends import Limits
from sandbox.gateway import Budgets
from sandbox.run import RunOutcome


class DispatchError(Exception):
    """A run the dispatcher could not bring back: `code` is its `arena.blame` code, the message one line."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Attempt:
    """One attempt of a run, as the node hands it to its dispatcher: the problem whole (only its public view enters
    the sandbox, under `shown_id`: its opaque id in this race, `arena.problems.alias`), the agent staged in
    `agent_dir` (bundle `sha256`), the gateway's socket folder, limits, budgets."""

    run_id: str
    agent_dir: Path
    sha256: str
    socket_dir: Path
    problem: ProblemBase
    limits: Limits
    budgets: Budgets
    shown_id: str | None = None
    #: the miner's provider and key where it pays (`sandbox.gateway.MinerRoute`; with Ray, handed to the run's
    #: runner in memory, in the call itself); None: the node's upstream
    route: Any = None
    #: the bundle's bytes as committed (`data_dir/bundles/<sha256>.tar.gz`, beside the unpacked folder a sync keeps):
    #: with Ray, sent as they are rather than packed again from `agent_dir`
    packed: Path | None = None


@dataclass(frozen=True)
class AgentBundle:
    """An agent the node's runs will run, as the node keeps it: bundle `sha256`, its unpacked folder and its bytes as
    committed (`data_dir/bundles/<sha256>` and `<sha256>.tar.gz`; either may be missing)."""

    sha256: str
    folder: Path
    packed: Path | None = None


class Dispatcher(Protocol):
    name: str

    def prepare(self, bundles: Sequence[AgentBundle]) -> None:
        """Stage these agents where their runs will go, ahead of the runs and with nothing waiting on it (Ray: on
        every runner). Nobody's fault when it fails: each run stages its agent itself as it always did."""
        ...

    def capacity(self, concurrency: int) -> int:
        """How many runs may be in flight at once now (`concurrency` is the node's --concurrency)."""
        ...

    async def run(self, attempt: Attempt) -> RunOutcome:
        """One attempt of a run, its sandbox's result and its gateway's log; `DispatchError` when it is lost."""
        ...

    def held(self, live: set[str]) -> set[str]:
        """Of the runs `live` (left starting or running by an earlier node), those still executing under this
        dispatcher, whose outcome `reattach` brings back instead of running them again."""
        ...

    async def reattach(self, run_id: str, limits: Limits) -> RunOutcome:
        """The outcome of a run `held` found still executing; `DispatchError` when it is lost."""
        ...

    def close(self) -> None: ...


def open_dispatcher(settings: Any, *, gateway: Any, sandbox: Any, catalog_digest: str) -> Dispatcher:
    """The dispatcher the settings name (`--dispatch`); `RayUnavailable` (one line) when Ray is missing or its
    cluster cannot be reached, or for a sandbox runtime the workers are not given (their sandboxes use the engine's
    default runtime)."""
    if settings.dispatch == "ray":
        from validator.dispatch.ray import RayDispatcher, RayUnavailable

        if getattr(settings, "sandbox_runtime", None):
            raise RayUnavailable(
                f"--sandbox.runtime {settings.sandbox_runtime} is not passed to Ray workers; drop it or use "
                "--dispatch local"
            )

        dispatcher = RayDispatcher.connect(
            settings.ray_address,
            namespace=namespace_of(settings.data_dir),
            catalog_digest=catalog_digest,
            backend=settings.sandbox_backend,
            image=settings.sandbox_image,
            upstream=gateway.upstream,
            cpus_per_run=settings.ray_cpus_per_run,
            memory_mb=settings.sandbox_memory_mb,
        )
        dispatcher.warm()  # each worker process readied now, not by its first run
        return dispatcher
    from validator.dispatch.local import LocalDispatcher

    return LocalDispatcher(gateway, sandbox)


def namespace_of(data_dir: Path) -> str:
    """The node's Ray namespace, named after its data folder: a node restarted on the same folder finds the runners
    (and the runs on them) it left; another node on the same cluster never sees them."""
    import hashlib

    return "shoparena-" + hashlib.sha256(str(Path(data_dir).expanduser().resolve()).encode()).hexdigest()[:16]


__all__ = ["AgentBundle", "DispatchError", "Dispatcher", "namespace_of", "open_dispatcher"]
