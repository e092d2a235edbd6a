"""The store on a real PostgreSQL server and on SQLite, with the same tests: migrations, the repository, batches."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import event, inspect

from arena.trajectory import TrajectoryEvent
from tests.support.postgres import fresh_database
from validator.chain.port import Neuron
from validator.store.models import Base
from validator.store.repository import EVENT_BATCH, Store, StoreError, make_engine
from validator.store.schema import SchemaError, check_current, current_revision, downgrade, head_revision, upgrade

TABLES = {
    "miners",
    "submissions",
    "packs",
    "problems",
    "races",
    "runs",
    "trajectory_events",
    "scores",
    "race_results",
    "weight_sets",
}


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.sqlite'}"
    else:
        with fresh_database() as url:
            yield url


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    engine = make_engine(db_url)
    upgrade(engine)
    engine.dispose()
    s = Store.open(db_url)
    yield s
    s.close()


def events_for(run_id: str, n: int, start: int = 0) -> list[TrajectoryEvent]:
    t0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    out = []
    for i in range(start, start + n):
        kind = "llm_call" if i % 3 == 0 else "tool_call"
        out.append(
            TrajectoryEvent(
                run_id=run_id,
                seq=i,
                kind=kind,
                name="chat" if kind == "llm_call" else "find_product",
                arguments={"q": f"lampe de bureau №{i}", "page": 1, "nested": {"price": "100-200", "ok": True}},
                result={"items": [{"product_id": f"P{i}", "price": 12.5}], "note": None} if i % 2 else "plain text ✓",
                started_at=t0 + timedelta(milliseconds=i),
                duration_ms=1.5 * i,
                tokens={"prompt": i, "completion": 2 * i} if kind == "llm_call" else {},
                cost=0.001 * i,
                error="unknown product id" if i == 4 else None,
                status=200,
            )
        )
    return out


def setup_race(store: Store, *, miners: int = 2, problems: int = 3) -> tuple[str, list[int]]:
    store.upsert_miners([Neuron(uid=i, hotkey=f"hk{i}", coldkey=f"ck{i}") for i in range(miners)], block=10)
    subs = [
        store.add_submission(hotkey=f"hk{i}", sha256=f"{i:064x}", commitment_block=100 + i)[0] for i in range(miners)
    ]
    for sub in subs:
        store.set_submission(sub.id, status="accepted")
    store.add_pack(
        pack_id="pk1",
        name="demo",
        digest="d" * 64,
        problems=[
            {"problem_id": f"p{j}", "task": "product", "split": "race", "cluster_id": f"c{j}", "query": f"q{j}"}
            for j in range(problems)
        ],
    )
    store.create_race(
        race_id="r1",
        pack_id="pk1",
        seed_block=200,
        seed_hash="0x" + "ab" * 32,
        problem_ids=[f"p{j}" for j in range(problems)],
    )
    made = store.create_runs("r1", [(sub, f"p{j}") for sub in subs for j in range(problems)])
    assert made == miners * problems
    return "r1", [sub.id for sub in subs]


# --- migrations ---------------------------------------------------------------------------------------------------


def test_migrations_up_from_empty_match_models_and_go_down_again(db_url: str) -> None:
    engine = make_engine(db_url)
    with pytest.raises(SchemaError, match="db upgrade"):
        check_current(engine)
    upgrade(engine)
    assert current_revision(engine) == head_revision()
    assert TABLES <= set(inspect(engine).get_table_names())
    with engine.connect() as conn:  # the migrations create exactly the models' schema
        diffs = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
    assert diffs == []
    check_current(engine)
    downgrade(engine, "base")
    assert current_revision(engine) is None
    assert not TABLES & set(inspect(engine).get_table_names())
    with pytest.raises(SchemaError, match="no schema yet"):
        check_current(engine)
    upgrade(engine)  # and up again on the same database
    assert TABLES <= set(inspect(engine).get_table_names())
    engine.dispose()


def test_store_refuses_a_schema_that_is_behind(db_url: str) -> None:
    with make_engine(db_url).connect():  # the database exists (an empty SQLite file is made), its schema does not
        pass
    with pytest.raises(SchemaError, match="arena-validator db upgrade"):
        Store.open(db_url)


def test_a_store_that_is_not_there_is_not_made_by_opening_it(tmp_path: Path) -> None:
    typo = tmp_path / "vaildator" / "validator.sqlite"
    with pytest.raises(StoreError, match="does not exist") as caught:
        Store.open(f"sqlite:///{typo}")
    assert caught.value.code == "no_store" and not typo.parent.exists()


def test_unreachable_database_is_one_clear_error() -> None:
    with pytest.raises(StoreError) as caught:
        Store.open("postgresql+psycopg://arena:secret@127.0.0.1:1/nowhere")
    assert caught.value.code == "unreachable"
    message = str(caught.value)
    assert "127.0.0.1:1" in message and "--database-url" in message and "secret" not in message
    with pytest.raises(StoreError, match="not a database URL"):
        make_engine("not a url")


# --- repository ---------------------------------------------------------------------------------------------------


def test_miners_are_upserted_and_deregistered(store: Store) -> None:
    assert (
        store.upsert_miners([Neuron(uid=0, hotkey="a", coldkey="ca"), Neuron(uid=1, hotkey="b", coldkey="cb")], block=5)
        == 2
    )
    first_seen = {m.hotkey: m.first_seen_at for m in store.miners()}
    assert (
        store.upsert_miners([Neuron(uid=0, hotkey="a", coldkey="ca"), Neuron(uid=1, hotkey="c", coldkey="cc")], block=6)
        == 1
    )
    miners = {m.hotkey: m for m in store.miners(registered_only=False)}
    assert miners["a"].first_seen_at == first_seen["a"] and miners["a"].first_seen_at.tzinfo is not None
    assert miners["b"].registered is False and miners["b"].uid is None
    assert miners["c"].uid == 1 and miners["c"].first_seen_block == 6
    assert [m.hotkey for m in store.miners()] == ["a", "c"]


def test_submissions_are_idempotent_and_the_earliest_hash_wins(store: Store) -> None:
    first, created = store.add_submission(hotkey="a", sha256="f" * 64, commitment_block=10, source="http://x/a")
    again, created_again = store.add_submission(hotkey="a", sha256="f" * 64, commitment_block=10)
    assert created and not created_again and again.id == first.id
    later, _ = store.add_submission(hotkey="b", sha256="f" * 64, commitment_block=12)
    store.set_submission(first.id, status="accepted", normalized_sha256="n" * 64, size_bytes=1234)
    original = store.earliest_with(sha256="f" * 64, exclude_id=later.id)
    assert original is not None and original.hotkey == "a"
    store.set_submission(later.id, status="copy", reason=f"copy of submission {first.id}", copy_of=first.id)
    assert store.submission(later.id).copy_of == first.id  # type: ignore[union-attr]
    assert store.earliest_with(normalized_sha256="n" * 64).id == first.id  # type: ignore[union-attr]
    newer, _ = store.add_submission(hotkey="a", sha256="e" * 64, commitment_block=20)
    store.set_submission(newer.id, status="accepted")
    assert [(s.hotkey, s.sha256[0]) for s in store.latest_submissions()] == [("a", "e")]
    with pytest.raises(StoreError, match="unknown submission status"):
        store.set_submission(newer.id, status="great")


def test_packs_are_stored_once_and_a_changed_digest_is_refused(store: Store) -> None:
    problems = [
        {
            "problem_id": f"p{i}",
            "task": "shop",
            "split": "race" if i % 3 else "held_out",
            "cluster_id": f"c{i // 2}",
            "difficulty": "easy",
            "query": "q",
        }
        for i in range(2500)
    ]
    assert store.add_pack(pack_id="pk", name="n", digest="a" * 64, problems=problems)
    assert not store.add_pack(pack_id="pk", name="n", digest="a" * 64, problems=problems)
    assert len(store.problems("pk")) == 2500
    assert len(store.problems("pk", split="held_out")) == 834
    assert store.active_pack().pack_id == "pk"  # type: ignore[union-attr]
    with pytest.raises(StoreError, match="already stored with digest"):
        store.add_pack(pack_id="pk", name="n", digest="b" * 64, problems=problems)
    store.add_pack(pack_id="pk2", name="n2", digest="c" * 64, problems=[])
    assert store.active_pack().pack_id == "pk2"  # type: ignore[union-attr]


def test_runs_follow_the_status_machine(store: Store) -> None:
    race_id, subs = setup_race(store)
    assert store.create_runs(race_id, []) == 0
    sub = store.submission(subs[0])
    assert store.create_runs(race_id, [(sub, "p0"), (sub, "p1")]) == 0  # already there: never run twice
    run_id = store.runs(race_id=race_id, hotkey="hk0")[0].run_id
    with pytest.raises(StoreError, match="cannot move from pending to scoring"):
        store.transition(run_id, "scoring")
    store.transition(run_id, "starting")
    run = store.transition(run_id, "running", sandbox={"backend": "process"})
    assert run.attempt == 1 and run.starting_at is not None and run.running_at >= run.starting_at
    run = store.transition(run_id, "errored", error_code=2001, error="sandbox failed to start")
    assert (run.blame, run.error_code) == ("validator", 2001)
    run = store.retry_later(run_id, delay=timedelta(minutes=5))
    assert run.status == "pending" and run.not_before > datetime.now(UTC)
    assert run_id not in {r.run_id for r in store.runs(race_id=race_id, status="pending", ready_at=datetime.now(UTC))}
    assert run_id in {
        r.run_id
        for r in store.runs(race_id=race_id, status="pending", ready_at=datetime.now(UTC) + timedelta(minutes=6))
    }
    store.transition(run_id, "starting")
    run = store.transition(run_id, "errored", error_code=1003, error="timed out")
    assert (run.blame, run.attempt) == ("agent", 2)
    with pytest.raises(StoreError, match="it is final"):
        store.transition(run_id, "pending")
    with pytest.raises(StoreError, match="needs an error_code"):
        store.transition(store.runs(race_id=race_id, status="pending")[0].run_id, "errored")
    assert store.count_runs(race_id) == {"pending": 5, "errored": 1}


def test_a_run_released_before_its_sandbox_started_gets_its_attempt_back(store: Store) -> None:
    """`release`: a claimed run whose sandbox never started (the node stopped first) is pending again, ready now, with
    the attempt `claim` counted given back; from `running` as from `starting`."""
    race_id, _ = setup_race(store)
    first, second = (r.run_id for r in store.runs(race_id=race_id, hotkey="hk0")[:2])
    assert store.claim(first).attempt == 1
    run = store.release(first)
    assert (run.status, run.attempt) == ("pending", 0)
    assert first in {r.run_id for r in store.runs(race_id=race_id, status="pending", ready_at=datetime.now(UTC))}
    store.claim(second, running=True)
    store.release(second)
    assert store.claim(second).attempt == 1


def test_a_runs_events_and_status_commit_together(store: Store) -> None:
    race_id, _ = setup_race(store)
    run_id = store.runs(race_id=race_id)[0].run_id
    store.transition(run_id, "starting")
    store.transition(run_id, "running")
    events = events_for(run_id, 25)
    with pytest.raises(StoreError, match="cannot move from running to finished"):
        store.record_run(run_id, "finished", events)  # illegal move: neither the events nor the status land
    assert store.events(run_id) == [] and store.run(run_id).status == "running"  # type: ignore[union-attr]
    store.record_run(run_id, "scoring", events, tool_calls=16, llm_calls=9, tokens=300, cost=0.3)
    assert store.events(run_id) == events  # exact round trip: unicode, nesting, None, aware timestamps
    assert store.events(run_id)[0].started_at.tzinfo is not None
    run = store.run(run_id)
    assert (run.status, run.tool_calls, run.tokens) == ("scoring", 16, 300)  # type: ignore[union-attr]
    score = store.save_score(
        run_id,
        success=1.0,
        final=0.9,
        strict={"gt": 1.0, "checks": [{"name": "price"}]},
        judge_quality=0.9,
        judge_coefficient=1.0,
        judge={"gate": 0.9, "raw": "{}"},
        judge_evidence=[1, 4],
        status="judged",
    )
    assert score.judged_at is not None and store.run(run_id).status == "judged"  # type: ignore[union-attr]
    assert store.score(run_id).judge_evidence == [1, 4]  # type: ignore[union-attr]


def test_events_are_written_in_batches(store: Store) -> None:
    race_id, _ = setup_race(store)
    run_id = store.runs(race_id=race_id)[0].run_id
    statements: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if statement.lstrip().upper().startswith("INSERT INTO TRAJECTORY_EVENTS"):
            statements.append(statement)

    n = 2 * EVENT_BATCH + 17
    event.listen(store.engine, "before_cursor_execute", count)
    try:
        assert store.add_events(events_for(run_id, n)) == n
    finally:
        event.remove(store.engine, "before_cursor_execute", count)
    assert len(store.events(run_id)) == n
    if store.dialect == "postgresql":
        assert statements == []  # streamed with COPY, never one INSERT per event
    else:  # multi-row INSERTs; SQLite caps bound parameters per statement, so SQLAlchemy pages them more finely
        assert 3 <= len(statements) <= 12
    with pytest.raises(Exception):  # noqa: B017 - a duplicate (run, seq) is refused by the database
        store.add_events(events_for(run_id, 1))


def test_race_results_and_weight_sets(store: Store) -> None:
    race_id, subs = setup_race(store)
    rows = [
        {
            "hotkey": f"hk{i}",
            "uid": i,
            "submission_id": subs[i],
            "commitment_block": 100 + i,
            "score": 0.5 - 0.1 * i,
            "success_rate": 0.5,
            "runs": 3,
            "errored": 0,
            "rank": i + 1,
            "per_task": {"product": 0.5},
        }
        for i in range(2)
    ]
    store.save_race_results(race_id, rows)
    store.save_race_results(race_id, rows)  # a resumed close replaces, never duplicates
    assert [r.hotkey for r in store.race_results(race_id)] == ["hk0", "hk1"]
    assert store.race(race_id).status == "closed" and store.race(race_id).closed_at is not None  # type: ignore
    ws = store.add_weight_set(policy="top_heavy", vector={3: 0.2, 0: 0.8}, race_id=race_id)
    assert list(ws.vector) == ["0", "3"]
    ws = store.update_weight_set(ws.id, status="rate_limited", outcome={"retry_in_blocks": 12})
    ws = store.update_weight_set(ws.id, status="set", outcome={"success": True}, block=321)
    assert (ws.status, ws.attempts, ws.block) == ("set", 2, 321)
    assert [w.id for w in store.weight_sets(status="set")] == [ws.id]


# --- the CLI ------------------------------------------------------------------------------------------------------


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "arena-validator"
    return subprocess.run([str(exe), *args], capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.mark.slow  # runs arena-validator as a subprocess
def test_db_upgrade_and_downgrade_commands(db_url: str, tmp_path: Path) -> None:
    up = cli("db", "upgrade", "--database-url", db_url, cwd=tmp_path)
    assert up.returncode == 0, up.stderr
    assert f"empty -> {head_revision()}" in up.stdout
    current = cli("db", "current", "--database-url", db_url, cwd=tmp_path)
    assert current.returncode == 0 and head_revision() in current.stdout
    down = cli("db", "downgrade", "base", "--database-url", db_url, cwd=tmp_path)
    assert down.returncode == 0, down.stderr
    assert "-> empty" in down.stdout
    behind = cli("db", "current", "--database-url", db_url, cwd=tmp_path)
    assert behind.returncode == 1 and "arena-validator db upgrade" in behind.stderr


@pytest.mark.slow  # runs arena-validator as a subprocess
def test_db_commands_name_an_unreachable_server(tmp_path: Path) -> None:
    done = cli("db", "upgrade", "--database-url", "postgresql://arena:hunter2@127.0.0.1:1/x", cwd=tmp_path)
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "cannot reach the database at" in lines[0] and "hunter2" not in done.stderr
    assert "Traceback" not in done.stderr
