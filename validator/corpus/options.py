"""The corpus export's constants, its funnel's steps and drop reasons, and its options (`ExportOptions`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from arena.tasks import all_tasks

CORPUS_VERSION = "shoparena-corpus-v1"
FORMATS = ("openai", "sharegpt")
AXES = ("a", "b", "all")
DEFAULT_CAP = 50
DEFAULT_JUDGE_THRESHOLD = 0.8
DEFAULT_HELD_OUT = 0.15
DEFAULT_MAX_TOKENS = 14_336  # subnet 15's hard-reject length
DEFAULT_NEAR = 0.8
BATCH = 500
EXAMPLES = 5  # run ids kept per drop reason in funnel.json (the smallest)
FILES = ("train.jsonl", "eval.jsonl", "stats.json", "funnel.json", "README.md")

#: `progress(stage, done, total)`, called as an export advances (stages ``extract``, ``write``).
Progress = Callable[[str, int, int], None]

#: The funnel's steps, in order, with what each keeps.
STEPS: tuple[tuple[str, str], ...] = (
    ("extract", "race-phase runs that ended (finished or errored) in the window, with their gateway events"),
    (
        "normalize",
        "one chat per run: system prompt with the tool schemas, the user query, the LLM's turns with "
        "the tool_calls it emitted, the gateway's tool results",
    ),
    (
        "validity",
        "complete, every tool call paired with its result, recommend_product exactly once, recommended "
        "ids exist, within the token limit",
    ),
    ("winning", "strict success"),
    ("judge", "the reasoning judge's quality at or above the threshold"),
    ("axis", "Axis A (every tool call issued by the LLM) by default; Axis B on request"),
    ("dedup", "identical normalized chats kept once"),
    ("cap", "at most N chats per problem"),
    ("split", "leak clusters whole on one side; held-out problems and answers out"),
    ("decontaminate", "queries found in the public test sets (exact or near-duplicate) out"),
)

#: Why a run was dropped, by reason code.
REASONS = {
    "no_events": "the gateway recorded no event for the run",
    "no_turns": "no LLM completion and no tool call",
    "unpaired_tool_call": "a tool call without its result, or an LLM tool call the gateway never saw",
    "recommend_not_once": "recommend_product called zero or several times",
    "unknown_product": "a recommended id no tool result showed and the strict scorer did not know",
    "incomplete": "not ended by terminate or a final answer",
    "too_long": "over the token limit",
    "not_scored": "no strict score (the run errored)",
    "strict_failure": "the strict checks failed",
    "not_judged": "no judge verdict",
    "below_threshold": "judge quality under the threshold",
    "axis_b": "Axis B: the agent's code issued tool calls",
    "axis_a": "Axis A (only Axis B was asked for)",
    "duplicate": "the same normalized chat as an earlier run",
    "over_cap": "beyond the cap for its problem",
    "held_out_problem": "its problem is held out, or shares an answer product with a held-out problem",
    "recommends_held_out_answer": "it recommends an answer product of a held-out problem",
    "exact_query": "its query is in a public test set",
    "near_duplicate_query": "its query nearly matches one in a public test set",
}


class TestSetInfo(Protocol):
    """What the options say of a public test set (`validator.corpus.decontaminate.TestSet`)."""

    name: str
    sha256: str
    queries: list[str]


class CorpusError(Exception):
    """Something the user can fix; each line of `lines` is one problem, said in one line."""

    def __init__(self, *lines: str) -> None:
        super().__init__("; ".join(lines))
        self.lines = list(lines)


# --------------------------------------------------------------------------------------------------------- options


class ExportOptions(BaseModel):
    """What to export. `problems()` lists what is wrong or contradictory (one line each)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    since: datetime | None = None
    until: datetime | None = None
    tasks: tuple[str, ...] = ()
    cap_per_problem: int = DEFAULT_CAP
    judge_threshold: float = DEFAULT_JUDGE_THRESHOLD
    held_out_fraction: float = DEFAULT_HELD_OUT
    format: str = "openai"
    axis: str = "a"
    decontaminate: tuple[Path, ...] = ()
    near_duplicate: float | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    seed: int = 0

    def problems(self) -> list[str]:
        out = []
        if self.since is not None and self.until is not None and self.since >= self.until:
            out.append(
                f"--since {self.since.isoformat()} is not before --until {self.until.isoformat()}: the "
                "window is empty; give a --since earlier than --until"
            )
        known = all_tasks()
        unknown = sorted(set(self.tasks) - set(known))
        if unknown:
            out.append(f"unknown task(s) {', '.join(unknown)} for --task; use {', '.join(known)}")
        if self.cap_per_problem < 1:
            out.append(f"--cap-per-problem {self.cap_per_problem} keeps nothing; give 1 or more")
        if not 0.0 <= self.judge_threshold <= 1.0:
            out.append(f"--judge-threshold {self.judge_threshold:g} is outside 0..1 (judge qualities are 0..1)")
        if not 0.0 <= self.held_out_fraction < 1.0:
            out.append(
                f"--held-out-fraction {self.held_out_fraction:g} must be at least 0 and below 1 (1 leaves "
                "nothing to train on)"
            )
        if self.format not in FORMATS:
            out.append(f"unknown --format {self.format!r}; use {' or '.join(FORMATS)}")
        if self.axis not in AXES:
            out.append(f"unknown --axis {self.axis!r}; use a (LLM-issued tool calls), b (code-issued) or all")
        if self.near_duplicate is not None and not self.decontaminate:
            out.append(
                "--near-duplicate sets the threshold of --decontaminate, which was not given: add "
                "--decontaminate FILE or drop --near-duplicate"
            )
        if self.near_duplicate is not None and not 0.0 < self.near_duplicate <= 1.0:
            out.append(f"--near-duplicate {self.near_duplicate:g} must be above 0 and at most 1")
        if self.max_tokens < 1:
            out.append(f"--max-tokens {self.max_tokens} keeps nothing; give 1 or more")
        for path in self.decontaminate:
            if not Path(path).is_file():
                out.append(
                    f'--decontaminate {path}: no such file (a ShoppingBench test JSONL, one {{"query": ...}} per line)'
                )
        return out

    @property
    def near_threshold(self) -> float:
        return DEFAULT_NEAR if self.near_duplicate is None else self.near_duplicate

    def described(self, test_sets: Sequence[TestSetInfo] = ()) -> dict[str, Any]:
        """The options as the output files state them (test sets by name, digest and size; no machine paths)."""
        return {
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
            "tasks": sorted(self.tasks) or list(all_tasks()),
            "cap_per_problem": self.cap_per_problem,
            "judge_threshold": self.judge_threshold,
            "held_out_fraction": self.held_out_fraction,
            "format": self.format,
            "axis": self.axis,
            "decontaminate": [{"name": t.name, "sha256": t.sha256, "queries": len(t.queries)} for t in test_sets],
            "near_duplicate": self.near_threshold if self.decontaminate else None,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
        }


def parse_when(text: str, flag: str) -> datetime:
    """`2025-06-01`, `2025-06-01T12:00`, `2025-06-01T12:00:00Z` or with an offset; naive times are UTC."""
    value = text.strip()
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            parsed = datetime.combine(date.fromisoformat(value), datetime.min.time())
        else:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise CorpusError(f"{flag} {text!r} is not a date or time; use 2025-06-01 or 2025-06-01T12:00:00Z") from None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
