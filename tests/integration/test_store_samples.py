"""The samples migration (0006) on a real PostgreSQL server and on SQLite: a store written before it keeps its runs
(each becomes sample 0) and its results; after it a (race, submission, problem) holds k samples, each one run; going
back down keeps sample 0 of every run and says nothing is left that the older schema cannot hold."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from tests.support.postgres import fresh_database
from validator.store.repository import Store, make_engine
from validator.store.schema import downgrade, upgrade

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC).replace(tzinfo=None)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.sqlite'}"
    else:
        with fresh_database() as url:
            yield url


def _old_store(url: str) -> None:
    """A store at 0005 (before samples) with one race of one run, scored, and its result."""
    engine = make_engine(url)
    upgrade(engine, "0005")
    rows = [
        "INSERT INTO miners (hotkey, coldkey, first_seen_at, last_seen_at, registered) "
        "VALUES ('hk', 'ck', :now, :now, true)",
        "INSERT INTO submissions (id, hotkey, sha256, commitment_block, source, status, created_at) "
        "VALUES (1, 'hk', 'aa', 5, '', 'accepted', :now)",
        "INSERT INTO packs (pack_id, name, digest, rotation, active, loaded_at) "
        "VALUES ('pk', 'pk', 'd', '{}', true, :now)",
        "INSERT INTO problems (problem_id, pack_id, task, split, cluster_id, difficulty, data) "
        "VALUES ('p1', 'pk', 'product', 'race', 'c', '', '{}')",
        "INSERT INTO races (race_id, pack_id, status, kind, seed_block, seed_hash, problem_ids, opened_at) "
        "VALUES ('r1', 'pk', 'closed', 'race', 0, '0x00', '[\"p1\"]', :now)",
        "INSERT INTO runs (run_id, race_id, submission_id, problem_id, hotkey, status, attempt, created_at, sandbox, "
        "tool_calls, llm_calls, tokens, cost) VALUES ('run1', 'r1', 1, 'p1', 'hk', 'finished', 1, :now, '{}', 0, 0, "
        "0, 0)",
        "INSERT INTO scores (run_id, success, final, strict, scored_at) VALUES ('run1', 1, 1, '{}', :now)",
        "INSERT INTO race_results (race_id, hotkey, submission_id, commitment_block, score, success_rate, runs, "
        "errored, rank, per_task) VALUES ('r1', 'hk', 1, 5, 1.0, 1.0, 1, 0, 1, '{}')",
    ]
    with engine.begin() as conn:
        for sql in rows:
            conn.execute(text(sql), {"now": NOW})
    engine.dispose()


def test_a_store_from_before_samples_keeps_its_runs_as_sample_0_and_takes_k_samples(db_url: str) -> None:
    _old_store(db_url)
    engine = make_engine(db_url)
    upgrade(engine)
    engine.dispose()
    store = Store.open(db_url)
    (run,) = store.runs(race_id="r1")
    assert store.score("run1") is not None  # the run's score survives its table being rebuilt (SQLite)
    assert (run.run_id, run.sample, run.attempt, run.status) == ("run1", 0, 1, "finished")  # retry count kept apart
    (result,) = store.race_results("r1")
    assert result.score == 1.0 and result.low is None and result.p_rank1 is None  # an old result: no interval
    assert store.race("r1").plan is None
    sub = store.submission(1)
    assert store.create_runs("r1", [(sub, "p1")], samples=3) == 2  # samples 1 and 2; sample 0 is run1
    assert sorted(r.sample for r in store.runs(race_id="r1")) == [0, 1, 2]
    assert store.create_runs("r1", [(sub, "p1", 2), (sub, "p1", 3)]) == 1  # an explicit sample index, never twice
    rows = store.race_rows("r1")
    assert sorted(r["sample"] for r in rows) == [0, 1, 2, 3]
    store.close()


def test_the_key_holds_one_run_per_race_submission_problem_and_sample(db_url: str) -> None:
    _old_store(db_url)
    engine = make_engine(db_url)
    upgrade(engine)
    with pytest.raises(IntegrityError):
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO runs (run_id, race_id, submission_id, problem_id, hotkey, status, sample, attempt, "
                    "created_at, sandbox, tool_calls, llm_calls, tokens, cost) VALUES ('dup', 'r1', 1, 'p1', 'hk', "
                    "'pending', 0, 0, :now, '{}', 0, 0, 0, 0)"
                ),
                {"now": NOW},
            )
    engine.dispose()


def test_going_back_down_keeps_sample_0_and_drops_the_samples_the_old_schema_cannot_hold(db_url: str) -> None:
    _old_store(db_url)
    engine = make_engine(db_url)
    upgrade(engine)
    store = Store.open(db_url)
    assert store.create_runs("r1", [(store.submission(1), "p1")], samples=2) == 1
    store.close()
    downgrade(engine, "0005")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT run_id FROM runs")).scalars().all() == ["run1"]
        assert conn.execute(text("SELECT count(*) FROM scores")).scalar() == 1
        columns = [c for c in conn.execute(text("SELECT * FROM race_results")).keys()]
    assert "p_rank1" not in columns
    upgrade(engine)  # and up again
    engine.dispose()


def test_standings_of_a_store_without_that_race_say_what_to_do_in_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()

    def standings(*args: str) -> subprocess.CompletedProcess[str]:
        cli = [sys.executable, "-m", "validator.cli", "standings", "--database-url", url, *args]
        return subprocess.run(cli, capture_output=True, text=True, timeout=120)

    empty = standings("--json")
    assert empty.returncode == 2 and empty.stdout == ""
    assert empty.stderr.strip().count("\n") == 0 and "no race has closed yet" in empty.stderr
    unknown = standings("--race", "nope")
    assert unknown.returncode == 2 and "no race 'nope' in the store; leave out --race" in unknown.stderr
