"""Alembic environment: runs migrations on the connection or URL `validator.store.schema` hands it, against the
models' metadata it hands too (``config.attributes["target_metadata"]``, for autogenerate). The store depends on its
migrations, never the other way round: nothing here imports the validator."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

config = context.config
target_metadata = config.attributes.get("target_metadata")


def run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying them
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    run(connection)
else:
    url = config.get_main_option("sqlalchemy.url")
    if url is None:
        raise RuntimeError("no database to migrate: neither a connection nor sqlalchemy.url was given")
    engine = create_engine(url)
    with engine.connect() as conn:
        run(conn)
    engine.dispose()
