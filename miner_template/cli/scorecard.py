"""What `arena-miner test` writes and prints of its runs: one row per run, a trajectory and a report per run (a
session's report holds its conversation with the shopper), and the scorecard, with pass^k over repeated runs."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path
from typing import Any

from rich.table import Table

from arena.blame import JUDGE_UNAVAILABLE
from arena.cliutil import err, out, print_table

#: the tools whose calls are turns of a conversation with the shopper (the session family's)
CONVERSATION_TOOLS = ("get_user_profile", "ask_user", "respond", "recommend_product")


def conversation(query: str, events: list[Any]) -> list[tuple[str, str]]:
    """A run's conversation with the shopper as (speaker, words) lines, read from the gateway's log: the opening,
    then each profile read, question, proposal and commit with the shopper's answer. Empty for a run that never
    spoke to a shopper (a ShoppingBench run)."""
    turns = [e for e in events if e.kind == "tool_call" and e.name in CONVERSATION_TOOLS]
    if not any(e.name != "recommend_product" for e in turns):
        return []
    lines: list[tuple[str, str]] = [("shopper", query)]
    for e in turns:
        args = e.arguments if isinstance(e.arguments, dict) else {}
        if e.name == "get_user_profile":
            lines.append(("agent", "(reads the profile)"))
        elif e.name == "ask_user":
            lines.append(("agent", f"asks: {args.get('question', '')}"))
        elif e.name == "respond":
            ids = args.get("product_ids") or []
            ids = ids.split(",") if isinstance(ids, str) else ids
            shown = f" [proposes {', '.join(str(i).strip() for i in ids if str(i).strip())}]" if ids else ""
            lines.append(("agent", f"{args.get('message', '')}{shown}"))
        else:
            lines.append(("agent", f"commits: {args.get('product_ids', '')}"))
        lines.append(_heard(e))
    return lines


def _heard(event: Any) -> tuple[str, str]:
    """What the gateway answered one conversation turn with: the shopper's words, the profile, or the error."""
    if event.error:
        return "gateway", f"error: {event.error}"
    result = event.result
    if event.name == "get_user_profile" and isinstance(result, dict):
        return "profile", json.dumps(result, ensure_ascii=False)[:400]
    if isinstance(result, dict) and "user" in result:
        tail = " (closed)" if result.get("closed") else f" ({result.get('turns_left')} turns left)"
        return "shopper", f"{result['user']}{tail}"
    return "gateway", result[:300] if isinstance(result, str) else json.dumps(result, ensure_ascii=False)[:300]


def pass_hat_k(n: int, c: int, k: int) -> float:
    """tau-bench's pass^k for one problem with ``n`` runs of which ``c`` succeeded: the chance that ``k`` runs drawn
    without replacement all succeed, ``C(c, k) / C(n, k)`` (with ``n == k``: whether every run succeeded)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass^k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return comb(c, k) / comb(n, k)


def reliability(attempts: dict[str, tuple[str, list[bool]]], k: int) -> dict[str, Any]:
    """pass@1 (the mean success of every run), pass^k (tau-bench: problems solved in all k runs) and pass@k
    (solved in at least one), overall and per task, from each problem's (task, outcomes of its runs)."""
    from arena.scoring.aggregate import pass_at_k

    def rates(rows: list[list[bool]]) -> dict[str, Any]:
        runs = [o for row in rows for o in row]
        return {
            "problems": len(rows),
            "runs": len(runs),
            "pass_at_1": sum(runs) / len(runs) if runs else 0.0,
            "pass_hat_k": sum(pass_hat_k(len(r), sum(r), k) for r in rows) / len(rows) if rows else 0.0,
            "pass_at_k": sum(pass_at_k(len(r), sum(r), k) for r in rows) / len(rows) if rows else 0.0,
        }

    by_task: dict[str, list[list[bool]]] = {}
    for task, outcomes in attempts.values():
        by_task.setdefault(task, []).append(outcomes)
    return {
        "k": k,
        **rates([o for _, o in attempts.values()]),
        "by_task": {task: rates(rows) for task, rows in by_task.items()},
    }


