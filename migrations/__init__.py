"""Alembic migrations of the validator store (`arena-validator db upgrade|downgrade`)."""
