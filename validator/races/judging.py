"""The reasoning judge: a run is judged as soon as it is scored; `judge_runs` sweeps the rest."""

from __future__ import annotations

import asyncio
import time
import traceback
from datetime import timedelta
from typing import Any

from arena import verdict
from arena.backoff import doubling
from arena.judge import Judge
from arena.scoring.models import strict_score
from arena.tasks import ProblemBase
from validator.races.base import ArenaParts
from validator.store.models import Run


class Judging(ArenaParts):
    """Judging scored runs, within the judge's own concurrency and the race's LLM token budget."""

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
                self.log.error(
                    "judge.failed",
                    run_id=run.run_id,
                    error=f"{type(exc).__name__}: {exc}",
                    traceback=traceback.format_exc(),
                )
        finally:
            self._judging.discard(run.run_id)

    async def judge_runs(self, limit: int | None = None) -> int:
        """Judge the strictly scored runs no one is judging (runs whose judge failed, once their backoff has passed;
        runs `recover` scored), `judge_concurrency` at a time together with the runs judged as they are scored;
        returns how many were judged."""
        from datetime import UTC, datetime

        now = datetime.now(UTC)
        ready = [
            r
            for r in self.store.runs(status="scoring", ready_at=now)
            if r.run_id not in self.in_flight and r.run_id not in self._judging
        ][:limit]
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

    def _judge_inline(self, run: Run, problem: ProblemBase, events: list[Any], success: float) -> dict[str, Any] | None:
        """The offline judge's judgment of a run just scored (`save_judgment`'s arguments), to store with its
        trajectory; None when it failed (a fault of ours, logged): the run then waits for the judge job."""
        judge = self._judge_for(run)
        try:
            judgment = verdict.judge_run(judge, problem, events, success)
        except Exception as exc:  # noqa: BLE001 - never the agent's zero: judged again by the judge job
            if self.log is not None:
                self.log.error(
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

    def _judge(self, run: Run, events: list[Any] | None, success: float | None) -> int:
        from arena.judge import JudgeUnavailable

        if success is None:  # the strict score before the judge: the family's (ShoppingBench: success, 0 or 1)
            score = self.store.score(run.run_id)
            success = strict_score(score.strict, score.success) if score is not None else None
        problem = self._problem(run.problem_id)
        if success is None or problem is None:
            return 0
        judge = self._judge_for(run)
        started = time.perf_counter()
        events = self.store.events(run.run_id) if events is None else events
        try:
            judgment = verdict.judge_run(judge, problem, events, success)
        except JudgeUnavailable as exc:
            if self.metrics is not None:
                self.metrics.judge_failures.inc()
            self._judge_failures[run.run_id] += 1
            delay = doubling(self.config.judge_retry, self._judge_failures[run.run_id], cap=3600.0)
            self.store.defer_judging(run.run_id, delay=timedelta(seconds=delay), error=str(exc))
            self._warn("judge.unavailable", run_id=run.run_id, error=str(exc), retry_in_s=delay)
            return 0
        self._judge_tokens[run.race_id] += int(judgment.verdict.tokens.get("total_tokens", 0))
        self.store.save_judgment(run.run_id, **judgment.stored())
        if self.metrics is not None:
            self.metrics.judge_seconds.labels(judge=judge.name).observe(time.perf_counter() - started)
            self.metrics.run_final("finished", None)
        return 1
