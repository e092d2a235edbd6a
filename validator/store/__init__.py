"""The node's store: SQLAlchemy models, the repository, and the schema version (Alembic)."""
