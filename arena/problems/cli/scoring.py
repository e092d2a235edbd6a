"""`arena score`: answers made by any harness, scored against a pack by its ruleset (or another) through each
problem's family (`arena.problems.answers`), and printed as the per-task table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from arena.cliutil import fail, out, progress_bar

if TYPE_CHECKING:
    from arena.problems.pack import Pack
    from arena.scoring.aggregate import SuiteScore
    from arena.scoring.models import RunScore
    from arena.tasks import Ruleset


def score_cmd(
    pack_path: Annotated[Path, typer.Argument(help="The pack the answers are for (signed or public).")],
    catalog_dir: Annotated[Path, typer.Option("--catalog", help="The catalog the pack was made for.")],
    answers_path: Annotated[
        Path,
        typer.Option(
            "--answers", help='JSONL, one {"problem_id": ..., "product_ids": "id1,id2"} per line, from any harness.'
        ),
    ],
    ruleset: Annotated[str | None, typer.Option(help="shoppingbench or sn15 (default: the pack's ruleset).")] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write every problem's verdict and the per-task table here.")
    ] = None,
) -> None:
    """Score answers made by any harness against a pack, by its ruleset or another, and print the per-task table.

    A problem of the pack without an answer line counts as unanswered (a failure)."""
    from arena.catalog import Catalog, CatalogError
    from arena.problems.answers import AnswersError, read_answers, score_answers, summary
    from arena.problems.pack import PackError, load_pack
    from arena.tasks import UnknownRuleset, get_ruleset

    if json_out is not None and json_out.is_dir():
        fail(f"--json {json_out} is a folder; give a file name inside it")
    if json_out is not None and not json_out.parent.is_dir():
        fail(f"--json: folder {json_out.parent} does not exist; create it first")
    try:
        catalog = Catalog.open(catalog_dir)
    except CatalogError as exc:
        fail(str(exc))
    try:
        pack = load_pack(pack_path, catalog_digest=catalog.digest, require_signature=False)
    except PackError as exc:
        fail(str(exc))
    try:
        rules = get_ruleset(ruleset or pack.ruleset)
    except UnknownRuleset as exc:
        fail(f"--ruleset: {exc}")
    try:
        answers = read_answers(answers_path, pack)
    except AnswersError as exc:
        fail(str(exc))
    scores: dict[str, RunScore | None] = {}
    with progress_bar() as bar:
        task = bar.add_task("scoring", total=len(pack.problems), rate="")
        for problem_id, verdict in score_answers(pack, answers, catalog.get, rules):
            scores[problem_id] = verdict
            bar.advance(task)
    suite = summary(pack, scores)
    out.print(_score_table(pack, answers, suite, rules))
    from arena.cliutil import SCORECARD_LEGEND

    out.print(SCORECARD_LEGEND, highlight=False)
    if json_out is not None:
        _write_scores(json_out, pack, answers, scores, suite, rules)
        out.print(f"wrote {json_out}")


def _score_table(pack: Pack, answers: dict[str, Any], suite: SuiteScore, rules: Ruleset) -> Table:
    """The per-task table of `arena score`: problems, answered, success, gt and mean rule per task, then all."""
    answered = {t: 0 for t in suite.by_task}
    for problem in pack.problems:
        answered[problem.task] += problem.problem_id in answers
    described = rules.describe()
    titles = f" (titles: {described['title_model']})" if described.get("title_model") else ""
    table = Table(
        title=f"{pack.pack_id}: {len(answers)} of {suite.problems} problems answered, ruleset "
        f"{rules.name} v{rules.version}{titles}"
    )
    for column in ("task", "problems", "answered", "success", "gt", "mean rule"):
        table.add_column(column, justify="left" if column == "task" else "right")
    for name, agg in suite.by_task.items():
        table.add_row(
            name,
            str(agg.problems),
            str(answered[name]),
            f"{agg.success_rate:.1%}",
            f"{agg.gt_rate:.1%}",
            f"{agg.mean_rule:.3f}",
        )
    table.add_row(
        "all",
        str(suite.problems),
        str(len(answers)),
        f"{suite.success_rate:.1%}",
        f"{suite.gt_rate:.1%}",
        f"{suite.mean_rule:.3f}",
        style="bold",
    )
    return table


def _write_scores(
    path: Path,
    pack: Pack,
    answers: dict[str, Any],
    scores: dict[str, RunScore | None],
    suite: SuiteScore,
    rules: Ruleset,
) -> None:
    """`arena score --json`: the ruleset, the suite and every problem's verdict, written whole (via a temporary
    file)."""
    payload = {
        "pack_id": pack.pack_id,
        "ruleset": rules.describe(),
        "suite": suite.model_dump(),
        "problems": [
            {
                "problem_id": pid,
                "answered": pid in answers,
                "score": v.model_dump(mode="json") if v is not None else None,
            }
            for pid, v in scores.items()
        ],
    }
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(payload, indent=1))
    tmp.replace(path)
