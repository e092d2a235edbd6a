"""The store's schema version: Alembic upgrade/downgrade, and the check the node makes before it starts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

import migrations
from validator.store.models import Base

MIGRATIONS_DIR = Path(migrations.__file__).resolve().parent


class SchemaError(Exception):
    """The database's schema is not the one this code expects."""


def alembic_config(engine: Engine) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False).replace("%", "%%"))
    config.attributes["target_metadata"] = Base.metadata  # migrations/env.py reads the models' metadata from here
    return config


def head_revision() -> str:
    script = ScriptDirectory(str(MIGRATIONS_DIR))
    head = script.get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    _migrate(engine, command.upgrade, revision)


def downgrade(engine: Engine, revision: str = "-1") -> None:
    _migrate(engine, command.downgrade, revision)


def _migrate(engine: Engine, step: Callable[[Config, str], None], revision: str) -> None:
    """One migration step in one transaction. On SQLite, a migration that changes a table's constraints copies the
    table into a new one and drops the old: foreign keys are off meanwhile (an ON DELETE CASCADE would otherwise
    empty the tables that refer to it, the runs' events and scores), and checked once it is done."""
    config = alembic_config(engine)
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as conn:
        if sqlite:
            conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
            conn.commit()
        try:
            with conn.begin():
                config.attributes["connection"] = conn
                step(config, revision)
                if sqlite:
                    broken = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if broken:
                        raise SchemaError(f"the migration would leave {len(broken)} row(s) without their parent")
        finally:
            if sqlite:
                conn.exec_driver_sql("PRAGMA foreign_keys=ON")
                conn.commit()


def history() -> list[tuple[str, str]]:
    """(revision, message) from the first migration to the head."""
    script = ScriptDirectory(str(MIGRATIONS_DIR))
    return [(rev.revision, rev.doc or "") for rev in reversed(list(script.walk_revisions()))]


def check_current(engine: Engine) -> None:
    """Refuse a schema that is behind (or ahead of) this code, naming the fix."""
    current, head = current_revision(engine), head_revision()
    if current == head:
        return
    known = {rev for rev, _ in history()}
    if current is None:
        raise SchemaError("the store has no schema yet; run `arena-validator db upgrade` first")
    if current not in known:
        raise SchemaError(f"the store's schema {current} is newer than this code ({head}); upgrade shoparena")
    raise SchemaError(f"the store's schema {current} is behind this code ({head}); run `arena-validator db upgrade`")
