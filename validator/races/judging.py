"""The reasoning judge: a run is judged as soon as it is scored; `judge_runs` sweeps the rest."""

from __future__ import annotations

import asyncio
import time
import traceback
from collections import defaultdict
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from arena import verdict
from arena.backoff import doubling
from arena.judge import Judge
from arena.scoring.models import strict_score
from arena.tasks import ProblemBase
from validator.races.base import Problems, Signals
from validator.races.config import ArenaConfig
from validator.races.stages import StageTimes
from validator.store.models import Run
from validator.store.repository import Store


class Judging:
    """Judging scored runs, within the judge's own concurrency and the race's LLM token budget. Owns the judge (and
    the offline fallback once a race's LLM budget is spent, or for a run the judge keeps refusing while it reads a
    probe: `_refused`), its gate, its failures (and refusals) and the runs waiting for it.

    Dispatching hands it each run it scored: `inline` (the offline judge, judged in the same commit as the
    trajectory) or `wait` then `judge_waiting` (a judge with I/O, once the sandbox slot is free); `judge_runs` sweeps
    the rest. ``busy`` says whether a run is still in dispatch's hands (never judged meanwhile)."""

    def __init__(
        self,
        *,
        store: Store,
        config: ArenaConfig,
        problems: Problems,
        stages: StageTimes,
        signals: Signals,
        judge: Judge | None,
        busy: Callable[[str], bool],
    ) -> None:
        from arena.judge.offline import OfflineJudge

        self.store, self.config, self.problems, self.stages, self.signals = store, config, problems, stages, signals
        self.fallback: Judge = OfflineJudge()
        self.judge: Judge = judge or self.fallback
        self.busy = busy
        self.tokens: dict[str, int] = defaultdict(int)  # LLM judge tokens spent per race
        self.failures: dict[str, int] = defaultdict(int)
        self.refusals: dict[str, int] = defaultdict(int)  # of the failures, those not transient (`JudgeUnavailable`)
        self.judging: set[str] = set()
        # runs scored in this process, to judge now: (when, their gateway log, their strict score before the judge)
        self.waiting: dict[str, tuple[tuple[float, float], list[Any], float]] = {}
        self._gate_of: tuple[Any, asyncio.Semaphore] | None = None  # (its event loop, the gate)

    def wait(self, run_id: str, since: tuple[float, float], events: list[Any], before_judge: float) -> None:
        """A run just scored, to judge as soon as its sandbox slot is free (`judge_waiting`)."""
        self.waiting[run_id] = (since, events, before_judge)

    def _gate(self) -> asyncio.Semaphore:
        """The judge's own concurrency (`judge_concurrency`): one gate shared by every path that judges."""
        loop = asyncio.get_running_loop()
        if self._gate_of is None or self._gate_of[0] is not loop:
            self._gate_of = (loop, asyncio.Semaphore(self.config.judge_concurrency))
        return self._gate_of[1]

    async def judge_waiting(self, run: Run) -> None:
        """Judge a run this process has just scored as soon as the judge's gate lets it, with no wait for the judge
        job's interval. A failure of ours leaves the run `scoring`, for `judge_runs` to judge again."""
        scored = self.waiting.pop(run.run_id, None)
        if scored is None:
            return
        since, events, success = scored
        self.judging.add(run.run_id)
        try:
            async with self._gate():
                self.stages.add("judge_wait", since)
                await asyncio.to_thread(self._judge_one, run, events, success)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the run waits for the judge job, as a run `recover` scored does
            self.signals.error(
                "judge.failed",
                run_id=run.run_id,
                error=f"{type(exc).__name__}: {exc}",
                traceback=traceback.format_exc(),
            )
        finally:
            self.judging.discard(run.run_id)

    async def judge_runs(self, limit: int | None = None) -> int:
        """Judge the strictly scored runs no one is judging (runs whose judge failed, once their backoff has passed;
        runs `recover` scored), `judge_concurrency` at a time together with the runs judged as they are scored;
        returns how many were judged."""
        from datetime import UTC, datetime

        now = datetime.now(UTC)
        scoring = await asyncio.to_thread(self.store.runs, status="scoring", ready_at=now)  # read off the event loop:
        # a run judged (or deferred) since it was read, whose task left flight meanwhile, is read again (`_waits`)
        ready = [r for r in scoring if not self.busy(r.run_id) and r.run_id not in self.judging][:limit]
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

        self.judging.update(r.run_id for r in ready)
        try:
            await asyncio.gather(*(one(r) for r in ready))
        finally:
            self.judging.difference_update(r.run_id for r in ready)
        return judged

    def judge_for(self, run: Run) -> Judge:
        """The judge of a run: the node's, or the offline gates once the race's LLM judge token budget is spent."""
        budget = self.config.judge_token_budget
        if self.judge is not self.fallback and budget and self.tokens[run.race_id] >= budget:
            return self.fallback  # the LLM budget of this race is spent: the offline gates, never a zero
        return self.judge

    def offline(self, run: Run) -> bool:
        """Whether the run's judge is the offline one (no I/O: judged as the run is recorded, on the run path's thread,
        `validator.races.offloop`, its verdict in the trajectory's commit)."""
        from arena.judge.offline import OfflineJudge

        return isinstance(self.judge_for(run), OfflineJudge)

    def inline(self, run: Run, problem: ProblemBase, events: list[Any], success: float) -> dict[str, Any] | None:
        """The offline judge's judgment of a run just scored (`save_judgment`'s arguments), to store with its
        trajectory; None when it failed (a fault of ours, logged): the run then waits for the judge job."""
        judge = self.judge_for(run)
        try:
            judgment = verdict.judge_run(judge, problem, events, success)
        except Exception as exc:  # noqa: BLE001 - never the agent's zero: judged again by the judge job
            self.signals.error(
                "judge.failed",
                run_id=run.run_id,
                error=f"{type(exc).__name__}: {exc}",
                traceback=traceback.format_exc(),
            )
            return None
        return judgment.stored()

    def _judge_one(self, run: Run, events: list[Any] | None = None, success: float | None = None) -> int:
        """Judge one scored run from its gateway log and strict score before the judge (`events`, `success`: those
        just stored, else read back from the store)."""
        started = self.stages.now()
        try:
            return self._judge(run, events, success)
        finally:
            self.stages.add("judge", started)

    def _waits(self, run_id: str) -> bool:
        """Whether the run, read now, still waits for the judge job: `scoring`, its judge's backoff passed."""
        from datetime import UTC, datetime

        run = self.store.run(run_id)
        ready = run is not None and (run.not_before is None or run.not_before <= datetime.now(UTC))
        return ready and run is not None and run.status == "scoring"

    def _refused(
        self, run: Run, judge: Judge, problem: ProblemBase, events: list[Any], success: float, error: str
    ) -> verdict.Judgment | None:
        """The offline gates' judgment of a run its judge refused `max_attempts` times while that judge reads a
        probe run of the arena's own (`LLMJudge.probe`): what fails is what the run holds, which its agent wrote (a
        phrase the judge's provider refuses, text past its model's context), and a race never closes on an unjudged
        run, so such a run would hold its race open for ever. None while the judge may be down for every run (fewer
        refusals, no probe, or the probe failed too): the run waits, as before. A transient failure (a rate limit, a
        timeout, a 5xx: `JudgeUnavailable.transient`) is no refusal: a provider's tokens-per-minute limit refuses a
        long honest run while the small probe fits, and the run's next try is judged; but failures of any kind,
        twice `max_attempts` of them (15 minutes of the default backoff: 30 s doubling), are taken as one (a prompt the
        provider breaks on or cannot read in time at every try would hold the race open too)."""
        probe = getattr(judge, "probe", None)
        failures, refusals, most = self.failures[run.run_id], self.refusals[run.run_id], self.config.max_attempts
        if judge is self.fallback or probe is None or (refusals < most and failures < 2 * most):
            return None
        if not probe():
            return None
        judgment = verdict.judge_run(self.fallback, problem, events, success)
        why = (
            f"the LLM judge failed this run {self.failures[run.run_id]} times while it judged a probe run (last: "
            f"{error[:300]}); judged by the offline gates. "
        )
        reading = judgment.verdict.model_copy(
            update={
                "explanation": why + judgment.verdict.explanation,
                "checks": {**judgment.verdict.checks, "refused": {"judge": judge.name, "error": error[:500]}},
            }
        )
        self.signals.warn("judge.refused_run", run_id=run.run_id, failures=self.failures[run.run_id], error=error)
        return judgment.model_copy(update={"verdict": reading})

    def _judge(self, run: Run, events: list[Any] | None, success: float | None) -> int:
        from arena.judge import JudgeUnavailable

        if events is None and not self._waits(run.run_id):
            return 0
        if success is None:  # the strict score before the judge: the family's (ShoppingBench: success, 0 or 1)
            score = self.store.score(run.run_id)
            success = strict_score(score.strict, score.success) if score is not None else None
        problem = self.problems.problem(run.problem_id)
        if success is None or problem is None:
            return 0
        judge = self.judge_for(run)
        started = time.perf_counter()
        events = self.store.events(run.run_id) if events is None else events
        try:
            judgment = verdict.judge_run(judge, problem, events, success)
        except JudgeUnavailable as exc:
            if self.signals.metrics is not None:
                self.signals.metrics.judge_failures.inc()
            self.failures[run.run_id] += 1
            self.refusals[run.run_id] += not exc.transient
            offline = self._refused(run, judge, problem, events, success, str(exc))
            if offline is None:
                delay = doubling(self.config.judge_retry, self.failures[run.run_id], cap=3600.0)
                self.store.defer_judging(run.run_id, delay=timedelta(seconds=delay), error=str(exc))
                self.signals.warn("judge.unavailable", run_id=run.run_id, error=str(exc), retry_in_s=delay)
                return 0
            judge, judgment = self.fallback, offline
        self.tokens[run.race_id] += int(judgment.verdict.tokens.get("total_tokens", 0))
        self.store.save_judgment(run.run_id, **judgment.stored())
        if self.signals.metrics is not None:
            self.signals.metrics.judge_seconds.labels(judge=judge.name).observe(time.perf_counter() - started)
            self.signals.metrics.run_final("finished", None)
        return 1
