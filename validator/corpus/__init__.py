"""Trajectory corpus export: every stored race run, through a counted funnel, to a clean, leak-guarded training set.

`export_corpus(store, out, options)` writes ``out/``: ``train.jsonl``, ``eval.jsonl``, ``stats.json``, ``funnel.json``
and a dataset card ``README.md``. The funnel (``docs/operator.md``, "Corpus export"), every step counted with the reason
of each drop:

1. ``extract``: the race-phase runs that ended (finished or errored) in the window, of the chosen tasks, with their
   gateway events;
2. ``normalize``: one chat per run: a system prompt holding its task family's instructions and tool schemas
   (`arena.tasks`), the user query, an assistant turn per LLM completion with the ``tool_calls`` the model actually
   emitted, a tool turn per gateway tool call with the result (or the tool's error) the gateway returned. Tool-call
   ids are renumbered ``call_0, call_1...`` and JSON results are written compactly with sorted keys, so the same run
   reads the same on Postgres and SQLite;
3. ``validity``: every tool call paired with its result (and every tool call an LLM emitted seen at the gateway),
   the answer tool (``recommend_product``) called exactly once, the recommended ids exist (a tool whose results list
   products returned them, or the strict scorer found them), complete (ended by the end tool, ``terminate``, or a
   final answer), within the token limit (estimated as the chat's UTF-8 bytes / 4);
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

Layout (one module per part of the funnel):

- ``options``: the constants, the steps and drop reasons, `ExportOptions`, `CorpusError`;
- ``extract``: steps 1-7, streaming from the store into the workspace;
- ``normalize``: a run's events as one chat (step 2) and its validity (step 3);
- ``selection``: steps 8-10 on the workspace (cap, split, decontaminate) and the audit;
- ``split``: the leak-cluster split and the leak audit (pure);
- ``decontaminate``: public test sets and query matching;
- ``workspace``: the resumable scratch folder;
- ``render``: each family's chat format (system prompt, tool schemas, the kinds of its tools' results) and the
  output formats;
- ``writer`` and ``card``: the files (step 11) and the dataset card;
- ``export``: `export_corpus`, which runs them in order.
"""

from validator.corpus.decontaminate import Decontaminator, TestSet, query_text
from validator.corpus.export import ExportResult, check_export, export_corpus
from validator.corpus.normalize import Chat, invalid_reason, normalize
from validator.corpus.options import (
    AXES,
    CORPUS_VERSION,
    FORMATS,
    REASONS,
    STEPS,
    CorpusError,
    ExportOptions,
    parse_when,
)
from validator.corpus.render import ChatFormat, chat_format, system_prompt, tool_schemas
from validator.corpus.split import SplitProblem, SplitRow, audit_split, split_corpus

__all__ = [
    "AXES",
    "CORPUS_VERSION",
    "Chat",
    "ChatFormat",
    "CorpusError",
    "Decontaminator",
    "ExportOptions",
    "ExportResult",
    "FORMATS",
    "REASONS",
    "STEPS",
    "SplitProblem",
    "SplitRow",
    "TestSet",
    "audit_split",
    "chat_format",
    "check_export",
    "export_corpus",
    "invalid_reason",
    "normalize",
    "parse_when",
    "query_text",
    "split_corpus",
    "system_prompt",
    "tool_schemas",
]
