"""Alembic environment: runs migrations on the connection or URL `validator.store.schema` hands it."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from validator.store.models import Base

config = context.config
target_metadata = Base.metadata


def run(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(
        connection=connection, target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying them
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    run(connection)
else:
    engine = create_engine(config.get_main_option("sqlalchemy.url"))
    with engine.connect() as conn:
        run(conn)
    engine.dispose()
