"""`arena problems split` and `selfcheck`: a pack's public, race and held-out splits (near-duplicates kept
together), and the checks that every problem is solvable and no blind baseline solves it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from arena.cliutil import err, fail, out, progress_bar
from arena.problems.cli.common import Force, json_file, load, not_over, out_file, print_counts, write


def split_cmd(
    pack_path: Annotated[Path, typer.Argument(help="The pack to split.")],
    out_pack: Annotated[
        Path,
        typer.Option(
            "--out",
            help="Where to write the split pack (may be the input file: rewritten in place).",
            callback=out_file,
        ),
    ],
    public: Annotated[float, typer.Option(help="Share of problems for the public split.")] = 0.2,
    race: Annotated[float, typer.Option(help="Share for races.")] = 0.6,
    held_out: Annotated[float, typer.Option("--held-out", help="Share never raced (kept for evaluation).")] = 0.2,
    seed: Annotated[int, typer.Option(help="Seed of the cluster order.")] = 0,
    force: Force = False,
) -> None:
    """Cluster near-duplicate problems and give whole clusters to public, race and held_out (no answer leaks)."""
    from arena.problems.splits import assign_splits, leaks

    not_over(out_pack, force, same_as=pack_path)  # the input itself may be rewritten in place
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
    """Check that the pack and its catalog belong together, by each family's self-check (`Family.selfcheck`): every
    gold answer passes the pack's ruleset, every recorded near miss fails, and a blind baseline stays low."""
    from arena.catalog import Catalog, CatalogError
    from arena.tasks import families

    try:
        catalog = Catalog.open(catalog_dir)
    except CatalogError as exc:
        fail(str(exc))
    pack = load(pack_path, catalog_digest=catalog.digest)
    reports = []
    with progress_bar() as bar:

        def step(label: str, total: int | None) -> Callable[[int], None]:
            task = bar.add_task(label, total=total, rate="")
            return lambda k: bar.advance(task, k)

        for fam in families():
            mine = [p for p in pack.problems if p.task in fam.tasks]
            if mine:
                ruleset = pack.ruleset_for(mine[0].task)
                reports.append(fam.selfcheck(mine, catalog, ruleset=ruleset, vectors=pack.gold_vectors, step=step))
    failures = [line for report in reports for line in report.failures]
    for report in reports:
        for shown in report.tables:
            table = Table(title=f"{shown.title} of {pack_path}" if shown.title == "self-check" else shown.title)
            for i, column in enumerate(shown.columns):
                table.add_column(column, justify="left" if i == 0 else "right")
            for row in shown.rows:
                table.add_row(*row)
            out.print(table)
    for failure in failures[:20]:
        err.print(f"[red]fail[/] {failure}", highlight=False)
    ok = all(report.ok for report in reports)
    if json_out is not None:
        json_out.write_text(json.dumps(merged_figures(reports, ok, failures), indent=1))
    if not ok:
        fail(f"self-check failed: {len(failures)} problem(s) listed above", code=1)
    out.print("ok: every gold answer passes and every distractor fails")


def merged_figures(reports: list[Any], ok: bool, failures: list[str]) -> dict[str, Any]:
    """The families' self-check figures in one JSON object: per-task tables merged (task types are unique across
    families), then ``ok`` and every failure."""
    merged: dict[str, Any] = {}
    for report in reports:
        for key, value in report.figures.items():
            if isinstance(value, dict) and isinstance(merged.get(key), dict):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = value
    return {**merged, "ok": ok, "failures": failures}
