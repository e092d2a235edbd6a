"""races: why a race was cancelled; problems: difficulty is a label (easy|medium|hard);
packs: catalog digests carry their algorithm prefix (sha256:...)

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("races") as batch_op:
        batch_op.add_column(sa.Column("reason", sa.Text(), nullable=True))
    with op.batch_alter_table("problems") as batch_op:
        batch_op.alter_column(
            "difficulty", type_=sa.String(length=16), existing_type=sa.Float(), postgresql_using="difficulty::text"
        )
    with op.batch_alter_table("packs") as batch_op:
        batch_op.alter_column("catalog_digest", type_=sa.String(length=128), existing_type=sa.String(length=64))


def downgrade() -> None:
    with op.batch_alter_table("packs") as batch_op:
        batch_op.alter_column(
            "catalog_digest",
            type_=sa.String(length=64),
            existing_type=sa.String(length=128),
            postgresql_using="left(catalog_digest, 64)",
        )
    with op.batch_alter_table("problems") as batch_op:
        batch_op.alter_column(
            "difficulty",
            type_=sa.Float(),
            existing_type=sa.String(length=16),
            postgresql_using="NULL::double precision",
        )
    with op.batch_alter_table("races") as batch_op:
        batch_op.drop_column("reason")
