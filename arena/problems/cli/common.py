"""What the `arena problems` commands share: reading and writing packs with one-line errors, checking --out and
--json before any work, and the table of problems per split and task."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from arena.cliutil import check_writable, fail, print_table
from arena.tasks import TASKS


def load(path: Path, *, catalog_digest: str | None = None, require_signature: bool = False) -> Any:
    from arena.problems.pack import PackError, load_pack

    try:
        return load_pack(path, catalog_digest=catalog_digest, require_signature=require_signature)
    except PackError as exc:
        fail(str(exc))


def out_file(path: Path | None) -> Path | None:
    """--out names a file to write: checked when the command line is read, before any work."""
    return check_file(path, "--out")


def json_file(path: Path | None) -> Path | None:
    return check_file(path, "--json")


def check_file(path: Path | None, flag: str) -> Path | None:
    if path is not None and path.is_dir():
        fail(f"{flag} {path} is a folder; give a file name, e.g. {path / 'pack.json'}")
    if path is not None and path.parent.exists() and not path.parent.is_dir():
        fail(f"{flag}: {path.parent} is a file, not a folder")
    if path is not None and not path.parent.is_dir():
        fail(f"{flag}: folder {path.parent} does not exist; create it first")
    if path is not None:
        check_writable(path.parent, flag)
    return path


#: the one overwrite policy of every command that writes a pack: an existing file is replaced only with --force
Force = Annotated[bool, typer.Option("--force", help="Replace an existing --out file.")]


def not_over(path: Path | None, force: bool, flag: str = "--out", *, same_as: Path | None = None) -> None:
    """Refuse to replace an existing `path` without --force (checked before any work); `same_as`, the command's
    input, may be rewritten in place when --out names it (`split var/gen.json --out var/gen.json`)."""
    if path is None or force or not path.exists():
        return
    if same_as is not None and path.resolve() == same_as.resolve():
        return
    fail(f"{flag} {path} already exists; choose another {flag} or pass --force to replace it")


def write(pack: Any, path: Path) -> None:
    from arena.problems.pack import PackError, write_pack

    try:
        write_pack(pack, path)
    except (PackError, OSError) as exc:
        fail(f"could not write {path}: {exc}")


def new_pack(
    problems: list[Any],
    catalog_digest: str | None,
    version: str,
    ruleset: str = "shoppingbench",
    rulesets: dict[str, str] | None = None,
) -> Any:
    from arena.problems.pack import PackError, new_pack

    try:
        return new_pack(
            problems, catalog_digest=catalog_digest, generator_version=version, ruleset=ruleset, rulesets=rulesets
        )
    except PackError as exc:
        fail(str(exc))


def print_counts(problems: list[Any], title: str) -> None:
    from arena.problems.splits import split_report

    report = split_report(problems)
    tasks = [t for t in TASKS if any(row.get(t, 0) for row in report.values())]  # the task types it holds
    table = Table(title=title)
    for column in ("split", "problems", "clusters", *tasks):
        table.add_column(column, justify="left" if column == "split" else "right", min_width=len(column), no_wrap=True)
    for split, row in sorted(report.items()):
        table.add_row(split, *(str(row.get(c, 0)) for c in ("problems", "clusters", *tasks)))
    print_table(table)
