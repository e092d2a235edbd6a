"""`arena-validator db`: the store's schema (Alembic migrations)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from arena.clihelp import App
from arena.cliutil import fail, out
from validator.cli.flags import STORE, with_settings
from validator.settings import Settings

db_app = App(no_args_is_help=True, help="The store's schema (Alembic migrations).")


def _engine(settings: Settings, *, create: bool = True) -> Any:
    """The store's engine; `create=False` (read-only commands): a SQLite file that does not exist is one error line."""
    from validator.store.repository import StoreError, make_engine, wait_for

    try:
        engine = make_engine(settings.db_url, create=create, own_dir=settings.data_dir)
        wait_for(engine)
    except StoreError as exc:
        fail(exc.message)
    return engine


@db_app.command("upgrade")
@with_settings(fields=STORE)
def db_upgrade(settings: Settings, revision: Annotated[str, typer.Argument(help="Target revision.")] = "head") -> None:
    """Create or migrate the store's schema to `revision` (default: the code's head)."""
    from validator.store.schema import current_revision, upgrade

    engine = _engine(settings)
    before = current_revision(engine)
    try:
        upgrade(engine, revision)
    except Exception as exc:  # alembic's own errors (unknown revision...) as one line
        fail(f"cannot upgrade {engine.url.render_as_string(hide_password=True)} to {revision}: {exc}")
    after = current_revision(engine)
    out.print(f"store {engine.url.render_as_string(hide_password=True)}: {before or 'empty'} -> {after}")


@db_app.command("downgrade")
@with_settings(fields=STORE)
def db_downgrade(
    settings: Settings,
    revision: Annotated[str, typer.Argument(help="Target revision ('-1' one step, 'base' empty).")] = "-1",
) -> None:
    """Migrate the store's schema down to `revision` (default: one step)."""
    from validator.store.schema import current_revision, downgrade

    engine = _engine(settings, create=False)
    before = current_revision(engine)
    if before is None:
        fail("the store has no schema to downgrade")
    try:
        downgrade(engine, revision)
    except Exception as exc:
        fail(f"cannot downgrade {engine.url.render_as_string(hide_password=True)} to {revision}: {exc}")
    out.print(
        f"store {engine.url.render_as_string(hide_password=True)}: {before} -> {current_revision(engine) or 'empty'}"
    )


@db_app.command("current")
@with_settings(fields=STORE)
def db_current(settings: Settings) -> None:
    """Print the store's schema revision and whether it matches this code."""
    from validator.store.schema import SchemaError, check_current, current_revision, head_revision

    engine = _engine(settings, create=False)
    out.print(
        f"store {engine.url.render_as_string(hide_password=True)}: {current_revision(engine) or 'empty'} "
        f"(code: {head_revision()})"
    )
    try:
        check_current(engine)
    except SchemaError as exc:
        fail(str(exc), code=1)