def run_row(problem: Any, outcome: Any, decided: Any, trial: int = 1) -> dict[str, Any]:
    """One run's row of the scorecard: its verdict (`arena.verdict.Verdict`) as a validator gives it. ``final`` is
    what the run counts in a race (strict x the judge's coefficient; 0 for the agent's error); None for a run the
    validator would retry; the strict score alone with --judge none."""
    score, judged = decided.strict, decided.judgment
    final = decided.final if decided.status != "awaiting_judge" else decided.before_judge
    talk = conversation(problem.query, outcome.events)
    return {
        "problem_id": problem.problem_id,
        "task": problem.task,
        "trial": trial,
        "status": outcome.result.status,
        "verdict": decided.status,
        "error_code": decided.code,
        "error": decided.error,
        "blame": decided.blame,
        "retry": decided.retry,
        "success": decided.success,
        "gt": (score.extras.rate("gt") or 0.0) if score else 0.0,
        "rule": (score.extras.rate("rule") or 0.0) if score else 0.0,
        "answer": score.answer if score else [],
        "raw_answer": outcome.answer,
        "tool_calls": outcome.tool_calls,
        "llm_calls": outcome.llm_calls,
        "prompt_tokens": outcome.spend.prompt_tokens,
        "completion_tokens": outcome.spend.completion_tokens,
        "cost": outcome.spend.cost,  # USD at --llm-price
        "payer": outcome.spend.payer,
        "seconds": round(outcome.result.elapsed_s, 2),
        "before_judge": decided.before_judge,
        "judge_gate": judged.verdict.gate if judged else None,
        "judge_quality": judged.quality if judged else None,
        "judge_coefficient": judged.coefficient if judged else None,
        "final": final,
        **({"conversation": [{"who": who, "says": words} for who, words in talk]} if talk else {}),
    }


def run_name(problem: Any, trial: int = 1, k: int = 1) -> str:
    """A run's file name: the problem's id, with the run's number when each problem runs k > 1 times."""
    return problem.problem_id if k <= 1 else f"{problem.problem_id}.run{trial}"


def write_run(out_dir: Path, problem: Any, outcome: Any, decided: Any, trial: int = 1, k: int = 1) -> None:
    """A run's trajectory (JSONL) and its report (markdown: the steps, the strict checks, the judge, the verdict)."""
    name = run_name(problem, trial, k)
    with open(out_dir / "trajectories" / f"{name}.jsonl", "w") as fh:
        for event in outcome.events:
            fh.write(event.model_dump_json() + "\n")
    code, error = decided.code, decided.error
    lines = [
        f"# {problem.problem_id} ({problem.task})" + (f", run {trial} of {k}" if k > 1 else ""),
        "",
        f"**Query:** {problem.query}",
        "",
        f"**Status:** {outcome.result.status}" + ("" if code is None else f" (code {code}: {first_line(error)})"),
        f"**Verdict:** {_verdict_line(decided)}",
        f"**Answer:** {json.dumps(outcome.answer) if outcome.answer is not None else '(none)'}  "
        f"**Gold:** {', '.join(problem.gold_ids)}",
    ]
    talk = conversation(problem.query, outcome.events)
    if talk:
        lines += ["", "## Conversation", ""] + [f"- **{who}:** {words}" for who, words in talk]
    lines += ["", "## Steps"]
    for event in outcome.events:
        shown = json.dumps(event.error if event.error else event.result)[:300]
        lines.append(f"{event.seq}. `{event.kind}` **{event.name}** {json.dumps(event.arguments)[:200]} -> {shown}")
    lines += _strict_lines(decided.strict) + _judge_lines(decided.judgment)
    if error and "\n" in error.strip():
        lines += ["", "## Error", "```", error.strip(), "```"]
    if outcome.result.stderr:
        lines += ["", "## Agent stderr (tail)", "```", outcome.result.stderr[-2000:], "```"]
    (out_dir / "reports" / f"{name}.md").write_text("\n".join(lines) + "\n")


def _verdict_line(decided: Any) -> str:
    """The verdict in words, as a validator would carry it out."""
    if decided.retry:
        return f"the validator would retry this run and never score it (its own fault, {decided.code})"
    if decided.code is not None:
        return f"the agent's error ({decided.code}): final, counts 0"
    if decided.judgment is None:
        return f"strict {decided.before_judge:.3f}, not judged (--judge none; a validator always judges)"
    coefficient = decided.judgment.coefficient
    return f"final {decided.final:.3f} (strict {decided.before_judge:.3f} x coefficient {coefficient:.3f})"


