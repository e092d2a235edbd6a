"""Race lifecycle: open a race when the pack's rotation says so, dispatch one run per (submission, problem) to the
sandbox, score each run, close the race, and turn its results into a weight vector on chain.

Every step reads its state from the store and writes its outcome there before the next step looks, so each can be
repeated or resumed after a crash or a fault: `Arena.recover`, at start and then periodically while the node runs,
ends the attempt of every run left `starting`/`running` with no sandbox of this node behind it (2006, or 2003 when
the store failed under it) and retries it, scores runs left `scoring` without a score, and finishes runs left
`judged`; a `finished` run is never run again. Every failure ends a run with a code of `arena.blame`'s table:

- `open_race`: the race's start block is the last multiple of the rotation's cadence; its problems are drawn from
  the pack's race pool with the hash of that block as seed (`draw_problems`), so every honest validator with the same
  chain and pack draws the same problems; held-out and public problems are never drawn;
- `dispatch`: ready pending runs go to the sandbox under a concurrency limit; the gateway's log is the trajectory,
  stored with the run's status change in one commit; validator-blamed errors (2xxx: the sandbox engine, the
  gateway, the store, the upstream LLM failing at any point of the run, even when the agent caught the error) are
  retried with exponential backoff up to `max_attempts`; agent-blamed errors (1xxx, among them no answer 1006,
  budget exhausted 1007 and an invalid bundle 1008) are final and count 0; every attempt's error is kept in the
  run's `sandbox.attempts` for the run page;
- judging: the reasoning judge reads a strictly scored run's gateway log as soon as the run is scored, never
  waiting for a job's interval: the offline judge (CPU only, a few ms) right away, its verdict stored in the same
  commit as the trajectory and the strict score; a judge with I/O (the LLM judge) once `dispatch` has freed the
  run's sandbox slot, in a thread, `judge_concurrency` runs at a time. Its coefficient makes the final score
  (`success * coeff`); a judge that cannot judge (upstream down, malformed answers) leaves the run `scoring` to be
  judged again later by `judge_runs` (the periodic sweep, which also judges runs `recover` scored), never a zero;
- `close_races`: when every run is final (one aggregate query per running race and tick, no run read), a miner's
  race score is the mean final score over the race's problems (agent errors count 0; a problem the validator could
  not run for them after every attempt is left out);
- `weigh` / `set_weights`: the policy of `arena.weights` over the metagraph's uids, stored as a weight set and sent
  within the chain's rate limit, the extrinsic's outcome stored; a chain that cannot be reached is retried with
  exponential backoff (`weights_retry` doubling up to `weights_retry_max`) until the set lands or a newer race's set
  supersedes it;
- `progress`: what an operator needs to see that the node is alive but not progressing (runs past their wall clock
  plus a grace, a race that cannot close, weights not set for a closed race), for `/healthz` and the metrics.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import os
import shutil
import tempfile
import time
import traceback
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from arena import blame
from arena.catalog import Catalog
from arena.judge import Judge
from arena.problems import Problem
from arena.problems.pack import Pack as ProblemPack
from arena.scoring import score_run
from arena.weights import MinerResult, compute_weights, describe_ties, parse_policy
from sandbox.backends import Limits, Sandbox
from sandbox.bundle import BundleError, unpack
from sandbox.gateway import Budgets, Gateway, GatewayServer
from validator.chain.port import ChainError, ChainPort
from validator.dispatch import Dispatcher, DispatchError
from validator.qualifying import Qualifying
from validator.store.models import Run
from validator.store.repository import Store, StoreError

#: How many upstream errors of one attempt are kept with the run (the first ones; the count is kept whole).
KEEP_UPSTREAM_ERRORS = 20

#: The node's own stages of a run, in order (`StageTimes`).
STAGES = ("staging", "gateway", "trajectory_write", "strict_scoring", "judge_wait", "judge", "close")


class StageTimes:
    """Where the node's own time goes, summed over the runs it handled: staging (the attempt's start and the agent's
    folder), gateway (opening and closing the run's gateway session, and the sandbox around the agent's own clock),
    trajectory write, strict scoring, judge wait (from the strict score to the judge taking the run), judge, close
    (the close job, every tick of it, ticks that close nothing included). `bench/race.py` prints them per run.

    Beside the wall time, the CPU time of the thread that did the stage, for the stages with no wait inside (not
    the gateway's, which spans the agent's run, nor the judge wait): steadier than wall time on a busy machine."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = dict.fromkeys(STAGES, 0.0)
        self.cpu: dict[str, float | None] = {stage: None if stage in {"gateway", "judge_wait"} else 0.0
                                             for stage in STAGES}
        self.counts: dict[str, int] = dict.fromkeys(STAGES, 0)

    @staticmethod
    def now() -> tuple[float, float]:
        """A mark: (wall clock, this thread's CPU clock)."""
        return time.perf_counter(), time.thread_time()

    def add(self, stage: str, since: tuple[float, float], *, less: float = 0.0) -> tuple[float, float]:
        """Count the stage from the mark `since` to now (`less` seconds of someone else's time excluded from the
        wall time); returns now's mark, to start the next stage from."""
        until = self.now()
        self.seconds[stage] += max(until[0] - since[0] - less, 0.0)
        cpu = self.cpu[stage]
        if cpu is not None:
            self.cpu[stage] = cpu + max(until[1] - since[1], 0.0)
        self.counts[stage] += 1
        return until



# --- drawing ------------------------------------------------------------------------------------------------------


def race_start_block(block: int, cadence: int) -> int:
    """The block a race opened at `block` starts from: the last multiple of the cadence (the same on every node)."""
    return block - block % cadence


def race_id_for(pack_id: str, start_block: int) -> str:
    return f"{pack_id[:16]}-{start_block}"


def _rank(seed_hash: str, pack_id: str, problem_id: str) -> bytes:
    return hashlib.sha256(f"{seed_hash}|{pack_id}|{problem_id}".encode()).digest()


