"""Reasoning judge benchmark (prints figures; asserts nothing).

    python bench/judge.py                          # 2000 synthetic runs of 40 events
    python bench/judge.py --runs 500 --events 80
    python bench/judge.py --runs 300 --json judge.json   # the figures also written to a file

Runs are synthetic but shaped like real ones: generated catalog products (`arena.catalog.generator`), a query drawn
from a target product, then alternating LLM calls (the request carrying the growing conversation, the completion a
short text plus a tool call) and tool results in the gateway's shapes (find_product pages of 10, view details,
same-shop searches, voucher totals), ending with recommend_product and terminate. Each run is written to reach one
of the five SN15 gates (cycled), so every branch of the offline judge is timed.

Rows:
- offline judge: judgments per second and time per judgment; the gates reached; the share of runs that reached the
  gate they were written for (a self-check of the synthetic runs, not an agreement figure with the LLM judge); the
  gates of the sound runs made parrots (each completion first written by the agent into its request);
- the LLM judge's evidence, before (`build_evidence` with the default limits, every result whole up to 1500 chars) and
  as the judge sends it (focused, `arena.judge.focus`): time per run, tokens at 4 characters per token (median, p95,
  max; `tokens_per_run` in the JSON is the focused median), and the facts the offline judge's verdicts matched (ids,
  prices, words) that the evidence's tool results still show (the judge model can check a claim only against what
  it is shown);
- the LLM judge: prompt and completion tokens per run, counted by the scripted local server (or a real endpoint with
  `--llm-url/--llm-model`, which also prints the agreement between the offline and the LLM judge on `--sample` runs).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.catalog import generator as gen  # noqa: E402
from arena.judge import SN15_RUBRIC  # noqa: E402
from arena.judge.offline import OfflineJudge  # noqa: E402
from arena.trajectory import TrajectoryEvent  # noqa: E402
from bench.judge_evidence import evidence_rows  # noqa: E402

T0 = datetime(2025, 1, 1, tzinfo=UTC)
SYSTEM = (
    "You are a careful shopping assistant. Use the tools to find products that satisfy every constraint in the "
    "user's request, compare candidates, then recommend and terminate."
)
FILLER = (
    "Let me think about which of these options matches what the shopper asked for, keeping the constraints "
    "in mind before I make the next call."
)

Run = tuple[dict[str, Any], list[TrajectoryEvent]]


def _summary(p: dict[str, Any]) -> dict[str, Any]:
    return {k: p[k] for k in ("product_id", "shop_id", "title", "price", "service", "sold_count")}


def _detail(p: dict[str, Any]) -> dict[str, Any]:
    return {k: p[k] for k in ("product_id", "short_description", "description", "sku_options", "attributes")}


def _value_words(products: list[dict[str, Any]]) -> set[str]:
    """Every word of the products' attribute and SKU option values."""
    values = [v for p in products for vs in p["attributes"].values() for v in vs]
    values += [v for p in products for option in p["sku_options"].values() for v in option.values()]
    return {w for v in values for w in str(v).lower().split()}


def _completion_text(level: int, step: int, seen: list[dict[str, Any]], value_words: set[str]) -> str:
    """The assistant text of one step, written to reach gate `level` (0 no_reasoning ... 4 sound)."""
    if level == 0:
        return "Searching now."
    if level == 1 or not seen:
        return FILLER
    a = seen[step % len(seen)]
    b = seen[(step + 1) % len(seen)]
    words = " ".join(w for w in a["title"].split()[1:4])
    if level == 2:  # title words that are no attribute or option value: a reference without a datum
        plain = [w for w in a["title"].split() if w.isalpha() and len(w) >= 4 and w.lower() not in value_words]
        return f"{FILLER} The {' '.join(plain[:3])} listing looks relevant, so I will look at it more closely."
    if level == 3:
        return f"{FILLER} Product {a['product_id']} ({words}) costs {a['price']:g}, which looks acceptable."
    return (
        f"{FILLER} Product {a['product_id']} costs {a['price']:g} while {b['product_id']} costs {b['price']:g}; "
        f"the first is {'cheaper' if a['price'] <= b['price'] else 'more expensive'} than the second."
    )