def _strict_lines(score: Any) -> list[str]:
    if score is None:
        return []
    figures = " ".join(
        f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}"
        for k, v in score.extras.model_dump().items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    )
    titles = getattr(score.extras, "title_model", "")
    lines = [
        "",
        f"## Strict checks: success={score.success} {figures} "
        f"(ruleset {score.ruleset or '-'} v{score.ruleset_version}{f'; titles: {titles}' if titles else ''})",
    ]
    for product in getattr(score.extras, "products", None) or []:
        for check in product.checks:
            lines.append(
                f"- slot {product.slot + 1} {check.name}: {'pass' if check.passed else 'FAIL'} ({check.evidence})"
            )
    for check in score.checks:
        lines.append(f"- {check.name}: {'pass' if check.passed else 'FAIL'} ({check.evidence})")
    return lines


def _judge_lines(judged: Any) -> list[str]:
    if judged is None:
        return []
    reading = judged.verdict
    return [
        "",
        f"## Judge ({reading.judge}, rubric {reading.rubric_version}): gate {reading.gate}, quality "
        f"{reading.quality}, coefficient {judged.coefficient:.3f}, final {judged.final:.3f}",
        reading.explanation,
        f"cited steps: {', '.join(map(str, reading.evidence)) or 'none'}",
    ]


def print_reliability(reliable: dict[str, Any]) -> None:
    """pass@1 beside pass^k (and pass@k), overall and per task."""
    k = reliable["k"]
    table = Table(title=f"reliability over {k} runs of each problem: pass^{k} = solved in all {k} runs")
    for column in ("task", "problems", "runs", "pass@1", f"pass^{k}", f"pass@{k}"):
        table.add_column(column, justify="left" if column == "task" else "right")
    for task, r in [*reliable["by_task"].items(), ("all", reliable)]:
        table.add_row(
            task,
            str(r["problems"]),
            str(r["runs"]),
            f"{r['pass_at_1']:.1%}",
            f"{r['pass_hat_k']:.1%}",
            f"{r['pass_at_k']:.1%}",
        )
    out.print(table)
    out.print(
        f"pass@1 {reliable['pass_at_1']:.1%}, pass^{k} {reliable['pass_hat_k']:.1%}, pass@{k} "
        f"{reliable['pass_at_k']:.1%} over {reliable['problems']} problems",
        highlight=False,
    )


def first_line(text: str | None) -> str:
    """An error's own line (the runner puts it first, before the traceback)."""
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def llm_notes(asked: list[str], base_url: str | None, models: list[str]) -> list[str]:
    """One line each for LLM calls the gateway could not serve: no endpoint at all, or a model not allowed."""
    if not asked:
        return []
    if not base_url:
        return [
            f"the agent called the LLM {len(asked)} time(s), but no LLM endpoint is configured, so every call was "
            "refused; pass --llm-base-url URL --model M (any OpenAI-compatible server) to serve it"
        ]
    refused = sorted({m for m in asked if m not in models})
    if not refused:
        return []
    count = sum(1 for m in asked if m not in models)
    return [
        f"the agent asked for model(s) {', '.join(map(repr, refused))} {count} time(s), which --model does not "
        f"allow ({', '.join(models)}); use the model in $ARENA_LLM_MODEL (arena_agent.llm_model()) or add it "
        "with --model"
    ]


def write_scorecard(
    ran: Any,
    bundle: Any,
    backend: Any,
    model_used: str | None,
    notes: list[str],
    k: int,
    out_dir: Path,
    json_out: Path | None,
) -> None:
    """The scorecard of the runs (``ran``: `arena-miner test`'s rows, scores and outcomes per problem): written as
    JSON (to the output folder, and to ``--json``), then printed."""
    from arena.scoring import aggregate
    from arena.tasks import get_ruleset, rulesets

    suite = aggregate(ran.results)
    reliable = reliability(ran.attempts, k)
    # the rulesets the runs were scored by, as their verdicts name them (a pack may give each family its own)
    names = sorted({score.ruleset for _, score in ran.results if score is not None and score.ruleset})
    known = [get_ruleset(name).describe() if name in rulesets() else {"name": name} for name in names]
    scorecard = {
        "bundle_sha256": bundle.sha256,
        "backend": backend.name,
        "ruleset": known[0] if len(known) == 1 else None,
        "rulesets": known,
        "suite": suite.model_dump(),
        "llm_model": model_used,
        "notes": notes,
        "k": k,
        "reliability": reliable,
        "problems": ran.rows,
    }
    (out_dir / "scorecard.json").write_text(json.dumps(scorecard, indent=1))
    if json_out is not None:
        json_out.write_text(json.dumps(scorecard, indent=1))
    print_scorecard(suite, ran.rows, out_dir, ruleset=", ".join(names) or "-", reliable=reliable)
    for note in notes:
        out.print(f"[bold yellow]note:[/] {note}", highlight=False, soft_wrap=True)


