"""The node's tables (SQLAlchemy 2.0). One schema for PostgreSQL (production) and SQLite (the embedded default):
JSON columns are JSONB on Postgres, times are stored as UTC and always read back timezone-aware.

The migrations in `migrations/versions/` create exactly these tables; a test compares the two on both databases.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Constraint names fixed by convention, so migrations can refer to them on both databases.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

Json = JSON().with_variant(JSONB(), "postgresql")


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp kept in UTC; naive values are refused, values read back are always aware."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("timestamps must be timezone-aware")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    if TYPE_CHECKING:  # every model maps one table (SQLAlchemy types `__table__` as any FromClause)
        __table__: ClassVar[Table]


class Miner(Base):
    """A hotkey seen on the subnet's metagraph."""

    __tablename__ = "miners"
    hotkey: Mapped[str] = mapped_column(String(64), primary_key=True)
    uid: Mapped[int | None] = mapped_column(Integer, index=True)
    coldkey: Mapped[str] = mapped_column(String(64))
    first_seen_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    first_seen_block: Mapped[int | None] = mapped_column(BigInteger)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    registered: Mapped[bool] = mapped_column(Boolean, default=True)


class Submission(Base):
    """An agent bundle a miner committed on chain: where it came from, whether it was accepted, whose copy it is."""

    __tablename__ = "submissions"
    __table_args__ = (UniqueConstraint("hotkey", "sha256", "commitment_block", name="uq_submissions_commitment"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    hotkey: Mapped[str] = mapped_column(ForeignKey("miners.hotkey"), index=True)
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    commitment_block: Mapped[int] = mapped_column(BigInteger)
    source: Mapped[str] = mapped_column(Text, default="")  # the URL or axon it was fetched from
    status: Mapped[str] = mapped_column(String(16), default="pending")  # pending|accepted|rejected|copy
    reason: Mapped[str | None] = mapped_column(Text)
    copy_of: Mapped[int | None] = mapped_column(ForeignKey("submissions.id"))
    normalized_sha256: Mapped[str | None] = mapped_column(String(64), index=True)
    size_bytes: Mapped[int | None] = mapped_column(Integer)
    #: what the code-similarity check could not read of the bundle (binary, not UTF-8, over size), one line each
    code_notes: Mapped[list[str] | None] = mapped_column(Json)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    checked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Pack(Base):
    """A signed problem pack loaded by the node."""

    __tablename__ = "packs"
    pack_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    name: Mapped[str] = mapped_column(String(128))
    digest: Mapped[str] = mapped_column(String(64))
    signer: Mapped[str | None] = mapped_column(String(64))
    catalog_digest: Mapped[str | None] = mapped_column(String(128))
    rotation: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    active: Mapped[bool] = mapped_column(Boolean, default=False)
    loaded_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ProblemRow(Base):
    """A problem of a pack, whole (ground truth included: it never leaves the node)."""

    __tablename__ = "problems"
    problem_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    pack_id: Mapped[str] = mapped_column(ForeignKey("packs.pack_id"), index=True)
    task: Mapped[str] = mapped_column(String(16))
    split: Mapped[str] = mapped_column(String(16))
    cluster_id: Mapped[str] = mapped_column(String(128))
    difficulty: Mapped[str] = mapped_column(String(16), default="")
    data: Mapped[dict[str, Any]] = mapped_column(Json)


class Race(Base):
    """One race: its seed from the chain, the problems drawn with it, and its lifecycle."""

    __tablename__ = "races"
    race_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    pack_id: Mapped[str] = mapped_column(ForeignKey("packs.pack_id"), index=True)
    #: open|running|closed|cancelled|voided (a validator fault outlasted the race's wait: no result, no weights)
    status: Mapped[str] = mapped_column(String(16), default="open", index=True)
    #: "race": a race of the rotation (paid); "qualifying": one submission's round on problems made fresh for it,
    #: beside the leader (its id in `plan["reference"]`), deciding whether it enters the races (`validator.qualifying`)
    kind: Mapped[str] = mapped_column(String(16), default="race", server_default="race", index=True)
    seed_block: Mapped[int] = mapped_column(BigInteger)
    seed_hash: Mapped[str] = mapped_column(String(66))
    problem_ids: Mapped[list[str]] = mapped_column(Json, default=list)
    #: why it was cancelled (no eligible miner, empty pool...) or voided; while it waits for a fault, what it waits on
    reason: Mapped[str | None] = mapped_column(Text)
    #: how the race was raced (`validator.races.sampling`): samples per (miner, problem), the standings' window,
    #: sharding (r, the validators the runs were split among, this node's units, make-up units of the race before);
    #: None for a race opened before these settings (one sample, window 1, no sharding)
    plan: Mapped[dict[str, Any] | None] = mapped_column(Json)
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: since when the race waits for a validator fault to clear (a run of it past its retry budget); None: it does not
    held_since: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Run(Base):
    """One (submission, problem, sample) run of a race, moving through the status machine of `validator.store.moves`."""

    __tablename__ = "runs"
    __table_args__ = (
        UniqueConstraint(
            "race_id", "submission_id", "problem_id", "sample", name="uq_runs_race_submission_problem_sample"
        ),
        Index("ix_runs_race_status", "race_id", "status"),
    )
    run_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    race_id: Mapped[str] = mapped_column(ForeignKey("races.race_id"))
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id"), index=True)
    problem_id: Mapped[str] = mapped_column(ForeignKey("problems.problem_id"))
    hotkey: Mapped[str] = mapped_column(String(64), index=True)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    error_code: Mapped[int | None] = mapped_column(Integer)
    blame: Mapped[str | None] = mapped_column(String(16))  # agent|validator
    error: Mapped[str | None] = mapped_column(Text)
    #: the sample index 0..k-1 of this (submission, problem) in the race (the rotation's `samples`); not `attempt`,
    #: which counts the tries of one sample the validator's faults ended
    sample: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    attempt: Mapped[int] = mapped_column(Integer, default=0)
    not_before: Mapped[datetime | None] = mapped_column(UTCDateTime)  # retry backoff
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    starting_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    running_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    scoring_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    judged_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    errored_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    sandbox: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)  # exit, timing, OOM/timeout, output tails
    tool_calls: Mapped[int] = mapped_column(Integer, default=0)
    llm_calls: Mapped[int] = mapped_column(Integer, default=0)
    tokens: Mapped[int] = mapped_column(Integer, default=0)
    cost: Mapped[float] = mapped_column(Float, default=0.0)


class Event(Base):
    """One trajectory event: the gateway's record of one call, ordered by `seq` within its run."""

    __tablename__ = "trajectory_events"
    run_id: Mapped[str] = mapped_column(ForeignKey("runs.run_id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(128))
    arguments: Mapped[Any] = mapped_column(Json, nullable=True)
    result: Mapped[Any] = mapped_column(Json, nullable=True)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    duration_ms: Mapped[float] = mapped_column(Float, default=0.0)
    tokens: Mapped[dict[str, int]] = mapped_column(Json, default=dict)
    cost: Mapped[float] = mapped_column(Float, default=0.0)
    error: Mapped[str | None] = mapped_column(Text)
    status: Mapped[int] = mapped_column(Integer, default=200)


class Score(Base):
    """A run's verdicts: the strict breakdown and the judge's, with their evidence."""

    __tablename__ = "scores"
    run_id: Mapped[str] = mapped_column(ForeignKey("runs.run_id", ondelete="CASCADE"), primary_key=True)
    success: Mapped[float] = mapped_column(Float)
    final: Mapped[float | None] = mapped_column(Float)
    strict: Mapped[dict[str, Any]] = mapped_column(Json)  # RunScore, with each check's evidence
    judge_quality: Mapped[float | None] = mapped_column(Float)
    judge_coefficient: Mapped[float | None] = mapped_column(Float)
    judge: Mapped[dict[str, Any] | None] = mapped_column(Json)  # verdict, model, prompt version, raw output
    judge_evidence: Mapped[list[int] | None] = mapped_column(Json)  # cited event seqs
    scored_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    judged_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: the strict checks' ruleset and version (`arena.tasks.shopping.rulesets`); None for a score stored
    #: before rulesets
    ruleset: Mapped[str | None] = mapped_column(String(32))
    ruleset_version: Mapped[str | None] = mapped_column(String(16))


class ScoreRevision(Base):
    """A run's earlier verdicts, kept when `arena-validator rescore` replaces them (newest last)."""

    __tablename__ = "score_revisions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("runs.run_id", ondelete="CASCADE"), index=True)
    ruleset: Mapped[str | None] = mapped_column(String(32))
    ruleset_version: Mapped[str | None] = mapped_column(String(16))
    rubric_version: Mapped[str | None] = mapped_column(String(64))
    success: Mapped[float] = mapped_column(Float)
    final: Mapped[float | None] = mapped_column(Float)
    strict: Mapped[dict[str, Any]] = mapped_column(Json)
    judge_quality: Mapped[float | None] = mapped_column(Float)
    judge_coefficient: Mapped[float | None] = mapped_column(Float)
    scored_at: Mapped[datetime] = mapped_column(UTCDateTime)
    judged_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    replaced_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    reason: Mapped[str] = mapped_column(Text, default="")


class RaceResult(Base):
    """A miner's result in a closed race."""

    __tablename__ = "race_results"
    race_id: Mapped[str] = mapped_column(ForeignKey("races.race_id"), primary_key=True)
    hotkey: Mapped[str] = mapped_column(String(64), primary_key=True)
    uid: Mapped[int | None] = mapped_column(Integer)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id"))
    commitment_block: Mapped[int] = mapped_column(BigInteger)
    score: Mapped[float] = mapped_column(Float)
    success_rate: Mapped[float] = mapped_column(Float)
    runs: Mapped[int] = mapped_column(Integer)
    errored: Mapped[int] = mapped_column(Integer, default=0)
    rank: Mapped[int | None] = mapped_column(Integer)
    per_task: Mapped[dict[str, float]] = mapped_column(Json, default=dict)
    #: how sure the standing is (`validator.races.sampling`): its 95% interval, P(rank 1), the samples it rests on
    #: (over the rotation's window of races) and pass@k / pass^k per task of this race; None before these existed
    low: Mapped[float | None] = mapped_column(Float)
    high: Mapped[float | None] = mapped_column(Float)
    p_rank1: Mapped[float | None] = mapped_column(Float)
    samples: Mapped[int | None] = mapped_column(Integer)
    pass_at_k: Mapped[dict[str, float] | None] = mapped_column(Json)
    pass_hat_k: Mapped[dict[str, float] | None] = mapped_column(Json)


class WeightSet(Base):
    """A weight vector the node computed and what became of its extrinsic."""

    __tablename__ = "weight_sets"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    race_id: Mapped[str | None] = mapped_column(ForeignKey("races.race_id"), index=True)
    policy: Mapped[str] = mapped_column(String(32))
    vector: Mapped[dict[str, float]] = mapped_column(Json)  # {uid: weight}, JSON keys are strings
    block: Mapped[int | None] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), default="pending")  # pending|set|failed|rate_limited
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    outcome: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)  # the ChainOutcome or the error
    #: `--weights.shadow`: a second policy's vector for the same race, stored to compare, never sent
    shadow_policy: Mapped[str | None] = mapped_column(String(32))
    shadow_vector: Mapped[dict[str, float] | None] = mapped_column(Json)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Qualification(Base):
    """A submission's qualifying round on a pack: its score on the problems made fresh for its round against the
    leader's on the same problems."""

    __tablename__ = "qualifications"
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id"), primary_key=True)
    pack_id: Mapped[str] = mapped_column(ForeignKey("packs.pack_id"), primary_key=True)
    race_id: Mapped[str] = mapped_column(ForeignKey("races.race_id"))  # the qualifying race of its last attempt
    attempt: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[str] = mapped_column(String(16), default="running")  # running|passed|failed|void
    score: Mapped[float | None] = mapped_column(Float)
    #: the reference it was measured against: the leader (rank 1 of the newest closed race) and its score in the round
    leader_hotkey: Mapped[str | None] = mapped_column(String(64))
    leader_score: Mapped[float | None] = mapped_column(Float)
    share: Mapped[float] = mapped_column(Float)
    reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class RacePool(Base):
    """A race's pooling with the other validators (`validator.races.pooling`): this node's results bundle and its
    commitment, the committed set it saw by the cut-off, each validator's bundle verified, refused or not fetched
    (with the one line why), and the pooled standings the weights came from."""

    __tablename__ = "race_pools"
    race_id: Mapped[str] = mapped_column(ForeignKey("races.race_id"), primary_key=True)
    #: building|committing|committed|late (our bundle missed the cut-off)|pooled|alone (nobody else committed)
    status: Mapped[str] = mapped_column(String(16), default="building")
    cutoff_block: Mapped[int] = mapped_column(BigInteger)
    due_block: Mapped[int] = mapped_column(BigInteger)
    bundle_sha256: Mapped[str | None] = mapped_column(String(64))
    committed_block: Mapped[int | None] = mapped_column(BigInteger)
    #: {"commit_error", "committed": {hotkey: {sha256, block}}, "validators": {hotkey: {status, kind, reason, runs}},
    #: "standings": [...], "note"}
    state: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class CopyVerdict(Base):
    """The fork rule's verdict on a later miner similar to an earlier one in a race (`arena.copies.fork`): whom it
    is close to, by what evidence, and whether it beat the earlier one beyond noise (a copy earns nothing)."""

    __tablename__ = "copy_verdicts"
    race_id: Mapped[str] = mapped_column(ForeignKey("races.race_id"), primary_key=True)
    hotkey: Mapped[str] = mapped_column(String(64), primary_key=True)
    submission_id: Mapped[int | None] = mapped_column(ForeignKey("submissions.id"), index=True)
    copy_of: Mapped[str] = mapped_column(String(64))  # the earlier miner's hotkey
    copy_of_submission_id: Mapped[int | None] = mapped_column(ForeignKey("submissions.id"))
    via: Mapped[str | None] = mapped_column(String(64))  # the template both are close to, when that is the evidence
    kind: Mapped[str] = mapped_column(String(16))  # code|behaviour
    similarity: Mapped[float] = mapped_column(Float)
    problems: Mapped[list[str]] = mapped_column(Json, default=list)  # the matching problems (behaviour)
    score: Mapped[float] = mapped_column(Float)
    earlier_score: Mapped[float] = mapped_column(Float)
    earlier_high: Mapped[float] = mapped_column(Float)
    copy: Mapped[bool] = mapped_column(Boolean)
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
