"""scores: the ruleset (and its version) each strict verdict was made by; score_revisions: the verdicts a rescore
replaced, with their ruleset and rubric versions. A score stored before rulesets existed was made by the checks
that became ``shoppingbench`` version 0.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("scores") as batch_op:
        batch_op.add_column(sa.Column("ruleset", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("ruleset_version", sa.String(length=16), nullable=True))
    op.execute("UPDATE scores SET ruleset = 'shoppingbench', ruleset_version = '0'")
    op.create_table(
        "score_revisions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("ruleset", sa.String(length=32), nullable=True),
        sa.Column("ruleset_version", sa.String(length=16), nullable=True),
        sa.Column("rubric_version", sa.String(length=64), nullable=True),
        sa.Column("success", sa.Float(), nullable=False),
        sa.Column("final", sa.Float(), nullable=True),
        sa.Column("strict", JSON, nullable=False),
        sa.Column("judge_quality", sa.Float(), nullable=True),
        sa.Column("judge_coefficient", sa.Float(), nullable=True),
        sa.Column("scored_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("judged_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("replaced_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.run_id"], name=op.f("fk_score_revisions_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_score_revisions")),
    )
    op.create_index(op.f("ix_score_revisions_run_id"), "score_revisions", ["run_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_score_revisions_run_id"), table_name="score_revisions")
    op.drop_table("score_revisions")
    with op.batch_alter_table("scores") as batch_op:
        batch_op.drop_column("ruleset_version")
        batch_op.drop_column("ruleset")
