"""The store's scores: a run's strict verdict, the judge's verdict and the final score (with the run's moves to
`judged` and `finished`), a judge deferred, and a rescore's replaced verdicts kept as revisions."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from validator.store.errors import StoreError
from validator.store.models import Run, Score, ScoreRevision, utcnow
from validator.store.moves import move


class ScoresStore:
    """Mixed into `validator.store.repository.Store` (which provides `session`)."""

    session: Callable[[], AbstractContextManager[Session]]  # Store's one-transaction session

    def save_score(
        self,
        run_id: str,
        *,
        success: float,
        strict: dict[str, Any],
        final: float | None = None,
        judge_quality: float | None = None,
        judge_coefficient: float | None = None,
        judge: dict[str, Any] | None = None,
        judge_evidence: list[int] | None = None,
        status: str | None = None,
    ) -> Score:
        """Store (or replace) a run's verdicts; with `status`, move the run in the same transaction."""
        with self.session() as s:
            score = s.get(Score, run_id)
            if score is None:
                score = Score(run_id=run_id, success=success, strict=strict)
                s.add(score)
            score.success, score.strict, score.final = success, strict, final
            score.ruleset, score.ruleset_version = strict.get("ruleset"), strict.get("ruleset_version")
            score.judge_quality, score.judge_coefficient = judge_quality, judge_coefficient
            score.judge, score.judge_evidence = judge, judge_evidence
            if judge is not None:
                score.judged_at = utcnow()
            if status is not None:
                move(s, run_id, status, {})
            return score

    def save_judgment(
        self,
        run_id: str,
        *,
        verdict: dict[str, Any],
        quality: float,
        coefficient: float,
        final: float,
        evidence: list[int],
    ) -> Score:
        """The judge's verdict and the final score, and the run's move scoring -> judged -> finished: one commit."""
        with self.session() as s:
            score = s.get(Score, run_id)
            if score is None:
                raise StoreError("not_found", f"run {run_id} has no strict score to judge")
            self._put_judgment(
                s,
                run_id,
                score,
                verdict=verdict,
                quality=quality,
                coefficient=coefficient,
                final=final,
                evidence=evidence,
            )
            return score

    def _put_judgment(
        self,
        s: Session,
        run_id: str,
        score: Score,
        *,
        verdict: dict[str, Any],
        quality: float,
        coefficient: float,
        final: float,
        evidence: list[int],
    ) -> Run:
        score.judge, score.judge_evidence, score.judged_at = verdict, evidence, utcnow()
        score.judge_quality, score.judge_coefficient, score.final = quality, coefficient, final
        move(s, run_id, "judged", {})
        return move(s, run_id, "finished", {"error": None})

    def defer_judging(self, run_id: str, *, delay: timedelta, error: str) -> Run:
        """The judge could not judge the run: it stays `scoring` and is judged again after `delay`."""
        with self.session() as s:
            run = s.get(Run, run_id)
            if run is None:
                raise StoreError("not_found", f"no run {run_id}")
            if run.status != "scoring":
                raise StoreError("bad_transition", f"run {run_id} is {run.status}, not waiting for its judge")
            run.not_before, run.error = utcnow() + delay, f"judge unavailable: {error}"
            return run

    def score(self, run_id: str) -> Score | None:
        with self.session() as s:
            return s.get(Score, run_id)

    def revise_score(
        self,
        run_id: str,
        *,
        success: float,
        strict: dict[str, Any],
        final: float | None,
        judge_coefficient: float | None,
        reason: str,
    ) -> ScoreRevision:
        """Replace a run's strict verdict (and its final score) and keep the verdict it replaces as a revision, in
        one transaction. The judge's verdict and quality stay: they judge the trajectory, not the rules."""
        with self.session() as s:
            score = s.get(Score, run_id)
            if score is None:
                raise StoreError("not_found", f"run {run_id} has no score to revise")
            old = ScoreRevision(
                run_id=run_id,
                ruleset=score.ruleset,
                ruleset_version=score.ruleset_version,
                rubric_version=(score.judge or {}).get("rubric_version"),
                success=score.success,
                final=score.final,
                strict=score.strict,
                judge_quality=score.judge_quality,
                judge_coefficient=score.judge_coefficient,
                scored_at=score.scored_at,
                judged_at=score.judged_at,
                reason=reason,
            )
            s.add(old)
            score.success, score.strict, score.final = success, strict, final
            score.ruleset, score.ruleset_version = strict.get("ruleset"), strict.get("ruleset_version")
            score.judge_coefficient = judge_coefficient
            score.scored_at = utcnow()
            return old

    def score_revisions(self, run_id: str) -> list[ScoreRevision]:
        """The verdicts a rescore replaced, oldest first."""
        with self.session() as s:
            return list(
                s.scalars(select(ScoreRevision).where(ScoreRevision.run_id == run_id).order_by(ScoreRevision.id))
            )
