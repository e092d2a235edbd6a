"""The store's reads for the corpus export (`validator.corpus`): read-only. The export walks the selected final runs
once, in run_id order, with a server-side cursor on Postgres (yield_per) and one event query per batch of runs, so
its memory does not grow with the store."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from arena import tasks
from validator.store.engine import EVENT_BATCH
from validator.store.models import Event, ProblemRow, Race, Run, Score, Submission


class CorpusStore:
    """Mixed into `validator.store.repository.Store` (which provides `session`, `engine` and `dialect`)."""

    session: Callable[[], AbstractContextManager[Session]]  # Store's one-transaction session
    engine: Engine
    dialect: str  # the engine's dialect name

    def _export_selected(
        self, query: Any, *, since: datetime | None, until: datetime | None, tasks: Sequence[str] = ()
    ) -> Any:
        ended = func.coalesce(Run.finished_at, Run.errored_at)
        query = query.where(Run.status.in_(("finished", "errored")))
        # never a race still open: its problems are not public until it closes (qualifying rounds are not exported)
        query = query.where(Run.race_id.in_(select(Race.race_id).where(Race.status == "closed", Race.kind == "race")))
        if since is not None:
            query = query.where(ended >= since)
        if until is not None:
            query = query.where(ended < until)
        if tasks:
            query = query.where(ProblemRow.task.in_(list(tasks)))
        return query

    def export_counts(
        self, *, since: datetime | None = None, until: datetime | None = None, tasks: Sequence[str] = ()
    ) -> dict[str, Any]:
        """How many runs the store holds, how many are final, how many the window and tasks select, and when the
        final runs ended (first, last)."""
        ended = func.coalesce(Run.finished_at, Run.errored_at)
        with self.session() as s:
            total = int(s.scalar(select(func.count()).select_from(Run)) or 0)
            final_q = select(func.count(), func.min(ended), func.max(ended)).where(
                Run.status.in_(("finished", "errored"))
            )
            final, first, last = s.execute(final_q).one()
            selected_q = self._export_selected(
                select(func.count()).select_from(Run).join(ProblemRow, ProblemRow.problem_id == Run.problem_id),
                since=since,
                until=until,
                tasks=tasks,
            )
            selected = int(s.scalar(selected_q) or 0)
        return {"runs": total, "final": int(final or 0), "selected": selected, "first_ended": first, "last_ended": last}

    def export_runs(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        tasks: Sequence[str] = (),
        after: str | None = None,
        batch: int = 500,
    ) -> Iterator[tuple[list[Any], dict[str, list[tuple[Any, ...]]]]]:
        """The selected final runs after run id `after`, in run_id order, `batch` at a time, each batch with its
        events: run_id -> [(seq, kind, name, arguments JSON text, result JSON text, error, status)] in seq order.

        A run row has run_id, race_id, hotkey, problem_id, status, error_code, ended_at, sha256 (the agent's
        bundle), success, final, judge_quality, judge_gate and strict (the stored strict verdict, which the
        run's family reads: `Family.corpus_known`). One connection reads everything (REPEATABLE READ on Postgres:
        one snapshot)."""
        from sqlalchemy import Text, case, cast

        ended = func.coalesce(Run.finished_at, Run.errored_at).label("ended_at")
        query = (
            select(
                Run.run_id,
                Run.race_id,
                Run.hotkey,
                Run.problem_id,
                Run.status,
                Run.error_code,
                ended,
                Submission.sha256,
                Score.success,
                Score.final,
                Score.judge_quality,
                Score.judge["gate"].as_string().label("judge_gate"),
                Score.strict.label("strict"),
            )
            .join(ProblemRow, ProblemRow.problem_id == Run.problem_id)
            .join(Submission, Submission.id == Run.submission_id)
            .outerjoin(Score, Score.run_id == Run.run_id)
        )
        query = self._export_selected(query, since=since, until=until, tasks=tasks)
        if after is not None:
            query = query.where(Run.run_id > after)
        query = query.order_by(Run.run_id)
        # an LLM call's arguments are the whole chat request (the conversation so far): not needed, not read
        arguments = case((Event.kind == "llm_call", None), else_=cast(Event.arguments, Text))
        events_q = select(
            Event.run_id,
            Event.seq,
            Event.kind,
            Event.name,
            arguments,
            cast(Event.result, Text),
            Event.error,
            Event.status,
        )
        with self.engine.connect() as conn:
            if self.dialect == "postgresql":
                conn = conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():
                result = conn.execution_options(yield_per=batch).execute(query)
                for part in result.partitions(batch):
                    runs = list(part)
                    events: dict[str, list[tuple[Any, ...]]] = {r.run_id: [] for r in runs}
                    rows = conn.execute(
                        events_q.where(Event.run_id.in_(list(events))).order_by(Event.run_id, Event.seq)
                    )
                    for row in rows:
                        events[row[0]].append(tuple(row[1:]))
                    yield runs, events

    def export_problems(self, problem_ids: Iterable[str]) -> list[ProblemRow]:
        """The problems with these ids (ground truth included: the export needs the answers to guard the split)."""
        ids = sorted(set(problem_ids))
        out: list[ProblemRow] = []
        with self.session() as s:
            for start in range(0, len(ids), EVENT_BATCH):
                out += s.scalars(select(ProblemRow).where(ProblemRow.problem_id.in_(ids[start : start + EVENT_BATCH])))
        return sorted(out, key=lambda p: p.problem_id)

    def held_out_answers(self) -> set[str]:
        """The gold product ids of every stored problem in the `held_out` split (any pack)."""
        answers: set[str] = set()
        with self.session() as s:
            for data in s.scalars(
                select(ProblemRow.data).where(ProblemRow.split == "held_out").execution_options(yield_per=EVENT_BATCH)
            ):
                try:  # the gold ids as the problem's family names them (ShoppingBench's rewards, a session's gold)
                    answers.update(tasks.parse_problem(data).gold_ids)
                except ValueError:  # a problem of a family this node does not load: nothing to match against
                    continue
        return answers
