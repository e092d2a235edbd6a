"""What `arena-miner test` writes and prints of its runs: one row per run, a trajectory and a report per problem,
and the scorecard."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.table import Table

from arena.cliutil import err, out


def run_row(problem: Any, outcome: Any, score: Any, verdict: Any = None) -> dict[str, Any]:
    final = (score.final if verdict is not None else float(score.success)) if score is not None else 0.0
    code, error = outcome.error_code()  # as a validator would blame it: no answer 1006, upstream LLM down 2005...
    return {
        "problem_id": problem.problem_id,
        "task": problem.task,
        "status": outcome.result.status,
        "error_code": code,
        "error": error,
        "success": bool(score and score.success),
        "gt": score.gt if score else 0.0,
        "rule": score.rule if score else 0.0,
        "answer": score.answer if score else [],
        "raw_answer": outcome.answer,
        "tool_calls": outcome.tool_calls,
        "llm_calls": outcome.llm_calls,
        "seconds": round(outcome.result.elapsed_s, 2),
        "judge_gate": verdict.gate if verdict else None,
        "judge_quality": verdict.quality if verdict else None,
        "final": final,
    }


def write_run(out_dir: Path, problem: Any, outcome: Any, score: Any, verdict: Any = None) -> None:
    with open(out_dir / "trajectories" / f"{problem.problem_id}.jsonl", "w") as fh:
        for event in outcome.events:
            fh.write(event.model_dump_json() + "\n")
    code, error = outcome.error_code()
    lines = [
        f"# {problem.problem_id} ({problem.task})",
        "",
        f"**Query:** {problem.query}",
        "",
        f"**Status:** {outcome.result.status}" + ("" if code is None else f" (code {code}: {first_line(error)})"),
        f"**Answer:** {json.dumps(outcome.answer) if outcome.answer is not None else '(none)'}  "
        f"**Gold:** {', '.join(problem.gold_ids)}",
        "",
        "## Steps",
    ]
    for event in outcome.events:
        shown = json.dumps(event.error if event.error else event.result)[:300]
        lines.append(f"{event.seq}. `{event.kind}` **{event.name}** {json.dumps(event.arguments)[:200]} -> {shown}")
    if score is not None:
        lines += [
            "",
            f"## Strict checks: success={score.success} gt={score.gt} rule={score.rule:.2f} "
            f"(ruleset {score.ruleset} v{score.ruleset_version}; titles: {score.title_model})",
        ]
        for product in score.products:
            for check in product.checks:
                lines.append(
                    f"- slot {product.slot + 1} {check.name}: {'pass' if check.passed else 'FAIL'} ({check.evidence})"
                )
        for check in score.checks:
            lines.append(f"- {check.name}: {'pass' if check.passed else 'FAIL'} ({check.evidence})")
    if verdict is not None:
        lines += [
            "",
            f"## Judge ({verdict.judge}, rubric {verdict.rubric_version}): gate {verdict.gate}, quality "
            f"{verdict.quality}, coefficient {verdict.coefficient:.3f}, final {score.final:.3f}",
            verdict.explanation,
            f"cited steps: {', '.join(map(str, verdict.evidence)) or 'none'}",
        ]
    if error and "\n" in error.strip():
        lines += ["", "## Error", "```", error.strip(), "```"]
    if outcome.result.stderr:
        lines += ["", "## Agent stderr (tail)", "```", outcome.result.stderr[-2000:], "```"]
    (out_dir / "reports" / f"{problem.problem_id}.md").write_text("\n".join(lines) + "\n")


def first_line(text: str | None) -> str:
    """An error's own line (the runner puts it first, before the traceback)."""
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def print_scorecard(suite: Any, rows: list[dict[str, Any]], out_dir: Path, ruleset: str = "shoppingbench") -> None:
    table = Table(
        title=f"scorecard: {suite.problems} problems, success {suite.success_rate:.1%}, "
        f"gt {suite.gt_rate:.1%} (ruleset {ruleset})"
    )
    for column in ("task", "problems", "success", "gt", "mean rule"):
        table.add_column(column, justify="left" if column == "task" else "right")
    for task, agg in suite.by_task.items():
        table.add_row(task, str(agg.problems), f"{agg.success_rate:.1%}", f"{agg.gt_rate:.1%}", f"{agg.mean_rule:.2f}")
    out.print(table)
    judged = [r for r in rows if r.get("judge_gate")]
    if judged:
        verdicts = Table(title="reasoning judge, per problem")
        for column in ("problem", "task", "success", "gate", "quality", "final"):
            verdicts.add_column(column, justify="left" if column in ("problem", "task", "gate") else "right")
        for r in judged:
            verdicts.add_row(
                r["problem_id"],
                r["task"],
                "yes" if r["success"] else "no",
                r["judge_gate"],
                f"{r['judge_quality']:.1f}",
                f"{r['final']:.2f}",
            )
        out.print(verdicts)
    from arena.cliutil import SCORECARD_LEGEND

    out.print(SCORECARD_LEGEND, highlight=False)
    alone = "" if judged else "; with --judge none, success alone"
    out.print(
        f"mean final score {sum(r['final'] for r in rows) / max(len(rows), 1):.3f}: what a race ranks miners "
        f"on (success x judge coefficient{alone}; errors count 0)",
        highlight=False,
    )
    fields = ", ".join(f"{k} {v:.0%}" for k, v in suite.field_rates.items() if v is not None)
    seconds = sum(r["seconds"] for r in rows)
    calls = sum(r["tool_calls"] for r in rows)
    out.print(f"per-field pass rates: {fields or 'n/a'}; wall time {seconds:.1f}s; tool calls {calls}")
    errors = [r for r in rows if r["error_code"]]
    for r in errors[:10]:
        err.print(
            f"[yellow]{r['problem_id']}[/]: {r['status']} ({r['error_code']}) {first_line(r['error'])[:300]}",
            highlight=False,
        )
    out.print(f"trajectories and reports: {out_dir}")
