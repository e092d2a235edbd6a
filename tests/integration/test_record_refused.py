"""A run whose record the store refuses (a fault of ours, not the agent's) never stays `running`: on a running node
(bubblewrap, the gateway, SQLite, the scheduler's jobs) the store's own trigger refuses each run's first trajectory,
as a database refuses a value or a constraint fails; the attempt ends 2003 (the store failed under the run,
docs/validator.md "Error codes"), the run is retried and finishes: never stuck, never the miner's zero."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arena import blame
from tests.support.node import RunningNode, make_arena, open_store, slow_agent, wait_until
from tests.support.race import build_arena_inputs, make_chain, place_submission
from validator.scheduler import Node

pytestmark = pytest.mark.slow  # a node's jobs with bubblewrap, the gateway and the store

REFUSE_FIRST_ATTEMPT = """
CREATE TRIGGER refuse_first_record BEFORE INSERT ON trajectory_events
WHEN (SELECT attempt FROM runs WHERE run_id = NEW.run_id) = 1
BEGIN SELECT RAISE(ABORT, 'the store refuses this record'); END
"""


def test_a_record_the_store_refuses_ends_the_attempt_as_ours_and_the_run_is_retried_and_finished(
    tmp_path: Path,
) -> None:
    inputs = build_arena_inputs(tmp_path / "arena", problems=8, per_race=2, cadence=100_000)
    names = ["first", "second"]
    setup = make_chain(tmp_path, names)
    database = tmp_path / "node.sqlite"
    store = open_store(f"sqlite:///{database}")
    with sqlite3.connect(database) as db:
        db.execute(REFUSE_FIRST_ATTEMPT)
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    for i, name in enumerate(names):
        hotkey = setup.miners[name].hotkey.ss58_address
        place_submission(store, data_dir, hotkey, slow_agent(tmp_path / "agents" / name, name, 0.1), block=10 + i)
    arena: Any = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir)
    node = Node(arena, block_time=0.5, dispatch_seconds=0.5, close_seconds=0.5, recover_seconds=1.0, log=arena.log)
    with RunningNode(node):
        wait_until(lambda: [r.status for r in store.races()] == ["closed"], "the race to close", timeout=600)
    runs = store.runs()
    assert len(runs) == 4 and all(r.status == "finished" for r in runs), [(r.status, r.error) for r in runs]
    for run in runs:  # each run's first attempt was ours (2003), then it was tried again and scored
        codes = [a["code"] for a in run.sandbox.get("attempts") or []]
        assert codes[:1] == [blame.STORE_FAULT] and run.attempt >= 2, (run.attempt, run.sandbox)
        score = store.score(run.run_id)
        assert score is not None and score.final is not None
    lost = [kw for _level, event, kw in arena.log.records if event == "races.run_lost"]
    assert lost and all("refuses this record" in kw["error"] for kw in lost)
    store.close()
