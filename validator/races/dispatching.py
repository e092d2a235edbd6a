"""Dispatching: one attempt of a run through the dispatcher, its outcome recorded and blamed."""

from __future__ import annotations

import asyncio
import functools
import traceback
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from arena import blame, verdict
from arena.backoff import doubling
from arena.scoring.models import RunScore
from arena.tasks import ProblemBase
from arena.trajectory import TrajectoryEvent
from validator.dispatch import Attempt, Dispatcher, DispatchError
from validator.races.base import Problems, Signals
from validator.races.beginning import Beginning
from validator.races.config import ArenaConfig
from validator.races.judging import Judging
from validator.races.offloop import OffLoop, finish
from validator.races.outcomes import attempts_of, run_stats
from validator.races.stages import StageTimes
from validator.store.models import Run
from validator.store.repository import Store, StoreError


class Dispatching(Beginning):
    """Dispatching: `dispatch` and one attempt of a run, staged, run, recorded with its strict score (and handed to
    the judge), retried or final. Owns the runs in flight, the runs whose attempt a fault of ours ended unrecorded
    (`lost`, for `Arena.recover`), the node's work folder and gateway server (set by `Arena.start`)."""

    def __init__(
        self,
        *,
        store: Store,
        config: ArenaConfig,
        catalog: Any,
        pack: Any,
        dispatcher: Dispatcher,
        problems: Problems,
        judging: Judging,
        stages: StageTimes,
        signals: Signals,
    ) -> None:
        self.store, self.config, self.catalog, self.pack, self.dispatcher = store, config, catalog, pack, dispatcher
        self.problems, self.judging, self.stages, self.signals = problems, judging, stages, signals
        self.in_flight: dict[str, asyncio.Task[Any]] = {}
        self.started: set[str] = set()  # the runs of `in_flight` past the gate (claimed, or about to be)
        self.draining = False  # the node stops: no run starts any more (`validator.scheduler.Node`)
        self.lost: dict[str, tuple[int, str]] = {}  # runs whose attempt a fault of ours ended unrecorded
        self.reattaching: dict[str, Run] = {}  # runs an earlier node left executing under the dispatcher (`hold`)
        self.work: Path | None = None  # the node's private work folder (`Arena.start`)
        self.server: Any = None  # the node's gateway server (`Arena.start`, `Arena.heal`)
        self.keys: Any = None  # who pays for a run's LLM calls (`validator.races.keys.KeyRing`); None: the node
        self.last_try: Callable[[Run], bool] = lambda run: False  # its last try, upstream well (`Closing.last_try`)
        self.ahead: Callable[[list[Run]], None] = lambda runs: None  # their agents staged ahead (`Arena.prepare`)
        self._bundles: dict[int, str] = {}  # submission id -> its bundle's sha256 (never changes)
        self._keys: dict[str, bytes] = {}  # race id -> the key of its shown problem ids (never changes)
        # the run path's claims, stagings and records, off the event loop (`_begin`, `_record`)
        self.offloop = OffLoop(dropped=self._dropped)

    @property
    def metrics(self) -> Any:
        return self.signals.metrics

    async def dispatch(self, limit: int | None = None) -> int:
        """Run ready pending runs of running races, `concurrency` at a time; returns how many were run."""
        ready = await asyncio.to_thread(self._pending)  # read off the loop; a run read before it landed is claimed
        ready = [r for r in ready if r.run_id not in self.in_flight][:limit]  # by one attempt only (`Store.claim`)
        tasks = [] if self.draining else [self._launch(run, reattach=True) for run in self._reattachable()]
        if not ready or self.draining:
            return await self._landing(tasks)
        slots = self.dispatcher.capacity(self.config.concurrency)
        if slots < 1:  # a cluster with no worker that takes runs: nothing is started, nothing is lost
            self.signals.warn("races.no_workers", dispatch=self.dispatcher.name, pending=len(ready))
            return 0
        self.ahead(ready)  # a runner that joined since, or a race the node found open when it started
        gate = asyncio.Semaphore(slots)

        async def one(run: Run) -> None:
            async with gate:
                if self.draining:  # the node stops: a run not started stays pending, untouched
                    return
                self.started.add(run.run_id)
                await self._execute(run)
            await self.judging.judge_waiting(run)  # its sandbox slot is free meanwhile; the judge has its own gate

        for run in ready:
            task = asyncio.ensure_future(one(run))
            self.in_flight[run.run_id] = task
            task.add_done_callback(functools.partial(self._landed, run.run_id))
            tasks.append(task)
        return await self._landing(tasks)

    def _pending(self) -> list[Run]:
        """The pending runs of running races whose retry backoff has passed, their bundles' sha256 read with them (so
        `ahead` reads nothing on the event loop)."""
        now = datetime.now(UTC)
        races = [r.race_id for r in self.store.races(status="running", kind=None)]
        runs = [run for race_id in races for run in self.store.runs(race_id=race_id, status="pending", ready_at=now)]
        for submission_id in {run.submission_id for run in runs}:
            self._bundle(submission_id)
        return runs

    async def _landing(self, tasks: list[asyncio.Future[Any]]) -> int:
        # shielded: the scheduler cancels this job when the node stops, and the runs must outlive it to drain
        landed = await asyncio.shield(asyncio.gather(*tasks, return_exceptions=True))
        for outcome in landed:
            if isinstance(outcome, Exception):
                raise outcome
        return len(tasks)

    def hold(self, runs: Sequence[Run]) -> set[str]:
        """Of the runs an earlier node left starting or running, those still executing under the dispatcher (a Ray
        runner outlives its node): kept for the dispatch job to re-attach to, never run again."""
        live = {r.run_id for r in runs} | set(self.reattaching)
        try:
            held = self.dispatcher.held(live)
        except Exception as exc:  # noqa: BLE001 - a cluster that does not answer: its runs are lost, run again
            self.signals.warn("races.held_unknown", error=f"{type(exc).__name__}: {exc}")
            return set(self.reattaching)
        for run in runs:
            if run.run_id in held:
                self.reattaching[run.run_id] = run
                self.signals.info("races.reattaching", run_id=run.run_id, attempt=run.attempt)
        return held

    def _reattachable(self) -> list[Run]:
        return [run for run_id, run in list(self.reattaching.items()) if run_id not in self.in_flight]

    def _launch(self, run: Run, *, reattach: bool) -> asyncio.Future[Any]:
        async def one() -> None:
            self.started.add(run.run_id)
            await self._execute(run, reattach=reattach)
            await self.judging.judge_waiting(run)

        task = asyncio.ensure_future(one())
        self.in_flight[run.run_id] = task
        task.add_done_callback(functools.partial(self._landed, run.run_id))
        return task

    def _landed(self, run_id: str, _task: asyncio.Task[Any]) -> None:
        self.in_flight.pop(run_id, None)
        self.started.discard(run_id)

    async def _execute(self, run: Run, *, reattach: bool = False) -> None:
        run_id = run.run_id
        try:
            await (self._reattach(run) if reattach else self._attempt(run))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the store (or another part of ours) failed mid-run
            # the run's status could not be stored: `recover` ends the attempt as 2003 once the store answers
            self.lost[run_id] = (blame.STORE_FAULT, f"{type(exc).__name__}: {exc}")
            self.signals.error(
                "races.run_lost", run_id=run_id, error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc()
            )

    async def _attempt(self, run: Run) -> None:
        run_id = run.run_id
        self.lost.pop(run_id, None)
        begin, ran = self.offloop.submit(self._begin, run), False
        try:
            begun = await finish(begin, self.offloop.told(self._begin, run))
            if begun is None:
                return
            route = await self._route(run)
            if route is False:
                return
            if self.draining:  # the node stops since the gate: no sandbox starts, the run waits pending
                await self.offloop.run(self._put_back, run_id, ran)
                return
            ran = True
            outcome = await self._sandbox(run, begun, route)
        except asyncio.CancelledError:  # shutdown: a run claimed whose sandbox never started, or was killed, is
            if begin.done() and not begin.cancelled() and begin.exception() is None and begin.result() is not None:
                await self.offloop.run(self._put_back, run_id, ran)  # pending again, to run at the next start
            raise
        if outcome is not None:
            await self.offloop.run(self._record, run, begun[0], outcome, begun[4])

    async def _sandbox(self, run: Run, begun: tuple[ProblemBase, Path, str, str, Any], route: Any) -> Any:
        """The attempt's outcome from the dispatcher; None when a fault of ours ended it (retried, `fail`)."""
        problem, agent_dir, sha256, shown, _ = begun
        assert self.work is not None
        try:
            attempt = Attempt(
                run.run_id,
                agent_dir,
                sha256,
                self.work / "gw",
                problem,
                self.config.limits,
                self.config.budgets,
                shown_id=shown,
                route=route,
                packed=self.config.data_dir / "bundles" / f"{sha256}.tar.gz",
            )
            return await self.dispatcher.run(attempt)
        except DispatchError as exc:  # a cluster worker lost, stuck or refusing: the validator's fault, retried
            await self.offloop.run(self.fail, run.run_id, exc.code, str(exc))
        except Exception as exc:  # noqa: BLE001 - any fault of ours is a validator-blamed, retried error
            await self.offloop.run(self.fail, run.run_id, blame.SANDBOX_FAILED, f"{type(exc).__name__}: {exc}")
        return None

    def _dropped(self, fn: Callable[..., Any], args: tuple[Any, ...], exc: BaseException) -> None:
        """Work of the run path's thread that failed once its run's task was cancelled (the node stops): logged with
        its run, which stays as the failure left it for the next start's `recover`."""
        first = args[0] if args else None
        self.signals.error(
            "races.run_path_failed",
            run_id=getattr(first, "run_id", first),
            work=getattr(fn, "__name__", repr(fn)),
            error=f"{type(exc).__name__}: {exc}",
            traceback="".join(traceback.format_exception(exc)),
        )

    def _put_back(self, run_id: str, ran: bool = True) -> None:
        """A run this node claimed whose sandbox never ran to its end (the node stops) back to pending, to run again
        (on the run path's thread), its attempt given back when its sandbox never started (`ran`: `Store.release`);
        one whose attempt ended meanwhile (errored: retried or final) is left as it is."""
        run = self.store.run(run_id)
        if run is not None and run.status in ("starting", "running"):
            if ran:
                self.store.retry_later(run_id, delay=timedelta(0))
            else:
                self.store.release(run_id)

    async def _reattach(self, run: Run) -> None:
        """The outcome of an attempt an earlier node started and the dispatcher still holds, recorded as if this
        node had started it (the run's attempt count unchanged)."""
        self.reattaching.pop(run.run_id, None)
        began = self.stages.now()
        problem = self.problems.problem(run.problem_id)
        try:
            if problem is None:
                raise DispatchError(blame.STORE_FAULT, f"problem {run.problem_id} is unknown")
            outcome = await self.dispatcher.reattach(run.run_id, self.config.limits)
        except asyncio.CancelledError:  # shutdown: its runner was killed; run it again
            await self.offloop.run(self._put_back, run.run_id)
            raise
        except DispatchError as exc:
            await self.offloop.run(self.fail, run.run_id, exc.code, str(exc))
            return
        self.signals.info("races.reattached", run_id=run.run_id, worker=outcome.worker)
        await self.offloop.run(self._record, run, problem, outcome, began)

    async def _route(self, run: Run) -> Any:
        """The miner's provider and key where it pays for the run's LLM calls (None: the node pays); False when the
        miner must pay and cannot (the run ended 1009, its one line), its server did not answer (ended 2011, retried)
        or the race goes on without its provider (ended 2012, final, left out of its score)."""
        from validator.races.keys import KeyRefused, KeyUnreachable, ProviderDropped

        if self.keys is None:
            return None
        try:
            return await asyncio.to_thread(self.keys.route_for, run)
        except (KeyRefused, KeyUnreachable, ProviderDropped) as exc:  # each with its code
            await self.offloop.run(self.fail, run.run_id, exc.code, str(exc))
            return False

    def _record(self, run: Run, problem: ProblemBase, outcome: Any, launched: tuple[float, float]) -> None:
        """Store an attempt's outcome: the trajectory with its strict score (and the offline judge's verdict) in one
        commit; an agent's error final; a validator's error retried (`arena.verdict`). On the run path's thread
        (`offloop`): the run's task goes on (to its judge, out of flight) once it is stored."""
        self.stages.add("gateway", launched, less=outcome.result.elapsed_s)
        alive = self.server is None or self.server.alive
        code, error = outcome.error_code(gateway_alive=alive, last_try=self.last_try(run))
        # never counted: failures all met while the provider was seen well (`verdict.choked`), which an agent makes at
        # will to have its own unsolved runs left out (docs/validator.md, "Who pays for inference")
        mine = outcome.spend.payer == "miner" and not verdict.choked(outcome.upstream_errors)
        if code == blame.PROVIDER_DOWN and self.keys is not None and mine:
            dropped = self.keys.provider_failed(run.race_id, outcome.spend.provider, run.hotkey, error)
            if dropped and self.metrics is not None:
                self.metrics.providers_dropped.labels(provider=outcome.spend.provider).inc()
        spend = run_stats(run, outcome, code, error)
        if self.metrics is not None:
            self.metrics.sandbox(outcome.result.elapsed_s, outcome.events, worker=outcome.worker)
            if outcome.upstream_errors:
                self.metrics.upstream_errors.inc(len(outcome.upstream_errors))
            self.metrics.spent(outcome.spend)
        written = self.stages.now()
        if code is None:
            self._record_scored(run, problem, outcome.events, spend, written)
        else:
            self.store.record_run(run.run_id, "errored", outcome.events, error_code=code, error=error, **spend)
            self.stages.add("trajectory_write", written)
            self._errored(run.run_id, verdict.errored(code, error))

    def _record_scored(
        self, run: Run, problem: ProblemBase, events: list[Any], spend: dict[str, Any], since: tuple[float, float]
    ) -> None:
        """An attempt to score: strict first, so the trajectory and its strict score land in one commit (with the
        offline judge's judgment too); a judge with I/O judges it once its sandbox slot is free."""
        try:
            strict = self._strict(problem, events)
            failure = None
        except Exception as exc:  # noqa: BLE001 - a bug of ours in scoring is our fault (2007, below)
            strict, failure = None, exc
        scored = self.stages.add("strict_scoring", since)
        judgment, judging = None, scored
        if strict is not None and self.judging.offline(run):  # the offline judge: judged now, in the same commit
            judging = self.stages.add("judge_wait", scored)
            judgment = self.judging.inline(run, problem, events, float(strict.final))
            scored = self.stages.add("judge", judging)
        self.store.record_run(
            run.run_id,
            "scoring",
            events,
            **spend,
            strict=None if strict is None else (float(strict.success), strict.model_dump(mode="json")),
            judgment=judgment,
        )
        written = self.stages.add("trajectory_write", scored)
        if judgment is not None:
            if self.metrics is not None:
                judge = self.judging.judge_for(run).name
                self.metrics.judge_seconds.labels(judge=judge).observe(written[0] - judging[0])
                self.metrics.run_final("finished", None)
        elif strict is not None:  # judged as soon as `dispatch` frees its sandbox slot
            self.judging.wait(run.run_id, written, events, float(strict.final))
        elif failure is not None:
            self._scoring_failed(run.run_id, failure)

    def score_or_fail(self, run_id: str) -> bool:
        """`_score`; a failure of the store propagates (the run stays `scoring` for `recover`), any other failure
        of ours ends the attempt as 2007 (retried, never the agent's zero) with its traceback in the log. Returns
        whether the run was scored (and waits for its judge)."""
        from sqlalchemy.exc import SQLAlchemyError

        try:
            self._score(run_id)
        except (StoreError, SQLAlchemyError):
            raise
        except Exception as exc:  # noqa: BLE001 - a bug of ours in scoring is our fault
            self._scoring_failed(run_id, exc)
            return False
        return True

    def _scoring_failed(self, run_id: str, exc: BaseException) -> None:
        """A fault of ours while scoring: its traceback in the log, the attempt ended 2007 (retried)."""
        self.signals.error(
            "races.scoring_failed",
            run_id=run_id,
            error=f"{type(exc).__name__}: {exc}",
            traceback="".join(traceback.format_exception(exc)),
        )
        self.fail(run_id, blame.SCORING_FAILED, f"scoring failed: {type(exc).__name__}: {exc}")

    def fail(self, run_id: str, code: int, error: str) -> None:
        run = self.store.run(run_id)
        assert run is not None
        sandbox = {**(run.sandbox or {}), "attempts": attempts_of(run, code, error)}
        self.store.transition(run_id, "errored", error_code=code, error=error, sandbox=sandbox)
        self._errored(run_id, verdict.errored(code, error))

    def _errored(self, run_id: str, ended: verdict.Verdict) -> None:
        """An errored attempt's verdict carried out: retried (the validator's fault) or final (the agent's)."""
        assert ended.code is not None
        if ended.retry:
            self._retry_or_give_up(run_id, ended.code, ended.error)
        else:
            self.signals.info("races.run_errored", run_id=run_id, code=ended.code, blame=ended.blame, error=ended.error)
            if self.metrics is not None:
                self.metrics.run_final("errored", ended.blame)

    def _retry_or_give_up(self, run_id: str, code: int, error: str | None) -> None:
        """A validator's fault: the run is tried again with `doubling` backoff up to `max_attempts`; past that budget
        it stays errored, and its race waits for the fault to clear, trying it again now and then (`Closing.hold`):
        never a final result of its own."""
        run = self.store.run(run_id)
        assert run is not None
        if run.attempt < self.config.max_attempts:
            delay = doubling(self.config.retry_backoff, run.attempt)
            self.store.retry_later(run_id, delay=timedelta(seconds=delay))
            self.signals.warn(
                "races.run_retry", run_id=run_id, code=code, error=error, attempt=run.attempt, retry_in_s=delay
            )
        else:
            self.signals.warn("races.run_gave_up", run_id=run_id, code=code, error=error, attempts=run.attempt)
            if self.metrics is not None:
                self.metrics.run_final("errored", "validator")

    def _score(self, run_id: str) -> None:
        """Strict checks on the run's answer (read from its stored trajectory) by the pack's ruleset."""
        run = self.store.run(run_id)
        assert run is not None
        problem = self.problems.problem(run.problem_id)
        assert problem is not None, f"run {run_id} raced problem {run.problem_id}, which this node does not hold"
        score = self._strict(problem, self.store.events(run_id))
        # the run stays `scoring` until the judge's coefficient makes its final score (`judge_runs`)
        self.store.save_score(run_id, success=float(score.success), final=None, strict=score.model_dump(mode="json"))

    def _strict(self, problem: ProblemBase, events: Sequence[TrajectoryEvent]) -> RunScore:
        """The strict verdict on a run from its log (`arena.verdict.strict_verdict`), by the pack's ruleset."""
        ruleset, gold = self.pack.ruleset_for(problem.task), self.problems.gold_vectors(problem.problem_id)
        return verdict.strict_verdict(problem, events, self.catalog.get, gold_vectors=gold, ruleset=ruleset)
