"""Qualifying rounds: races get a kind ("race" or "qualifying"), and each submission's qualification per pack.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("races") as batch_op:
        batch_op.add_column(sa.Column("kind", sa.String(length=16), nullable=False, server_default="race"))
        batch_op.create_index("ix_races_kind", ["kind"])
    op.create_table(
        "qualifications",
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("pack_id", sa.String(length=128), nullable=False),
        sa.Column("race_id", sa.String(length=64), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("leader_hotkey", sa.String(length=64), nullable=True),
        sa.Column("leader_score", sa.Float(), nullable=True),
        sa.Column("share", sa.Float(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["submission_id"], ["submissions.id"], name="fk_qualifications_submission_id_submissions"
        ),
        sa.ForeignKeyConstraint(["pack_id"], ["packs.pack_id"], name="fk_qualifications_pack_id_packs"),
        sa.ForeignKeyConstraint(["race_id"], ["races.race_id"], name="fk_qualifications_race_id_races"),
        sa.PrimaryKeyConstraint("submission_id", "pack_id", name="pk_qualifications"),
    )


def downgrade() -> None:
    op.drop_table("qualifications")
    with op.batch_alter_table("races") as batch_op:
        batch_op.drop_index("ix_races_kind")
        batch_op.drop_column("kind")
