"""``arena``: the arena operator's command line (catalogs and tools)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from arena.cliutil import err, fail, out, parse_size, progress_bar
from arena.log import configure_logging, get_logger
from arena.problems.cli import app as problems_app

app = typer.Typer(
    name="arena",
    help="ShopArena operator tools: catalogs, the shopping tools, problem packs.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
catalog_app = typer.Typer(help="Build, load, inspect and search product catalogs.", no_args_is_help=True)
tools_app = typer.Typer(help="The seven shopping tools agents use.", no_args_is_help=True)
app.add_typer(catalog_app, name="catalog")
app.add_typer(tools_app, name="tools")
app.add_typer(problems_app, name="problems")

log = get_logger("arena.cli")


@app.callback()
def _main() -> None:
    configure_logging()
    import logging

    logging.getLogger("httpx").setLevel(logging.WARNING)  # our commands print their own one-line outcomes


def _open_catalog(path: Path) -> Any:
    from arena.catalog import Catalog, CatalogError

    try:
        return Catalog.open(path)
    except CatalogError as exc:
        fail(str(exc))


# --------------------------------------------------------------------------------------------------------- catalog


@catalog_app.command("build")
def catalog_build(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to create (built in a temporary folder, then moved).")],
    seed: Annotated[int, typer.Option(help="Generator seed: the same seed and size give the same catalog.")] = 0,
    size: Annotated[str, typer.Option(help="Number of products, e.g. 5000, 100k, 2.5M.")] = "10k",
    force: Annotated[bool, typer.Option("--force", help="Replace an existing catalog at --out.")] = False,
    workers: Annotated[int | None, typer.Option(help="Generator processes (default: one per core).")] = None,
) -> None:
    """Generate a seeded synthetic catalog (products, web corpus, search index) and print its content digest."""
    from arena.catalog import CatalogError
    from arena.catalog.build import build_catalog
    from arena.catalog.generator import validate_seed_size

    try:
        n = parse_size(size)
        validate_seed_size(seed, n)
    except ValueError as exc:
        fail(str(exc))
    if workers is not None and workers < 1:
        fail(f"--workers must be at least 1, got {workers}")
    with progress_bar() as progress:
        task = progress.add_task("generating + indexing", total=n, rate="")
        try:
            report = build_catalog(
                seed, n, out_dir, force=force, workers=workers, progress=lambda k: progress.advance(task, k)
            )
        except CatalogError as exc:
            fail(str(exc))
    rate = report.products / report.seconds if report.seconds else 0
    out.print(
        f"built {report.products:,} products and {report.web_pages:,} web pages in {report.seconds:.1f}s "
        f"({rate:,.0f}/s) -> {report.path}"
    )
    out.print(f"digest {report.digest}", highlight=False)


@catalog_app.command("load")
def catalog_load(
    file: Annotated[Path, typer.Argument(help="A ShoppingBench documents.jsonl or documents.jsonl.gz.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to create (built in a temporary folder, then moved).")],
    strict: Annotated[bool, typer.Option("--strict", help="Stop at the first bad line (nothing is written).")] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing catalog at --out.")] = False,
    web: Annotated[Path | None, typer.Option(help="Optional JSONL of web pages {url, title, content}.")] = None,
) -> None:
    """Stream a real ShoppingBench documents file into a catalog; bad lines are reported by number and reason."""
    from arena.catalog import CatalogError
    from arena.catalog.build import load_catalog

    if not file.is_file():
        fail(f"{file} does not exist; pass a documents.jsonl or documents.jsonl.gz file")
    with progress_bar() as progress:
        task = progress.add_task("loading", total=file.stat().st_size, rate="bytes")
        try:
            report = load_catalog(
                file, out_dir, strict=strict, force=force, web=web, progress=lambda k: progress.advance(task, k)
            )
        except CatalogError as exc:
            fail(str(exc))
    out.print(
        f"loaded {report.products:,} products and {report.web_pages:,} web pages in {report.seconds:.1f}s "
        f"-> {report.path}"
    )
    if report.bad_lines:
        err.print(f"[yellow]{report.bad_lines:,} bad line(s) skipped[/]; the first ones:", highlight=False)
        for sample in report.bad_samples:
            err.print(f"  {sample}", highlight=False, markup=False)
    out.print(f"digest {report.digest}", highlight=False)


def _dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


@catalog_app.command("stats")
def catalog_stats(
    directory: Annotated[Path, typer.Argument(help="A catalog folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON.")] = False,
) -> None:
    """Show a catalog's source, digest, size on disk and statistics (categories, shops, prices, services)."""
    catalog = _open_catalog(directory)
    manifest = catalog.manifest
    stats = dict(manifest.get("stats", {}))
    info = {
        "path": str(directory),
        "source": manifest["source"],
        "digest": manifest["digest"],
        "products": catalog.num_products,
        "web_pages": catalog.num_web_pages,
        "index_bytes": _dir_size(directory),
        "build_seconds": manifest.get("build_seconds"),
        "stats": stats,
    }
    if as_json:
        out.print_json(json.dumps(info))
        return
    head = Table(show_header=False, title=f"catalog {directory}")
    for key in ("source", "digest", "products", "web_pages", "index_bytes", "build_seconds"):
        value = info[key]
        head.add_row(
            key,
            json.dumps(value) if isinstance(value, dict) else f"{value:,}" if isinstance(value, int) else str(value),
        )
    out.print(head)
    table = Table(title="statistics", show_header=True)
    table.add_column("measure")
    table.add_column("value", overflow="fold")
    for key, value in stats.items():
        if key == "top_category_products":
            continue
        table.add_row(
            key,
            json.dumps(value) if isinstance(value, dict) else f"{value:,}" if isinstance(value, int) else str(value),
        )
    out.print(table)
    tops = Table(title="products per top-level category")
    tops.add_column("category")
    tops.add_column("products", justify="right")
    for category, count in sorted(stats.get("top_category_products", {}).items(), key=lambda kv: -kv[1]):
        tops.add_row(category, f"{count:,}")
    out.print(tops)


