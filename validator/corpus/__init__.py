"""Trajectory corpus export: every stored race run, through a counted funnel, to a clean, leak-guarded training set.

`export_corpus(store, out, options)` writes ``out/``: ``train.jsonl``, ``eval.jsonl``, ``stats.json``,
``funnel.json`` and a dataset card ``README.md``. The funnel (issue 8), every step counted with the reason of each
drop:

1. ``extract``: the race-phase runs that ended (finished or errored) in the window, of the chosen tasks, with their
   gateway events;
2. ``normalize``: one chat per run: a system prompt holding the tool schemas, the user query, an assistant turn per
   LLM completion with the ``tool_calls`` the model actually emitted, a tool turn per gateway tool call with the
   result (or the tool's error) the gateway returned. Tool-call ids are renumbered ``call_0, call_1...`` and JSON
   results are written compactly with sorted keys, so the same run reads the same on Postgres and SQLite;
3. ``validity``: every tool call paired with its result (and every tool call an LLM emitted seen at the gateway),
   ``recommend_product`` called exactly once, the recommended ids exist (the catalog returned them in one of the
   run's tool results, or the strict scorer found them), complete (ended by ``terminate`` or a final answer), within
   the token limit (estimated as the chat's UTF-8 bytes / 4);
4. ``winning``: strict success;
5. ``judge``: the reasoning judge's quality at or above the threshold;
6. ``axis``: Axis A when every tool call was issued by the LLM completion just before it (same tool, same
   arguments), Axis B when the agent's own code issued any (its calls are shown as assistant turns with synthesized
   tool calls); A is kept by default, B on request;
7. ``dedup``: identical normalized chats are kept once (the first in run-id order);
8. ``cap``: at most N chats per problem: the best judge quality first, then round-robin over miners, then the final
   score;
9. ``split``: leak clusters are problems joined by their stored cluster (paraphrases of one reward spec), a shared
   answer product (gold or recommended), or the same query; whole clusters go to train or eval (eval takes clusters
   in a seeded order until it holds the held-out fraction of the chats). Rows of held-out problems (the pack's
   ``held_out`` split, or problems sharing an answer with one) and rows recommending a held-out answer are dropped.
   An audit then checks that train and eval share no answer product, cluster or query, and that no row recommends
   a held-out answer; an export whose audit fails writes nothing;
10. ``decontaminate``: problems whose query matches a query of the given public test sets (ShoppingBench JSONL),
    exactly (same normalized text) or nearly (content-word Jaccard at or above the threshold), are dropped;
11. write the files (rows in a seeded order) and move the folder into place.

Streaming: the runs are read in run-id order with a server-side cursor (Postgres) and their events one batch of
runs at a time; steps 1-7 run per run and keep only the survivors, compressed, in a workspace SQLite file; steps
8-11 work from that file. Memory stays flat whatever the store's size.

Resuming: the workspace is ``.<out name>.partial/`` next to ``out``; after each batch it commits the survivors, the
counts and a checkpoint together. Run again with the same options on the same store and it continues from there.
The output is first written into the workspace, then moved into place with one rename: a failed or interrupted
export leaves no half-written ``out``. The same store and options give byte-identical files (nothing in them
depends on the clock, the machine or the order the database returns rows in).
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import shutil
import sqlite3
import unicodedata
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict

from arena.scoring.strict import parse_answer

CORPUS_VERSION = "shoparena-corpus-v1"
FORMATS = ("openai", "sharegpt")
AXES = ("a", "b", "all")
TASKS = ("product", "shop", "voucher", "web")
DEFAULT_CAP = 50
DEFAULT_JUDGE_THRESHOLD = 0.8
DEFAULT_HELD_OUT = 0.15
DEFAULT_MAX_TOKENS = 14_336  # subnet 15's hard-reject length
DEFAULT_NEAR = 0.8
BATCH = 500
EXAMPLES = 5  # run ids kept per drop reason in funnel.json (the smallest)
FILES = ("train.jsonl", "eval.jsonl", "stats.json", "funnel.json", "README.md")

#: The funnel's steps, in order, with what each keeps.
STEPS: tuple[tuple[str, str], ...] = (
    ("extract", "race-phase runs that ended (finished or errored) in the window, with their gateway events"),
    ("normalize", "one chat per run: system prompt with the tool schemas, the user query, the LLM's turns with "
                  "the tool_calls it emitted, the gateway's tool results"),
    ("validity", "complete, every tool call paired with its result, recommend_product exactly once, recommended "
                 "ids exist, within the token limit"),
    ("winning", "strict success"),
    ("judge", "the reasoning judge's quality at or above the threshold"),
    ("axis", "Axis A (every tool call issued by the LLM) by default; Axis B on request"),
    ("dedup", "identical normalized chats kept once"),
    ("cap", "at most N chats per problem"),
    ("split", "leak clusters whole on one side; held-out problems and answers out"),
    ("decontaminate", "queries found in the public test sets (exact or near-duplicate) out"),
)
STEP_NAMES = tuple(name for name, _ in STEPS)

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

SYSTEM_INSTRUCTIONS = (
    "You are a shopping assistant. Find the products that satisfy every constraint in the user's request: "
    "attributes, SKU options, services, price, one shop when asked, the budget after a voucher. Use the tools: "
    "search, inspect the details, compare the candidates, then call recommend_product once with the product ids in "
    "the order the user asked for them, and finally call terminate."
)


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
            out.append(f"--since {self.since.isoformat()} is not before --until {self.until.isoformat()}: the "
                       "window is empty; give a --since earlier than --until")
        unknown = sorted(set(self.tasks) - set(TASKS))
        if unknown:
            out.append(f"unknown task(s) {', '.join(unknown)} for --task; use {', '.join(TASKS)}")
        if self.cap_per_problem < 1:
            out.append(f"--cap-per-problem {self.cap_per_problem} keeps nothing; give 1 or more")
        if not 0.0 <= self.judge_threshold <= 1.0:
            out.append(f"--judge-threshold {self.judge_threshold:g} is outside 0..1 (judge qualities are 0..1)")
        if not 0.0 <= self.held_out_fraction < 1.0:
            out.append(f"--held-out-fraction {self.held_out_fraction:g} must be at least 0 and below 1 (1 leaves "
                       "nothing to train on)")
        if self.format not in FORMATS:
            out.append(f"unknown --format {self.format!r}; use {' or '.join(FORMATS)}")
        if self.axis not in AXES:
            out.append(f"unknown --axis {self.axis!r}; use a (LLM-issued tool calls), b (code-issued) or all")
        if self.near_duplicate is not None and not self.decontaminate:
            out.append("--near-duplicate sets the threshold of --decontaminate, which was not given: add "
                       "--decontaminate FILE or drop --near-duplicate")
        if self.near_duplicate is not None and not 0.0 < self.near_duplicate <= 1.0:
            out.append(f"--near-duplicate {self.near_duplicate:g} must be above 0 and at most 1")
        if self.max_tokens < 1:
            out.append(f"--max-tokens {self.max_tokens} keeps nothing; give 1 or more")
        for path in self.decontaminate:
            if not Path(path).is_file():
                out.append(f"--decontaminate {path}: no such file (a ShoppingBench test JSONL, one "
                           '{"query": ...} per line)')
        return out

    @property
    def near_threshold(self) -> float:
        return DEFAULT_NEAR if self.near_duplicate is None else self.near_duplicate

    def described(self, test_sets: Sequence[TestSet] = ()) -> dict[str, Any]:
        """The options as the output files state them (test sets by name, digest and size; no machine paths)."""
        return {
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
            "tasks": sorted(self.tasks) or list(TASKS),
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


# ----------------------------------------------------------------------------------------------------- test sets

_TOKEN = re.compile(r"[^\W_]+")
_STOP = frozenset("a an the and or of for to in on with from me i my is are be can you please find show looking "
                  "want need some any that this it at by".split())


def query_text(query: str) -> str:
    """A query for exact matching: NFKC, case-folded, letters and digits only, single spaces."""
    return " ".join(_TOKEN.findall(unicodedata.normalize("NFKC", query).casefold()))


def query_words(query: str) -> frozenset[str]:
    """A query's content words (near-duplicate matching)."""
    return frozenset(w for w in query_text(query).split() if w not in _STOP)


