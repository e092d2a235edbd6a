"""`arena problems import...`: one command per importer a family declares (`Family.importers`), each made here
from the importer's description, so a family's importer needs no wiring outside its folder."""

# no `from __future__ import annotations`: typer reads the annotations of the closures made here at run time

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cliutil import err, fail, out, parse_size, progress_bar
from arena.problems.cli.common import new_pack, not_over, out_file, write
from arena.tasks import Family, families
from arena.tasks.hooks import Importer, ImportOptions


def register_importers(app: typer.Typer) -> None:
    """An ``arena problems <command>`` for each importer of each registered family."""
    for fam in families():
        for importer in fam.importers():
            app.command(importer.command, help=importer.help)(import_command(fam, importer))


def import_command(fam: Family, importer: Importer) -> Callable[..., None]:
    """The command of one importer: read the files, rebuild the catalog if asked, write the pack."""
    rebuild_help = "Also build a catalog in which every problem is playable (gold + distractors)."
    if importer.rebuild == "required":
        rebuild_help = "The catalog to build: every problem's gold products in it (required)."

    def command(
        files: Annotated[list[Path], typer.Argument(help=importer.files_help)],
        out_pack: Annotated[Path, typer.Option("--out", help="The pack file to write.", callback=out_file)],
        rebuild_catalog: Annotated[Path | None, typer.Option("--rebuild-catalog", help=rebuild_help)] = None,
        background_size_text: Annotated[
            str,
            typer.Option(
                "--background-size", help="Generated background products in the rebuilt catalog, e.g. 0, 5000, 20k."
            ),
        ] = importer.default_background,
        background_seed: Annotated[int, typer.Option(help="Seed of the background catalog.")] = 0,
        force: Annotated[
            bool, typer.Option("--force", help="Replace an existing --out pack and rebuilt catalog.")
        ] = False,
        keep_failing: Annotated[
            bool, typer.Option("--keep-failing", help="Also pack the problems that fail a self-check (off: left out).")
        ] = False,
        ruleset: Annotated[
            str | None,
            typer.Option(help=f"The strict checks the pack scores these problems by (default: {fam.name}'s first)."),
        ] = None,
    ) -> None:
        not_over(out_pack, force)
        chosen = _ruleset(fam, ruleset)
        options = _options(importer, files, rebuild_catalog, background_size_text, background_seed, force)
        options = ImportOptions(**{**options.__dict__, "keep_failing": keep_failing and importer.keep_failing})
        made = _run(importer, files, options)
        pack = new_pack(made.problems, made.catalog_digest, made.version, **chosen)
        write(pack, out_pack)
        by_task: dict[str, int] = {}
        for problem in made.problems:
            by_task[problem.task] = by_task.get(problem.task, 0) + 1
        counts = ", ".join(f"{n} {t}" for t, n in sorted(by_task.items()))
        out.print(f"imported {len(made.problems)} problems ({counts}) -> {out_pack}", highlight=False)

    command.__name__ = f"{importer.command.replace('-', '_')}_cmd"
    command.__doc__ = importer.help
    return command


def _ruleset(fam: Family, name: str | None) -> dict[str, Any]:
    """The pack's ruleset arguments for ``--ruleset`` (none given: the family's default); exit 2 when the family
    has no ruleset of that name."""
    from arena.tasks import UnknownRuleset, get_ruleset, ruleset_for

    if name is None:
        return {}
    try:
        get_ruleset(name)
        ruleset_for(fam, {fam.name: name})
    except UnknownRuleset as exc:
        fail(f"--ruleset: {exc}")
    return {"ruleset": name}


def _options(
    importer: Importer, files: list[Path], rebuild: Path | None, size_text: str, seed: int, force: bool
) -> ImportOptions:
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        fail(f"no such file: {', '.join(missing)}")
    try:
        size = 0 if size_text.strip() == "0" else parse_size(size_text)
    except ValueError as exc:
        fail(f"--background-size: {exc}")
    if size < 0:
        fail(f"--background-size must be 0 or more, got {size}")
    if importer.rebuild == "required" and rebuild is None:
        fail(f"`arena problems {importer.command}` needs --rebuild-catalog: the folder of the catalog to build")
    if importer.rebuild == "none" and rebuild is not None:
        fail(f"`arena problems {importer.command}` does not rebuild a catalog; leave out --rebuild-catalog")
    return ImportOptions(rebuild_catalog=rebuild, background_size=size, background_seed=seed, force=force)


def _run(importer: Importer, files: list[Path], options: ImportOptions) -> Any:
    """Run the importer with progress bars; its skipped records and notes printed; exit 2 when nothing is left."""
    from arena.catalog import CatalogError

    with progress_bar() as bar:

        def step(label: str, total: int | None) -> Callable[[int], None]:
            task = bar.add_task(label, total=total, rate="")
            return lambda k: bar.advance(task, k)

        try:
            made = importer.run(files, ImportOptions(**{**options.__dict__, "step": step}))
        except CatalogError as exc:
            fail(str(exc))
    for bad in made.skipped:
        err.print(f"[yellow]skipped[/] {bad}", highlight=False)
    for note in made.notes:
        err.print(f"[yellow]{note}[/]", highlight=False)
    for line in made.summary:
        out.print(line, highlight=False)
    if not made.problems:
        fail(
            made.nothing
            or f"no valid problems in {len(files)} file(s) ({len(made.skipped)} bad records); nothing was written"
        )
    return made