@catalog_app.command("search")
def catalog_search(
    directory: Annotated[Path, typer.Argument(help="A catalog folder.")],
    query: Annotated[str, typer.Argument(help="Words to search for.")],
    price: Annotated[str | None, typer.Option(help="Inclusive price range: 'lo-hi', 'lo-' or '-hi'.")] = None,
    service: Annotated[str | None, typer.Option(help="Required services, comma-separated.")] = None,
    sort: Annotated[str, typer.Option(help="default, priceasc, pricedesc or order.")] = "default",
    page: Annotated[int, typer.Option(help="Result page, 1 to 5.")] = 1,
    shop: Annotated[str | None, typer.Option(help="Only products of this shop id.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
) -> None:
    """Search a catalog exactly as an agent's find_product call would."""
    from arena.tasks.shoppingbench.tools import default_registry
    from arena.tools import ToolContext, ToolError

    if not 1 <= page <= 5:
        fail(f"--page must be from 1 to 5 (find_product serves 5 pages of 10), got {page}")
    catalog = _open_catalog(directory)
    arguments: dict[str, Any] = {"q": query, "page": page, "sort": sort}
    for key, value in (("price", price), ("service", service), ("shop_id", shop)):
        if value is not None:
            arguments[key] = value
    try:
        results = default_registry().call("find_product", arguments, ToolContext(catalog))
    except ToolError as exc:
        fail(str(exc))
    if as_json:
        out.print_json(json.dumps(results))
        return
    table = Table(title=f"find_product {json.dumps(arguments)}")
    for column in ("product_id", "shop_id", "title", "price", "service", "sold"):
        table.add_column(column, overflow="fold", justify="right" if column in ("price", "sold") else "left")
    for r in results:
        table.add_row(
            r["product_id"],
            r["shop_id"],
            r["title"],
            f"{r['price']:,.2f}",
            ",".join(r["service"]),
            f"{r['sold_count']:,}",
        )
    out.print(table)
    if not results:
        out.print("no products matched")


# ----------------------------------------------------------------------------------------------------------- tools


@tools_app.command("schema")
def tools_schema(
    name: Annotated[str | None, typer.Argument(help="One tool's name (default: all seven).")] = None,
) -> None:
    """Print the tools' OpenAI function-calling schemas as JSON."""
    from arena.tasks.shoppingbench.tools import default_registry
    from arena.tools import ToolError

    registry = default_registry()
    if name is None:
        schemas: Any = registry.schemas()
    else:
        try:
            schemas = registry.get(name).schema()
        except ToolError as exc:
            fail(str(exc))
    sys.stdout.write(json.dumps(schemas, indent=2, ensure_ascii=False) + "\n")


@tools_app.command("call")
def tools_call(
    directory: Annotated[Path, typer.Argument(help="A catalog folder.")],
    name: Annotated[str, typer.Argument(help="Tool name, e.g. find_product.")],
    args: Annotated[
        str, typer.Option("--args", help='Arguments as a JSON object, e.g. \'{"q": "rice cooker"}\'.')
    ] = "{}",
) -> None:
    """Call one tool against a catalog and print its result as JSON (a tool error is printed on stderr)."""
    from arena.tasks.shoppingbench.tools import default_registry
    from arena.tools import ToolContext, ToolError

    registry = default_registry()
    if name not in registry:
        fail(f"unknown tool {name!r}; available tools: {', '.join(registry.names())}")
    try:
        parsed = json.loads(args)
    except json.JSONDecodeError as exc:
        fail(f'--args is not valid JSON ({exc.msg} at column {exc.colno}); pass an object like \'{{"q": "shoes"}}\'')
    catalog = _open_catalog(directory)
    try:
        result = registry.call(name, parsed, ToolContext(catalog))
    except ToolError as exc:
        fail(str(exc), code=1)
    sys.stdout.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")


# ----------------------------------------------------------------------------------------------------------- score


@app.command("score")
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
    from arena.problems.answers import AnswersError, read_answers, score_answers, summary
    from arena.problems.pack import PackError, load_pack
    from arena.tasks.shoppingbench.rulesets import UnknownRuleset, get_ruleset

    if json_out is not None and json_out.is_dir():
        fail(f"--json {json_out} is a folder; give a file name inside it")
    if json_out is not None and not json_out.parent.is_dir():
        fail(f"--json: folder {json_out.parent} does not exist; create it first")
    catalog = _open_catalog(catalog_dir)
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
    scores = {}
    with progress_bar() as bar:
        task = bar.add_task("scoring", total=len(pack.problems), rate="")
        for problem_id, verdict in score_answers(pack, answers, catalog.get, rules):
            scores[problem_id] = verdict
            bar.advance(task)
    suite = summary(pack, scores)
    answered = {t: 0 for t in suite.by_task}
    for problem in pack.problems:
        answered[problem.task] += problem.problem_id in answers
    table = Table(
        title=f"{pack.pack_id}: {len(answers)} of {suite.problems} problems answered, ruleset "
        f"{rules.name} v{rules.version} (titles: {rules.title_model})"
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
    out.print(table)
    from arena.cliutil import SCORECARD_LEGEND

    out.print(SCORECARD_LEGEND, highlight=False)
    if json_out is not None:
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
        tmp = json_out.with_name(json_out.name + ".tmp")
        tmp.write_text(json.dumps(payload, indent=1))
        tmp.replace(json_out)
        out.print(f"wrote {json_out}")


if __name__ == "__main__":  # pragma: no cover
    app()
