"""bench/judge.py's evidence rows: the LLM judge's evidence before and as it sends it (focused), its size in tokens
and the offline verdict's facts it still shows."""

from __future__ import annotations

import re
import statistics
import time
from typing import Any

from arena.judge.echo import discounts
from arena.judge.evidence import build_evidence, context_text
from arena.judge.llm import LLMJudge
from arena.trajectory import TrajectoryEvent

Run = tuple[dict[str, Any], list[TrajectoryEvent]]


def evidence_rows(runs: list[Run], verdicts: list[Any]) -> dict[str, Any]:
    """The LLM judge's evidence, before (every result whole up to 1500 chars) and as it sends it (focused,
    `arena.judge.focus`): size at 4 characters per token, time per run, and the facts the offline judge's verdict
    rests on (its matched ids, prices and words) that a tool result in the evidence shows."""
    judge = LLMJudge("http://127.0.0.1:9/v1", ["unused"])  # only its evidence is built: nothing is sent
    kinds = {
        "before": lambda p, e: build_evidence(p, e, notes=discounts(context_text(p), e).notes()),
        "focused": lambda p, e: judge.evidence(p, e)[0],
    }
    out: dict[str, Any] = {}
    for name, make in kinds.items():
        t0 = time.perf_counter()
        texts = [make(problem, events) for problem, events in runs]
        elapsed = time.perf_counter() - t0
        tokens = sorted(len(t) / 4 for t in texts)
        seen = [facts_shown(t, v) for t, v in zip(texts, verdicts, strict=True)]
        whole = sum(1 for shown, total in seen if shown == total)
        print(
            f"evidence {name:8s} {elapsed / len(runs) * 1000:5.2f} ms a run; tokens (4 chars each) median "
            f"{statistics.median(tokens):,.0f} p95 {tokens[int(0.95 * (len(tokens) - 1))]:,.0f} max {tokens[-1]:,.0f}; "
            f"the offline verdict's facts shown by a result: {sum(s for s, _ in seen)}/{sum(t for _, t in seen)}, "
            f"every one in {whole}/{len(runs)} runs"
        )
        out[name] = {"tokens_median": statistics.median(tokens), "tokens_p95": tokens[int(0.95 * (len(tokens) - 1))]}
        out[name] |= {"facts_shown": sum(s for s, _ in seen), "facts": sum(t for _, t in seen), "runs_whole": whole}
    out["tokens_per_run"] = out["focused"]["tokens_median"]
    return out


def facts_shown(evidence: str, verdict: Any) -> tuple[int, int]:
    """(shown, total): the facts the offline verdict's checks matched (ids, prices, words) found in the text of the
    evidence's tool-call blocks (their results), not in the completions."""
    blocks = re.findall(r"<event seq=\d+ kind=tool_call .*?</event>", evidence, flags=re.S)
    results = "\n".join(blocks).lower()
    facts = {
        fact
        for check in verdict.checks.values()
        if isinstance(check, dict) and check.get("passed") and check.get("gate") != "no_reasoning"
        for fact in check.get("matched") or ()
    }
    values = {v for fact in facts for v in re.findall(r"\d{3,}|'([^']+)'", fact) if v}
    values |= {m for fact in facts for m in re.findall(r"\d{3,}", fact)}
    return sum(1 for v in values if v.lower() in results), len(values)
