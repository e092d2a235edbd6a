"""The race machinery of one validator node: its parts put together, its lifecycle, closing, health."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from arena import blame
from arena.catalog import Catalog
from arena.judge import Judge
from arena.problems.pack import Pack as ProblemPack
from arena.ranking import ranked
from arena.weights import parse_policy
from sandbox.backends import Sandbox
from sandbox.gateway import Gateway, GatewayServer
from validator.chain.port import ChainPort
from validator.dispatch import Dispatcher
from validator.qualifying import Qualifying
from validator.races.config import ArenaConfig
from validator.races.draw import race_scores
from validator.races.opening import Opening
from validator.races.pooling import Pooling
from validator.races.running import Running
from validator.races.sampling import race_standings
from validator.races.stages import StageTimes
from validator.races.weighing import Weighing
from validator.store.models import Run
from validator.store.repository import Store, StoreError


class Arena(Running, Opening, Weighing):
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
        from arena.judge.offline import OfflineJudge

        self.store, self.chain, self.wallet = store, chain, wallet
        self.pack, self.catalog, self.sandbox, self.config = pack, catalog, sandbox, config
        self.gateway = gateway or Gateway(catalog)
        if dispatcher is None:  # the node's own sandbox (`validator.dispatch`: local, or a Ray cluster's workers)
            from validator.dispatch.local import LocalDispatcher

            assert sandbox is not None, "local dispatch needs a sandbox"
            dispatcher = LocalDispatcher(self.gateway, sandbox)
        self.dispatcher = dispatcher
        self.fallback_judge = OfflineJudge()
        self.judge = judge or self.fallback_judge
        self._judge_tokens: dict[str, int] = defaultdict(int)  # LLM judge tokens spent per race
        self._judge_failures: dict[str, int] = defaultdict(int)
        self.policy = parse_policy(config.weight_policy, burn_uid=config.burn_uid)
        self.shadow_policy = (
            parse_policy(config.weight_shadow, burn_uid=config.burn_uid) if config.weight_shadow else None
        )
        self.log = log
        self.metrics = metrics  # a validator.metrics.Metrics, or None; it reports `progress` at each scrape
        self.in_flight: dict[str, asyncio.Task[Any]] = {}
        self._problems = {p.problem_id: p for p in pack.problems}
        self._vectors: dict[str, list[str]] = {}  # gold title embeddings of opened sealed batches
        self._batch_wait: dict[int, tuple[float, int, str]] = {}  # slot -> (next try, failures, why it waits)
        self._batch_since: dict[int, float] = {}  # slot -> when its batch first waited
        self._sync_wait: dict[int, float] = {}  # slot -> when it first waited for the submissions sync
        self._relay: Any = None
        self._work: Path | None = None
        self._server: GatewayServer | None = None
        self._judging: set[str] = set()
        # runs scored in this process, to judge now: (when, their gateway log, their strict success)
        self._scored: dict[str, tuple[tuple[float, float], list[Any], float]] = {}
        self._bundles: dict[int, str] = {}  # submission id -> its bundle's sha256 (never changes)
        self._judge_gate: tuple[Any, asyncio.Semaphore] | None = None  # (its event loop, the gate)
        self.stages = StageTimes()
        self._lost: dict[str, tuple[int, str]] = {}  # runs whose attempt a fault of ours ended unrecorded
        self.qualifying = Qualifying(self)
        self.pooling = Pooling(self)  # results bundles published at close, pooled before the weights (`--pool`)
        self._qualify_wait: str | None = None  # why the current race waits for qualifications (logged once)

    @property
    def metrics(self) -> Any:
        return self._metrics

    @metrics.setter
    def metrics(self, metrics: Any) -> None:
        self._metrics = metrics
        if metrics is not None and hasattr(metrics, "watch"):
            metrics.watch(self.progress)

    def start(self) -> None:
        """Serve the gateway on a private unix socket and register the pack; safe to call once per process."""
        self._work = Path(tempfile.mkdtemp(prefix="shoparena-node-"))
        os.chmod(self._work, 0o711)
        self._server = GatewayServer(self.gateway, self._work / "gw" / "gateway.sock").start()
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
        if self._server is not None:
            self._server.stop()
            self._server = None
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)
            self._work = None

    def _pack_digest(self) -> str:
        return hashlib.sha256(self.pack.payload_bytes()).hexdigest()

    def recover(self) -> int:
        """End the attempt of every run left `starting` or `running` with no sandbox of this node behind it (a dead
        node's, or one whose outcome a fault of ours could not store), with its code (2003 when the store failed
        under it, else 2006), and retry it; score runs left `scoring` without a strict score; finish runs left
        `judged`. Run at start and periodically while the node runs, on the event loop (so no run of this node moves
        in or out of flight meanwhile). Returns how many runs were recovered; a run that cannot be recovered now
        (the store is still down) is tried again next time."""
        count = 0
        self.heal()
        for run in self.store.runs(status=("starting", "running")):
            if run.run_id in self.in_flight:
                continue
            code, error = self._lost.pop(
                run.run_id, (blame.NODE_INTERRUPTED, f"the node lost the run while it was {run.status}")
            )
            try:
                self._fail(run.run_id, code, error)
            except StoreError as exc:  # it moved meanwhile (another node's worker): nothing of ours to recover
                self._warn("races.recover_skip", run_id=run.run_id, reason=str(exc))
                continue
            count += 1
        for run in self.store.runs(status="scoring"):
            if run.run_id not in self.in_flight and self.store.score(run.run_id) is None:
                self._lost.pop(run.run_id, None)
                self._score_or_fail(run.run_id)  # its strict score was not stored; the judge job takes it from there
                count += 1
        for run in self.store.runs(status="judged"):
            score = self.store.score(run.run_id)
            if score is not None and score.final is not None:
                self.store.transition(run.run_id, "finished", error=None)
            else:
                self._fail(run.run_id, blame.STORE_FAULT, "the run was left judged without its final score")
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
        self._server = GatewayServer(self.gateway, self._work / "gw" / "gateway.sock").start()
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

    def final(self, run: Run) -> bool:
        if run.status == "finished":
            return True
        return run.status == "errored" and (run.blame == "agent" or run.attempt >= self.config.max_attempts)

    def close_races(self) -> list[str]:
        """Close every running race whose runs are all final; store its results. Returns the races closed.

        A race still running costs one aggregate query per call (how many of its runs are not final); its runs and
        scores are read once, in one query, when it closes."""
        started = self.stages.now()
        try:
            return self._close_races()
        finally:
            self.stages.add("close", started)

    def _close_races(self) -> list[str]:
        closed = []
        for race in self.store.races(status="running", kind=None):
            if self.store.unfinal_runs(race.race_id, max_attempts=self.config.max_attempts):
                continue
            rows = self.store.race_rows(race.race_id)
            for row in rows:
                row["task"] = getattr(self._problem(row["problem_id"]), "task", "?")
            scores = race_scores(rows, self.config.max_attempts)
            uids = {m.hotkey: m.uid for m in self.store.miners()}
            blocks = {}
            for hotkey, s in scores.items():
                sub = self.store.submission(s["submission_id"])
                blocks[hotkey] = sub.commitment_block if sub else 0
            if race.kind == "race":  # the standing over the rotation's window, with how sure it is
                window = self.pack.rotation.window
                for hotkey, standing in race_standings(self.store, race, rows, blocks, window).items():
                    scores[hotkey].update(standing)
            order = ranked({h: s["score"] for h, s in scores.items()}, blocks)
            results = [
                {"hotkey": h, "uid": uids.get(h), "commitment_block": blocks[h], **scores[h], "rank": i + 1}
                for i, h in enumerate(order)
            ]
            self.store.save_race_results(race.race_id, results)
            if race.kind == "qualifying":
                self.qualifying.decide(race.race_id, scores)
                closed.append(race.race_id)
                continue
            self._info(
                "races.closed",
                race_id=race.race_id,
                miners=len(results),
                best=results[0]["hotkey"] if results else None,
            )
            closed.append(race.race_id)
        return closed

    def progress(self, now: float | None = None) -> dict[str, Any]:
        """Whether the node progresses, from the store: runs in a sandbox past their wall clock plus
        `stuck_grace`, running races no run of which moved for `race_stall` seconds while some are not final, and
        the latest closed race when its weights are not set `weights_grace` seconds after it closed."""
        from datetime import UTC, datetime

        now_dt = datetime.fromtimestamp(time.time() if now is None else now, UTC)
        wall = self.config.limits.wall_seconds + self.config.stuck_grace
        overdue = []
        for run in self.store.runs(status=("starting", "running")):
            began = run.starting_at or run.created_at
            if began is not None and (now_dt - began).total_seconds() > wall:
                overdue.append(run.run_id)
        stalled = []
        for race in self.store.races(status="running", kind=None):
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
        return {"overdue_runs": overdue, "stalled_races": stalled, "weights_unset": unset}
