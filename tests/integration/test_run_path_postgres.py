"""The run path (`validator.races.beginning`: the claim, the staging, the move to `running`; the record; all on the run
path's own thread, `validator.races.offloop`) on PostgreSQL with many runs at once: a running node (every job of
`arena-validator run`, `recover` among them: `tests.support.race.race_until_final`) races three miners on six
problems, three samples each (54 runs), eight sandboxes at a time (ArenaConfig's default is two). Every run ends
exactly once, on its first attempt, none lost or doubled, and each ends as the same race ends on SQLite two at a
time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from arena import blame
from tests.support.node import make_arena
from tests.support.postgres import fresh_database
from tests.support.race import (
    ChainSetup,
    build_arena_inputs,
    make_chain,
    open_store,
    place_submission,
    race_until_final,
    with_rotation,
    write_agent,
)
from validator.metrics import Metrics
from validator.store.models import Run
from validator.store.repository import Store

pytestmark = pytest.mark.slow  # races in bubblewrap on PostgreSQL and SQLite

MINERS = ["offline", "lite", "hostile"]
SAMPLES = 3
PROBLEMS = 6
CONCURRENCY = 8
#: what a run of the race never logs: a run lost to a fault of ours, work of the run path failing unseen, a claim
#: another attempt took, a run `recover` found lost, a job failing
NEVER = {"races.run_lost", "races.run_path_failed", "races.skip", "races.recover_skip", "races.recovered", "job.failed"}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = tmp_path_factory.mktemp("arena")
    # one rotation slot for the whole test: both nodes race the same draw, and no second race opens while they run
    built = build_arena_inputs(root, per_race=PROBLEMS, cadence=100_000)
    return with_rotation(built, root / "samples.json", samples=SAMPLES)


@dataclass
class Raced:
    runs: list[Run]
    outcomes: dict[tuple[str, str, int], tuple[Any, ...]]  # (hotkey, problem, sample) -> how its run ended
    records: list[tuple[str, str, dict[str, Any]]]  # the node's log
    metrics: Metrics


def race(url: str, setup: ChainSetup, inputs: tuple[Path, Path, str], root: Path, **config: Any) -> Raced:
    """The race run to its end by a node of its own (store at `url`, data under `root`) on the shared chain."""
    store: Store = open_store(url)
    try:
        data_dir = root / "node"
        store.upsert_miners(setup.chain.metagraph().neurons)
        for i, name in enumerate(MINERS):
            agent = write_agent(root / "agents" / name, name)
            place_submission(store, data_dir, setup.miners[name].hotkey.ss58_address, agent, block=10 + i)
        metrics = Metrics(store, run_timeout=60)
        arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir, metrics=metrics, **config)
        runs = race_until_final(arena, store)
        outcomes = {(r.hotkey, r.problem_id, r.sample): outcome(store, r) for r in runs}
        return Raced(runs, outcomes, arena.log.records, metrics)
    finally:
        store.close()


def outcome(store: Store, run: Run) -> tuple[Any, ...]:
    """How a run ended, as a user reads it: status, code, blame, attempts, strict verdict, final score, and the calls
    its agent made (what the verdict is taken from)."""
    score = store.score(run.run_id)
    strict = None if score is None else (score.success, score.strict, score.final)
    events = store.events(run.run_id)
    assert [e.seq for e in events] == list(range(len(events))), run.run_id  # one trajectory, stored once
    calls = [(e.kind, e.name, e.arguments) for e in events]
    return (run.status, run.error_code, run.blame, run.attempt, strict, calls)


def peak(runs: list[Run]) -> int:
    """The most runs that were between their move to `running` and their record at one moment (the store's own
    timestamps: an ordering, never a duration)."""
    edges: list[tuple[datetime, int]] = []
    for run in runs:
        ended = run.scoring_at or run.errored_at or run.finished_at
        assert run.running_at is not None and ended is not None, run.run_id
        edges += [(run.running_at, 1), (ended, -1)]
    most = now = 0
    for _, step in sorted(edges, key=lambda edge: (edge[0], edge[1])):  # an end before a start at the same instant
        now += step
        most = max(most, now)
    return most


def check(raced: Raced, setup: ChainSetup) -> None:
    """Every unit of the race has exactly one run, final on its first attempt, ended exactly once."""
    runs = raced.runs
    problems = {r.problem_id for r in runs}
    hotkeys = {name: setup.miners[name].hotkey.ss58_address for name in MINERS}
    units = {(h, p, s) for h in hotkeys.values() for p in problems for s in range(SAMPLES)}
    assert len(problems) == PROBLEMS and len(runs) == len(units) and set(raced.outcomes) == units
    for (hotkey, _, _), (status, code, who, attempt, strict, calls) in raced.outcomes.items():
        assert attempt == 1, (hotkey, status, code, attempt)
        if hotkey == hotkeys["hostile"]:  # no answer through the gateway: its own fault, final
            assert (status, code, who, strict) == ("errored", blame.NO_ANSWER, "agent", None)
        else:
            assert (status, code, who) == ("finished", None, None) and strict is not None and strict[2] is not None
            assert ("tool_call", "recommend_product") in {(kind, name) for kind, name, _ in calls}
    # each sandbox came back once and each run was made final once, as the node counts them
    registry = raced.metrics.registry
    assert registry.get_sample_value("shoparena_worker_runs_total", {"worker": "local"}) == len(runs)
    finished = registry.get_sample_value("shoparena_runs_final_total", {"outcome": "finished", "blame": "none"})
    errored = registry.get_sample_value("shoparena_runs_final_total", {"outcome": "errored", "blame": "agent"})
    assert (finished, errored) == (2 * len(runs) / 3, len(runs) / 3)
    assert [(event, kw) for _, event, kw in raced.records if event in NEVER] == []


def test_many_runs_at_once_on_postgres_each_end_once_as_on_sqlite(inputs: Any, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, MINERS)
    on_sqlite = race(f"sqlite:///{tmp_path / 'node.sqlite'}", setup, inputs, tmp_path / "sqlite")
    with fresh_database() as url:
        on_postgres = race(url, setup, inputs, tmp_path / "postgres", concurrency=CONCURRENCY)
    check(on_sqlite, setup)
    check(on_postgres, setup)
    assert peak(on_postgres.runs) > 2  # more sandboxes at once than the default lets run: what the test is for
    assert on_postgres.outcomes == on_sqlite.outcomes
