"""`arena problems generate`: problems generated from a catalog (ground truth first, then the query) by each task
type's family. The importers are `importing`'s."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cliutil import err, fail, out, progress_bar
from arena.problems.cli.common import Force, new_pack, not_over, out_file, write
from arena.tasks import all_tasks, family

#: the family whose task types `arena problems generate` makes by default (`arena problems` is ShoppingBench's
#: toolbox: import, generate, paraphrase, self-check; other families' task types are generated on request)
DEFAULT_FAMILY = "shoppingbench"
#: the most problems one `arena problems generate` makes (a pack of about 400 MB)
MAX_GENERATE = 100_000


def generate_cmd(
    catalog_dir: Annotated[Path, typer.Option("--catalog", help="The catalog to draw gold products from.")],
    n: Annotated[int, typer.Option("--n", help="How many problems.")],
    out_pack: Annotated[Path, typer.Option("--out", help="The pack file to write.", callback=out_file)],
    tasks: Annotated[
        str,
        typer.Option(
            help="Task types, comma-separated, generated in turn by their families' generators (default: "
            "ShoppingBench's; any registered family's task type, e.g. session)."
        ),
    ] = ",".join(family(DEFAULT_FAMILY).tasks),
    seed: Annotated[int, typer.Option(help="Seed: same catalog, seed and n give the same problems.")] = 0,
    paraphrase_url: Annotated[
        str | None,
        typer.Option(help="Optional: rewrite queries with an LLM at this OpenAI-compatible base URL (off by default)."),
    ] = None,
    paraphrase_model: Annotated[str, typer.Option(help="Model for --paraphrase-url.")] = "gpt-4.1-mini",
    paraphrase_key_env: Annotated[
        str, typer.Option(help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    force: Force = False,
) -> None:
    """Generate problems (ground truth first, then the query), each checked solvable and labelled by difficulty, by
    the generator of each task type's family (`arena.tasks`).

    With --paraphrase-url, each query is rewritten by an LLM at temperature 0 and kept only if it still states every
    number and required value (the ground truth never changes)."""
    from arena.catalog import Catalog, CatalogError

    not_over(out_pack, force)
    known = all_tasks()
    task_list = [t.strip() for t in tasks.split(",") if t.strip()]
    bad = [t for t in task_list if t not in known]
    if bad or not task_list:
        fail(f"unknown task(s) {', '.join(bad) or tasks!r}; use {', '.join(known)}")
    if n < 1:
        fail(f"--n must be at least 1, got {n}")
    if n > MAX_GENERATE:
        fail(
            f"--n {n:,} is more than the {MAX_GENERATE:,} problems one generate makes (each about 4 KB in the pack "
            "and tens of milliseconds to make); ask for fewer, or make several packs with different --seed values"
        )
    try:
        catalog = Catalog.open(catalog_dir)
    except CatalogError as exc:
        fail(str(exc))
    problems, version = _generate(catalog, n, task_list, seed)
    if paraphrase_url:
        problems = _paraphrase(problems, paraphrase_url, paraphrase_model, paraphrase_key_env)
    pack = new_pack(problems, catalog.digest, version)
    write(pack, out_pack)
    by_task: dict[str, int] = {}
    for problem in problems:
        by_task[problem.task] = by_task.get(problem.task, 0) + 1
    counts = ", ".join(f"{k} {t}" for t, k in sorted(by_task.items()))
    out.print(f"generated {len(problems)} problems ({counts}) -> {out_pack}")


def _generate(catalog: Any, n: int, task_list: list[str], seed: int) -> tuple[list[Any], str]:
    """``n`` problems, the task types in turn, each family's share made by its generator
    (`arena.problems.fresh.generate_counts`); the problems (the skipped ones reported, exit 2 when none was made) and
    the generators' version."""
    from arena.problems.fresh import generate_counts

    # the task types in turn: task i of k gets n // k problems, one more while i < n % k
    counts: dict[str, int] = {}
    for i, task in enumerate(task_list):
        counts[task] = counts.get(task, 0) + n // len(task_list) + (i < n % len(task_list))
    with progress_bar() as bar:
        bar_task = bar.add_task("generating problems", total=n, rate="")
        try:
            made = generate_counts(catalog, counts, seed=seed, progress=lambda k: bar.advance(bar_task, k))
        except NotImplementedError as exc:
            fail(f"--tasks {','.join(task_list)}: {exc}")
    for line in made.skipped:
        err.print(f"[yellow]skipped[/] {line}", highlight=False)
    if not made.problems:
        fail("no problem could be generated from this catalog; nothing was written")
    return made.problems, "+".join(made.versions)


def _paraphrase(problems: list[Any], url: str, model: str, key_env: str) -> list[Any]:
    """`generate --paraphrase-url`: ShoppingBench's queries rewritten by an LLM (a rewrite that loses a constraint is
    not kept); the problems of other families are left as they are."""
    import os

    from arena.tasks.shoppingbench.paraphrase import paraphrase_problems

    shopping = set(family("shoppingbench").tasks)
    mine = [p for p in problems if p.task in shopping]
    with progress_bar() as bar:
        task = bar.add_task("paraphrasing", total=len(mine), rate="")
        para = paraphrase_problems(
            mine,
            base_url=url,
            model=model,
            api_key=os.environ.get(key_env, "none"),
            progress=lambda k: bar.advance(task, k),
        )
    out.print(
        f"paraphrased {para.rewritten}, kept {para.kept} templated (paraphrase lost a constraint), "
        f"{para.failed} failed (endpoint error)"
    )
    rewritten = iter(para.problems)
    return [next(rewritten) if p.task in shopping else p for p in problems]
