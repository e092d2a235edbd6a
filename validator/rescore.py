"""Re-scoring a race's stored runs after a ruleset or rubric change (`arena-validator rescore`).

Each scored run's answer is read again from its stored trajectory (`arena.tasks.answer`) and scored by the chosen
ruleset; its final score is made again by the rubric from the judge's stored quality (the judge judged the
trajectory, which has not changed, so it is not asked again). The verdict it replaces is kept as a
`ScoreRevision` with its ruleset and rubric versions, in the same transaction. A run whose verdict would not change
is left alone, so running it twice changes nothing. The race's stored results and any weights already set are not
touched: the report shows each miner's mean before and after.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena import tasks, verdict
from arena.judge.rubric import Rubric
from arena.problems.pack import Pack
from arena.scoring.models import RunScore
from arena.tasks import ProblemBase, Ruleset
from validator.races import race_scores
from validator.store.repository import Store, StoreError


class RescoreError(Exception):
    """A rescore that cannot be done; the message says why and what to do."""


@dataclass
class RescoreReport:
    race_id: str
    ruleset: str
    rubric: str
    runs: int = 0
    revised: int = 0
    unchanged: int = 0
    flipped: int = 0  # success changed
    per_miner: dict[str, tuple[float, float]] = field(default_factory=dict)  # hotkey -> (mean before, mean after)


def rescore_race(
    store: Store,
    pack: Pack,
    lookup: Callable[[str], dict[str, Any] | None],
    race_id: str,
    *,
    ruleset: Ruleset,
    rubric: Rubric,
    progress: Callable[[], None] | None = None,
) -> RescoreReport:
    race = store.race(race_id)
    if race is None:
        raise RescoreError(f"no race {race_id!r} in the store; `arena-validator dashboard` lists the races")
    if race.pack_id != pack.pack_id:
        raise RescoreError(
            f"race {race_id} was raced on pack {race.pack_id}, not {pack.pack_id}; give --pack the pack it was raced on"
        )
    report = RescoreReport(race_id=race_id, ruleset=f"{ruleset.name} v{ruleset.version}", rubric=rubric.version)
    before: list[dict[str, Any]] = []
    after: list[dict[str, Any]] = []
    reason = f"rescore: ruleset {ruleset.name} v{ruleset.version}, rubric {rubric.version}"
    for run in store.runs(race_id=race_id):
        problem = _problem_of(store, pack, run)
        old = store.score(run.run_id)
        row = {
            "hotkey": run.hotkey,
            "submission_id": run.submission_id,
            "status": run.status,
            "blame": run.blame,
            "attempt": run.attempt,
            "task": problem.task,
        }
        old_final = old.final if old is not None and run.status == "finished" else 0.0
        before.append(row | {"final": old_final, "success": bool(old and old.success)})
        if old is None:
            after.append(before[-1])
        else:
            report.runs += 1
            new, final = _rescore_run(store, pack, lookup, run, problem, old, ruleset=ruleset, rubric=rubric)
            if not _revise(store, run, old, new, final, rubric=rubric, reason=reason):
                report.unchanged += 1
            else:
                report.revised += 1
                report.flipped += bool(old.success) != bool(new.success)
            after.append(row | {"final": final if run.status == "finished" else 0.0, "success": bool(new.success)})
        if progress:
            progress()
    old_means = race_scores(before)
    new_means = race_scores(after)
    report.per_miner = {h: (old_means[h]["score"], new_means[h]["score"]) for h in sorted(new_means)}
    return report


def _problem_of(store: Store, pack: Pack, run: Any) -> ProblemBase:
    """The problem a run raced: from the pack, or (a sealed batch's) as stored when its race opened."""
    problem = pack.problem(run.problem_id)
    if problem is None and pack.sealed:
        stored = store.problem(run.problem_id)
        problem = tasks.parse_problem(stored.data) if stored is not None else None
    if problem is None:
        raise RescoreError(
            f"run {run.run_id} raced problem {run.problem_id}, which pack {pack.pack_id} does not "
            "hold; give --pack the pack it was raced on"
        )
    return problem


def _rescore_run(
    store: Store,
    pack: Pack,
    lookup: Callable[[str], dict[str, Any] | None],
    run: Any,
    problem: ProblemBase,
    old: Any,
    *,
    ruleset: Ruleset,
    rubric: Rubric,
) -> tuple[RunScore, float | None]:
    """The run's new verdict by ``ruleset`` (where the problem's family defines it; else the pack's ruleset for the
    family) and its final score by ``rubric`` from the judge's stored quality
    (None while it awaits the judge)."""
    new = verdict.strict_verdict(
        problem,
        store.events(run.run_id),
        lookup,
        gold_vectors=pack.gold_vectors(problem.problem_id),
        ruleset=pack.ruleset_for(problem.task, ruleset.name),
    )
    if old.judge_quality is not None:
        final: float | None = verdict.final_score(float(new.final), old.judge_quality, rubric)
        update = {"judge_quality": old.judge_quality, "judge_coefficient": rubric.coefficient(old.judge_quality)}
    else:
        final = float(new.final) if old.final is not None else None
        update = {"judge_coefficient": old.judge_coefficient}
    if final is not None:
        update["final"] = final
    return new.model_copy(update=update), final


def _revise(
    store: Store, run: Any, old: Any, new: RunScore, final: float | None, *, rubric: Rubric, reason: str
) -> bool:
    """Store the new verdict in place of the old (the old kept as a revision); False when nothing changed."""
    old_rubric = (old.judge or {}).get("rubric_version")
    same = (old.ruleset, old.ruleset_version, old.success, old.final) == (
        new.ruleset,
        new.ruleset_version,
        float(new.success),
        final,
    ) and (old.judge_quality is None or old_rubric == rubric.version)
    if same:
        return False
    try:
        store.revise_score(
            run.run_id,
            success=float(new.success),
            strict=new.model_dump(mode="json"),
            final=final,
            judge_coefficient=new.judge_coefficient,
            reason=reason,
        )
    except StoreError as exc:
        raise RescoreError(str(exc)) from None
    return True
