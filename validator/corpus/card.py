"""The corpus's dataset card (``README.md``): what it is, the funnel, the split, the format, the options."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from validator.corpus.options import CORPUS_VERSION, ExportOptions

AXIS_KEPT = {
    "a": "A (every tool call issued by the LLM)",
    "b": "B (tool calls issued by the agent's code)",
    "all": "A and B",
}


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


OPENAI_FORMAT = (
    "OpenAI chat fine-tuning format, one JSON object per line:\n\n"
    '```\n{"messages": [{"role": "system", ...}, {"role": "user", ...},\n'
    '              {"role": "assistant", "content": ..., "tool_calls": [{"id": "call_0", '
    '"type": "function", "function": {"name": ..., "arguments": "{...}"}}]},\n'
    '              {"role": "tool", "tool_call_id": "call_0", "content": ...}, ...],\n'
    ' "tools": [...the seven tool schemas...],\n "metadata": {...}}\n```\n\n'
    "The system message holds the instructions and the tool schemas (so each chat stands alone); `tools` "
    "repeats the schemas as OpenAI's format expects. If your trainer renders `tools` into the prompt "
    "itself, cut the system message before `You may call one or more functions`."
)

SHAREGPT_FORMAT = (
    'ShareGPT with Hermes-style tool calls, one JSON object per line: `{"conversations": [{"from": '
    '"system"|"human"|"gpt"|"tool", "value": ...}], "metadata": {...}}`. The system turn holds '
    "the instructions and the tool schemas in `<tools></tools>`; a `gpt` turn is the model's text followed "
    'by one `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` per call; a `tool` turn holds '
    'one `<tool_response>{"name": ..., "content": ...}</tool_response>` per result.'
)


def dataset_card(
    funnel: dict[str, Any], stats: dict[str, Any], options: ExportOptions, schemas: Sequence[dict[str, Any]]
) -> str:
    """The corpus's README.md: what it is, how it was filtered (the funnel), the split, the format (``schemas``: the
    tools of the exported families)."""
    return _card_head(funnel, stats, options) + _card_tail(stats, options, schemas)


def _card_head(funnel: dict[str, Any], stats: dict[str, Any], options: ExportOptions) -> str:
    """From the title to the funnel."""
    steps = funnel["steps"]
    funnel_rows = [
        (
            s["step"],
            s["name"],
            f"{s['in']:,}",
            f"{s['out']:,}",
            ", ".join(f"{r} {n:,}" for r, n in s["dropped"].items()) or "-",
        )
        for s in steps
    ]
    figure = " -> ".join(
        [f"{steps[0]['in']:,} race-phase runs"]
        + [
            f"{steps[i]['out']:,} {label}"
            for i, label in ((2, "valid"), (3, "winning"), (4, "judged"), (7, "distinct, capped"))
        ]
        + [f"{stats['rows']['train']:,} train + {stats['rows']['eval']:,} eval"]
    )
    return f"""# ShopArena trajectory corpus

Shopping-agent trajectories from ShopArena races (a ShoppingBench-style arena modelled on Bittensor subnet 15):
the tool calls and reasoning of miners' agents, recorded by the validator's gateway, filtered to winning,
well-reasoned, leak-guarded chats. Exported by `arena-validator corpus export` ({CORPUS_VERSION}).

**{figure}**

| file | what |
|---|---|
| `train.jsonl` | {stats["rows"]["train"]:,} training chats |
| `eval.jsonl` | {stats["rows"]["eval"]:,} held-out chats (whole leak clusters never seen in training) |
| `funnel.json` | the count at each filtering step, with the reason of every drop and example run ids |
| `stats.json` | per split: problems, queries, clusters, miners, tasks, axes, judge gates, tokens; the audit |

## Funnel

{_table(("#", "step", "in", "out", "dropped"), funnel_rows)}

What each step keeps:

{chr(10).join(f"{s['step']}. **{s['name']}**: {s['description']}." for s in steps)}

Judge threshold: quality >= {options.judge_threshold:g}. Token limit: {options.max_tokens:,} (estimated as the chat's
UTF-8 bytes / 4). Axis kept: {AXIS_KEPT[options.axis]}.

"""


def _decontamination_text(stats: dict[str, Any]) -> str:
    described = stats["options"]
    decontam = described["decontaminate"]
    if not decontam:
        return (
            "No public test set was given (`--decontaminate`): the corpus was **not** checked against "
            "public benchmarks."
        )
    sets = "; ".join(f"`{t['name']}` ({t['queries']} queries, sha256 {t['sha256'][:12]})" for t in decontam)
    dropped = sum(n for per in stats["decontamination"]["rows_dropped"].values() for n in per.values())
    return (
        f"Rows whose query matches a query of {sets} were dropped: exactly (same text after "
        f"case-folding and punctuation removal) or nearly (content-word Jaccard >= "
        f"{described['near_duplicate']:g}). {dropped:,} rows dropped."
    )


def _card_tail(stats: dict[str, Any], options: ExportOptions, schemas: Sequence[dict[str, Any]]) -> str:
    """From the split to the options."""
    train, evaluation = stats["train"], stats["eval"]
    described = stats["options"]
    decontam_text = _decontamination_text(stats)
    audit = stats["audit"]
    format_text = OPENAI_FORMAT if options.format == "openai" else SHAREGPT_FORMAT
    tool_names = ", ".join(f"`{s['function']['name']}`" for s in schemas)
    split_rows = [
        (
            label,
            f"{s['rows']:,}",
            f"{s['problems']:,}",
            f"{s['distinct_queries']:,}",
            f"{s['leak_clusters']:,}",
            f"{s['miners']:,}",
            ", ".join(f"{k} {v:,}" for k, v in s["tasks"].items()) or "-",
            ", ".join(f"{k} {v:,}" for k, v in s["axis"].items()) or "-",
        )
        for label, s in (("train", train), ("eval", evaluation))
    ]
    return f"""## Split

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
