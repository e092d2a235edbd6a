"""``arena``: the arena operator's command line (catalogs and tools)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from arena.clihelp import App
from arena.cliutil import check_writable, err, fail, out, parse_size, progress_bar, terminate_cleanly, utf8_text
from arena.log import configure_logging, get_logger
from arena.problems.cli import app as problems_app
from arena.problems.cli.scoring import score_cmd

app = App(
    name="arena",
    help="ShopArena operator tools: catalogs, the shopping tools, problem packs.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
catalog_app = App(help="Build, load, inspect and search product catalogs.", no_args_is_help=True)
tools_app = App(help="The seven shopping tools agents use.", no_args_is_help=True)
app.add_typer(catalog_app, name="catalog")
app.add_typer(tools_app, name="tools")
app.add_typer(problems_app, name="problems")
app.command("score")(score_cmd)

log = get_logger("arena.cli")

#: the task type whose family's tools ``arena tools`` uses by default, and whose ``find_product`` ``arena catalog
#: search`` calls (ShoppingBench)
DEFAULT_TASK = "product"
TaskOption = Annotated[
    str, typer.Option("--task", help="The task type whose family's tools to use (default: product, ShoppingBench).")
]


@app.callback()
def _main() -> None:
    configure_logging()
    import logging

    logging.getLogger("httpx").setLevel(logging.WARNING)  # our commands print their own one-line outcomes


def _made_since(out_dir: Path) -> Callable[[], bool]:
    """Whether a catalog was put at ``out_dir`` from now on: its manifest (written last, then moved in with the
    folder) is another file than the one there now, if any."""
    manifest = out_dir / "catalog.json"

    def identity() -> tuple[int, int, int] | None:
        try:
            st = manifest.stat()
        except OSError:
            return None
        return st.st_dev, st.st_ino, st.st_mtime_ns

    before = identity()
    return lambda: identity() not in (None, before)


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
    workers: Annotated[
        int | None, typer.Option(help="Generator processes, each indexing a part (default: one per core, at most 8).")
    ] = None,
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
    check_writable(out_dir.parent, "--out")  # the catalog is built in a temporary folder beside it
    with terminate_cleanly("the catalog", _made_since(out_dir)), progress_bar() as progress:
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
    check_writable(out_dir.parent, "--out")  # the catalog is built in a temporary folder beside it
    with terminate_cleanly("the catalog", _made_since(out_dir)), progress_bar() as progress:
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
    from arena.tools import ToolContext, ToolError

    if not 1 <= page <= 5:
        fail(f"--page must be from 1 to 5 (find_product serves 5 pages of 10), got {page}")
    arguments: dict[str, Any] = {"q": utf8_text(query, "the query"), "page": page, "sort": utf8_text(sort, "--sort")}
    for key, value in (("price", price), ("service", service), ("shop_id", shop)):
        if value is not None:
            arguments[key] = utf8_text(value, f"--{key.removesuffix('_id')}")
    catalog = _open_catalog(directory)
    try:
        results = _tools(DEFAULT_TASK).call("find_product", arguments, ToolContext(catalog))
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


def _tools(task: str) -> Any:
    """A fresh tool registry of the family that owns ``task`` (`arena.tasks.tools_for`); a clear error otherwise."""
    from arena.tasks import UnknownTask, tools_for

    try:
        return tools_for(task)
    except UnknownTask as exc:
        fail(f"--task: {exc}")


@tools_app.command("schema")
def tools_schema(
    name: Annotated[str | None, typer.Argument(help="One tool's name (default: all of the task's tools).")] = None,
    task: TaskOption = DEFAULT_TASK,
) -> None:
    """Print the tools' OpenAI function-calling schemas as JSON."""
    from arena.tools import ToolError

    registry = _tools(task)
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
    task: TaskOption = DEFAULT_TASK,
) -> None:
    """Call one tool against a catalog and print its result as JSON (a tool error is printed on stderr)."""
    from arena.tools import ToolContext, ToolError

    registry = _tools(task)
    if name not in registry:
        fail(f"unknown tool {name!r}; available tools: {', '.join(registry.names())}")
    try:
        parsed = json.loads(utf8_text(args, "--args"))
    except json.JSONDecodeError as exc:
        fail(f'--args is not valid JSON ({exc.msg} at column {exc.colno}); pass an object like \'{{"q": "shoes"}}\'')
    utf8_text(json.dumps(parsed, ensure_ascii=False), "--args (a \\u escape)")
    catalog = _open_catalog(directory)
    try:
        result = registry.call(name, parsed, ToolContext(catalog))
    except ToolError as exc:
        fail(str(exc), code=1)
    sys.stdout.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":  # pragma: no cover
    app()