def draw_problems(problems: Sequence[Problem], *, pack_id: str, seed_hash: str, n: int,
                  task_mix: dict[str, float], split: str = "race") -> list[str]:
    """`n` problem ids from the race pool (split `race`; the qualifying set draws from `public`), deterministic in
    (`seed_hash`, `pack_id`, the pool).

    Each task gets its share of `n` by the mix (largest remainders, ties by task name); within a task, problems are
    taken in the order of sha256(seed | pack | id), which no one can steer without the block hash. A task short of
    problems leaves its places to the best-ranked of the rest. The result is sorted by that rank."""
    pool = sorted((p for p in problems if p.split == split), key=lambda p: _rank(seed_hash, pack_id, p.problem_id))
    n = min(n, len(pool))
    if n <= 0:
        return []
    weights = {task: w for task, w in task_mix.items() if w > 0}
    total = sum(weights.values()) or 1.0
    exact = {task: n * w / total for task, w in weights.items()}
    quota = {task: int(share) for task, share in exact.items()}
    for task in sorted(exact, key=lambda t: (-(exact[t] - quota[t]), t))[: n - sum(quota.values())]:
        quota[task] += 1
    chosen: list[Problem] = []
    for task in sorted(quota):
        chosen += [p for p in pool if p.task == task][: quota[task]]
    taken = {p.problem_id for p in chosen}
    chosen += [p for p in pool if p.problem_id not in taken][: n - len(chosen)]
    chosen.sort(key=lambda p: _rank(seed_hash, pack_id, p.problem_id))
    return [p.problem_id for p in chosen]


# --- race scores --------------------------------------------------------------------------------------------------


def race_scores(rows: Sequence[dict[str, Any]], max_attempts: int) -> dict[str, dict[str, Any]]:
    """Per hotkey: score (mean final), success rate, runs, errored, per-task means, from the race's final runs.

    `rows`: one dict per run with hotkey, submission_id, task, status, blame, attempt, final, success. A run the
    validator failed on every attempt is left out of that miner's mean; agent errors count 0."""
    by_miner: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_miner[row["hotkey"]].append(row)
    out: dict[str, dict[str, Any]] = {}
    for hotkey, runs in sorted(by_miner.items()):
        counted = [r for r in runs if not (r["status"] == "errored" and r["blame"] == "validator")]
        if not counted:
            continue
        finals = [float(r["final"] or 0.0) if r["status"] == "finished" else 0.0 for r in counted]
        tasks: dict[str, list[float]] = defaultdict(list)
        for r, value in zip(counted, finals, strict=True):
            tasks[r["task"]].append(value)
        out[hotkey] = {
            "submission_id": runs[0]["submission_id"],
            "score": sum(finals) / len(finals),
            "success_rate": sum(1 for r in counted if r["status"] == "finished" and r["success"]) / len(counted),
            "runs": len(runs),
            "errored": sum(1 for r in runs if r["status"] == "errored"),
            "per_task": {task: sum(v) / len(v) for task, v in sorted(tasks.items())},
        }
    return out


# --- the node's race machinery ----------------------------------------------------------------------------------------


@dataclass
class ArenaConfig:
    data_dir: Path
    concurrency: int = 2
    max_attempts: int = 3
    retry_backoff: float = 5.0  # seconds before the first retry; doubles each attempt
    limits: Limits = field(default_factory=Limits)
    budgets: Budgets = field(default_factory=Budgets)
    weight_policy: str = "top_heavy"
    burn_uid: int = 0
    weight_shadow: str | None = None  # a second policy stored beside the live one, never sent
    beacon_relay: str | None = None  # a drand HTTP relay for sealed batches' rounds (after the chain's own pulses)
    beacon_retry: float = 3.0  # seconds before a batch that did not open is tried again; doubles, capped at 60 s
    sync_grace: float = 300.0  # seconds a sealed slot waits for commitments made before it to be synced
    judge_concurrency: int = 2
    judge_token_budget: int = 0  # LLM judge tokens per race; 0: no limit
    judge_retry: float = 30.0  # seconds before a run whose judge failed is judged again; doubles, capped at 1 h
    weights_retry: float = 12.0  # seconds before a weight set the chain refused is sent again; doubles
    weights_retry_max: float = 600.0  # the backoff's cap: an unreachable chain is tried at least this often, forever
    stuck_grace: float = 60.0  # a run past its wall clock by this much is stuck (health)
    race_stall: float = 900.0  # a running race with no run moving for this long cannot close (health)
    weights_grace: float = 1800.0  # a closed race without its weights set for this long (health)