@dataclass
class TestSet:
    """A public test set's queries (a ShoppingBench test JSONL)."""

    name: str
    sha256: str
    queries: list[str]

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> TestSet:
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CorpusError(f"--decontaminate {path}: cannot read it ({exc.strerror})") from None
        queries = []
        for lineno, line in enumerate(data.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = orjson.loads(line)
            except orjson.JSONDecodeError:
                raise CorpusError(f"--decontaminate {path}:{lineno}: not JSON; a ShoppingBench test file has one "
                                  '{"query": ..., "reward": ...} object per line') from None
            if not isinstance(row, dict) or not isinstance(row.get("query"), str):
                raise CorpusError(f"--decontaminate {path}:{lineno}: no \"query\" string; a ShoppingBench test "
                                  'file has one {"query": ..., "reward": ...} object per line')
            queries.append(row["query"])
        if not queries:
            raise CorpusError(f"--decontaminate {path}: no queries in it")
        return cls(name=path.name, sha256=hashlib.sha256(data).hexdigest(), queries=queries)


class Decontaminator:
    """Finds the public test query a query matches: exactly (same normalized text), or nearly (content-word Jaccard
    at or above `threshold`)."""

    def __init__(self, sets: Sequence[TestSet], threshold: float = DEFAULT_NEAR) -> None:
        self.sets = list(sets)
        self.threshold = threshold
        self._exact: dict[str, str] = {}
        self._words: list[tuple[frozenset[str], str]] = []
        self._index: dict[str, list[int]] = defaultdict(list)
        for test_set in self.sets:
            for query in test_set.queries:
                self._exact.setdefault(query_text(query), test_set.name)
                words = query_words(query)
                if words:
                    for w in words:
                        self._index[w].append(len(self._words))
                    self._words.append((words, test_set.name))

    def match(self, query: str) -> tuple[str, str] | None:
        """(reason, test set name) for a contaminated query, else None."""
        exact = self._exact.get(query_text(query))
        if exact is not None:
            return "exact_query", exact
        words = query_words(query)
        if not words:
            return None
        shared = Counter(i for w in words for i in self._index.get(w, ()))
        best: tuple[float, int] | None = None
        for i, n in shared.items():
            jaccard = n / len(words | self._words[i][0])
            if jaccard >= self.threshold and (best is None or (jaccard, -i) > (best[0], -best[1])):
                best = (jaccard, i)
        return ("near_duplicate_query", self._words[best[1]][1]) if best else None


# -------------------------------------------------------------------------------------------------- normalizing


def _dumps(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def _loads(text: str | bytes | None) -> Any:
    if text is None:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None


def _args_key(arguments: Any) -> str:
    """Tool arguments compared as the gateway saw them: parsed, keys sorted, null-valued keys left out (agents drop
    them before calling)."""
    if isinstance(arguments, str):
        try:
            arguments = orjson.loads(arguments or "{}")
        except orjson.JSONDecodeError:
            return "raw:" + arguments
    if isinstance(arguments, dict):
        arguments = {k: v for k, v in arguments.items() if v is not None}
    return _dumps(arguments)


def _listed_ids(value: Any, out: set[str]) -> None:
    """Product ids a catalog tool returned (entries carrying an error, e.g. an unknown id, do not count)."""
    if isinstance(value, list):
        for item in value:
            _listed_ids(item, out)
    elif isinstance(value, dict) and "error" not in value:
        product_id = value.get("product_id")
        if isinstance(product_id, str | int) and not isinstance(product_id, bool):
            out.add(str(product_id))
        for item in value.values():
            if isinstance(item, list | dict):
                _listed_ids(item, out)


LISTING_TOOLS = frozenset({"find_product", "view_product_information", "find_products_in_same_shop"})


@dataclass
class Chat:
    """A run as one chat (`turns`: the user query, then assistant and tool turns; the system prompt is added when
    the chat is written) and what the validity and axis steps need to know about it."""

    turns: list[dict[str, Any]]
    completions: int = 0
    calls: list[tuple[str, str]] = field(default_factory=list)  # (tool, "A"|"B") per gateway tool call
    unpaired: int = 0
    recommend_calls: int = 0
    recommended: list[str] = field(default_factory=list)
    listed: set[str] = field(default_factory=set)  # product ids the catalog's tool results showed
    complete: bool = False

    @property
    def axis(self) -> str:
        return "A" if self.calls and all(a == "A" for _, a in self.calls) else "B"

    def body(self) -> bytes:
        return orjson.dumps(self.turns)


def normalize(query: str, events: Iterable[Sequence[Any]]) -> Chat:
    """The chat of a run from its gateway events, each ``(seq, kind, name, arguments JSON, result JSON, error,
    status)`` in seq order (`Store.export_runs`' shape; LLM request bodies are not needed)."""
    chat = Chat(turns=[{"role": "user", "content": query}])
    pending: list[tuple[str, str, str]] = []  # (call id, tool, arguments key) of the latest completion
    next_id = 0
    last_tool: tuple[str, bool] | None = None  # (name, ok) of the latest tool turn
    for _seq, kind, name, arguments_text, result_text, error, status in events:
        if kind == "llm_call":
            if name == "models" or error is not None or not 200 <= int(status or 0) < 300:
                continue
            result = _loads(result_text)
            choices = result.get("choices") if isinstance(result, dict) else None
            message = choices[0].get("message") if isinstance(choices, list) and choices and isinstance(
                choices[0], dict) else None
            if not isinstance(message, dict):
                continue
            content = message.get("content")
            turn: dict[str, Any] = {"role": "assistant",
                                    "content": content if isinstance(content, str) and content != "" else None}
            reasoning = message.get("reasoning_content") or message.get("reasoning")
            if isinstance(reasoning, str) and reasoning.strip():
                turn["reasoning_content"] = reasoning
            calls = []
            new_pending = []
            for call in message.get("tool_calls") or []:
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(function, dict):
                    continue
                tool = str(function.get("name") or "")
                raw = function.get("arguments")
                text = raw if isinstance(raw, str) else _dumps(raw if raw is not None else {})
                call_id = f"call_{next_id}"
                next_id += 1
                calls.append({"id": call_id, "type": "function", "function": {"name": tool, "arguments": text}})
                new_pending.append((call_id, tool, _args_key(text)))
            if calls:
                turn["tool_calls"] = calls
            elif turn["content"] is None and "reasoning_content" not in turn:
                continue  # an empty completion says nothing
            chat.unpaired += len(pending)  # the previous completion's calls that never reached the gateway
            pending = new_pending
            chat.turns.append(turn)
            chat.completions += 1
            last_tool = None
        elif kind == "tool_call":
            if name == "schemas":
                continue  # the agent fetching the tool list, not a tool call
            arguments = _loads(arguments_text)
            result = _loads(result_text)
            key = _args_key(arguments)
            found = next((i for i, (_, tool, k) in enumerate(pending) if tool == name and k == key), None)
            if found is not None:
                call_id = pending.pop(found)[0]
                chat.calls.append((name, "A"))
            else:
                call_id = f"call_{next_id}"
                next_id += 1
                chat.calls.append((name, "B"))
                chat.turns.append({"role": "assistant", "content": None, "tool_calls": [
                    {"id": call_id, "type": "function",
                     "function": {"name": name, "arguments": _dumps(arguments if arguments is not None else {})}}]})
            if error is not None:
                content = f"Error: {error}"
            elif result is None:
                chat.unpaired += 1
                content = ""
            else:
                content = result if isinstance(result, str) else _dumps(result)
            chat.turns.append({"role": "tool", "tool_call_id": call_id, "content": content})
            ok = error is None and result is not None
            if name == "recommend_product":
                chat.recommend_calls += 1
                if ok:
                    raw = arguments.get("product_ids") if isinstance(arguments, dict) else None
                    chat.recommended = parse_answer(raw, "sn15")
            elif ok and name in LISTING_TOOLS:
                _listed_ids(result, chat.listed)
            last_tool = (name, ok)
        # agent_log and rejected events are not part of the conversation
    chat.unpaired += len(pending)
    last = chat.turns[-1]
    if last["role"] == "tool":
        chat.complete = last_tool == ("terminate", True)
    else:
        chat.complete = last["role"] == "assistant" and "tool_calls" not in last and bool(last.get("content"))
    return chat


def estimate_tokens(n_bytes: int) -> int:
    """Tokens of a chat, estimated as its UTF-8 bytes / 4 (OpenAI's rule of thumb); deterministic, no tokenizer."""
    return math.ceil(n_bytes / 4)


def invalid_reason(chat: Chat, tokens: int, known: set[str], max_tokens: int) -> str | None:
    """Why a chat fails the validity step (the first check it fails), or None."""
    if chat.unpaired:
        return "unpaired_tool_call"
    if chat.recommend_calls != 1:
        return "recommend_not_once"
    if not chat.recommended or any(i not in chat.listed and i not in known for i in chat.recommended):
        return "unknown_product"
    if not chat.complete:
        return "incomplete"
    if tokens > max_tokens:
        return "too_long"
    return None


# --------------------------------------------------------------------------------------------------- rendering


def tool_schemas() -> list[dict[str, Any]]:
    from arena.tools import default_registry

    return default_registry().schemas()


def system_prompt(schemas: Sequence[dict[str, Any]]) -> str:
    """The system prompt every chat starts with: the instructions and the tool schemas."""
    lines = "\n".join(_dumps(s) for s in schemas)
    return (f"{SYSTEM_INSTRUCTIONS}\n\nYou may call one or more functions to help with the request. The function "
            f"signatures are within <tools></tools> XML tags:\n<tools>\n{lines}\n</tools>")


def render_openai(system: str, schemas: Sequence[dict[str, Any]], turns: list[dict[str, Any]],
                  metadata: dict[str, Any]) -> bytes:
    return orjson.dumps({"messages": [{"role": "system", "content": system}, *turns], "tools": list(schemas),
                         "metadata": metadata})


def render_sharegpt(system: str, schemas: Sequence[dict[str, Any]], turns: list[dict[str, Any]],
                    metadata: dict[str, Any]) -> bytes:
    """ShareGPT with Hermes-style tool calls: ``system`` (instructions and <tools>), ``human``, ``gpt`` (text, then
    one ``<tool_call>{"name", "arguments"}</tool_call>`` per call), ``tool`` (one ``<tool_response>`` per result;
    consecutive results share one turn)."""
    conversations: list[dict[str, str]] = [{"from": "system", "value": system}]
    names: dict[str, str] = {}
    for turn in turns:
        role = turn["role"]
        if role == "user":
            conversations.append({"from": "human", "value": turn["content"]})
        elif role == "assistant":
            parts = []
            if turn.get("reasoning_content"):
                parts.append(f"<think>\n{turn['reasoning_content']}\n</think>")
            if turn.get("content"):
                parts.append(turn["content"])
            for call in turn.get("tool_calls") or []:
                function = call["function"]
                names[call["id"]] = function["name"]
                arguments = _loads(function["arguments"])
                shown = arguments if arguments is not None else function["arguments"]
                parts.append(f"<tool_call>\n{orjson.dumps({'name': function['name'], 'arguments': shown}).decode()}"
                             "\n</tool_call>")
            conversations.append({"from": "gpt", "value": "\n".join(parts)})
        else:
            block = ("<tool_response>\n" + orjson.dumps({"name": names.get(turn["tool_call_id"], ""),
                                                        "content": turn["content"]}).decode()
                     + "\n</tool_response>")
            if conversations[-1]["from"] == "tool":
                conversations[-1]["value"] += "\n" + block
            else:
                conversations.append({"from": "tool", "value": block})
    return orjson.dumps({"conversations": conversations, "metadata": metadata})


RENDER = {"openai": render_openai, "sharegpt": render_sharegpt}


# ------------------------------------------------------------------------------------------------------- split


@dataclass(frozen=True)
class SplitProblem:
    """What the split needs to know of a problem."""

    problem_id: str
    cluster_id: str
    query: str
    golds: tuple[str, ...]
    split: str = "race"  # the pack's split: public | race | held_out


@dataclass(frozen=True)
class SplitRow:
    key: str
    problem_id: str
    recommended: tuple[str, ...]


@dataclass
class SplitOutcome:
    side: dict[str, str]  # problem id -> "train" | "eval"
    cluster: dict[str, str]  # problem id -> leak-cluster id
    dropped: dict[str, str]  # row key -> reason
    rows: Counter[str]  # kept rows per problem


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        parent = self.parent.setdefault(x, x)
        while parent != x:
            grand = self.parent[parent]
            self.parent[x] = grand
            x, parent = parent, grand
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _rank(seed: int, key: str) -> str:
    return hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()


def split_corpus(problems: Mapping[str, SplitProblem], rows: Iterable[SplitRow], *, held_out_fraction: float,
                 seed: int, held_out_answers: set[str]) -> SplitOutcome:
    """Leak-cluster-guarded split (one pass over `rows`; memory grows with problems and products, not rows).

    Rows of held-out problems (pack split ``held_out``, or a gold answer that is a held-out answer) and rows that
    recommend a held-out answer are dropped. The remaining problems are joined into leak clusters by stored cluster
    id, shared answer products (golds and recommended ids) and identical queries; eval takes whole clusters in the
    seeded order until it holds `held_out_fraction` of the rows, leaving at least one cluster to train."""
    uf = _UnionFind()
    dropped: dict[str, str] = {}
    counts: Counter[str] = Counter()
    for row in rows:
        problem = problems[row.problem_id]
        if problem.split == "held_out" or held_out_answers.intersection(problem.golds):
            dropped[row.key] = "held_out_problem"
            continue
        if held_out_answers.intersection(row.recommended):
            dropped[row.key] = "recommends_held_out_answer"
            continue
        counts[row.problem_id] += 1
        node = "p:" + row.problem_id
        for product_id in row.recommended:
            uf.union(node, "x:" + product_id)
    members: dict[str, list[str]] = defaultdict(list)
    for problem_id in sorted(counts):
        problem = problems[problem_id]
        node = "p:" + problem_id
        uf.union(node, "c:" + problem.cluster_id)
        uf.union(node, "q:" + query_text(problem.query))
        for product_id in problem.golds:
            uf.union(node, "x:" + product_id)
    for problem_id in sorted(counts):
        members[uf.find("p:" + problem_id)].append(problem_id)
    clusters = {root: "lc-" + hashlib.sha256(min(ids).encode()).hexdigest()[:12] for root, ids in members.items()}
    order = sorted(members, key=lambda root: _rank(seed, clusters[root]))
    total = sum(counts.values())
    target = held_out_fraction * total
    side: dict[str, str] = {}
    cluster: dict[str, str] = {}
    in_eval = 0
    for i, root in enumerate(order):
        size = sum(counts[p] for p in members[root])
        to_eval = in_eval < target and i < len(order) - 1
        if to_eval:
            in_eval += size
        for problem_id in members[root]:
            side[problem_id] = "eval" if to_eval else "train"
            cluster[problem_id] = clusters[root]
    return SplitOutcome(side=side, cluster=cluster, dropped=dropped, rows=counts)


def audit_split(rows: Iterable[tuple[str, SplitProblem, Sequence[str]]], held_out_answers: set[str]) -> dict[str, Any]:
    """The leak audit of a split: `rows` are (side, problem, recommended ids). Train and the held-out answers (eval's
    golds and recommendations, and the held-out problems' golds) must share no product; train and eval no stored
    cluster and no query; no row may recommend a held-out answer."""
    products: dict[str, set[str]] = {"train": set(), "eval": set()}
    clusters: dict[str, set[str]] = {"train": set(), "eval": set()}
    queries: dict[str, set[str]] = {"train": set(), "eval": set()}
    recommending = 0
    for side, problem, recommended in rows:
        products[side].update(problem.golds)
        products[side].update(recommended)
        clusters[side].add(problem.cluster_id)
        queries[side].add(query_text(problem.query))
        recommending += bool(held_out_answers.intersection(recommended))
    held_out = products["eval"] | held_out_answers
    shared = sorted(products["train"] & held_out)
    shared_clusters = sorted(clusters["train"] & clusters["eval"])
    shared_queries = sorted(queries["train"] & queries["eval"])
    return {
        "passed": not (shared or shared_clusters or shared_queries or recommending),
        "train_answer_products": len(products["train"]),
        "held_out_answer_products": len(held_out),
        "shared_answer_products": len(shared),
        "shared_answer_product_examples": shared[:EXAMPLES],
        "shared_clusters": len(shared_clusters),
        "shared_queries": len(shared_queries),
        "rows_recommending_held_out_answers": recommending,
    }


# --------------------------------------------------------------------------------------------------- workspace

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS funnel (step TEXT NOT NULL, reason TEXT NOT NULL, n INTEGER NOT NULL,
                                   PRIMARY KEY (step, reason));
CREATE TABLE IF NOT EXISTS examples (step TEXT NOT NULL, reason TEXT NOT NULL, run_id TEXT NOT NULL,
                                     PRIMARY KEY (step, reason, run_id));
CREATE TABLE IF NOT EXISTS rows (
    chat_hash TEXT PRIMARY KEY, run_id TEXT NOT NULL, problem_id TEXT NOT NULL, hotkey TEXT NOT NULL,
    race_id TEXT NOT NULL, agent_sha256 TEXT NOT NULL, axis TEXT NOT NULL, quality REAL NOT NULL,
    gate TEXT, final REAL NOT NULL, tokens INTEGER NOT NULL, messages INTEGER NOT NULL, tools TEXT NOT NULL,
    code_calls INTEGER NOT NULL, recommended TEXT NOT NULL, order_key TEXT NOT NULL, chat BLOB NOT NULL,
    drop_step TEXT, drop_reason TEXT, side TEXT, cluster TEXT);
CREATE INDEX IF NOT EXISTS rows_problem ON rows (problem_id);
"""


class Workspace:
    """The export's scratch folder next to `out`: `work.sqlite` (survivors of steps 1-7, counts, checkpoint) and
    `out/` (the files being written). Locked while an export uses it."""

    def __init__(self, out: Path, digest: str) -> None:
        self.out = out
        self.path = out.parent / f".{out.name}.partial"
        self.digest = digest
        self.files = self.path / "out"
        self._lock_fh: Any = None
        self.db: sqlite3.Connection | None = None
        self.resumed = False

    def open(self) -> Workspace:
        import fcntl

        self.path.mkdir(parents=True, exist_ok=True)
        self._lock_fh = open(self.path / "lock", "w")  # noqa: SIM115 - held for the export's whole life
        try:
            fcntl.flock(self._lock_fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock_fh.close()
            self._lock_fh = None
            raise CorpusError(f"another export is writing {self.out} (its workspace {self.path} is locked); wait "
                              "for it or choose another --out") from None
        db_path = self.path / "work.sqlite"
        if db_path.exists():
            db = sqlite3.connect(db_path)
            row = None
            try:
                row = db.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()
            except sqlite3.DatabaseError:
                pass
            if row is not None and row[0] == self.digest:
                self.db, self.resumed = db, True
            else:  # another export's leftovers (other options or store): start afresh
                db.close()
                for child in self.path.iterdir():
                    if child.name != "lock":
                        shutil.rmtree(child) if child.is_dir() else child.unlink()
        if self.db is None:
            self.db = sqlite3.connect(db_path)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)
        with self.db:
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('digest', ?)", (self.digest,))
        return self

    def get(self, key: str) -> str | None:
        assert self.db is not None
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set(self, key: str, value: str) -> None:
        assert self.db is not None
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None
        if self._lock_fh is not None:
            self._lock_fh.close()
            self._lock_fh = None

    def finish(self) -> None:
        """Move the written files into place (one rename) and remove the workspace."""
        self.close()
        if self.out.exists():
            raise CorpusError(f"{self.out} appeared while exporting; the export is kept in {self.files}")
        os.replace(self.files, self.out)
        shutil.rmtree(self.path, ignore_errors=True)


# ------------------------------------------------------------------------------------------------------ export

Progress = Callable[[str, int, int], None]


@dataclass
class ExportResult:
    out: Path
    train: int
    eval: int
    funnel: dict[str, Any]
    stats: dict[str, Any]
    resumed_from: int  # runs an earlier, interrupted export had already done


@dataclass
class _ProblemInfo:
    problem: SplitProblem
    task: str


def _problem_info(row: Any) -> _ProblemInfo:
    data = row.data or {}
    golds = tuple(str(r["product_id"]) for r in data.get("reward") or [] if isinstance(r, dict)
                  and r.get("product_id") is not None)
    return _ProblemInfo(SplitProblem(problem_id=row.problem_id, cluster_id=row.cluster_id or row.problem_id,
                                     query=str(data.get("query") or ""), golds=golds, split=row.split), row.task)


def _digest(store: Any, options: ExportOptions, test_sets: Sequence[TestSet], until: datetime | None) -> str:
    where = store.engine.url.render_as_string(hide_password=True)
    payload = {"version": CORPUS_VERSION, "store": where, "options": options.described(test_sets),
               "until_effective": until.isoformat() if until else None}
    return hashlib.sha256(_dumps(payload).encode()).hexdigest()


def check_export(store: Any, out: Path, options: ExportOptions) -> dict[str, Any]:
    """Everything that can be refused before anything is written (one line per problem): the options, the output
    folder, an empty store, a window without runs. Returns the store's run counts."""
    problems = options.problems()
    if problems:
        raise CorpusError(*problems)
    if out.exists():
        raise CorpusError(f"{out} already exists; the export never overwrites: choose a new --out or remove it")
    counts: dict[str, Any] = store.export_counts(since=options.since, until=options.until, tasks=options.tasks)
    if counts["runs"] == 0:
        raise CorpusError("the store holds no runs yet: there is nothing to export; run races first "
                          "(arena-validator run, or arena-validator demo)")
    if counts["final"] == 0:
        raise CorpusError(f"none of the store's {counts['runs']} runs has ended yet; export when races have run")
    if counts["selected"] == 0:
        window = (f"between {options.since.isoformat() if options.since else 'the beginning'} and "
                  f"{options.until.isoformat() if options.until else 'now'}")
        tasks = f" of task {', '.join(sorted(options.tasks))}" if options.tasks else ""
        raise CorpusError(f"no run ended {window}{tasks}: the store's {counts['final']} ended runs span "
                          f"{counts['first_ended'].isoformat()} to {counts['last_ended'].isoformat()}; widen "
                          "--since/--until or --task")
    return counts


def export_corpus(store: Any, out: str | os.PathLike[str], options: ExportOptions | None = None, *,
                  progress: Progress | None = None, batch_size: int = BATCH) -> ExportResult:
    """Run the funnel over `store` (a `validator.store.repository.Store`) and write the corpus to `out`.

    `progress(stage, done, total)` is called as work advances (stages ``extract``, ``write``). An exception raised
    there (or anywhere) stops the export with everything done so far kept in the workspace: calling again with the
    same options resumes. Raises `CorpusError` for anything the user can fix, before writing anything."""
    options = options or ExportOptions()
    out = Path(out).absolute()
    counts = check_export(store, out, options)
    test_sets = [TestSet.load(p) for p in options.decontaminate]
    space = Workspace(out, _digest(store, options, test_sets, options.until))
    # the snapshot's upper bound: the first attempt's start time, kept by the workspace so a resume reads the same
    # runs (never written to the output files, so a rerun on the same store gives the same bytes)
    provisional = options.until or datetime.now(UTC)
    try:
        space.open()
    except OSError as exc:
        space.close()
        raise CorpusError(f"cannot write next to {out}: {exc.strerror or exc}; choose another --out") from None
    try:
        stored_until = space.get("until_effective")
        if stored_until is None:
            with space.db:  # type: ignore[union-attr]
                space.set("until_effective", provisional.isoformat())
            stored_until = provisional.isoformat()
        effective_until = datetime.fromisoformat(stored_until)
        selected = store.export_counts(since=options.since, until=effective_until, tasks=options.tasks)["selected"]
        done_before = int(space.get("processed") or 0)
        _extract(store, space, options, effective_until, selected, progress, batch_size)
        funnel, stats, train, evaluation = _finish(store, space, options, test_sets, counts, progress)
    except BaseException:
        space.close()
        raise
    space.finish()
    return ExportResult(out=out, train=train, eval=evaluation, funnel=funnel, stats=stats, resumed_from=done_before)


def _extract(store: Any, space: Workspace, options: ExportOptions, until: datetime, total: int,
             progress: Progress | None, batch_size: int) -> None:
    """Steps 1-7, streaming: each batch's survivors, counts and checkpoint are committed together."""
    db = space.db
    assert db is not None
    if space.get("extracted") == "1":
        if progress:
            progress("extract", total, total)
        return
    schemas = tool_schemas()
    system_bytes = len(orjson.dumps({"role": "system", "content": system_prompt(schemas)})) + 1
    problems: dict[str, _ProblemInfo] = {}
    examples = Counter({(s, r): int(n) for s, r, n in db.execute(
        "SELECT step, reason, COUNT(*) FROM examples GROUP BY step, reason")})
    processed = int(space.get("processed") or 0)
    after = space.get("checkpoint")
    if progress:
        progress("extract", processed, total)
    keep_axes = {"a": {"A"}, "b": {"B"}, "all": {"A", "B"}}[options.axis]
    with closing(store.export_runs(since=options.since, until=until, tasks=options.tasks, after=after,
                                   batch=batch_size)) as batches:
        for runs, events in batches:
            missing = {r.problem_id for r in runs} - problems.keys()
            if missing:
                problems.update((p.problem_id, _problem_info(p)) for p in store.export_problems(missing))
            drops: Counter[tuple[str, str]] = Counter()
            new_examples: list[tuple[str, str, str]] = []
            kept: list[tuple[Any, ...]] = []

            def drop(step: str, reason: str, run_id: str, drops: Counter[tuple[str, str]] = drops,
                     new_examples: list[tuple[str, str, str]] = new_examples) -> None:
                drops[(step, reason)] += 1
                if examples[(step, reason)] < EXAMPLES:
                    examples[(step, reason)] += 1
                    new_examples.append((step, reason, run_id))

            for run in runs:
                run_events = events.get(run.run_id) or []
                info = problems[run.problem_id]
                if not run_events:
                    drop("normalize", "no_events", run.run_id)
                    continue
                chat = normalize(info.problem.query, run_events)
                if len(chat.turns) < 2:
                    drop("normalize", "no_turns", run.run_id)
                    continue
                body = chat.body()
                tokens = estimate_tokens(system_bytes + len(body))
                known = {str(p.get("answer_id")) for p in (run.answer_products or [])
                         if isinstance(p, dict) and p.get("known") and p.get("answer_id")}
                reason = invalid_reason(chat, tokens, known, options.max_tokens)
                if reason:
                    drop("validity", reason, run.run_id)
                    continue
                if run.success is None:
                    drop("winning", "not_scored", run.run_id)
                    continue
                if run.success < 1.0:
                    drop("winning", "strict_failure", run.run_id)
                    continue
                if run.judge_quality is None:
                    drop("judge", "not_judged", run.run_id)
                    continue
                if run.judge_quality < options.judge_threshold - 1e-9:
                    drop("judge", "below_threshold", run.run_id)
                    continue
                axis = chat.axis
                if axis not in keep_axes:
                    drop("axis", f"axis_{axis.lower()}", run.run_id)
                    continue
                chat_hash = hashlib.sha256(body).hexdigest()
                tools = Counter(name for name, _ in chat.calls)
                kept.append((chat_hash, run.run_id, run.problem_id, run.hotkey, run.race_id, run.sha256, axis,
                             float(run.judge_quality), run.judge_gate,
                             float(run.final if run.final is not None else run.success), tokens, len(chat.turns) + 1,
                             _dumps(dict(sorted(tools.items()))), sum(1 for _, a in chat.calls if a == "B"),
                             _dumps(chat.recommended), _rank(options.seed, chat_hash), zlib.compress(body, 1)))
            with db:
                for row in kept:
                    inserted = db.execute("INSERT OR IGNORE INTO rows (chat_hash, run_id, problem_id, hotkey, "
                                          "race_id, agent_sha256, axis, quality, gate, final, tokens, messages, "
                                          "tools, code_calls, recommended, order_key, chat) VALUES "
                                          "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", row).rowcount
                    if not inserted:
                        drop("dedup", "duplicate", row[1])
                db.executemany("INSERT INTO funnel VALUES (?, ?, ?) ON CONFLICT (step, reason) DO UPDATE SET "
                               "n = n + excluded.n", [(s, r, n) for (s, r), n in sorted(drops.items())])
                db.executemany("INSERT OR IGNORE INTO examples VALUES (?, ?, ?)", new_examples)
                processed += len(runs)
                space.set("processed", str(processed))
                space.set("checkpoint", runs[-1].run_id)
            if progress:
                progress("extract", processed, total)
    with db:
        space.set("extracted", "1")


def _finish(store: Any, space: Workspace, options: ExportOptions, test_sets: Sequence[TestSet],
            counts: dict[str, Any], progress: Progress | None) -> tuple[dict[str, Any], dict[str, Any], int, int]:
    """Steps 8-11 from the workspace (redone whole on a resume: they are quick)."""
    db = space.db
    assert db is not None
    with db:
        db.execute("UPDATE rows SET drop_step = NULL, drop_reason = NULL, side = NULL, cluster = NULL")
        # 8. cap: best judge quality first, then round-robin over miners, then the final score
        db.execute("""
            UPDATE rows SET drop_step = 'cap', drop_reason = 'over_cap' WHERE chat_hash IN (
              SELECT chat_hash FROM (
                SELECT chat_hash, ROW_NUMBER() OVER (PARTITION BY problem_id
                                                     ORDER BY quality DESC, miner_rank, final DESC, chat_hash) AS rn
                FROM (SELECT chat_hash, problem_id, quality, final,
                             ROW_NUMBER() OVER (PARTITION BY problem_id, hotkey
                                                ORDER BY quality DESC, final DESC, chat_hash) AS miner_rank
                      FROM rows))
              WHERE rn > ?)""", (options.cap_per_problem,))
    # 9. split
    ids = [r[0] for r in db.execute("SELECT DISTINCT problem_id FROM rows WHERE drop_step IS NULL")]
    infos = {p.problem_id: _problem_info(p) for p in store.export_problems(ids)}
    problems = {pid: info.problem for pid, info in infos.items()}
    held_out = store.held_out_answers()
    survivors = (SplitRow(key=h, problem_id=p, recommended=tuple(orjson.loads(r))) for h, p, r in db.execute(
        "SELECT chat_hash, problem_id, recommended FROM rows WHERE drop_step IS NULL ORDER BY chat_hash"))
    outcome = split_corpus(problems, survivors, held_out_fraction=options.held_out_fraction, seed=options.seed,
                           held_out_answers=held_out)
    with db:
        db.executemany("UPDATE rows SET drop_step = 'split', drop_reason = ? WHERE chat_hash = ?",
                       [(reason, key) for key, reason in sorted(outcome.dropped.items())])
        db.executemany("UPDATE rows SET side = ?, cluster = ? WHERE problem_id = ? AND drop_step IS NULL",
                       [(outcome.side[p], outcome.cluster[p], p) for p in sorted(outcome.side)])
    # 10. decontamination, per problem (the query is the problem's)
    contamination: dict[str, dict[str, int]] = {t.name: {"exact_query": 0, "near_duplicate_query": 0}
                                                for t in test_sets}
    if test_sets:
        cleaner = Decontaminator(test_sets, options.near_threshold)
        with db:
            for problem_id in sorted(outcome.side):
                found = cleaner.match(problems[problem_id].query)
                if found is None:
                    continue
                reason, name = found
                n = db.execute("UPDATE rows SET drop_step = 'decontaminate', drop_reason = ? WHERE problem_id = ? "
                               "AND drop_step IS NULL", (reason, problem_id)).rowcount
                contamination[name][reason] += n
    # the audit of what is written
    audit = audit_split(((side, problems[pid], orjson.loads(rec)) for side, pid, rec in db.execute(
        "SELECT side, problem_id, recommended FROM rows WHERE drop_step IS NULL ORDER BY chat_hash")), held_out)
    if not audit["passed"]:
        raise CorpusError(f"the split's leak audit failed ({_dumps(audit)}); nothing was written: please report "
                          "this with the store's funnel")
    funnel = _funnel(db, options, counts)
    # 11. write
    if space.files.exists():
        shutil.rmtree(space.files)
    space.files.mkdir(parents=True)
    schemas = tool_schemas()
    system = system_prompt(schemas)
    render = RENDER[options.format]
    tasks = {pid: info.task for pid, info in infos.items()}
    sides: dict[str, dict[str, Any]] = {}
    written = {"train": 0, "eval": 0}
    total = int(db.execute("SELECT COUNT(*) FROM rows WHERE drop_step IS NULL").fetchone()[0])
    done = 0
    for side, name in (("train", "train.jsonl"), ("eval", "eval.jsonl")):
        acc = _SideStats()
        with open(space.files / name, "wb") as fh:
            for row in db.execute(
                    "SELECT chat_hash, run_id, problem_id, hotkey, race_id, agent_sha256, axis, quality, gate, final, "
                    "tokens, messages, tools, code_calls, recommended, chat, cluster FROM rows "
                    "WHERE drop_step IS NULL AND side = ? ORDER BY order_key", (side,)):
                (chat_hash, run_id, pid, hotkey, race_id, sha, axis, quality, gate, final, tokens, messages, tools,
                 code_calls, recommended, chat, cluster) = row
                turns = orjson.loads(zlib.decompress(chat))
                metadata = {"id": chat_hash[:16], "split": side, "problem_id": pid, "task": tasks.get(pid, ""),
                            "leak_cluster": cluster, "axis": axis, "code_issued_calls": code_calls,
                            "judge_quality": quality, "judge_gate": gate, "final_score": final,
                            "recommended": orjson.loads(recommended), "tokens_estimate": tokens, "hotkey": hotkey,
                            "agent_sha256": sha, "race_id": race_id, "run_id": run_id, "source": CORPUS_VERSION}
                fh.write(render(system, schemas, turns, metadata))
                fh.write(b"\n")
                acc.add(pid, problems[pid], tasks.get(pid, ""), cluster, axis, gate, hotkey, tokens, messages,
                        orjson.loads(tools))
                written[side] += 1
                done += 1
                if progress and done % 1000 == 0:
                    progress("write", done, total)
        sides[side] = acc.summary()
    if progress:
        progress("write", total, total)
    stats = {
        "corpus_version": CORPUS_VERSION,
        "format": options.format,
        "rows": written,
        "train": sides["train"],
        "eval": sides["eval"],
        "leak_clusters": {"train": sides["train"]["leak_clusters"], "eval": sides["eval"]["leak_clusters"]},
        "audit": audit,
        "decontamination": {"near_duplicate_threshold": options.near_threshold if test_sets else None,
                            "rows_dropped": contamination},
        "options": options.described(test_sets),
    }
    funnel["train"], funnel["eval"] = written["train"], written["eval"]
    (space.files / "funnel.json").write_bytes(orjson.dumps(funnel, option=orjson.OPT_INDENT_2) + b"\n")
    (space.files / "stats.json").write_bytes(orjson.dumps(stats, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
                                             + b"\n")
    (space.files / "README.md").write_text(dataset_card(funnel, stats, options, system, schemas))
    return funnel, stats, written["train"], written["eval"]


def _funnel(db: sqlite3.Connection, options: ExportOptions, counts: dict[str, Any]) -> dict[str, Any]:
    """Counts at each step (in, out, dropped by reason, example run ids) from the workspace."""
    drops: dict[str, dict[str, int]] = defaultdict(dict)
    for step, reason, n in db.execute("SELECT step, reason, n FROM funnel ORDER BY step, reason"):
        drops[step][reason] = int(n)
    for step, reason, n in db.execute("SELECT drop_step, drop_reason, COUNT(*) FROM rows WHERE drop_step IS NOT "
                                      "NULL GROUP BY drop_step, drop_reason ORDER BY drop_step, drop_reason"):
        drops[step][reason] = int(n)
    examples: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for step, reason, run_id in db.execute("SELECT step, reason, run_id FROM examples ORDER BY step, reason, run_id"):
        examples[step].setdefault(reason, []).append(run_id)
    for step, reason, run_id in db.execute(
            "SELECT drop_step, drop_reason, run_id FROM (SELECT drop_step, drop_reason, run_id, ROW_NUMBER() OVER "
            "(PARTITION BY drop_step, drop_reason ORDER BY run_id) AS rn FROM rows WHERE drop_step IS NOT NULL) "
            "WHERE rn <= ? ORDER BY drop_step, drop_reason, run_id", (EXAMPLES,)):
        examples[step].setdefault(reason, []).append(run_id)
    processed = int(db.execute("SELECT value FROM meta WHERE key = 'processed'").fetchone()[0])
    steps = []
    remaining = processed
    for i, (name, description) in enumerate(STEPS, 1):
        dropped = dict(sorted(drops.get(name, {}).items()))
        kept = remaining - sum(dropped.values())
        step_description = description.replace("at most N", f"at most {options.cap_per_problem}")
        steps.append({"step": i, "name": name, "description": step_description,
                      "in": remaining if i > 1 else processed, "out": kept, "dropped": dropped,
                      "reasons": {r: REASONS[r] for r in dropped},
                      "examples": {r: examples.get(name, {}).get(r, []) for r in dropped}})
        remaining = kept
    return {
        "corpus_version": CORPUS_VERSION,
        "selection": {"runs_in_store": counts["runs"], "ended": counts["final"],
                      "in_progress": counts["runs"] - counts["final"], "extracted": processed},
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

    def add(self, pid: str, problem: SplitProblem, task: str, cluster: str, axis: str, gate: str | None, hotkey: str,
            tokens: int, messages: int, tools: dict[str, int]) -> None:
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
            "tokens_estimate": {"mean": round(self.token_sum / n, 1) if n else 0, "p50_at_most": self._quantile(0.5),
                                "p90_at_most": self._quantile(0.9), "max": self.token_max},
            "messages": {"mean": round(self.messages_sum / n, 2) if n else 0, "max": self.messages_max},
            "tool_calls": {"total": calls, "mean": round(calls / n, 2) if n else 0,
                           "by_tool": dict(sorted(self.tools.items()))},
        }


# ------------------------------------------------------------------------------------------------ dataset card


AXIS_KEPT = {"a": "A (every tool call issued by the LLM)", "b": "B (tool calls issued by the agent's code)",
             "all": "A and B"}


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def dataset_card(funnel: dict[str, Any], stats: dict[str, Any], options: ExportOptions, system: str,
                 schemas: Sequence[dict[str, Any]]) -> str:
    """The corpus's README.md: what it is, how it was filtered (the funnel), the split, the format."""
    train, evaluation = stats["train"], stats["eval"]
    steps = funnel["steps"]
    funnel_rows = [(s["step"], s["name"], f"{s['in']:,}", f"{s['out']:,}",
                    ", ".join(f"{r} {n:,}" for r, n in s["dropped"].items()) or "-") for s in steps]
    figure = " -> ".join([f"{steps[0]['in']:,} race-phase runs"]
                         + [f"{steps[i]['out']:,} {label}" for i, label in ((2, "valid"), (3, "winning"),
                                                                              (4, "judged"), (7, "distinct, capped"))]
                         + [f"{stats['rows']['train']:,} train + {stats['rows']['eval']:,} eval"])
    described = stats["options"]
    decontam = described["decontaminate"]
    if decontam:
        sets = "; ".join(f"`{t['name']}` ({t['queries']} queries, sha256 {t['sha256'][:12]})" for t in decontam)
        dropped = sum(n for per in stats["decontamination"]["rows_dropped"].values() for n in per.values())
        decontam_text = (f"Rows whose query matches a query of {sets} were dropped: exactly (same text after "
                         f"case-folding and punctuation removal) or nearly (content-word Jaccard >= "
                         f"{described['near_duplicate']:g}). {dropped:,} rows dropped.")
    else:
        decontam_text = ("No public test set was given (`--decontaminate`): the corpus was **not** checked against "
                         "public benchmarks.")
    audit = stats["audit"]
    fmt = options.format
    if fmt == "openai":
        format_text = (
            "OpenAI chat fine-tuning format, one JSON object per line:\n\n"
            "```\n{\"messages\": [{\"role\": \"system\", ...}, {\"role\": \"user\", ...},\n"
            "              {\"role\": \"assistant\", \"content\": ..., \"tool_calls\": [{\"id\": \"call_0\", "
            "\"type\": \"function\", \"function\": {\"name\": ..., \"arguments\": \"{...}\"}}]},\n"
            "              {\"role\": \"tool\", \"tool_call_id\": \"call_0\", \"content\": ...}, ...],\n"
            " \"tools\": [...the seven tool schemas...],\n \"metadata\": {...}}\n```\n\n"
            "The system message holds the instructions and the tool schemas (so each chat stands alone); `tools` "
            "repeats the schemas as OpenAI's format expects. If your trainer renders `tools` into the prompt "
            "itself, cut the system message before `You may call one or more functions`.")
    else:
        format_text = (
            "ShareGPT with Hermes-style tool calls, one JSON object per line: `{\"conversations\": [{\"from\": "
            "\"system\"|\"human\"|\"gpt\"|\"tool\", \"value\": ...}], \"metadata\": {...}}`. The system turn holds "
            "the instructions and the tool schemas in `<tools></tools>`; a `gpt` turn is the model's text followed "
            "by one `<tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call>` per call; a `tool` turn holds "
            "one `<tool_response>{\"name\": ..., \"content\": ...}</tool_response>` per result.")
    tool_names = ", ".join(f"`{s['function']['name']}`" for s in schemas)
    split_rows = [(label, f"{s['rows']:,}", f"{s['problems']:,}", f"{s['distinct_queries']:,}",
                   f"{s['leak_clusters']:,}", f"{s['miners']:,}",
                   ", ".join(f"{k} {v:,}" for k, v in s["tasks"].items()) or "-",
                   ", ".join(f"{k} {v:,}" for k, v in s["axis"].items()) or "-")
                  for label, s in (("train", train), ("eval", evaluation))]
    return f"""# ShopArena trajectory corpus

Shopping-agent trajectories from ShopArena races (a ShoppingBench-style arena modelled on Bittensor subnet 15):
the tool calls and reasoning of miners' agents, recorded by the validator's gateway, filtered to winning,
well-reasoned, leak-guarded chats. Exported by `arena-validator corpus export` ({CORPUS_VERSION}).

**{figure}**

| file | what |
|---|---|
| `train.jsonl` | {stats['rows']['train']:,} training chats |
| `eval.jsonl` | {stats['rows']['eval']:,} held-out chats (whole leak clusters never seen in training) |
| `funnel.json` | the count at each filtering step, with the reason of every drop and example run ids |
| `stats.json` | per split: problems, queries, clusters, miners, tasks, axes, judge gates, tokens; the audit |

## Funnel

{_table(("#", "step", "in", "out", "dropped"), funnel_rows)}

What each step keeps:

{chr(10).join(f"{s['step']}. **{s['name']}**: {s['description']}." for s in steps)}

Judge threshold: quality >= {options.judge_threshold:g}. Token limit: {options.max_tokens:,} (estimated as the chat's
UTF-8 bytes / 4). Axis kept: {AXIS_KEPT[options.axis]}.

## Split

{_table(("split", "rows", "problems", "queries", "leak clusters", "miners", "tasks", "axis"), split_rows)}

Problems are joined into leak clusters by their stored cluster (paraphrases of one reward spec), any shared answer
product (gold or recommended) and identical queries; each cluster is wholly in train or in eval (eval takes
clusters in a seeded order until it holds {options.held_out_fraction:.0%} of the rows, seed {options.seed}).
Problems held out by the arena (and problems sharing an answer with them) are not exported, nor are trajectories
that recommend their answers.

Leak audit: **{"passed" if audit["passed"] else "FAILED"}**: train and held-out share {audit["shared_answer_products"]}
answer products (of {audit["train_answer_products"]:,} in train and {audit["held_out_answer_products"]:,} held out),
{audit["shared_clusters"]} clusters and {audit["shared_queries"]} queries; {audit["rows_recommending_held_out_answers"]}
rows recommend a held-out answer.

## Decontamination

{decontam_text}

## Format

{format_text}

Tools: {tool_names}. Tool-call ids are renumbered `call_0, call_1, ...` per chat; tool results are the gateway's,
JSON written compactly with sorted keys; a tool's own error reads `Error: <message>`. Axis-B rows (if any) show the
calls the agent's code made as assistant turns with synthesized tool calls (`metadata.code_issued_calls`).

`metadata`: `id`, `split`, `problem_id`, `task`, `leak_cluster`, `axis`, `code_issued_calls`, `judge_quality`,
`judge_gate`, `final_score`, `recommended`, `tokens_estimate`, and provenance: the miner's `hotkey`, the agent
bundle's `agent_sha256`, `race_id`, `run_id`.

## Options

```
{orjson.dumps(described, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()}
```

The same store and options give byte-identical files.
"""


__all__ = ["AXES", "CORPUS_VERSION", "Chat", "CorpusError", "Decontaminator", "ExportOptions", "ExportResult",
           "FORMATS", "REASONS", "STEPS", "SplitProblem", "SplitRow", "TestSet", "audit_split", "check_export",
           "export_corpus", "invalid_reason", "normalize", "parse_when", "split_corpus", "system_prompt",
           "tool_schemas"]
