"""Copies by code and behaviour: the fork rule's verdicts per race (`copy_verdicts`) and what the code-similarity
check could not read of a bundle (`submissions.code_notes`).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch_op:
        batch_op.add_column(sa.Column("code_notes", JSON, nullable=True))
    op.create_table(
        "copy_verdicts",
        sa.Column("race_id", sa.String(length=64), nullable=False),
        sa.Column("hotkey", sa.String(length=64), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=True),
        sa.Column("copy_of", sa.String(length=64), nullable=False),
        sa.Column("copy_of_submission_id", sa.Integer(), nullable=True),
        sa.Column("via", sa.String(length=64), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("similarity", sa.Float(), nullable=False),
        sa.Column("problems", JSON, nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("earlier_score", sa.Float(), nullable=False),
        sa.Column("earlier_high", sa.Float(), nullable=False),
        sa.Column("copy", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["race_id"], ["races.race_id"], name="fk_copy_verdicts_race_id_races"),
        sa.ForeignKeyConstraint(
            ["submission_id"], ["submissions.id"], name="fk_copy_verdicts_submission_id_submissions"
        ),
        sa.ForeignKeyConstraint(
            ["copy_of_submission_id"], ["submissions.id"], name="fk_copy_verdicts_copy_of_submission_id_submissions"
        ),
        sa.PrimaryKeyConstraint("race_id", "hotkey", name="pk_copy_verdicts"),
    )
    with op.batch_alter_table("copy_verdicts") as batch_op:
        batch_op.create_index("ix_copy_verdicts_submission_id", ["submission_id"])


def downgrade() -> None:
    op.drop_table("copy_verdicts")
    with op.batch_alter_table("submissions") as batch_op:
        batch_op.drop_column("code_notes")
