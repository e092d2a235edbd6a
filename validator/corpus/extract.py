"""Steps 1-7 of the funnel, streaming: the store's runs in run-id order, one batch at a time, normalized and sifted;
each batch's survivors (compressed), drop counts and checkpoint are committed to the workspace together."""

from __future__ import annotations

import hashlib
import zlib
from collections import Counter
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

import orjson

from arena.tasks import UnknownTask, parse_problem
from validator.corpus.normalize import dumps, estimate_tokens, invalid_reason, normalize
from validator.corpus.options import EXAMPLES, ExportOptions, Progress
from validator.corpus.render import ChatFormat, chat_format
from validator.corpus.split import SplitProblem, rank
from validator.corpus.workspace import Workspace

KEEP_AXES = {"a": {"A"}, "b": {"B"}, "all": {"A", "B"}}


@dataclass
class ProblemInfo:
    problem: SplitProblem
    task: str

    @property
    def chat_format(self) -> ChatFormat:
        """How chats of the problem's family are written (its tools' schemas and kinds, its system prompt)."""
        return chat_format(self.task)


def gold_ids(data: dict[str, Any]) -> tuple[str, ...]:
    """A stored problem's gold product ids, as its family reads them (`ProblemBase.gold_ids`: a ShoppingBench reward's
    products, a session's acceptable products), for the leak clusters; none for a problem no loaded family reads."""
    try:
        return tuple(str(g) for g in parse_problem(data).gold_ids)
    except (UnknownTask, ValueError):  # pydantic's ValidationError is a ValueError
        return ()


def problem_info(row: Any) -> ProblemInfo:
    """What the funnel needs of a stored problem (a `Store.export_problems` row)."""
    data = row.data or {}
    golds = gold_ids(data)
    return ProblemInfo(
        SplitProblem(
            problem_id=row.problem_id,
            cluster_id=row.cluster_id or row.problem_id,
            query=str(data.get("query") or ""),
            golds=golds,
            split=row.split,
        ),
        row.task,
    )


class _Drops:
    """One batch's drops by (step, reason), and their example run ids (at most `EXAMPLES` per reason over the whole
    export: `examples` counts them across batches)."""

    def __init__(self, examples: Counter[tuple[str, str]]) -> None:
        self.examples = examples
        self.counts: Counter[tuple[str, str]] = Counter()
        self.new_examples: list[tuple[str, str, str]] = []

    def add(self, step: str, reason: str, run_id: str) -> None:
        self.counts[(step, reason)] += 1
        if self.examples[(step, reason)] < EXAMPLES:
            self.examples[(step, reason)] += 1
            self.new_examples.append((step, reason, run_id))


def extract(
    store: Any,
    space: Workspace,
    options: ExportOptions,
    until: datetime,
    total: int,
    progress: Progress | None,
    batch_size: int,
) -> None:
    """Steps 1-7, streaming: each batch's survivors, counts and checkpoint are committed together."""
    db = space.db
    assert db is not None
    if space.get("extracted") == "1":
        if progress:
            progress("extract", total, total)
        return
    problems: dict[str, ProblemInfo] = {}
    examples = Counter(
        {(s, r): int(n) for s, r, n in db.execute("SELECT step, reason, COUNT(*) FROM examples GROUP BY step, reason")}
    )
    processed = int(space.get("processed") or 0)
    after = space.get("checkpoint")
    if progress:
        progress("extract", processed, total)
    with closing(
        store.export_runs(since=options.since, until=until, tasks=options.tasks, after=after, batch=batch_size)
    ) as batches:
        for runs, events in batches:
            missing = {r.problem_id for r in runs} - problems.keys()
            if missing:
                problems.update((p.problem_id, problem_info(p)) for p in store.export_problems(missing))
            drops = _Drops(examples)
            kept: list[tuple[Any, ...]] = []
            for run in runs:
                dropped = _sift(run, events.get(run.run_id) or [], problems[run.problem_id], options, kept)
                if dropped is not None:
                    drops.add(*dropped, run.run_id)
            processed = _commit(space, runs, kept, drops, processed)
            if progress:
                progress("extract", processed, total)
    with db:
        space.set("extracted", "1")


def _sift(
    run: Any,
    run_events: Sequence[Sequence[Any]],
    info: ProblemInfo,
    options: ExportOptions,
    kept: list[tuple[Any, ...]],
) -> tuple[str, str] | None:
    """Steps 2-6 for one run: the (step, reason) it is dropped at, or None with its workspace row added to `kept`."""
    if not run_events:
        return "normalize", "no_events"
    form = info.chat_format
    chat = normalize(info.problem.query, run_events, form.kinds, form.answer_ids)
    if len(chat.turns) < 2:
        return "normalize", "no_turns"
    body = chat.body()
    tokens = estimate_tokens(_system_bytes(form.system) + len(body))
    known = form.known(run.strict if isinstance(run.strict, dict) else None)
    reason = invalid_reason(chat, tokens, known, options.max_tokens)
    if reason:
        return "validity", reason
    if run.success is None:
        return "winning", "not_scored"
    if run.success < 1.0:
        return "winning", "strict_failure"
    if run.judge_quality is None:
        return "judge", "not_judged"
    if run.judge_quality < options.judge_threshold - 1e-9:
        return "judge", "below_threshold"
    axis = chat.axis
    if axis not in KEEP_AXES[options.axis]:
        return "axis", f"axis_{axis.lower()}"
    chat_hash = hashlib.sha256(body).hexdigest()
    tools = Counter(name for name, _ in chat.calls)
    kept.append(
        (
            chat_hash,
            run.run_id,
            run.problem_id,
            run.hotkey,
            run.race_id,
            run.sha256,
            axis,
            float(run.judge_quality),
            run.judge_gate,
            float(run.final if run.final is not None else run.success),
            tokens,
            len(chat.turns) + 1,
            dumps(dict(sorted(tools.items()))),
            sum(1 for _, a in chat.calls if a == "B"),
            dumps(chat.recommended),
            rank(options.seed, chat_hash),
            zlib.compress(body, 1),
        )
    )
    return None


@lru_cache(maxsize=16)
def _system_bytes(system: str) -> int:
    """The bytes a chat's system message adds (as the chat's first JSON element, with its comma)."""
    return len(orjson.dumps({"role": "system", "content": system})) + 1


def _commit(space: Workspace, runs: Sequence[Any], kept: list[tuple[Any, ...]], drops: _Drops, processed: int) -> int:
    """Step 7 (a chat already kept is a duplicate) and the batch's commit: survivors, counts, examples and the
    checkpoint in one transaction. The runs processed so far."""
    db = space.db
    assert db is not None
    with db:
        for row in kept:
            inserted = db.execute(
                "INSERT OR IGNORE INTO rows (chat_hash, run_id, problem_id, hotkey, "
                "race_id, agent_sha256, axis, quality, gate, final, tokens, messages, "
                "tools, code_calls, recommended, order_key, chat) VALUES "
                "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                row,
            ).rowcount
            if not inserted:
                drops.add("dedup", "duplicate", row[1])
        db.executemany(
            "INSERT INTO funnel VALUES (?, ?, ?) ON CONFLICT (step, reason) DO UPDATE SET n = n + excluded.n",
            [(s, r, n) for (s, r), n in sorted(drops.counts.items())],
        )
        db.executemany("INSERT OR IGNORE INTO examples VALUES (?, ?, ?)", drops.new_examples)
        processed += len(runs)
        space.set("processed", str(processed))
        space.set("checkpoint", runs[-1].run_id)
    return processed