class Arena:
    """The race machinery of one validator node. `start()` serves the gateway; every job method is idempotent."""

    def __init__(self, *, store: Store, chain: ChainPort, wallet: Any, pack: ProblemPack, catalog: Catalog,
                 sandbox: Sandbox | None, config: ArenaConfig, gateway: Gateway | None = None,
                 judge: Judge | None = None, metrics: Any = None, log: Any = None,
                 dispatcher: Dispatcher | None = None) -> None:
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
        self.shadow_policy = (parse_policy(config.weight_shadow, burn_uid=config.burn_uid)
                              if config.weight_shadow else None)
        self.log = log
        self.metrics = metrics  # a validator.metrics.Metrics, or None; it reports `progress` at each scrape
        self.in_flight: dict[str, asyncio.Task[Any]] = {}
        self._problems = {p.problem_id: p for p in pack.problems}
        self._vectors: dict[str, list[str]] = {}  # gold title embeddings of opened sealed batches
        self._batch_wait: dict[int, tuple[float, float, str]] = {}  # slot -> (next try, backoff, why it waits)
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
        self._qualify_wait: str | None = None  # why the current race waits for qualifications (logged once)

    # --- lifecycle

    @property
    def metrics(self) -> Any:
        return self._metrics

    @metrics.setter
    def metrics(self, metrics: Any) -> None:
        self._metrics = metrics
        if metrics is not None and hasattr(metrics, "watch"):
            metrics.watch(self.progress)

    @property
    def hotkey(self) -> str:
        return str(self.wallet.hotkey.ss58_address)

    def start(self) -> None:
        """Serve the gateway on a private unix socket and register the pack; safe to call once per process."""
        self._work = Path(tempfile.mkdtemp(prefix="shoparena-node-"))
        os.chmod(self._work, 0o711)
        self._server = GatewayServer(self.gateway, self._work / "gw" / "gateway.sock").start()
        self.store.add_pack(pack_id=self.pack.pack_id, name=self.pack.pack_id, digest=self._pack_digest(),
                            problems=[p.model_dump(mode="json") for p in self.pack.problems],
                            signer=self.pack.signer, catalog_digest=self.pack.catalog_digest,
                            rotation=self.pack.rotation.model_dump(mode="json"))

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)
            self._work = None

    def _pack_digest(self) -> str:
        return hashlib.sha256(self.pack.payload_bytes()).hexdigest()

    def _info(self, event: str, **kw: Any) -> None:
        if self.log is not None:
            self.log.info(event, **kw)

    def _warn(self, event: str, **kw: Any) -> None:
        if self.log is not None:
            self.log.warning(event, **kw)

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
            code, error = self._lost.pop(run.run_id, (blame.NODE_INTERRUPTED,
                                                      f"the node lost the run while it was {run.status}"))
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

    # --- open

    def open_race(self, block: int | None = None) -> str | None:
        """Open the race of the current rotation slot if there is none yet; returns its id (new or not)."""
        rotation = self.pack.rotation
        block = self.chain.block() if block is None else block
        if not rotation.active_at(block):
            return self._inactive(block)
        self.qualifying.start(block)
        if self.pack.sealed:
            return self._open_sealed(block)
        start = race_start_block(block, rotation.cadence_blocks)
        race_id = race_id_for(self.pack.pack_id, start)
        stalled = self.store.races(status="open")
        if stalled:  # a node that stopped while opening a race: finish opening the same draw first
            race = stalled[0]
            return self._finish_opening(race.race_id, race.seed_block, list(race.problem_ids))
        if self.store.race(race_id) is not None:
            return race_id
        if self.store.races(status="running"):
            return None  # one race at a time: the next opens after this one closes
        waiting = self.qualifying.undecided_before(start, self.config.sync_grace)
        if waiting is not None:
            if waiting != self._qualify_wait:
                self._info("races.qualifying_wait", block=start, reason=waiting)
            self._qualify_wait = waiting
            return None
        seed_hash = self.chain.block_hash(start)
        problem_ids = draw_problems(self.pack.problems, pack_id=self.pack.pack_id, seed_hash=seed_hash,
                                    n=rotation.problems_per_race, task_mix=rotation.task_mix)
        self.store.create_race(race_id=race_id, pack_id=self.pack.pack_id, seed_block=start, seed_hash=seed_hash,
                               problem_ids=problem_ids)
        return self._finish_opening(race_id, start, problem_ids)

    def _finish_opening(self, race_id: str, start: int, problem_ids: list[str],
                        before_block: int | None = None) -> str:
        """One pending run per (eligible submission, problem), then the race runs; or cancelled with its reason."""
        eligible = self._eligible(before_block)
        reason = None
        if not problem_ids:
            reason = "the pack's race pool is empty"
        elif not eligible:
            reason = "no accepted submission from a registered miner"
        if reason is not None:
            self.store.set_race_status(race_id, "cancelled", reason=reason)
            self._warn("races.empty", race_id=race_id, reason=reason)
            return race_id
        made = self.store.create_runs(race_id, [(sub, pid) for sub in eligible for pid in problem_ids])
        self.store.set_race_status(race_id, "running")
        self._info("races.opened", race_id=race_id, seed_block=start, problems=len(problem_ids),
                   miners=len(eligible), runs=made)
        return race_id

    # --- sealed batches

    def _open_sealed(self, block: int) -> str | None:
        """The current slot's sealed batch, raced once: opened with its drand round's signature (the chain's pulses,
        then the relay), its problems stored, one run per submission committed before the slot opened. A batch that
        does not open yet waits, says why once per try and is tried again with backoff; never a partial race. A
        validator that comes up late races the current slot only."""
        from arena.beacon import BeaconError, DrandRelay, round_signature
        from arena.problems.seal import SealError, open_batch

        rotation = self.pack.rotation
        slot = (block - rotation.start_block) // rotation.cadence_blocks
        stalled = self.store.races(status="open")
        if stalled:  # a node that stopped while opening a race: finish opening it first
            race = stalled[0]
            return self._finish_opening(race.race_id, race.seed_block, list(race.problem_ids),
                                        before_block=race.seed_block)
        self._record_missed_slots(slot)
        if slot >= len(self.pack.sealed):
            return self._sealed_done(block)
        batch = self.pack.sealed[slot]
        race_id = race_id_for(self.pack.pack_id, batch.open_block)
        if self.store.race(race_id) is not None:
            return race_id
        if self.store.races(status="running"):  # one race at a time: the next opens after this one closes
            # if that takes past this slot, the slot is recorded as missed, with why (`_record_missed_slots`)
            self._batch_wait.setdefault(slot, (0.0, self.config.beacon_retry,
                                               "the race of an earlier slot was still running"))
            return None
        now = time.time()
        next_try, backoff, _ = self._batch_wait.get(slot, (0.0, self.config.beacon_retry, ""))
        if now < next_try:
            return None
        try:
            if self._relay is None and self.config.beacon_relay:
                self._relay = DrandRelay(self.config.beacon_relay)
            relay = self._relay
            signature = round_signature(batch.reveal_round, chain=self.chain, relay=relay)
            if signature is None:
                raise BeaconError(f"drand round {batch.reveal_round} is not out yet on the chain"
                                  + (" or the relay" if relay else " (no --beacon.relay set)"))
            unsynced = (self._unsynced_before(batch.open_block, slot)
                        or self.qualifying.undecided_before(batch.open_block, self.config.sync_grace))
            if unsynced:
                raise BeaconError(unsynced)
            opened = open_batch(batch, signature)
        except (BeaconError, SealError) as exc:
            self._batch_wait[slot] = (now + backoff, min(backoff * 2, 60.0), str(exc))
            self._batch_since.setdefault(slot, now)
            self._warn("races.batch_waiting", slot=slot, round=batch.reveal_round, reason=str(exc),
                       retry_in=round(backoff, 1))
            return None
        self._batch_wait.pop(slot, None)
        self._batch_since.pop(slot, None)
        for problem in opened.problems:
            self._problems[problem.problem_id] = problem
        self._vectors.update(opened.title_embeddings)
        self.store.add_problems(self.pack.pack_id, [p.model_dump(mode="json") for p in opened.problems])
        problem_ids = [p.problem_id for p in opened.problems]
        self.store.create_race(race_id=race_id, pack_id=self.pack.pack_id, seed_block=batch.open_block,
                               seed_hash=f"drand:{batch.reveal_round}", problem_ids=problem_ids)
        self._info("races.batch_opened", slot=slot, round=batch.reveal_round, problems=len(problem_ids))
        return self._finish_opening(race_id, batch.open_block, problem_ids, before_block=batch.open_block)

    def _unsynced_before(self, open_block: int, slot: int) -> str | None:
        """Why the slot must wait for the submissions sync: commitments made before the slot opened that the store
        does not hold yet, or holds still unverified. Every validator must race the same eligible set; a commitment
        that cannot be settled within `sync_grace` seconds of the first wait is left to the next slot."""
        from validator.chain.commitment import parse_commitment

        first = self._sync_wait.setdefault(slot, time.time())
        if time.time() - first > self.config.sync_grace:
            return None
        known = {(s.hotkey, s.commitment_block): s.status for s in self.store.all_submissions()}
        missing = [hotkey for hotkey, c in self.chain.commitments().items()
                   if c.block < open_block and parse_commitment(c.value) is not None
                   and known.get((hotkey, c.block)) in (None, "pending")]
        if not missing:
            return None
        return (f"{len(missing)} commitment(s) made before block {open_block} not synced or verified yet; the slot "
                f"opens once they are (at most {self.config.sync_grace:g}s)")

    def _record_missed_slots(self, slot: int) -> None:
        """A slot this node waited on whose batch never opened before the next slot came: stored once as a cancelled
        race with why, never raced later."""
        for missed in [s for s in self._batch_wait if s < slot]:
            batch = self.pack.sealed[missed]
            race_id = race_id_for(self.pack.pack_id, batch.open_block)
            reason = self._batch_wait.pop(missed)[2]
            self._batch_since.pop(missed, None)
            _, created = self.store.create_race(race_id=race_id, pack_id=self.pack.pack_id,
                                                seed_block=batch.open_block, seed_hash=f"drand:{batch.reveal_round}",
                                                problem_ids=[])
            if created:
                self.store.set_race_status(race_id, "cancelled", reason=f"{batch.describe()} did not open before the "
                                                                         f"next slot: {reason}")
                self._warn("races.slot_missed", slot=missed, reason=reason)

    def _sealed_done(self, block: int) -> str | None:
        race_id = f"{self.pack.pack_id[:16]}-sealed-done"
        _, created = self.store.create_race(race_id=race_id, pack_id=self.pack.pack_id, seed_block=block,
                                            seed_hash="", problem_ids=[])
        if created:
            reason = (f"every sealed batch of pack {self.pack.pack_id} has had its slot; load the next pack (--pack) "
                      "to race again")
            self.store.set_race_status(race_id, "cancelled", reason=reason)
            self._warn("races.batches_done", pack_id=self.pack.pack_id, batches=len(self.pack.sealed))
        return None

    def batch_waiting(self) -> dict[int, str]:
        """Slots whose batch waits to open, with why (for health and the operator)."""
        return {slot: why for slot, (_, _, why) in self._batch_wait.items()}

    def batches_stuck(self, after: float = 600.0) -> dict[int, tuple[float, str]]:
        """Slots whose batch has waited to open for over `after` seconds: (seconds, why), for `/healthz`."""
        now = time.time()
        return {slot: (now - self._batch_since[slot], why) for slot, (_, _, why) in self._batch_wait.items()
                if slot in self._batch_since and now - self._batch_since[slot] > after}

    def gold_vectors(self, problem_id: str) -> list[Any] | None:
        """The gold title embeddings of a problem: the pack's, or its opened batch's."""
        if problem_id in self._vectors:
            from arena.problems.pack import decode_vector

            return [decode_vector(text) for text in self._vectors[problem_id]] or None
        return self.pack.gold_vectors(problem_id)

    def _problem(self, problem_id: str) -> Problem | None:
        """A problem of the pack, or of a batch opened earlier (read back from the store after a restart)."""
        found = self._problems.get(problem_id)
        if found is None and self.pack.sealed:
            row = self.store.problem(problem_id)
            if row is not None:
                found = self._problems[problem_id] = Problem.model_validate(row.data)
        return found

    def _inactive(self, block: int) -> str | None:
        """Outside the pack's rotation window: nothing opens. The end is stored once, as a cancelled race."""
        rotation = self.pack.rotation
        if block < rotation.start_block:
            self._info("races.not_started", block=block, start_block=rotation.start_block)
            return None
        assert rotation.end_block is not None
        race_id = f"{self.pack.pack_id[:16]}-ended"
        race, created = self.store.create_race(race_id=race_id, pack_id=self.pack.pack_id,
                                               seed_block=rotation.end_block, seed_hash="", problem_ids=[])
        if created:
            reason = (f"the rotation of pack {self.pack.pack_id} ended at block {rotation.end_block}; load the "
                      "next pack (--pack) to race again")
            self.store.set_race_status(race_id, "cancelled", reason=reason)
            self._warn("races.rotation_ended", pack_id=self.pack.pack_id, end_block=rotation.end_block)
        return None

    def _eligible(self, before_block: int | None = None) -> list[Any]:
        """The candidates (`candidates`) that passed the qualifying round, when the pack has one."""
        return list(self.qualifying.gate(self.candidates(before_block)))

    def candidates(self, before_block: int | None = None) -> list[Any]:
        """Each registered miner's latest accepted submission; with `before_block`, the latest committed before it
        (a sealed slot races only what was on chain before it opened: a later commitment waits for the next)."""
        registered = {m.hotkey for m in self.store.miners()}
        if before_block is None:
            subs = self.store.latest_submissions()
        else:
            latest: dict[str, Any] = {}
            for s in self.store.all_submissions():
                if s.status == "accepted" and s.commitment_block < before_block:
                    if s.hotkey not in latest or (s.commitment_block, s.id) > (latest[s.hotkey].commitment_block,
                                                                               latest[s.hotkey].id):
                        latest[s.hotkey] = s
            subs = list(latest.values())
        return [s for s in subs if s.hotkey in registered and s.hotkey != self.hotkey]

    # --- dispatch

    async def dispatch(self, limit: int | None = None) -> int:
        """Run ready pending runs of running races, `concurrency` at a time; returns how many were run."""
        from datetime import UTC, datetime

        races = [r.race_id for r in self.store.races(status="running", kind=None)]
        ready: list[Run] = []
        for race_id in races:
            ready += self.store.runs(race_id=race_id, status="pending", ready_at=datetime.now(UTC))
        ready = [r for r in ready if r.run_id not in self.in_flight][:limit]
        if not ready:
            return 0
        slots = self.dispatcher.capacity(self.config.concurrency)
        if slots < 1:  # a cluster with no worker that takes runs: nothing is started, nothing is lost
            self._warn("races.no_workers", dispatch=self.dispatcher.name, pending=len(ready))
            return 0
        gate = asyncio.Semaphore(slots)

        async def one(run: Run) -> None:
            async with gate:
                await self._execute(run)
            await self._judge_scored(run)  # its sandbox slot is free meanwhile; the judge has its own gate

        tasks = []
        for run in ready:
            task = asyncio.ensure_future(one(run))
            self.in_flight[run.run_id] = task
            task.add_done_callback(functools.partial(self._landed, run.run_id))
            tasks.append(task)
        await asyncio.gather(*tasks)
        return len(ready)

    def _landed(self, run_id: str, _task: asyncio.Task[Any]) -> None:
        self.in_flight.pop(run_id, None)

    def _agent_dir(self, sha256: str) -> Path:
        """The submission's bundle, staged once into the node's private work folder (which the sandbox's user can
        traverse, unlike most data folders): from the unpacked folder under data_dir/bundles, or a packed file."""
        assert self._work is not None
        target = self._work / "agents" / sha256
        if target.is_dir():
            return target
        stored = self.config.data_dir / "bundles" / sha256
        packed = self.config.data_dir / "bundles" / f"{sha256}.tar.gz"
        target.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(target.parent, 0o711)
        tmp = Path(tempfile.mkdtemp(dir=target.parent))
        try:
            if stored.is_dir():
                shutil.copytree(stored, tmp / "agent")
            elif packed.is_file():
                unpack(packed.read_bytes(), tmp / "agent")  # BundleError: the miner's bundle is bad (1008)
            else:
                raise FileNotFoundError(f"bundle {sha256[:12]} is not in {stored.parent}")
            if not (tmp / "agent" / "agent.py").is_file():
                raise BundleError(["agent.py is missing at the bundle's root"])
            for path in [tmp / "agent", *(tmp / "agent").rglob("*")]:
                os.chmod(path, 0o755 if path.is_dir() else 0o644)
            os.replace(tmp / "agent", target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return target

    async def _execute(self, run: Run) -> None:
        run_id = run.run_id
        try:
            await self._attempt(run)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the store (or another part of ours) failed mid-run
            # the run's status could not be stored: `recover` ends the attempt as 2003 once the store answers
            self._lost[run_id] = (blame.STORE_FAULT, f"{type(exc).__name__}: {exc}")
            if self.log is not None:
                self.log.error("races.run_lost", run_id=run_id, error=f"{type(exc).__name__}: {exc}",
                               traceback=traceback.format_exc())

    def _bundle(self, submission_id: int) -> str | None:
        """The sha256 of a submission's bundle (read once per submission: it never changes)."""
        if submission_id not in self._bundles:
            submission = self.store.submission(submission_id)
            if submission is None:
                return None
            self._bundles[submission_id] = submission.sha256
        return self._bundles[submission_id]

    async def _attempt(self, run: Run) -> None:
        run_id = run.run_id
        began = self.stages.now()
        self._lost.pop(run_id, None)
        problem = self._problem(run.problem_id)
        sha256 = self._bundle(run.submission_id)
        assert self._work is not None
        staged = problem is not None and sha256 is not None and (self._work / "agents" / sha256).is_dir()
        try:
            self.store.claim(run_id, running=staged)  # an agent staged already: nothing to prepare, one commit
        except StoreError as exc:  # another worker took it, or it is final: never run twice
            self._warn("races.skip", run_id=run_id, reason=str(exc))
            return
        try:
            if problem is None or sha256 is None:
                raise LookupError(f"problem {run.problem_id} or submission {run.submission_id} is unknown")
            agent_dir = self._agent_dir(sha256)
        except BundleError as exc:  # the miner's bundle cannot be made into a runnable agent: theirs, final
            await asyncio.to_thread(self._fail, run_id, blame.BUNDLE_INVALID, f"bundle invalid: {exc}")
            return
        except (LookupError, FileNotFoundError, OSError) as exc:
            await asyncio.to_thread(self._fail, run_id, blame.STORE_FAULT, f"cannot prepare the run: {exc}")
            return
        if not staged:
            self.store.transition(run_id, "running")
        launched = self.stages.add("staging", began)
        try:
            outcome = await self.dispatcher.run(run_id, agent_dir, sha256, self._work / "gw", problem.public(),
                                                limits=self.config.limits, budgets=self.config.budgets)
        except asyncio.CancelledError:
            self.store.retry_later(run_id, delay=timedelta(0))  # shutdown: the sandbox was killed; run it again
            raise
        except DispatchError as exc:  # a cluster worker lost, stuck or refusing: the validator's fault, retried
            await asyncio.to_thread(self._fail, run_id, exc.code, str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - any fault of ours is a validator-blamed, retried error
            await asyncio.to_thread(self._fail, run_id, blame.SANDBOX_FAILED, f"{type(exc).__name__}: {exc}")
            return
        result = outcome.result
        self.stages.add("gateway", launched, less=result.elapsed_s)
        code, error = outcome.error_code()
        if self._server is not None and not self._server.alive and blame.blame_of(code) != "validator":
            code, error = blame.GATEWAY_FAULT, "the node's gateway stopped serving during the run"
        stats = {"backend": result.backend, "status": result.status, "exit_code": result.exit_code,
                 "elapsed_s": round(result.elapsed_s, 3), "timed_out": result.timed_out, "oom": result.oom,
                 "stderr_tail": result.stderr[-2000:], "answer": outcome.answer, "worker": outcome.worker,
                 "upstream_errors": outcome.upstream_errors[:KEEP_UPSTREAM_ERRORS],
                 "budget_refusals": outcome.budget_refusals,
                 "attempts": self._attempts(run, code, error, outcome.upstream_errors)}
        spend = {"tool_calls": outcome.tool_calls, "llm_calls": outcome.llm_calls, "tokens": outcome.tokens,
                 "cost": outcome.cost, "sandbox": stats}
        if self.metrics is not None:
            self.metrics.sandbox(result.elapsed_s, outcome.events, worker=outcome.worker)
            if outcome.upstream_errors:
                self.metrics.upstream_errors.inc(len(outcome.upstream_errors))
        written = self.stages.now()
        if code is None:
            try:  # strict scoring first, so the trajectory and its strict score land in one commit
                strict = self._strict(problem, outcome.answer)
                failure = None
            except Exception as exc:  # noqa: BLE001 - a bug of ours in scoring is our fault (2007, below)
                strict, failure = None, exc
            scored = self.stages.add("strict_scoring", written)
            judgment = None
            if strict is not None and self._local(run):  # the offline judge: judged now, in the same commit
                judging = self.stages.add("judge_wait", scored)
                judgment = self._judge_inline(run, problem, outcome.events, float(strict.success))
                scored = self.stages.add("judge", judging)
            self.store.record_run(run_id, "scoring", outcome.events, **spend, strict=None if strict is None else (
                float(strict.success), strict.model_dump(mode="json")), judgment=judgment)
            written = self.stages.add("trajectory_write", scored)
            if judgment is not None:
                if self.metrics is not None:
                    self.metrics.judge_seconds.labels(judge=self._judge_for(run).name).observe(
                        written[0] - judging[0])
                    self.metrics.run_final("finished", None)
            elif strict is not None:  # judged as soon as `dispatch` frees its sandbox slot
                self._scored[run_id] = (written, outcome.events, float(strict.success))
            elif failure is not None:
                self._scoring_failed(run_id, failure)
        elif blame.blame_of(code) == "agent":
            self.store.record_run(run_id, "errored", outcome.events, error_code=code, error=error, **spend)
            self.stages.add("trajectory_write", written)
            self._info("races.run_errored", run_id=run_id, code=code, blame="agent", error=error)
            if self.metrics is not None:
                self.metrics.run_final("errored", "agent")
        else:
            self.store.record_run(run_id, "errored", outcome.events, error_code=code, error=error, **spend)
            self.stages.add("trajectory_write", written)
            self._retry_or_give_up(run_id, code, error)

    def _score_or_fail(self, run_id: str, answer: Any = None) -> bool:
        """`_score`; a failure of the store propagates (the run stays `scoring` for `recover`), any other failure
        of ours ends the attempt as 2007 (retried, never the agent's zero) with its traceback in the log. Returns
        whether the run was scored (and waits for its judge)."""
        from sqlalchemy.exc import SQLAlchemyError

        try:
            self._score(run_id, answer=answer)
        except (StoreError, SQLAlchemyError):
            raise
        except Exception as exc:  # noqa: BLE001 - a bug of ours in scoring is our fault
            self._scoring_failed(run_id, exc)
            return False
        return True

    def _scoring_failed(self, run_id: str, exc: BaseException) -> None:
        """A fault of ours while scoring: its traceback in the log, the attempt ended 2007 (retried)."""
        if self.log is not None:
            self.log.error("races.scoring_failed", run_id=run_id, error=f"{type(exc).__name__}: {exc}",
                           traceback="".join(traceback.format_exception(exc)))
        self._fail(run_id, blame.SCORING_FAILED, f"scoring failed: {type(exc).__name__}: {exc}")

    @staticmethod
    def _attempts(run: Run, code: int | None, error: str | None,
                  upstream_errors: Sequence[dict[str, Any]] = ()) -> list[dict[str, Any]]:
        """The run's earlier attempts that ended in an error, and this one if it did (the run page lists them)."""
        earlier = list((run.sandbox or {}).get("attempts") or [])
        if code is None:
            return earlier
        return [*earlier, {"attempt": run.attempt + 1 if run.status == "pending" else run.attempt, "code": code,
                           "blame": blame.blame_of(code), "error": error,
                           "upstream_errors": list(upstream_errors)[:KEEP_UPSTREAM_ERRORS],
                           "upstream_error_count": len(upstream_errors)}]

    def _fail(self, run_id: str, code: int, error: str) -> None:
        run = self.store.run(run_id)
        assert run is not None
        sandbox = {**(run.sandbox or {}), "attempts": self._attempts(run, code, error)}
        self.store.transition(run_id, "errored", error_code=code, error=error, sandbox=sandbox)
        if blame.retried(code):
            self._retry_or_give_up(run_id, code, error)
        else:
            self._info("races.run_errored", run_id=run_id, code=code, blame=blame.blame_of(code), error=error)
            if self.metrics is not None:
                self.metrics.run_final("errored", blame.blame_of(code))

    def _retry_or_give_up(self, run_id: str, code: int, error: str | None) -> None:
        run = self.store.run(run_id)
        assert run is not None
        if run.attempt < self.config.max_attempts:
            delay = self.config.retry_backoff * 2 ** (run.attempt - 1)
            self.store.retry_later(run_id, delay=timedelta(seconds=delay))
            self._warn("races.run_retry", run_id=run_id, code=code, error=error, attempt=run.attempt,
                       retry_in_s=delay)
        else:
            self._warn("races.run_gave_up", run_id=run_id, code=code, error=error, attempts=run.attempt)
            if self.metrics is not None:
                self.metrics.run_final("errored", "validator")

    def _score(self, run_id: str, answer: Any = None) -> None:
        """Strict checks on the run's answer by the pack's ruleset. ``answer`` is the raw ``product_ids`` of the
        final recommendation (`arena.scoring.answer`); None reads it back from the stored trajectory."""
        from arena.scoring.answer import raw_answer

        run = self.store.run(run_id)
        assert run is not None
        problem = self._problem(run.problem_id)
        assert problem is not None, f"run {run_id} raced problem {run.problem_id}, which this node does not hold"
        if answer is None:
            answer = raw_answer(self.store.events(run_id))
        score = self._strict(problem, answer)
        # the run stays `scoring` until the judge's coefficient makes its final score (`judge_runs`)
        self.store.save_score(run_id, success=float(score.success), final=None, strict=score.model_dump(mode="json"))

    def _strict(self, problem: Problem, answer: Any) -> Any:
        """The strict verdict on a raw answer, by the pack's ruleset."""
        return score_run(problem, answer, self.catalog.get, gold_vectors=self.gold_vectors(problem.problem_id),
                         ruleset=self.pack.ruleset)

    # --- judge

    def _gate(self) -> asyncio.Semaphore:
        """The judge's own concurrency (`judge_concurrency`): one gate shared by every path that judges."""
        loop = asyncio.get_running_loop()
        if self._judge_gate is None or self._judge_gate[0] is not loop:
            self._judge_gate = (loop, asyncio.Semaphore(self.config.judge_concurrency))
        return self._judge_gate[1]

    async def _judge_scored(self, run: Run) -> None:
        """Judge a run this process has just scored as soon as the judge's gate lets it, with no wait for the judge
        job's interval. A failure of ours leaves the run `scoring`, for `judge_runs` to judge again."""
        scored = self._scored.pop(run.run_id, None)
        if scored is None:
            return
        since, events, success = scored
        self._judging.add(run.run_id)
        try:
            async with self._gate():
                self.stages.add("judge_wait", since)
                await asyncio.to_thread(self._judge_one, run, events, success)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the run waits for the judge job, as a run `recover` scored does
            if self.log is not None:
                self.log.error("judge.failed", run_id=run.run_id, error=f"{type(exc).__name__}: {exc}",
                               traceback=traceback.format_exc())
        finally:
            self._judging.discard(run.run_id)

    async def judge_runs(self, limit: int | None = None) -> int:
        """Judge the strictly scored runs no one is judging (runs whose judge failed, once their backoff has passed;
        runs `recover` scored), `judge_concurrency` at a time together with the runs judged as they are scored;
        returns how many were judged."""
        from datetime import UTC, datetime

        now = datetime.now(UTC)
        ready = [r for r in self.store.runs(status="scoring", ready_at=now)
                 if r.run_id not in self.in_flight and r.run_id not in self._judging][:limit]
        if not ready:
            return 0
        gate = self._gate()
        judged = 0

        async def one(run: Run) -> None:
            nonlocal judged
            async with gate:
                since = max([t for t in (run.scoring_at, run.not_before) if t is not None], default=now)
                waited = (datetime.now(UTC) - since).total_seconds()
                mark = self.stages.now()
                self.stages.add("judge_wait", (mark[0] - waited, mark[1]))
                judged += await asyncio.to_thread(self._judge_one, run)

        self._judging.update(r.run_id for r in ready)
        try:
            await asyncio.gather(*(one(r) for r in ready))
        finally:
            self._judging.difference_update(r.run_id for r in ready)
        return judged

    def _judge_for(self, run: Run) -> Judge:
        """The judge of a run: the node's, or the offline gates once the race's LLM judge token budget is spent."""
        budget = self.config.judge_token_budget
        if self.judge is not self.fallback_judge and budget and self._judge_tokens[run.race_id] >= budget:
            return self.fallback_judge  # the LLM budget of this race is spent: the offline gates, never a zero
        return self.judge

    def _local(self, run: Run) -> bool:
        """Whether the run's judge is the offline one (no I/O: judged on the event loop, not in a thread)."""
        from arena.judge.offline import OfflineJudge

        return isinstance(self._judge_for(run), OfflineJudge)

    def _judge_inline(self, run: Run, problem: Problem, events: list[Any], success: float) -> dict[str, Any] | None:
        """The offline judge's judgment of a run just scored (`save_judgment`'s arguments), to store with its
        trajectory; None when it failed (a fault of ours, logged): the run then waits for the judge job."""
        judge = self._judge_for(run)
        try:
            verdict = judge.judge(problem.public(), events)
        except Exception as exc:  # noqa: BLE001 - never the agent's zero: judged again by the judge job
            if self.log is not None:
                self.log.error("judge.failed", run_id=run.run_id, error=f"{type(exc).__name__}: {exc}",
                               traceback=traceback.format_exc())
            return None
        return {"verdict": verdict.model_dump(mode="json"), "quality": verdict.quality,
                "coefficient": verdict.coefficient, "final": judge.rubric.final(success, verdict.quality),
                "evidence": verdict.evidence}

    def _judge_one(self, run: Run, events: list[Any] | None = None, success: float | None = None) -> int:
        """Judge one scored run from its gateway log and strict success (`events`, `success`: those just stored,
        else read back from the store)."""
        started = self.stages.now()
        try:
            return self._judge(run, events, success)
        finally:
            self.stages.add("judge", started)

    def _judge(self, run: Run, events: list[Any] | None, success: float | None) -> int:
        from arena.judge import JudgeUnavailable

        if success is None:
            score = self.store.score(run.run_id)
            success = score.success if score is not None else None
        problem = self._problem(run.problem_id)
        if success is None or problem is None:
            return 0
        judge = self._judge_for(run)
        started = time.perf_counter()
        try:
            verdict = judge.judge(problem.public(), self.store.events(run.run_id) if events is None else events)
        except JudgeUnavailable as exc:
            if self.metrics is not None:
                self.metrics.judge_failures.inc()
            self._judge_failures[run.run_id] += 1
            delay = min(3600.0, self.config.judge_retry * 2 ** (self._judge_failures[run.run_id] - 1))
            self.store.defer_judging(run.run_id, delay=timedelta(seconds=delay), error=str(exc))
            self._warn("judge.unavailable", run_id=run.run_id, error=str(exc), retry_in_s=delay)
            return 0
        self._judge_tokens[run.race_id] += int(verdict.tokens.get("total_tokens", 0))
        final = judge.rubric.final(success, verdict.quality)
        self.store.save_judgment(run.run_id, verdict=verdict.model_dump(mode="json"), quality=verdict.quality,
                                 coefficient=verdict.coefficient, final=final, evidence=verdict.evidence)
        if self.metrics is not None:
            self.metrics.judge_seconds.labels(judge=judge.name).observe(time.perf_counter() - started)
            self.metrics.run_final("finished", None)
        return 1

    # --- close

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
            ranked = sorted(scores, key=lambda h: (-scores[h]["score"], blocks[h], h))
            results = [{"hotkey": h, "uid": uids.get(h), "commitment_block": blocks[h], "rank": i + 1,
                        **scores[h]} for i, h in enumerate(ranked)]
            self.store.save_race_results(race.race_id, results)
            if race.kind == "qualifying":
                self.qualifying.decide(race.race_id, scores)
                closed.append(race.race_id)
                continue
            self._info("races.closed", race_id=race.race_id, miners=len(results),
                       best=results[0]["hotkey"] if results else None)
            closed.append(race.race_id)
        return closed

    # --- weights

    def weigh(self) -> int | None:
        """A weight set for the latest closed race that has none; returns its id."""
        races = [r for r in self.store.races(status="closed")]
        if not races:
            return None
        race = races[-1]
        if any(ws.race_id == race.race_id for ws in self.store.weight_sets()):
            return None
        graph = self.chain.metagraph()
        uids = {n.hotkey: n.uid for n in graph.neurons}
        results = [MinerResult(hotkey=r.hotkey, score=min(1.0, max(0.0, r.score)),
                               commitment_block=r.commitment_block) for r in self.store.race_results(race.race_id)]
        vector = compute_weights(results, uids, self.policy)
        shadow = compute_weights(results, uids, self.shadow_policy) if self.shadow_policy is not None else None
        ws = self.store.add_weight_set(policy=self.policy.name, vector=vector, race_id=race.race_id,
                                       shadow_policy=self.shadow_policy.name if self.shadow_policy else None,
                                       shadow_vector=shadow)
        for older in self.store.weight_sets():
            if older.id != ws.id and older.status in {"pending", "rate_limited"}:
                self.store.update_weight_set(older.id, status="failed", outcome={"superseded_by": ws.id})
        self._info("weights.computed", race_id=race.race_id, vector=vector, ties=describe_ties(results, uids))
        return ws.id

    def set_weights(self) -> str | None:
        """Send the latest pending weight set within the rate limit; store what became of it.

        A chain that cannot take it (unreachable, locked, any error but the rate limit) leaves it pending, sent again
        after `weights_retry` seconds doubling up to `weights_retry_max`, for as long as it takes: it is given up only
        when a newer race's set supersedes it (`weigh`). Returns the set's status, or "waiting" during a backoff."""
        pending = [ws for ws in self.store.weight_sets() if ws.status in {"pending", "rate_limited"}]
        if not pending:
            return None
        ws = pending[-1]
        retry_at = float((ws.outcome or {}).get("retry_at") or 0.0)
        if ws.status == "pending" and retry_at > time.time():
            return "waiting"
        vector = {int(uid): float(w) for uid, w in ws.vector.items()}
        try:
            limit = self.chain.rate_limit(self.hotkey)
            if not limit.ready:
                self.store.update_weight_set(ws.id, status="rate_limited",
                                             outcome={"retry_in_blocks": limit.blocks_to_wait, "block": limit.block})
                self._info("weights.rate_limited", weight_set=ws.id, retry_in_blocks=limit.blocks_to_wait)
                if self.metrics is not None:
                    self.metrics.set_weights.labels(result="rate_limited").inc()
                return "rate_limited"
            outcome = self.chain.set_weights(self.wallet, vector)
        except ChainError as exc:
            status = "rate_limited" if exc.code == "rate_limited" else "pending"
            failures = int((ws.outcome or {}).get("failures") or 0) + 1 if status == "pending" else 0
            delay = min(self.config.weights_retry_max, self.config.weights_retry * 2 ** (failures - 1)) \
                if failures else 0.0
            self.store.update_weight_set(ws.id, status=status, outcome={
                "error": exc.code, "message": exc.message, "retry_in_blocks": exc.retry_in_blocks,
                "failures": failures, "retry_at": time.time() + delay})
            self._warn("weights.error", weight_set=ws.id, code=exc.code, error=exc.message, failures=failures,
                       retry_in_s=round(delay, 3))
            if self.metrics is not None:
                self.metrics.set_weights.labels(result=exc.code).inc()
            return status
        status = "set" if outcome.success else "failed"
        if self.metrics is not None:
            self.metrics.set_weights.labels(result=status).inc()
        self.store.update_weight_set(ws.id, status=status, outcome=outcome.model_dump(mode="json"),
                                     block=outcome.block)
        self._info("weights.set" if outcome.success else "weights.failed", weight_set=ws.id, block=outcome.block,
                   message=outcome.message)
        return status

    # --- progress

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
            age = (now_dt - race.closed_at).total_seconds()
            if not any(ws.status == "set" for ws in sets) and age > self.config.weights_grace:
                last = sets[-1] if sets else None
                unset = {"race_id": race.race_id, "seconds": round(age, 1),
                         "status": last.status if last else "not computed",
                         "error": (last.outcome or {}).get("message") if last else None}
        return {"overdue_runs": overdue, "stalled_races": stalled, "weights_unset": unset}
