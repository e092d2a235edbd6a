"""`arena problems import-sessions`: EComAgentBench task records as shopping sessions, each target rebuilt as a gold
product in a catalog (as `import --rebuild-catalog` does for ShoppingBench), then self-checked."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cliutil import err, fail, out, parse_size, progress_bar
from arena.problems.cli.common import new_pack, out_file, write

IMPORT_VERSION = "ecomagentbench-import/1"


def import_sessions_cmd(
    files: Annotated[list[Path], typer.Argument(help="EComAgentBench task records (JSON Lines, one task per line).")],
    out_pack: Annotated[Path, typer.Option("--out", help="The pack file to write.", callback=out_file)],
    rebuild_catalog: Annotated[
        Path, typer.Option("--rebuild-catalog", help="The catalog to build: every target product as a gold product.")
    ],
    background_size_text: Annotated[
        str, typer.Option("--background-size", help="Generated background products in the catalog, e.g. 5000, 20k.")
    ] = "20k",
    background_seed: Annotated[int, typer.Option(help="Seed of the background catalog.")] = 0,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing catalog at --rebuild-catalog.")] = False,
    keep_failing: Annotated[
        bool, typer.Option("--keep-failing", help="Also pack the sessions that fail a self-check (off: left out).")
    ] = False,
) -> None:
    """Import EComAgentBench tasks (user_query, user_persona, clarification_script, rubrics, target_product) as
    shopping sessions: query rubrics become the opening's needs, persona rubrics the profile's, each clarification
    slot a need the shopper says when asked. Each bad record is reported in one line; rubric kinds our reward grammar
    cannot hold (rating and review-count minimums, negative attributes, review opinions) are counted and left out.
    The sessions are then self-checked on the rebuilt catalog (feasible, needs the conversation, solved by the
    reference agent, failed by a blind one) and the figures printed."""
    from arena.catalog import Catalog, CatalogError
    from arena.tasks.session.importer import import_files
    from arena.tasks.session.rebuild import rebuild_sessions, selfcheck_imported

    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        fail(f"no such file: {', '.join(missing)}")
    try:
        background_size = parse_size(background_size_text)
    except ValueError as exc:
        fail(f"--background-size: {exc}")
    report = import_files(files)
    for bad in report.bad:
        err.print(f"[yellow]skipped[/] {bad}", highlight=False)
    if report.dropped:
        dropped = ", ".join(f"{n} {kind}" for kind, n in sorted(report.dropped.items()))
        err.print(f"rubrics left out (no place in the reward grammar): {dropped}", highlight=False)
    if not report.problems:
        fail(f"no valid task in {len(files)} file(s) ({len(report.bad)} bad records); nothing was written")
    with progress_bar() as bar:
        bar.add_task("rebuilding catalog", total=None, rate="")
        try:
            rebuilt = rebuild_sessions(
                report.problems,
                rebuild_catalog,
                background_seed=background_seed,
                background_size=background_size,
                force=force,
            )
        except CatalogError as exc:
            fail(str(exc))
    for skipped in rebuilt.skipped:
        err.print(f"[yellow]unsatisfiable[/] {skipped}", highlight=False)
    catalog = Catalog.open(rebuild_catalog)
    with progress_bar() as bar:
        bar.add_task("self-checking", total=None, rate="")
        checked = selfcheck_imported(rebuilt.problems, catalog)
    for failure in checked.failures:
        err.print(f"[yellow]self-check[/] {failure}", highlight=False)
    passed = ", ".join(f"{check} {n}" for check, n in checked.summary()["passed"].items())
    out.print(
        f"{len(report.problems)} of {len(report.problems) + len(report.bad)} records imported; "
        f"{len(rebuilt.problems)} playable in {rebuild_catalog}; self-checks passed: {passed}; "
        f"{len(checked.kept)} pass them all",
        highlight=False,
    )
    problems = rebuilt.problems if keep_failing else checked.kept
    if not problems:
        fail("no imported session passed every self-check; nothing was written (--keep-failing packs them anyway)")
    write(new_pack(list(problems), rebuilt.digest, IMPORT_VERSION), out_pack)
    out.print(f"packed {len(problems)} sessions -> {out_pack}")
