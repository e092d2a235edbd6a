"""`arena problems split` and `selfcheck`: a pack's public, race and held-out splits (near-duplicates kept
together), and the checks that every problem is solvable and no blind baseline solves it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from arena.cliutil import err, fail, out, progress_bar
from arena.problems.cli.common import json_file, load, out_file, print_counts, write


def split_cmd(
    pack_path: Annotated[Path, typer.Argument(help="The pack to split.")],
    out_pack: Annotated[
        Path, typer.Option("--out", help="Where to write the split pack (may be the same file).", callback=out_file)
    ],
    public: Annotated[float, typer.Option(help="Share of problems for the public split.")] = 0.2,
    race: Annotated[float, typer.Option(help="Share for races.")] = 0.6,
    held_out: Annotated[float, typer.Option("--held-out", help="Share never raced (kept for evaluation).")] = 0.2,
    seed: Annotated[int, typer.Option(help="Seed of the cluster order.")] = 0,
) -> None:
    """Cluster near-duplicate problems and give whole clusters to public, race and held_out (no answer leaks)."""
    from arena.problems.splits import assign_splits, leaks

    fractions = {"public": public, "race": race, "held_out": held_out}
    if any(not 0 <= f <= 1 for f in fractions.values()) or not sum(fractions.values()) > 0:
        fail(
            f"split fractions must be non-negative, at most 1 and not all 0, got --public {public} --race {race} "
            f"--held-out {held_out}"
        )
    pack = load(pack_path)
    if abs(sum(fractions.values()) - 1) > 1e-9:
        total = sum(fractions.values())
        err.print(
            f"note: --public {public} --race {race} --held-out {held_out} sum to {total:g}, not 1; normalized to "
            + ", ".join(f"{name} {f / total:.3f}" for name, f in fractions.items()),
            highlight=False,
        )
    try:
        problems = assign_splits(pack.problems, fractions, seed)
    except ValueError as exc:
        fail(str(exc))
    leaked = leaks(problems)
    if leaked:
        fail(f"internal error: answer products in two splits: {', '.join(leaked[:5])}")
    new = pack.model_copy(update={"problems": problems, "signer": None, "signature": None})
    write(new, out_pack)
    print_counts(problems, f"splits of {out_pack}")
    out.print("no answer product appears in two splits; the pack is unsigned until `arena problems pack` signs it")


def selfcheck_cmd(
    pack_path: Annotated[Path, typer.Argument(help="The pack to check.")],
    catalog_dir: Annotated[Path, typer.Option("--catalog", help="The catalog the pack was made for.")],
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the report as JSON here.", callback=json_file)
    ] = None,
) -> None:
    """Run every gold answer and every recorded distractor through the pack's ruleset (gold 100%, distractors 0%),
    and the blind baseline (top search hits, no reading): its success per task should stay low."""
    from arena.catalog import Catalog, CatalogError
    from arena.tasks.shoppingbench.selfcheck import selfcheck

    try:
        catalog = Catalog.open(catalog_dir)
    except CatalogError as exc:
        fail(str(exc))
    pack = load(pack_path, catalog_digest=catalog.digest)
    with progress_bar() as bar:
        task = bar.add_task("self-check", total=len(pack.problems), rate="")
        report = selfcheck(
            pack.problems,
            catalog.get,
            vectors=pack.gold_vectors,
            progress=lambda k: bar.advance(task, k),
            catalog=catalog,
            ruleset=pack.ruleset,
        )
    table = Table(title=f"self-check of {pack_path}")
    for column in ("task", "problems", "gold pass", "distractors", "distractor pass"):
        table.add_column(column, justify="left" if column == "task" else "right")
    for name, row in report.by_task.items():
        table.add_row(
            name, str(row.problems), f"{row.gold_rate:.1%}", str(row.distractors), f"{row.distractor_pass_rate:.1%}"
        )
    out.print(table)
    baseline = Table(title=f"blind baseline (top search hits, nothing read), {pack.ruleset} ruleset")
    for column in ("task", "problems", "top hits for the query", "top hit for the top web result"):
        baseline.add_column(column, justify="left" if column == "task" else "right")
    for name, blind in report.baseline.items():
        baseline.add_row(
            name,
            str(blind.problems),
            f"{blind.query_rate:.1%}",
            "" if blind.web_rate is None else f"{blind.web_rate:.1%}",
        )
    out.print(baseline)
    for failure in report.failures[:20]:
        err.print(f"[red]fail[/] {failure}", highlight=False)
    if json_out is not None:
        json_out.write_text(json.dumps(report.summary(), indent=1))
    if not report.ok:
        fail(f"self-check failed: {len(report.failures)} problem(s) listed above", code=1)
    out.print("ok: every gold answer passes and every distractor fails")
