"""`arena problems import` and `generate`: problems from ShoppingBench records or ORO suites, or generated from a
catalog (ground truth first, then the query)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cliutil import err, fail, out, parse_size, progress_bar
from arena.problems.cli.common import new_pack, out_file, write
from arena.tasks import TASKS


def import_cmd(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="ShoppingBench test files (product, shop, voucher, web JSONL) or ORO problem suites (one JSON array)."
        ),
    ],
    out_pack: Annotated[Path, typer.Option("--out", help="The pack file to write.", callback=out_file)],
    rebuild_catalog: Annotated[
        Path | None,
        typer.Option(
            "--rebuild-catalog", help="Also build a catalog in which every problem is playable (gold + distractors)."
        ),
    ] = None,
    background_size_text: Annotated[
        str,
        typer.Option(
            "--background-size", help="Generated background products in the rebuilt catalog, e.g. 0, 5000, 20k, 100k."
        ),
    ] = "100k",
    background_seed: Annotated[int, typer.Option(help="Seed of the background catalog.")] = 0,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing rebuilt catalog.")] = False,
    ruleset: Annotated[
        str,
        typer.Option(
            help="The strict checks the pack is scored by: shoppingbench (the paper's "
            "evaluator) or sn15 (subnet 15's scorer)."
        ),
    ] = "shoppingbench",
) -> None:
    """Import ShoppingBench test records or ORO suites (task detected per record); bad records are reported by line.

    With --rebuild-catalog, a gold product named by several problems is built once to meet them all; problems that
    cannot be satisfied together are left out, each reported in one line with the constraint that clashes."""
    from arena.tasks import UnknownRuleset, get_ruleset
    from arena.tasks.shoppingbench.importer import import_files

    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        fail(f"no such file: {', '.join(missing)}")
    try:
        background_size = 0 if background_size_text.strip() == "0" else parse_size(background_size_text)
    except ValueError as exc:
        fail(f"--background-size: {exc}")
    try:
        ruleset = get_ruleset(ruleset).name
    except UnknownRuleset as exc:
        fail(f"--ruleset: {exc}")
    report = import_files(files)
    for bad in report.bad:
        err.print(f"[yellow]skipped[/] {bad}", highlight=False)
    if not report.problems:
        fail(f"no valid problems in {len(files)} file(s) ({len(report.bad)} bad records); nothing was written")
    problems, digest = report.problems, None
    if rebuild_catalog is not None:
        if background_size < 0:
            fail(f"--background-size must be 0 or more, got {background_size}")
        problems, digest = _rebuild(problems, rebuild_catalog, background_size, background_seed, force)
    pack = new_pack(problems, digest, "shoppingbench-import/1", ruleset)
    write(pack, out_pack)
    by_task: dict[str, int] = {}
    for problem in problems:
        by_task[problem.task] = by_task.get(problem.task, 0) + 1
    counts = ", ".join(f"{n} {t}" for t, n in sorted(by_task.items()))
    out.print(f"imported {len(problems)} problems ({counts}) -> {out_pack}")


def _rebuild(
    problems: list[Any], folder: Path, background_size: int, background_seed: int, force: bool
) -> tuple[list[Any], str]:
    """`import --rebuild-catalog`: a catalog in which every imported problem is playable; the problems that could be
    satisfied together (the others reported) and the catalog's digest."""
    from arena.catalog import CatalogError
    from arena.tasks.shoppingbench.rebuild import rebuild_catalog as rebuild

    with progress_bar() as bar:
        task = bar.add_task("rebuilding catalog", total=background_size + sum(len(p.reward) for p in problems), rate="")
        try:
            rebuilt = rebuild(
                problems,
                folder,
                background_seed=background_seed,
                background_size=background_size,
                force=force,
                progress=lambda k: bar.advance(task, k),
            )
        except CatalogError as exc:
            fail(str(exc))
    for skipped in rebuilt.skipped:
        err.print(f"[yellow]unsatisfiable[/] {skipped}", highlight=False)
    out.print(
        f"rebuilt catalog {folder}: {rebuilt.products:,} products ({rebuilt.golds} golds, "
        f"{rebuilt.distractors} distractors, {rebuilt.web_pages} web pages); digest {rebuilt.digest}",
        highlight=False,
    )
    return rebuilt.problems, rebuilt.digest


def generate_cmd(
    catalog_dir: Annotated[Path, typer.Option("--catalog", help="The catalog to draw gold products from.")],
    n: Annotated[int, typer.Option("--n", help="How many problems.")],
    out_pack: Annotated[Path, typer.Option("--out", help="The pack file to write.", callback=out_file)],
    tasks: Annotated[str, typer.Option(help="Task types, comma-separated, generated in turn.")] = ",".join(TASKS),
    seed: Annotated[int, typer.Option(help="Seed: same catalog, seed and n give the same problems.")] = 0,
    paraphrase_url: Annotated[
        str | None,
        typer.Option(help="Optional: rewrite queries with an LLM at this OpenAI-compatible base URL (off by default)."),
    ] = None,
    paraphrase_model: Annotated[str, typer.Option(help="Model for --paraphrase-url.")] = "gpt-4.1-mini",
    paraphrase_key_env: Annotated[
        str, typer.Option(help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
) -> None:
    """Generate problems (ground truth first, then the query), each checked solvable and labelled by difficulty.

    With --paraphrase-url, each query is rewritten by an LLM at temperature 0 and kept only if it still states every
    number and required value (the ground truth never changes)."""
    from arena.catalog import Catalog, CatalogError
    from arena.tasks.shoppingbench.generate import GENERATOR_VERSION, generate_problems

    task_list = [t.strip() for t in tasks.split(",") if t.strip()]
    bad = [t for t in task_list if t not in TASKS]
    if bad or not task_list:
        fail(f"unknown task(s) {', '.join(bad) or tasks!r}; use {', '.join(TASKS)}")
    if n < 1:
        fail(f"--n must be at least 1, got {n}")
    try:
        catalog = Catalog.open(catalog_dir)
    except CatalogError as exc:
        fail(str(exc))
    with progress_bar() as bar:
        task = bar.add_task("generating problems", total=n, rate="")
        report = generate_problems(catalog, n, task_list, seed, progress=lambda k: bar.advance(task, k))
    for skipped in report.skipped:
        err.print(f"[yellow]skipped[/] {skipped}", highlight=False)
    if not report.problems:
        fail("no problem could be generated from this catalog; nothing was written")
    if paraphrase_url:
        import os

        from arena.tasks.shoppingbench.paraphrase import paraphrase_problems

        with progress_bar() as bar:
            task = bar.add_task("paraphrasing", total=len(report.problems), rate="")
            para = paraphrase_problems(
                report.problems,
                base_url=paraphrase_url,
                model=paraphrase_model,
                api_key=os.environ.get(paraphrase_key_env, "none"),
                progress=lambda k: bar.advance(task, k),
            )
        report.problems = para.problems
        out.print(
            f"paraphrased {para.rewritten}, kept {para.kept} templated (paraphrase lost a constraint), "
            f"{para.failed} failed (endpoint error)"
        )
    pack = new_pack(report.problems, catalog.digest, GENERATOR_VERSION)
    write(pack, out_pack)
    counts = ", ".join(f"{k} {t}" for t, k in sorted(report.by_task.items()))
    out.print(f"generated {len(report.problems)} problems ({counts}) -> {out_pack}")
