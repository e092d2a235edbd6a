"""The demo says what is happening while its validators race (`demo.progress`): a line per race stage on stdout,
read from a real store (SQLite) as the race moves on: submissions, the race opening, its runs dispatched, scored and
judged (x/N), a line at most every few seconds while a stage moves and at once when it completes, then the close and
the weights."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.progress import RaceProgress
from validator.chain.port import Neuron
from validator.store.repository import Store, make_engine
from validator.store.schema import upgrade


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    opened = Store.open(url)
    opened.upsert_miners([Neuron(uid=i, hotkey=f"hk{i}", coldkey=f"ck{i}") for i in range(3)], block=10)
    subs = [opened.add_submission(hotkey=f"hk{i}", sha256=f"{i:064x}", commitment_block=100 + i)[0] for i in range(3)]
    for sub in subs[:2]:
        opened.set_submission(sub.id, status="accepted")
    opened.set_submission(subs[2].id, status="copy")
    problems = [
        {"problem_id": f"p{j}", "task": "product", "split": "race", "cluster_id": f"c{j}", "query": f"q{j}"}
        for j in range(3)
    ]
    opened.add_pack(pack_id="pk1", name="demo", digest="d" * 64, problems=problems)
    yield opened
    opened.close()


def lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The lines printed since the last call, without their elapsed-seconds column."""
    return [re.sub(r"^\s*\d+ s  ", "", line) for line in capsys.readouterr().out.splitlines()]


def test_the_demo_prints_a_line_per_race_stage(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    # a stage that moves on says so only when it completes
    progress = RaceProgress([store], ("validator",), every=3600.0)
    progress.update(now=True)
    assert lines(capsys) == [
        "syncing: both validators read the miners' commitments, fetch and check their bundles",
        "submissions: 2 accepted, 1 copy",
    ]
    store.create_race(race_id="r1", pack_id="pk1", seed_block=200, seed_hash="0x" + "ab" * 32, problem_ids=["p0"])
    accepted = [s for s in store.all_submissions() if s.status == "accepted"]
    store.create_runs("r1", [(sub, f"p{j}") for sub in accepted for j in range(3)])
    progress.update(now=True)
    assert lines(capsys) == ["opening: validator opened race r1", "race: runs dispatched 0/6, scoring 0/6, judging 0/6"]
    runs = [run.run_id for run in store.runs(race_id="r1")]
    for run_id in runs[:4]:
        store.transition(run_id, "starting")
        store.transition(run_id, "running")
    progress.update(now=True)
    assert lines(capsys) == []  # moving on, said again only `every` seconds after its last line
    progress.every = 0.0
    progress.update(now=True)
    assert lines(capsys) == ["race: runs dispatched 4/6, scoring 0/6, judging 0/6"]
    progress.every = 3600.0
    for run_id in runs[4:]:
        store.transition(run_id, "starting")
        store.transition(run_id, "errored", error_code=1003, error="timed out")
    for run_id in runs[:4]:
        store.transition(run_id, "scoring")
        store.transition(run_id, "finished")
    progress.update(now=True)
    assert lines(capsys) == ["race: runs dispatched 6/6, scoring 6/6, judging 6/6 (2 errored)"]  # done: said at once
    store.set_race_status("r1", "closed")
    weights = store.add_weight_set(policy="top_heavy", vector={0: 1.0}, race_id="r1")
    store.update_weight_set(weights.id, status="set", outcome={"success": True}, block=300)
    progress.update(now=True)
    assert lines(capsys) == ["closing: validator: race closed", "weights: validator: set"]
    progress.update(now=True)
    assert lines(capsys) == []  # nothing changed, nothing said
