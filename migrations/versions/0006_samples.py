"""Samples, windows and sharding: a run's sample index (k runs per (submission, problem) in a race, its own column
beside the retry count `attempt`), a race's plan, and each race result's interval, P(rank 1), samples and
pass@k / pass^k.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
OLD_KEY = ("race_id", "submission_id", "problem_id")


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch_op:
        batch_op.add_column(sa.Column("sample", sa.Integer(), nullable=False, server_default="0"))
        batch_op.drop_constraint("uq_runs_race_submission_problem", type_="unique")
        batch_op.create_unique_constraint("uq_runs_race_submission_problem_sample", [*OLD_KEY, "sample"])
    with op.batch_alter_table("races") as batch_op:
        batch_op.add_column(sa.Column("plan", JSON, nullable=True))
    with op.batch_alter_table("race_results") as batch_op:
        batch_op.add_column(sa.Column("low", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("high", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("p_rank1", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("samples", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("pass_at_k", JSON, nullable=True))
        batch_op.add_column(sa.Column("pass_hat_k", JSON, nullable=True))


def downgrade() -> None:
    """Back to one run per (race, submission, problem): the extra samples (sample > 0) are deleted with their
    events and scores, as the older schema cannot hold them."""
    runs = sa.table("runs", sa.column("run_id", sa.String), sa.column("sample", sa.Integer))
    extra = sa.select(runs.c.run_id).where(runs.c.sample > 0)
    for child in ("trajectory_events", "scores", "score_revisions"):
        table = sa.table(child, sa.column("run_id", sa.String))
        op.execute(table.delete().where(table.c.run_id.in_(extra)))
    op.execute(runs.delete().where(runs.c.sample > 0))
    with op.batch_alter_table("race_results") as batch_op:
        for column in ("pass_hat_k", "pass_at_k", "samples", "p_rank1", "high", "low"):
            batch_op.drop_column(column)
    with op.batch_alter_table("races") as batch_op:
        batch_op.drop_column("plan")
    with op.batch_alter_table("runs") as batch_op:
        batch_op.drop_constraint("uq_runs_race_submission_problem_sample", type_="unique")
        batch_op.create_unique_constraint("uq_runs_race_submission_problem", list(OLD_KEY))
        batch_op.drop_column("sample")
