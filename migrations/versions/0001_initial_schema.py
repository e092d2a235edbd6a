"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# JSONB on PostgreSQL, JSON elsewhere (as in validator/store/models.py); kept here so this file never changes.
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "miners",
        sa.Column("hotkey", sa.String(length=64), nullable=False),
        sa.Column("uid", sa.Integer(), nullable=True),
        sa.Column("coldkey", sa.String(length=64), nullable=False),
        sa.Column("first_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("first_seen_block", sa.BigInteger(), nullable=True),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("registered", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("hotkey", name=op.f("pk_miners")),
    )
    with op.batch_alter_table("miners", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_miners_uid"), ["uid"], unique=False)

    op.create_table(
        "packs",
        sa.Column("pack_id", sa.String(length=128), nullable=False),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("signer", sa.String(length=64), nullable=True),
        sa.Column("catalog_digest", sa.String(length=64), nullable=True),
        sa.Column("rotation", JSON, nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("loaded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("pack_id", name=op.f("pk_packs")),
    )
    op.create_table(
        "problems",
        sa.Column("problem_id", sa.String(length=128), nullable=False),
        sa.Column("pack_id", sa.String(length=128), nullable=False),
        sa.Column("task", sa.String(length=16), nullable=False),
        sa.Column("split", sa.String(length=16), nullable=False),
        sa.Column("cluster_id", sa.String(length=128), nullable=False),
        sa.Column("difficulty", sa.Float(), nullable=False),
        sa.Column("data", JSON, nullable=False),
        sa.ForeignKeyConstraint(["pack_id"], ["packs.pack_id"], name=op.f("fk_problems_pack_id_packs")),
        sa.PrimaryKeyConstraint("problem_id", name=op.f("pk_problems")),
    )
    with op.batch_alter_table("problems", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_problems_pack_id"), ["pack_id"], unique=False)

    op.create_table(
        "races",
        sa.Column("race_id", sa.String(length=64), nullable=False),
        sa.Column("pack_id", sa.String(length=128), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("seed_block", sa.BigInteger(), nullable=False),
        sa.Column("seed_hash", sa.String(length=66), nullable=False),
        sa.Column("problem_ids", JSON, nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["pack_id"], ["packs.pack_id"], name=op.f("fk_races_pack_id_packs")),
        sa.PrimaryKeyConstraint("race_id", name=op.f("pk_races")),
    )
    with op.batch_alter_table("races", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_races_pack_id"), ["pack_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_races_status"), ["status"], unique=False)

    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("hotkey", sa.String(length=64), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("commitment_block", sa.BigInteger(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("copy_of", sa.Integer(), nullable=True),
        sa.Column("normalized_sha256", sa.String(length=64), nullable=True),
        sa.Column("size_bytes", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["copy_of"], ["submissions.id"], name=op.f("fk_submissions_copy_of_submissions")),
        sa.ForeignKeyConstraint(["hotkey"], ["miners.hotkey"], name=op.f("fk_submissions_hotkey_miners")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_submissions")),
        sa.UniqueConstraint("hotkey", "sha256", "commitment_block", name="uq_submissions_commitment"),
    )
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_submissions_hotkey"), ["hotkey"], unique=False)
        batch_op.create_index(batch_op.f("ix_submissions_normalized_sha256"), ["normalized_sha256"], unique=False)
        batch_op.create_index(batch_op.f("ix_submissions_sha256"), ["sha256"], unique=False)

    op.create_table(
        "race_results",
        sa.Column("race_id", sa.String(length=64), nullable=False),
        sa.Column("hotkey", sa.String(length=64), nullable=False),
        sa.Column("uid", sa.Integer(), nullable=True),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("commitment_block", sa.BigInteger(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("success_rate", sa.Float(), nullable=False),
        sa.Column("runs", sa.Integer(), nullable=False),
        sa.Column("errored", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.Column("per_task", JSON, nullable=False),
        sa.ForeignKeyConstraint(["race_id"], ["races.race_id"], name=op.f("fk_race_results_race_id_races")),
        sa.ForeignKeyConstraint(
            ["submission_id"], ["submissions.id"], name=op.f("fk_race_results_submission_id_submissions")
        ),
        sa.PrimaryKeyConstraint("race_id", "hotkey", name=op.f("pk_race_results")),
    )
    op.create_table(
        "runs",
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("race_id", sa.String(length=64), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("problem_id", sa.String(length=128), nullable=False),
        sa.Column("hotkey", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("error_code", sa.Integer(), nullable=True),
        sa.Column("blame", sa.String(length=16), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("not_before", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("starting_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("running_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("scoring_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("judged_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("errored_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sandbox", JSON, nullable=False),
        sa.Column("tool_calls", sa.Integer(), nullable=False),
        sa.Column("llm_calls", sa.Integer(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("cost", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["problem_id"], ["problems.problem_id"], name=op.f("fk_runs_problem_id_problems")),
        sa.ForeignKeyConstraint(["race_id"], ["races.race_id"], name=op.f("fk_runs_race_id_races")),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"], name=op.f("fk_runs_submission_id_submissions")),
        sa.PrimaryKeyConstraint("run_id", name=op.f("pk_runs")),
        sa.UniqueConstraint("race_id", "submission_id", "problem_id", name="uq_runs_race_submission_problem"),
    )
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_runs_hotkey"), ["hotkey"], unique=False)
        batch_op.create_index("ix_runs_race_status", ["race_id", "status"], unique=False)
        batch_op.create_index(batch_op.f("ix_runs_submission_id"), ["submission_id"], unique=False)

    op.create_table(
        "weight_sets",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("race_id", sa.String(length=64), nullable=True),
        sa.Column("policy", sa.String(length=32), nullable=False),
        sa.Column("vector", JSON, nullable=False),
        sa.Column("block", sa.BigInteger(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("outcome", JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["race_id"], ["races.race_id"], name=op.f("fk_weight_sets_race_id_races")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_weight_sets")),
    )
    with op.batch_alter_table("weight_sets", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_weight_sets_race_id"), ["race_id"], unique=False)

    op.create_table(
        "scores",
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("success", sa.Float(), nullable=False),
        sa.Column("final", sa.Float(), nullable=True),
        sa.Column("strict", JSON, nullable=False),
        sa.Column("judge_quality", sa.Float(), nullable=True),
        sa.Column("judge_coefficient", sa.Float(), nullable=True),
        sa.Column("judge", JSON, nullable=True),
        sa.Column("judge_evidence", JSON, nullable=True),
        sa.Column("scored_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("judged_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["run_id"], ["runs.run_id"], name=op.f("fk_scores_run_id_runs"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("run_id", name=op.f("pk_scores")),
    )
    op.create_table(
        "trajectory_events",
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("arguments", JSON, nullable=True),
        sa.Column("result", JSON, nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("tokens", JSON, nullable=False),
        sa.Column("cost", sa.Float(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.run_id"], name=op.f("fk_trajectory_events_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("run_id", "seq", name=op.f("pk_trajectory_events")),
    )


def downgrade() -> None:
    op.drop_table("trajectory_events")
    op.drop_table("scores")
    with op.batch_alter_table("weight_sets", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_weight_sets_race_id"))

    op.drop_table("weight_sets")
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_runs_submission_id"))
        batch_op.drop_index("ix_runs_race_status")
        batch_op.drop_index(batch_op.f("ix_runs_hotkey"))

    op.drop_table("runs")
    op.drop_table("race_results")
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_submissions_sha256"))
        batch_op.drop_index(batch_op.f("ix_submissions_normalized_sha256"))
        batch_op.drop_index(batch_op.f("ix_submissions_hotkey"))

    op.drop_table("submissions")
    with op.batch_alter_table("races", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_races_status"))
        batch_op.drop_index(batch_op.f("ix_races_pack_id"))

    op.drop_table("races")
    with op.batch_alter_table("problems", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_problems_pack_id"))

    op.drop_table("problems")
    op.drop_table("packs")
    with op.batch_alter_table("miners", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_miners_uid"))

    op.drop_table("miners")
