"""The race machinery of one validator node: its parts put together, its lifecycle, closing, health."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from arena import blame, owner
from arena.catalog import Catalog
from arena.judge import Judge
from arena.problems.pack import Pack as ProblemPack
from sandbox.backends import Sandbox
from sandbox.gateway import Gateway, GatewayServer
from validator.chain.port import ChainPort
from validator.dispatch import Dispatcher
from validator.qualifying import Qualifying
from validator.races.base import ArenaParts, Problems, Signals
from validator.races.closing import Closing
from validator.races.config import ArenaConfig
from validator.races.copying import Copying
from validator.races.dispatching import Dispatching
from validator.races.judging import Judging
from validator.races.opening import Opening
from validator.races.pooling import Pooling
from validator.races.stages import StageTimes
from validator.races.weighing import Weighing
from validator.store.models import Run
from validator.store.repository import Store, StoreError
from validator.upkeep.sweeps import OWNER_FILE


class Arena(ArenaParts):
    """The race machinery of one validator node. `start()` serves the gateway; every job method is idempotent."""

    def __init__(
        self,
        *,
        store: Store,
        chain: ChainPort,
        wallet: Any,
        pack: ProblemPack,
        catalog: Catalog,
        sandbox: Sandbox | None,
        config: ArenaConfig,
        gateway: Gateway | None = None,
        judge: Judge | None = None,
        metrics: Any = None,
        log: Any = None,
        dispatcher: Dispatcher | None = None,
    ) -> None:

        self.store, self.chain, self.wallet = store, chain, wallet
        self.pack, self.catalog, self.sandbox, self.config = pack, catalog, sandbox, config
        self.gateway = gateway or Gateway(catalog)
        if dispatcher is None:  # the node's own sandbox (`validator.dispatch`: local, or a Ray cluster's workers)
            from validator.dispatch.local import LocalDispatcher

            assert sandbox is not None, "local dispatch needs a sandbox"
            dispatcher = LocalDispatcher(self.gateway, sandbox)
        self.dispatcher = dispatcher
        self.log = log
        self._owner: IO[bytes] | None = None  # the lock on the work folder's owner file, held while the node runs
        self.signals = Signals(log)
        self.metrics = metrics  # a validator.metrics.Metrics, or None; it reports `progress` at each scrape
        self.problems = Problems(pack, store)
        self.stages = StageTimes()
        self.qualifying = Qualifying(self)
        shared: dict[str, Any] = {"store": store, "config": config, "problems": self.problems, "signals": self.signals}
        self.opening = Opening(chain=chain, wallet=wallet, pack=pack, qualifying=self.qualifying, **shared)
        self.judging = Judging(stages=self.stages, judge=judge, busy=lambda run_id: run_id in self.in_flight, **shared)
        self.dispatching = Dispatching(
            catalog=catalog, pack=pack, dispatcher=dispatcher, judging=self.judging, stages=self.stages, **shared
        )
        self.dispatching.ahead = self.prepare
        self.closing = Closing(qualifying=self.qualifying, stages=self.stages, **shared)
        self.closing.confirm = self._fault_holds  # a race is voided only for a fault the node's own probe meets
        self.dispatching.last_try = self.closing.last_try
        self.weighing = Weighing(store=store, chain=chain, wallet=wallet, config=config, signals=self.signals)
        self.pooling = Pooling(self)  # results bundles published at close, pooled before the weights (`--pool`)
        self.weighing.source = self.pooling.weigh_input  # the pooled standings: `Weighing` waits for them (None)
        if config.fork_rule:  # copies earn nothing
            copying = Copying(store=store, config=config, signals=self.signals, chain=chain, wallet=wallet, pack=pack)
            self.weighing.copies = copying.judge

    @property
    def policy(self) -> Any:
        """The live weight policy (`Weighing`)."""
        return self.weighing.policy

    @property
    def shadow_policy(self) -> Any:
        """The shadow weight policy, or None (`Weighing`)."""
        return self.weighing.shadow_policy

    @property
    def in_flight(self) -> dict[str, asyncio.Task[Any]]:
        """The runs in a sandbox now (`Dispatching`)."""
        return self.dispatching.in_flight

    @property
    def _work(self) -> Path | None:
        return self.dispatching.work

    @property
    def _batch_since(self) -> dict[int, float]:
        """When each sealed slot that waits to open first waited (`Opening`)."""
        return self.opening.batch_since

    @property
    def _server(self) -> GatewayServer | None:
        server: GatewayServer | None = self.dispatching.server
        return server

    @property
    def metrics(self) -> Any:
        return self._metrics

    @metrics.setter
    def metrics(self, metrics: Any) -> None:
        self._metrics = self.signals.metrics = metrics
        if metrics is not None and hasattr(metrics, "watch"):
            metrics.watch(self.progress)

    def start(self) -> None:
        """Serve the gateway on a private unix socket and register the pack; safe to call once per process."""
        work = self.dispatching.work = Path(tempfile.mkdtemp(prefix="shoparena-node-"))
        os.chmod(work, 0o711)
        # whose it is: locked for the node's life (not inherited by its children: Python's files close on exec), the
        # janitor removes it once the lock is free and that pid gone (`validator.upkeep.sweeps.dead_work`)
        self._owner = owner.claim(work / OWNER_FILE)
        assert self._owner is not None, "a fresh folder's owner file is nobody else's"
        self._owner.write(str(os.getpid()).encode())
        self._owner.flush()
        self.dispatching.server = GatewayServer(self.gateway, work / "gw" / "gateway.sock").start()
        self.store.add_pack(
            pack_id=self.pack.pack_id,
            name=self.pack.pack_id,
            digest=self._pack_digest(),
            problems=[p.model_dump(mode="json") for p in self.pack.problems],
            signer=self.pack.signer,
            catalog_digest=self.pack.catalog_digest,
            rotation=self.pack.rotation.model_dump(mode="json"),
        )

    def stop(self) -> None:
        self.dispatching.offloop.close()  # the run path's thread, once what it was given is done
        if self._server is not None:
            self._server.stop()
            self.dispatching.server = None
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)
            self.dispatching.work = None
        if self._owner is not None:
            self._owner.close()
            self._owner = None

    def _pack_digest(self) -> str:
        return hashlib.sha256(self.pack.payload_bytes()).hexdigest()

    def use_keys(self, keys: Any) -> None:
        """Miners pay for their runs' LLM calls with their own keys (`validator.races.keys.KeyRing`), each race's
        keys forgotten as soon as it closes."""
        self.dispatching.keys = keys
        self.qualifying.keys = keys
        self.closing.on_closed.append(keys.forget)

    def _fault_holds(self, code: int) -> tuple[bool, str]:
        """Whether the node's own probe still meets the fault behind a held race (`Closing.confirm`): its upstream
        LLM answering a one-token completion (2005), its sandbox backend answering (2001, this host's); a miner's own
        provider failing (2011) is never the node's: the race goes on without those runs; any other validator fault
        is taken as the node's. Returns (still down, what the probe saw)."""
        from validator.health import sandbox_check, upstream_answers

        if code == blame.PROVIDER_DOWN:
            return False, "the miner's own provider failed: nobody's fault, the race goes on without those runs"

        if code == blame.UPSTREAM_LLM_DOWN:
            return upstream_answers(self.gateway)
        if code == blame.SANDBOX_FAILED and self.sandbox is not None:
            state, detail = sandbox_check(self.sandbox)
            return state is not True, detail
        return True, f"no probe for {blame.lookup(code).name} ({code}): the node's"

    def recover(self) -> int:
        """End the attempt of every run left `starting` or `running` with no sandbox of this node behind it (a dead
        node's, or one whose outcome a fault of ours could not store), with its code (2003 when the store failed
        under it, else 2006), and retry it; a run still executing under the dispatcher (a Ray runner the dead node
        left) is left to the dispatch job, which re-attaches to it (`Dispatching.hold`); score runs left `scoring`
        without a strict score; finish runs left `judged`. Run at start and periodically while the node runs, on
        the event loop (so no run of this node moves in or out of flight meanwhile). Returns how many runs were
        recovered; a run that cannot be recovered now (the store is still down) is tried again next time."""
        count = 0
        self.heal()
        left = [
            r
            for r in self.store.runs(status=("starting", "running"))
            if r.run_id not in self.in_flight and r.run_id not in self.dispatching.reattaching
        ]
        held = self.dispatching.hold(left)  # still executing on a cluster worker: the dispatch job takes its outcome
        for run in left:
            if run.run_id in held:
                continue
            code, error = self.dispatching.lost.pop(
                run.run_id, (blame.NODE_INTERRUPTED, f"the node lost the run while it was {run.status}")
            )
            try:
                self.dispatching.fail(run.run_id, code, error)
            except StoreError as exc:  # it moved meanwhile (another node's worker): nothing of ours to recover
                self._warn("races.recover_skip", run_id=run.run_id, reason=str(exc))
                continue
            count += 1
        for run in self.store.runs(status="scoring"):
            if run.run_id not in self.in_flight and self.store.score(run.run_id) is None:
                self.dispatching.lost.pop(run.run_id, None)
                self.dispatching.score_or_fail(
                    run.run_id
                )  # its strict score was not stored; the judge job takes it from there
                count += 1
        for run in self.store.runs(status="judged"):
            score = self.store.score(run.run_id)
            if score is not None and score.final is not None:
                self.store.transition(run.run_id, "finished", error=None)
            else:
                self.dispatching.fail(run.run_id, blame.STORE_FAULT, "the run was left judged without its final score")
            count += 1
        if count:
            self._info("races.recovered", runs=count)
        return count

    def heal(self) -> bool:
        """Serve the gateway again if its server died (the runs it failed were ended 2002). Returns whether it was
        restarted."""
        if self._server is None or self._server.alive or self._work is None:
            return False
        self._warn("gateway.restarting", socket=str(self._server.socket_path))
        self._server.stop()
        self.dispatching.server = GatewayServer(self.gateway, self._work / "gw" / "gateway.sock").start()
        return True

    def reap(self) -> int:
        """Remove sandboxes no run of this node owns (left by a crash)."""
        reap = getattr(self.sandbox, "reap", None)
        if reap is None:
            return 0
        live = set(self.in_flight)
        # a run that went into flight while the store was read is still in flight now: never reap a live sandbox
        stale = {r.run_id for r in self.store.runs(status=("starting", "running"))} - live - set(self.in_flight)
        return int(reap(stale)) if stale else 0

    # --- the components' jobs, as the scheduler, the CLI and the tests call them

    async def dispatch(self, limit: int | None = None) -> int:
        return await self.dispatching.dispatch(limit)

    def open_race(self, block: int | None = None) -> str | None:
        race_id = self.opening.open_race(block)
        if race_id is not None:  # its agents staged where they will run while its first runs wait for the dispatch
            self.prepare(self.store.runs(race_id=race_id, status="pending"))
        return race_id

    def prepare(self, runs: list[Run]) -> None:
        """The agents of `runs` staged ahead where they will run (`Dispatcher.prepare`: on every Ray runner), with no
        run waiting on it. Never fails its caller: each run still stages its agent itself, blamed as ever."""
        from validator.dispatch import AgentBundle

        try:
            shas = sorted({sha for sha in map(self.dispatching._bundle, {r.submission_id for r in runs}) if sha})
            root = self.config.data_dir / "bundles"
            self.dispatcher.prepare([AgentBundle(sha, root / sha, root / f"{sha}.tar.gz") for sha in shas])
        except Exception as exc:  # noqa: BLE001 - the runs stage their agents themselves
            self.signals.warn("races.prepare_failed", error=f"{type(exc).__name__}: {exc}")

    def candidates(self, before_block: int | None = None) -> list[Any]:
        return self.opening.candidates(before_block)

    def _eligible(self, before_block: int | None = None) -> list[Any]:
        return self.opening.eligible(before_block)

    def batch_waiting(self) -> dict[int, str]:
        return self.opening.batch_waiting()

    def batches_stuck(self, after: float = 600.0) -> dict[int, tuple[float, str]]:
        return self.opening.batches_stuck(after)

    def final(self, run: Run) -> bool:
        return self.closing.final(run)

    def close_races(self) -> list[str]:
        return self.closing.close_races()

    async def judge_runs(self, limit: int | None = None) -> int:
        return await self.judging.judge_runs(limit)

    def weigh(self) -> int | None:
        return self.weighing.weigh()

    def set_weights(self) -> str | None:
        return self.weighing.set_weights()

    def progress(self, now: float | None = None) -> dict[str, Any]:
        """Whether the node progresses, from the store: runs in a sandbox past their wall clock plus
        `stuck_grace`, running races no run of which moved for `race_stall` seconds while some are not final, the
        latest closed race when its weights are not set `weights_grace` seconds after it closed, and the races that
        wait for a validator fault to clear (`Closing.hold`)."""
        from datetime import UTC, datetime

        now_dt = datetime.fromtimestamp(time.time() if now is None else now, UTC)
        wall = self.config.limits.wall_seconds + self.config.stuck_grace
        overdue = []
        for run in self.store.runs(status=("starting", "running")):
            began = run.starting_at or run.created_at
            if began is not None and (now_dt - began).total_seconds() > wall:
                overdue.append(run.run_id)
        stalled, fault_waits = [], []
        for race in self.store.races(status="running", kind=None):
            if race.held_since is not None:  # waiting for a validator fault to clear (`Closing.hold`)
                waited = (now_dt - race.held_since).total_seconds()
                fault_waits.append({"race_id": race.race_id, "seconds": round(waited, 1), "reason": race.reason})
            unfinal, moved = self.store.race_progress(race.race_id, max_attempts=self.config.max_attempts)
            if not unfinal:
                continue
            last = max(t for t in (race.opened_at, moved) if t is not None)
            if (now_dt - last).total_seconds() > self.config.race_stall:
                stalled.append(race.race_id)
        unset: dict[str, Any] | None = None
        closed = self.store.races(status="closed")
        if closed and closed[-1].closed_at is not None:
            race = closed[-1]
            sets = [ws for ws in self.store.weight_sets() if ws.race_id == race.race_id]
            age = (now_dt - closed[-1].closed_at).total_seconds()
            waiting = not sets and self.pooling.waiting(race.race_id)  # its weights wait for the pool, not due yet
            if not any(ws.status == "set" for ws in sets) and age > self.config.weights_grace and not waiting:
                newest = sets[-1] if sets else None
                unset = {
                    "race_id": race.race_id,
                    "seconds": round(age, 1),
                    "status": newest.status if newest else "not computed",
                    "error": (newest.outcome or {}).get("message") if newest else None,
                }
        return {"overdue_runs": overdue, "stalled_races": stalled, "weights_unset": unset, "fault_waits": fault_waits}
