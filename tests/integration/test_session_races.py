"""Shopping sessions raced (docs/sessions.md): a pack mixing sessions with ShoppingBench problems, raced by the offline
template in bubblewrap (SQLite) and Docker (PostgreSQL); the shopper's replies come from the gateway, the session
check and its rubric score the run, the judge's coefficient multiplies that score; two validators racing the same
slot store byte-identical session verdicts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bittensor.sp_core import Keypair

from arena.catalog import Catalog
from arena.problems.pack import Rotation, load_pack, new_pack, write_pack
from arena.problems.splits import assign_splits
from arena.scoring.models import strict_score
from arena.tasks.session.generate import generate_report
from tests.integration.test_races import make_arena
from tests.support.postgres import fresh_database
from tests.support.race import build_arena_inputs, make_chain, open_store, place_submission, run_race, write_agent

pytestmark = pytest.mark.slow  # races in bubblewrap and Docker, on SQLite and PostgreSQL

MIX = {"product": 0.5, "session": 0.5}


@pytest.fixture(scope="module")
def session_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The race tests' catalog and ShoppingBench problems, and sessions generated from the same catalog, in one pack
    whose races draw half of each."""
    root = tmp_path_factory.mktemp("sessions")
    catalog_dir, pack_path, _ = build_arena_inputs(root, problems=12, per_race=4, size=8000)
    catalog = Catalog.open(catalog_dir)
    # easy sessions: the offline template these races run answers every one (harder ones it may leave unanswered)
    talks = generate_report(catalog, 6, 3, mix={"easy": 1.0}).problems
    assert len(talks) >= 4, "the session generator kept too few problems from the test catalog"
    shopping = load_pack(pack_path, require_signature=False).problems
    split = assign_splits([*shopping, *talks], {"public": 0.0, "race": 1.0, "held_out": 0.0}, seed=3)
    operator = Keypair.create_from_uri("//ShopArenaSessions")
    pack = new_pack(
        split,
        catalog_digest=catalog.digest,
        generator_version="mixed",
        rotation=Rotation(cadence_blocks=5, problems_per_race=4, task_mix=MIX),
    ).signed(operator)
    return catalog_dir, write_pack(pack, root / "sessions.json"), operator.ss58_address


@pytest.fixture(params=[("sqlite", "process"), ("postgresql", "docker")], ids=["sqlite-bwrap", "postgres-docker"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    db, kind = request.param
    if db == "sqlite":
        yield f"sqlite:///{tmp_path / 'node.sqlite'}", kind
    else:
        with fresh_database() as url:
            yield url, kind


def seed(store: Any, setup: Any, root: Path, data_dir: Path, names: list[str]) -> dict[str, str]:
    store.upsert_miners(setup.chain.metagraph().neurons)
    hotkeys = {}
    for i, name in enumerate(names):
        hotkeys[name] = setup.miners[name].hotkey.ss58_address
        place_submission(store, data_dir, hotkeys[name], write_agent(root / "agents" / name, name), block=10 + i)
    return hotkeys


def test_sessions_race_beside_shoppingbench_scored_by_the_session_check(
    backend: tuple[str, str], session_inputs: Any, tmp_path: Path
) -> None:
    url, kind = backend
    setup = make_chain(tmp_path, ["offline", "hostile"])
    store = open_store(url)
    data_dir = tmp_path / "node"
    hotkeys = seed(store, setup, tmp_path, data_dir, ["offline", "hostile"])
    arena = make_arena(store, setup.chain, setup.validators[0], session_inputs, data_dir, kind)
    run_race(arena, store)

    race = [r for r in store.races() if r.status == "closed"][0]
    drawn = {pid: arena.pack.problem(pid) for pid in race.problem_ids}
    assert sorted(p.task for p in drawn.values() if p is not None) == ["product", "product", "session", "session"]
    runs = store.runs(race_id=race.race_id)
    talks = [r for r in runs if r.hotkey == hotkeys["offline"] and drawn[r.problem_id].task == "session"]  # type: ignore[union-attr]
    assert len(talks) == 2 and all(r.status == "finished" for r in talks), [(r.status, r.error) for r in talks]
    for run in talks:
        problem = drawn[run.problem_id]
        score = store.score(run.run_id)
        assert score is not None and score.strict["task"] == "session"
        names = [c["name"] for c in score.strict["checks"]]
        # the per-constraint attribution and the weighted rubric are part of the verdict
        assert all(f"constraint {c.cid}" in names for c in problem.constraints)  # type: ignore[union-attr]
        assert any(n.startswith("rubric ") for n in names)
        # the shopper answered from the gateway: its replies are in the log, with no constraint id in them
        replies = [e for e in store.events(run.run_id) if e.kind == "tool_call" and e.name in ("ask_user", "respond")]
        assert replies and all(isinstance(e.result, dict) and "user" in e.result for e in replies)
        cids = {c.cid for c in problem.constraints}  # type: ignore[union-attr]
        assert not any(cid in json.dumps(e.result) for e in replies for cid in cids if len(cid) > 2)
        # the final score is the session's own score (success weighted by its rubric) times the judge's coefficient
        assert score.judge_coefficient is not None
        expected = strict_score(score.strict, score.success) * score.judge_coefficient
        assert score.final == pytest.approx(expected)
    hostile = [r for r in runs if r.hotkey == hotkeys["hostile"]]
    assert all((r.status, r.error_code, r.blame) == ("errored", 1006, "agent") for r in hostile)
    store.close()


def test_two_validators_store_byte_identical_session_verdicts(session_inputs: Any, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, ["offline"], validators=2)
    verdicts = []
    block = setup.chain.block()
    for i, wallet in enumerate(setup.validators):
        store = open_store(f"sqlite:///{tmp_path / f'v{i}.sqlite'}")
        data_dir = tmp_path / f"node{i}"
        seed(store, setup, tmp_path / f"a{i}", data_dir, ["offline"])
        arena = make_arena(store, setup.chain, wallet, session_inputs, data_dir)
        arena.start()
        try:
            arena.open_race(block=block - block % 5)  # the same rotation slot for both
        finally:
            arena.stop()
        run_race(arena, store)
        race = store.races()[0]
        sessions = [
            r
            for r in store.runs(race_id=race.race_id)
            if arena.pack.problem(r.problem_id).task == "session"  # type: ignore[union-attr]
        ]
        assert sessions
        verdicts.append(
            json.dumps(
                {r.problem_id: store.score(r.run_id).strict for r in sessions},  # type: ignore[union-attr]
                sort_keys=True,
            )
        )
        store.close()
    assert verdicts[0] == verdicts[1]