def _tool_step(
    kind: str, step: int, query: str, page: list[dict[str, Any]], seen: list[dict[str, Any]]
) -> tuple[dict[str, Any], Any]:
    """The arguments and result of tool call `kind` at `step`, over `page` (and the products `seen` so far)."""
    if kind == "find_product":
        arguments: dict[str, Any] = {"q": query, "page": 1 + step % 3}
        result: Any = [_summary(p) for p in page]
    elif kind == "view_product_information":
        picks = seen[-3:] or page[:3]
        arguments = {"product_ids": ",".join(p["product_id"] for p in picks)}
        result = [_detail(p) for p in picks]
    elif kind == "find_products_in_same_shop":
        arguments = {"queries": [query, "matching accessory"]}
        result = [
            {
                "shop_id": page[0]["shop_id"],
                "queries_covered": 2,
                "queries": 2,
                "matches": [
                    {"query": q, "products": [_summary(p) for p in page[i : i + 3]]}
                    for i, q in enumerate(arguments["queries"])
                ],
            }
        ]
    else:
        picks = page[:2]
        total = sum(p["price"] for p in picks)
        arguments = {
            "product_ids": ",".join(p["product_id"] for p in picks),
            "voucher": {
                "voucher_type": "platform",
                "threshold": 100,
                "discount_type": "fixed",
                "face_value": 50,
                "budget": total,
            },
        }
        result = {
            "product_ids": [p["product_id"] for p in picks],
            "prices": [p["price"] for p in picks],
            "total_before": total,
            "discount": 50.0,
            "total_after": total - 50,
            "voucher_applied": True,
            "reason": "applied",
            "budget": total,
            "within_budget": True,
        }
    return arguments, result


