"""Step 11 of the funnel: the files. ``train.jsonl`` and ``eval.jsonl`` (rows in a seeded order, in the chosen
format), ``funnel.json`` (the count at each step), ``stats.json`` (per split, and the audit) and the dataset card."""

from __future__ import annotations

import math
import shutil
import sqlite3
import zlib
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import orjson

from arena.tasks import all_tasks
from validator.corpus.card import dataset_card
from validator.corpus.decontaminate import TestSet, query_text
from validator.corpus.options import CORPUS_VERSION, EXAMPLES, REASONS, STEPS, ExportOptions, Progress
from validator.corpus.render import RENDER, chat_format
from validator.corpus.selection import Selection
from validator.corpus.split import SplitProblem
from validator.corpus.workspace import Workspace

_COLUMNS = (
    "chat_hash, run_id, problem_id, hotkey, race_id, agent_sha256, axis, quality, gate, final, tokens, "
    "messages, tools, code_calls, recommended, chat, cluster"
)


def write_corpus(
    space: Workspace,
    options: ExportOptions,
    test_sets: Sequence[TestSet],
    counts: dict[str, Any],
    selection: Selection,
    progress: Progress | None,
) -> tuple[dict[str, Any], dict[str, Any], int, int]:
    """Write the files into the workspace's output folder: (funnel, stats, train rows, eval rows)."""
    db = space.db
    assert db is not None
    funnel = funnel_report(db, options, counts)
    if space.files.exists():
        shutil.rmtree(space.files)
    space.files.mkdir(parents=True)
    writer = _RowWriter(db, options, selection, progress)
    sides: dict[str, dict[str, Any]] = {}
    for side, name in (("train", "train.jsonl"), ("eval", "eval.jsonl")):
        with open(space.files / name, "wb") as fh:
            sides[side] = writer.write(fh, side)
    if progress:
        progress("write", writer.total, writer.total)
    written = writer.written
    stats = {
        "corpus_version": CORPUS_VERSION,
        "format": options.format,
        "rows": written,
        "train": sides["train"],
        "eval": sides["eval"],
        "leak_clusters": {"train": sides["train"]["leak_clusters"], "eval": sides["eval"]["leak_clusters"]},
        "audit": selection.audit,
        "decontamination": {
            "near_duplicate_threshold": options.near_threshold if test_sets else None,
            "rows_dropped": selection.contamination,
        },
        "options": options.described(test_sets),
    }
    funnel["train"], funnel["eval"] = written["train"], written["eval"]
    (space.files / "funnel.json").write_bytes(orjson.dumps(funnel, option=orjson.OPT_INDENT_2) + b"\n")
    (space.files / "stats.json").write_bytes(
        orjson.dumps(stats, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
    )
    (space.files / "README.md").write_text(dataset_card(funnel, stats, options, _exported_schemas(stats)))
    return funnel, stats, written["train"], written["eval"]


def _exported_schemas(stats: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool schemas of the families whose chats were written (of the tasks exported when none was), each
    family's once, in the registry's order."""
    written = {task for side in ("train", "eval") for task in stats[side]["tasks"]}
    chosen = written or set(stats["options"]["tasks"])
    schemas: list[dict[str, Any]] = []
    seen: set[str] = set()
    for task in [t for t in all_tasks() if t in chosen] + sorted(chosen - set(all_tasks())):
        form = chat_format(task)
        if form.family not in seen:
            seen.add(form.family)
            schemas += form.schemas
    return schemas


class _RowWriter:
    """Writes the kept rows of one side after the other, counting them (`written`) and reporting progress."""

    def __init__(
        self, db: sqlite3.Connection, options: ExportOptions, selection: Selection, progress: Progress | None
    ) -> None:
        self.db = db
        self.render = RENDER[options.format]
        self.tasks = {pid: info.task for pid, info in selection.infos.items()}
        self.problems = {pid: info.problem for pid, info in selection.infos.items()}
        self.progress = progress
        self.written = {"train": 0, "eval": 0}
        self.total = int(db.execute("SELECT COUNT(*) FROM rows WHERE drop_step IS NULL").fetchone()[0])
        self.done = 0

    def write(self, fh: IO[bytes], side: str) -> dict[str, Any]:
        """One side's rows, in their seeded order, as JSON lines; the side's statistics."""
        acc = _SideStats()
        for row in self.db.execute(
            f"SELECT {_COLUMNS} FROM rows WHERE drop_step IS NULL AND side = ? ORDER BY order_key", (side,)
        ):
            (
                chat_hash,
                run_id,
                pid,
                hotkey,
                race_id,
                sha,
                axis,
                quality,
                gate,
                final,
                tokens,
                messages,
                tools,
                code_calls,
                recommended,
                chat,
                cluster,
            ) = row
            turns = orjson.loads(zlib.decompress(chat))
            task = self.tasks.get(pid, "")
            metadata = {
                "id": chat_hash[:16],
                "split": side,
                "problem_id": pid,
                "task": task,
                "leak_cluster": cluster,
                "axis": axis,
                "code_issued_calls": code_calls,
                "judge_quality": quality,
                "judge_gate": gate,
                "final_score": final,
                "recommended": orjson.loads(recommended),
                "tokens_estimate": tokens,
                "hotkey": hotkey,
                "agent_sha256": sha,
                "race_id": race_id,
                "run_id": run_id,
                "source": CORPUS_VERSION,
            }
            form = chat_format(task)
            fh.write(self.render(form.system, form.schemas, turns, metadata))
            fh.write(b"\n")
            acc.add(pid, self.problems[pid], task, cluster, axis, gate, hotkey, tokens, messages, orjson.loads(tools))
            self.written[side] += 1
            self.done += 1
            if self.progress and self.done % 1000 == 0:
                self.progress("write", self.done, self.total)
        return acc.summary()


def funnel_report(db: sqlite3.Connection, options: ExportOptions, counts: dict[str, Any]) -> dict[str, Any]:
    """Counts at each step (in, out, dropped by reason, example run ids) from the workspace."""
    drops: dict[str, dict[str, int]] = defaultdict(dict)
    for step, reason, n in db.execute("SELECT step, reason, n FROM funnel ORDER BY step, reason"):
        drops[step][reason] = int(n)
    for step, reason, n in db.execute(
        "SELECT drop_step, drop_reason, COUNT(*) FROM rows WHERE drop_step IS NOT "
        "NULL GROUP BY drop_step, drop_reason ORDER BY drop_step, drop_reason"
    ):
        drops[step][reason] = int(n)
    examples: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for step, reason, run_id in db.execute("SELECT step, reason, run_id FROM examples ORDER BY step, reason, run_id"):
        examples[step].setdefault(reason, []).append(run_id)
    for step, reason, run_id in db.execute(
        "SELECT drop_step, drop_reason, run_id FROM (SELECT drop_step, drop_reason, run_id, ROW_NUMBER() OVER "
        "(PARTITION BY drop_step, drop_reason ORDER BY run_id) AS rn FROM rows WHERE drop_step IS NOT NULL) "
        "WHERE rn <= ? ORDER BY drop_step, drop_reason, run_id",
        (EXAMPLES,),
    ):
        examples[step].setdefault(reason, []).append(run_id)
    processed = int(db.execute("SELECT value FROM meta WHERE key = 'processed'").fetchone()[0])
    steps = []
    remaining = processed
    for i, (name, description) in enumerate(STEPS, 1):
        dropped = dict(sorted(drops.get(name, {}).items()))
        kept = remaining - sum(dropped.values())
        step_description = description.replace("at most N", f"at most {options.cap_per_problem}")
        steps.append(
            {
                "step": i,
                "name": name,
                "description": step_description,
                "in": remaining if i > 1 else processed,
                "out": kept,
                "dropped": dropped,
                "reasons": {r: REASONS[r] for r in dropped},
                "examples": {r: examples.get(name, {}).get(r, []) for r in dropped},
            }
        )
        remaining = kept
    return {
        "corpus_version": CORPUS_VERSION,
        "selection": {
            "runs_in_store": counts["runs"],
            "ended": counts["final"],
            "in_progress": counts["runs"] - counts["final"],
            "extracted": processed,
        },
        "steps": steps,
    }


@dataclass
class _SideStats:
    rows: int = 0
    problems: set[str] = field(default_factory=set)
    queries: set[str] = field(default_factory=set)
    clusters: set[str] = field(default_factory=set)
    hotkeys: set[str] = field(default_factory=set)
    tasks: Counter[str] = field(default_factory=Counter)
    axes: Counter[str] = field(default_factory=Counter)
    gates: Counter[str] = field(default_factory=Counter)
    tools: Counter[str] = field(default_factory=Counter)
    tokens: Counter[int] = field(default_factory=Counter)  # rounded up to 64 (a histogram: flat memory)
    token_sum: int = 0
    token_max: int = 0
    messages_sum: int = 0
    messages_max: int = 0

    def add(
        self,
        pid: str,
        problem: SplitProblem,
        task: str,
        cluster: str,
        axis: str,
        gate: str | None,
        hotkey: str,
        tokens: int,
        messages: int,
        tools: dict[str, int],
    ) -> None:
        self.rows += 1
        self.problems.add(pid)
        self.queries.add(query_text(problem.query))
        self.clusters.add(cluster)
        self.hotkeys.add(hotkey)
        self.tasks[task] += 1
        self.axes[axis] += 1
        self.gates[gate or "?"] += 1
        self.tools.update(tools)
        self.tokens[-(-tokens // 64) * 64] += 1
        self.token_sum += tokens
        self.token_max = max(self.token_max, tokens)
        self.messages_sum += messages
        self.messages_max = max(self.messages_max, messages)

    def _quantile(self, q: float) -> int:
        rank = math.ceil(q * self.rows)
        seen = 0
        for bucket in sorted(self.tokens):
            seen += self.tokens[bucket]
            if seen >= rank:
                return bucket
        return 0

    def summary(self) -> dict[str, Any]:
        n = self.rows
        calls = sum(self.tools.values())
        return {
            "rows": n,
            "problems": len(self.problems),
            "distinct_queries": len(self.queries),
            "leak_clusters": len(self.clusters),
            "miners": len(self.hotkeys),
            "tasks": dict(sorted(self.tasks.items())),
            "axis": dict(sorted(self.axes.items())),
            "judge_gates": dict(sorted(self.gates.items())),
            "tokens_estimate": {
                "mean": round(self.token_sum / n, 1) if n else 0,
                "p50_at_most": self._quantile(0.5),
                "p90_at_most": self._quantile(0.9),
                "max": self.token_max,
            },
            "messages": {"mean": round(self.messages_sum / n, 2) if n else 0, "max": self.messages_max},
            "tool_calls": {
                "total": calls,
                "mean": round(calls / n, 2) if n else 0,
                "by_tool": dict(sorted(self.tools.items())),
            },
        }
