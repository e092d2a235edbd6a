"""weight_sets: a shadow policy's vector stored beside the live one (`--weights.shadow`), never sent.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("weight_sets") as batch_op:
        batch_op.add_column(sa.Column("shadow_policy", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("shadow_vector", JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("weight_sets") as batch_op:
        batch_op.drop_column("shadow_vector")
        batch_op.drop_column("shadow_policy")