def print_scorecard(
    suite: Any, rows: list[dict[str, Any]], out_dir: Path, ruleset: str = "-", reliable: dict[str, Any] | None = None
) -> None:
    table = Table(
        title=f"scorecard: {suite.problems} problems, success {suite.success_rate:.1%}, "
        f"gt {suite.gt_rate:.1%} (ruleset{'s' if ', ' in ruleset else ''} {ruleset})"
    )
    for column in ("task", "problems", "success", "gt", "mean rule"):
        table.add_column(column, justify="left" if column == "task" else "right")
    for task, agg in suite.by_task.items():
        table.add_row(task, str(agg.problems), f"{agg.success_rate:.1%}", f"{agg.gt_rate:.1%}", f"{agg.mean_rule:.2f}")
    out.print(table)
    if reliable is not None and reliable["k"] > 1:
        print_reliability(reliable)
    judged = [r for r in rows if r.get("judge_gate")]
    if judged:
        verdicts = Table(title="reasoning judge, per problem")
        width = max(len(r["problem_id"]) for r in judged)
        verdicts.add_column("problem", no_wrap=True, min_width=width)  # an id is never wrapped or cut
        for column in ("task", "success", "gate", "quality", "final"):
            verdicts.add_column(column, justify="left" if column in ("task", "gate") else "right")
        for r in judged:
            verdicts.add_row(
                r["problem_id"],
                r["task"],
                "yes" if r["success"] else "no",
                r["judge_gate"],
                f"{r['judge_quality']:.1f}",
                f"{r['final']:.2f}",
            )
        print_table(verdicts)
    from arena.cliutil import SCORECARD_LEGEND
    from miner_template.cli.paying import spend_line

    out.print(SCORECARD_LEGEND, highlight=False)
    out.print(headline(rows), highlight=False)
    fields = ", ".join(f"{k} {v:.0%}" for k, v in suite.field_rates.items() if v is not None)
    seconds = sum(r["seconds"] for r in rows)
    calls = sum(r["tool_calls"] for r in rows)
    out.print(f"per-field pass rates: {fields or 'n/a'}; wall time {seconds:.1f}s; tool calls {calls}")
    out.print(spend_line(rows), highlight=False)
    errors = [r for r in rows if r["error_code"]]
    for r in errors[:10]:
        err.print(
            f"[yellow]{r['problem_id']}[/]: {r['status']} ({r['error_code']}) {first_line(r['error'])[:300]}",
            highlight=False,
        )
    out.print(f"trajectories and reports: {out_dir}")


def headline(rows: list[dict[str, Any]]) -> str:
    """The mean final score over the runs a validator would count, and what it leaves out and why: a run the
    validator would retry (its own fault, an unreachable judge among them) is missing, never a zero or success
    alone."""
    counted = [r for r in rows if r["final"] is not None]
    retried = [r for r in rows if r["retry"]]
    unjudged = [r for r in retried if r["verdict"] == "retry" and r["error_code"] == JUDGE_UNAVAILABLE]
    alone = "; with --judge none, success alone" if any(r["verdict"] == "awaiting_judge" for r in rows) else ""
    weighted = "; a session's success weighted by its rubric" if any(r["task"] == "session" for r in rows) else ""
    line = (
        f"mean final score {sum(r['final'] for r in counted) / max(len(counted), 1):.3f} over {len(counted)} "
        f"run(s): what a race ranks miners on (success x judge coefficient{alone}{weighted}; errors count 0)"
    )
    if unjudged:
        line += (
            f"; {len(unjudged)} run(s) left out because the judge could not judge them (unreachable or failing: "
            "a validator judges them again later)"
        )
    if len(retried) > len(unjudged):
        line += f"; {len(retried) - len(unjudged)} run(s) left out that a validator would retry (its own fault)"
    return line
