"""`arena-validator janitor`: one janitor pass now, beside a running node or not (`validator.upkeep`)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cliutil import fail, out
from validator.cli.flags import STORE, with_settings
from validator.settings import Settings

FIELDS = (
    *STORE,
    "sandbox_backend",
    "sandbox_image",
    "retention_bundle_days",
    "retention_results_days",
    "retention_images_keep",
    "retention_corpus_days",
    "log_file",
    "retention_log_mb",
    "retention_log_keep",
    "retention_trajectory_days",
    "retention_archive",
)


@with_settings(fields=FIELDS)
def janitor_cmd(
    settings: Settings,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what a pass would free; remove nothing.")] = False,
) -> None:
    """One janitor pass now: superseded agent bundles, old races' pooled results bundles, sandbox leftovers of
    finished runs (containers, cgroups and their processes), dead nodes' work folders, older sandbox images,
    abandoned corpus workspaces, the node's log rotation and, with --retention.trajectory_days, old races'
    trajectories (archived first). Never what a running race, a pending weight, the pooling window, an unpublished
    release or a miner's latest submission needs; safe beside a running node (docs/validator.md)."""
    from arena.log import get_logger
    from validator.node import NodeError, janitor_for, open_sandbox, open_store
    from validator.upkeep import Freed

    try:
        store = open_store(settings)
    except NodeError as exc:
        fail(str(exc))
    try:
        sandbox = open_sandbox(settings)
    except NodeError as exc:
        out.print(f"sandbox sweeps skipped: {exc}", highlight=False)
        sandbox = None
    janitor = janitor_for(settings, store, sandbox, log=get_logger("validator"))
    verb = "would free" if dry_run else "freed"

    def said(freed: Freed) -> None:
        out.print(f"{freed.what}: {verb} {len(freed.items)} ({freed.bytes / 1e6:.1f} MB)", highlight=False)

    done = janitor.run(dry_run=dry_run, progress=said)
    out.print(done.summary(), highlight=False)
    store.close()
    if done.errors:
        raise typer.Exit(1)