def _llm_call(step: int, level: int, text: str, call: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The fields of the `llm_call` event at `step`: the chat so far and a completion making tool call `call`."""
    completion_tokens = 8 if level == 0 else max(35, len(text) // 4 + 20)
    prompt_tokens = sum(len(json.dumps(m)) for m in messages) // 4
    return dict(
        kind="llm_call",
        name="test-model",
        arguments={"model": "test-model", "temperature": 0, "messages": list(messages), "tools": []},
        result={
            "id": f"chatcmpl-{step}",
            "object": "chat.completion",
            "model": "test-model",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {"role": "assistant", "content": text, "tool_calls": [call]},
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        },
        tokens={
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    )


def synthetic_run(index: int, pool: list[dict[str, Any]], n_events: int) -> tuple[dict[str, Any], list[Any], int]:
    """One run of about `n_events` events; returns (public problem, events, designed gate index)."""
    level = index % 5
    start = (index * 37) % (len(pool) - 60)
    products = pool[start : start + 60]
    target = products[0]
    query = f"I am looking for a {' '.join(target['title'].split()[-3:]).lower()} under {target['price'] * 1.3:.0f}."
    problem = {
        "problem_id": f"bench-{index}",
        "task": "product",
        "query": query,
        "difficulty": "medium",
        "n_products": 1,
    }
    events: list[TrajectoryEvent] = []
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": query}]
    seen: list[dict[str, Any]] = []
    value_words = _value_words(products)

    def add(**fields: Any) -> None:
        seq = len(events)
        events.append(
            TrajectoryEvent(
                run_id=f"run-{index}", seq=seq, started_at=T0 + timedelta(seconds=seq), duration_ms=12.0, **fields
            )
        )

    step = 0
    while len(events) < n_events - 2:
        kind = (
            "find_product",
            "view_product_information",
            "find_product",
            "find_products_in_same_shop",
            "calculate_voucher",
        )[step % 5]
        page = products[(step * 7) % 50 : (step * 7) % 50 + 10]
        arguments, result = _tool_step(kind, step, query, page, seen)
        text = _completion_text(level, step, seen, value_words)
        call = {
            "id": f"call_{step}",
            "type": "function",
            "function": {"name": kind, "arguments": json.dumps(arguments)},
        }
        add(**_llm_call(step, level, text, call, messages))
        add(kind="tool_call", name=kind, arguments=arguments, result=result)
        messages.append({"role": "assistant", "content": text, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)[:8000]})
        if kind in ("find_product", "find_products_in_same_shop"):
            seen.extend(page[:3])
        step += 1
    add(
        kind="tool_call",
        name="recommend_product",
        arguments={"product_ids": target["product_id"]},
        result=f"Having recommended the products to the user: {target['product_id']}.",
    )
    add(
        kind="tool_call",
        name="terminate",
        arguments={"status": "success"},
        result="The interaction has been completed with status: success",
    )
    return problem, events, level


def parroted(events: list[TrajectoryEvent]) -> list[TrajectoryEvent]:
    """The run with every completion's text written by the agent into the request first (a parrot: the model is
    asked to repeat it), which the judge must not credit (`arena/judge/echo.py`)."""
    out = []
    for event in events:
        if event.kind == "llm_call":
            text = event.result["choices"][0]["message"]["content"]
            messages = [*event.arguments["messages"], {"role": "user", "content": f"Repeat exactly: {text}"}]
            event = event.model_copy(update={"arguments": {**event.arguments, "messages": messages}})
        out.append(event)
    return out


# --- the LLM judge -------------------------------------------------------------------------------------------------
def llm_rows(
    runs: list[Run], *, url: str | None = None, models: list[str] | None = None, sample: int = 50
) -> list[tuple[str, str]]:
    """Prompt and completion tokens per run for the LLM judge, and (with a real endpoint) its agreement with the
    offline judge on a sample of runs.

    Without `url`, the judge talks to the scripted local OpenAI-compatible server of the tests, which counts tokens
    as whitespace-separated words of the prompt and answer (a lower bound of real BPE tokens, roughly x1.3): the
    prompt's size is what a run costs. With `url` and `models` (a real model), the same runs are judged by both
    judges and the agreement is printed: exact gate matches and the mean |q_llm - q_offline|."""
    from arena.judge.llm import LLMJudge
    from tests.support.openai_server import OpenAIServer

    chosen = runs[:sample]
    offline = OfflineJudge()
    rows: list[tuple[str, str]] = []

    def judge_all(judge: LLMJudge) -> tuple[list[Any], float]:
        t0 = time.perf_counter()
        return [judge.judge(problem, events) for problem, events in chosen], time.perf_counter() - t0

    if url is None:
        answer = json.dumps({"gate": "no_comparison", "explanation": "cites prices; compares nothing", "evidence": [1]})
        with OpenAIServer(lambda body: answer, models=("scripted-judge",)) as server:
            verdicts, elapsed = judge_all(LLMJudge(server.base_url, ["scripted-judge"]))
        label = "llm judge (scripted server, tokens = words)"
    else:
        verdicts, elapsed = judge_all(LLMJudge(url, models or []))
        label = f"llm judge ({url}, {', '.join(models or [])})"
    prompt = [v.tokens.get("prompt_tokens", 0) for v in verdicts]
    completion = [v.tokens.get("completion_tokens", 0) for v in verdicts]
    rows.append(("llm judge", f"{label}: {len(chosen)} runs in {elapsed:.1f}s"))
    rows.append(
        (
            "  tokens per run",
            f"prompt median {statistics.median(prompt):,.0f} max {max(prompt):,}; completion "
            f"median {statistics.median(completion):,.0f}",
        )
    )
    if url is not None:
        mine = [offline.judge(problem, events) for problem, events in chosen]
        same = sum(1 for a, b in zip(verdicts, mine, strict=True) if a.gate == b.gate)
        gap = statistics.mean(abs(a.quality - b.quality) for a, b in zip(verdicts, mine, strict=True))
        rows.append(
            (
                "  agreement",
                f"offline = llm gate on {same}/{len(chosen)} runs ({same / len(chosen):.0%}); "
                f"mean |q difference| {gap:.3f}",
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--events", type=int, default=40, help="events per run")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--llm-url", default=None, help="a real OpenAI-compatible endpoint to measure agreement on")
    parser.add_argument("--llm-model", action="append", default=None, help="the LLM judge's model(s)")
    parser.add_argument("--sample", type=int, default=50, help="runs the LLM judge reads")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the figures (tokens_per_run...) to FILE")
    args = parser.parse_args()

    pool = list(itertools.islice(gen.iter_products(args.seed, 5000), 5000))
    built = [synthetic_run(i, pool, args.events) for i in range(args.runs)]
    runs: list[Run] = [(problem, events) for problem, events, _ in built]
    n_events = sum(len(e) for _, e in runs)
    print(
        f"{args.runs} synthetic runs, {n_events / args.runs:.0f} events each on average "
        f"({sum(1 for _, es in runs for e in es if e.kind == 'llm_call') / args.runs:.0f} LLM calls)"
    )

    judge = OfflineJudge()
    judge.judge(*runs[0])  # warm up
    t0 = time.perf_counter()
    verdicts = [judge.judge(problem, events) for problem, events in runs]
    elapsed = time.perf_counter() - t0
    print(f"offline judge     {args.runs / elapsed:10,.0f} judgments/s   {elapsed / args.runs * 1000:7.2f} ms each")
    gates = Counter(v.gate for v in verdicts)
    print("  gates reached   " + ", ".join(f"{g.name} {gates.get(g.name, 0)}" for g in SN15_RUBRIC.gates))
    on_design = sum(
        1 for v, (_, _, level) in zip(verdicts, built, strict=True) if v.gate == SN15_RUBRIC.gates[level].name
    )
    print(f"  designed gate   {on_design}/{args.runs} runs reached the gate they were written for (self-check)")
    sound = [(p, parroted(e)) for (p, e), (_, _, level) in zip(runs, built, strict=True) if level == 4]
    gates = Counter(judge.judge(problem, events).gate for problem, events in sound)
    print(
        f"  parroted        the {len(sound)} sound runs, each completion first written by the agent into its request: "
        + ", ".join(f"{g.name} {gates.get(g.name, 0)}" for g in SN15_RUBRIC.gates)
    )

    figures = {"runs": args.runs, "events_per_run": n_events / args.runs, "on_design": on_design}
    figures |= evidence_rows(runs, verdicts)
    for label, value in llm_rows(runs, url=args.llm_url, models=args.llm_model, sample=args.sample):
        print(f"{label:17s} {value}")
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
        print(f"figures written to {args.json}")


if __name__ == "__main__":
    main()
