"""`arena-miner init` and `check`: start an agent from a template, and validate a bundle as a validator will."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cliutil import check_writable, err, fail, out
from miner_template.cli.app import TEMPLATES


def init_cmd(
    directory: Annotated[Path, typer.Argument(help="Folder to create the agent in.")],
    template: Annotated[
        str,
        typer.Option(
            help="offline (no LLM), llm (a tool-calling loop) or sn15 (subnet 15's "
            "one-file contract: a ReAct loop through the proxy's routes)."
        ),
    ] = "offline",
    force: Annotated[bool, typer.Option("--force", help="Write into a folder that is not empty.")] = False,
) -> None:
    """Start an agent from a template: agent.py with agent_main(problem) -> dict | None."""
    if template not in ("offline", "llm", "sn15"):
        fail(f"unknown template {template!r}; use offline, llm or sn15")
    if directory.exists() and not directory.is_dir():
        fail(f"{directory} is a file; give a folder to create the agent in")
    check_writable(directory, f"cannot create the agent in {directory}")
    if directory.exists() and any(directory.iterdir()) and not force:
        fail(f"{directory} is not empty; choose another folder or pass --force")
    from sandbox.bundle import copy_dir

    copy_dir(TEMPLATES / template, directory)
    names = sorted(
        p.name + ("/" if p.is_dir() else "")
        for p in (TEMPLATES / template).iterdir()
        if not p.name.startswith((".", "__"))
    )
    out.print(
        f"wrote {', '.join(names)} in {directory} ({template} template; start with agent.py); next: "
        f"arena-miner test {directory}",
        highlight=False,
    )


def check_cmd(directory: Annotated[Path, typer.Argument(help="The agent bundle folder.")]) -> None:
    """Validate a bundle: layout, limits, no symlinks or devices, every .py parses, agent_main's signature."""
    from sandbox.bundle import BundleError, check_dir, pack_dir

    problems = check_dir(directory)
    if not problems:
        try:
            bundle = pack_dir(directory)
        except BundleError as exc:
            problems = exc.problems
        else:
            out.print(
                f"ok: {bundle.files} files, {bundle.unpacked_bytes:,} bytes, {len(bundle.data):,} packed; "
                f"sha256 {bundle.sha256}",
                highlight=False,
            )
            _print_contract(directory)
            return
    for problem in problems:
        err.print(f"[bold red]error:[/] {problem}", highlight=False)
    raise typer.Exit(1)


def _print_contract(directory: Path) -> None:
    """Which contract the agent follows (read from its imports, no flag) and imports the sandbox lacks."""
    from sandbox.contracts import inspect_bundle

    report = inspect_bundle(directory)
    if report.contract == "sn15":
        out.print(
            f"SN15 agent (imports {', '.join(report.sn15_imports)}): agent_main returns its dialogue steps; "
            "the last recommend_product among them is handed to the gateway as your answer, and the gateway's "
            "log, not the steps, is what is scored",
            highlight=False,
        )
    for warning in report.warnings():
        err.print(f"[bold yellow]warning:[/] {warning}", highlight=False)


def pack_or_exit(directory: Path) -> Any:
    """The packed bundle of `directory`; each of its problems on one line and exit 1 when it cannot be packed."""
    from sandbox.bundle import BundleError, pack_dir

    try:
        return pack_dir(directory)
    except BundleError as exc:
        for problem in exc.problems:
            err.print(f"[bold red]error:[/] {problem}", highlight=False)
        raise typer.Exit(1) from None
