"""`arena-validator upgrade-check`: the installed release against the pinned release channel; the upgrade between
races only (`validator.upgrade`)."""

from __future__ import annotations

import shlex
from typing import Annotated

import typer

from arena.cliutil import fail, out
from validator.cli.flags import STORE, with_settings
from validator.settings import Settings
from validator.upgrade import START, STOP

#: exit code when an upgrade is due but a race is running (a systemd timer simply tries again later)
WAITING = 3


@with_settings(fields=(*STORE, "upgrade_channel"))
def upgrade_check_cmd(
    settings: Settings,
    apply: Annotated[
        bool, typer.Option("--apply", help="Do the upgrade when one is due and no race runs (default: print it).")
    ] = False,
    install: Annotated[
        str | None,
        typer.Option(
            help="Command that installs the release ({version}, {python}); the channel's own wins. Default: "
            "{python} -m pip install --upgrade shoparena=={version}"
        ),
    ] = None,
    stop: Annotated[str, typer.Option(help="Command that stops the node (it drains).")] = STOP,
    start: Annotated[str, typer.Option(help="Command that starts the node.")] = START,
) -> None:
    """Compare the installed release with --upgrade.channel; when the channel pins another one and no race is
    running: install it, stop the node, migrate the store, start the node (with --apply; else print the steps).
    Exits 0 when up to date or done, 3 when an upgrade waits for the race to end, 1 when a step failed."""
    from validator.store.repository import Store, StoreError, make_engine, wait_for
    from validator.upgrade import ChannelError, busy, installed_version, plan, read_channel
    from validator.upgrade import apply as run_steps

    if not settings.upgrade_channel:
        fail("--upgrade.channel is not set: a file or an http(s) URL naming the release this node should run")
    try:
        release = read_channel(settings.upgrade_channel)
    except ChannelError as exc:
        fail(str(exc))
    have = installed_version()
    if release.version == have:
        out.print(f"up to date: installed {have}, channel {release.version}", highlight=False)
        return
    try:  # any schema: this release's code may be behind or ahead of it (the upgrade migrates it)
        store = Store(settings.db_url, engine=make_engine(settings.db_url, create=False))
        wait_for(store.engine)
    except StoreError as exc:
        fail(exc.message)
    try:
        why = busy(store)
    finally:
        store.close()
    move = "upgrade" if release.version > have else "downgrade"
    if why is not None:
        out.print(f"{move} {have} -> {release.version} waits: {why} (restarts happen between races only)")
        raise typer.Exit(WAITING)
    steps = plan(release, install=install, stop=stop, start=start)
    if not apply:
        out.print(f"{move} {have} -> {release.version} is due and no race is running; --apply would run:")
        for step in steps:
            out.print(f"  {shlex.join(step)}", highlight=False)
        return
    env = {"ARENA_DATABASE_URL": settings.db_url, "ARENA_DATA_DIR": str(settings.data_dir)}
    code = run_steps(steps, lambda line: out.print(line, highlight=False), env)
    if code:
        raise typer.Exit(1)
    out.print(f"{move}d {have} -> {release.version}: store migrated before the node started", highlight=False)
