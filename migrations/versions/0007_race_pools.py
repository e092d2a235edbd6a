"""Race pools: a race's pooling with the other validators (this node's results bundle and its commitment, the
committed set seen by the cut-off, each validator's bundle verified, refused or not fetched, the pooled standings).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "race_pools",
        sa.Column("race_id", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("cutoff_block", sa.BigInteger(), nullable=False),
        sa.Column("due_block", sa.BigInteger(), nullable=False),
        sa.Column("bundle_sha256", sa.String(length=64), nullable=True),
        sa.Column("committed_block", sa.BigInteger(), nullable=True),
        sa.Column("state", JSON, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["race_id"], ["races.race_id"], name="fk_race_pools_race_id_races"),
        sa.PrimaryKeyConstraint("race_id", name="pk_race_pools"),
    )


def downgrade() -> None:
    op.drop_table("race_pools")
