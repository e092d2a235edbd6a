"""`arena-validator rescore`: a race's stored runs scored again by another ruleset, old verdicts kept beside the new,
on SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from arena.judge.rubric import SN15_RUBRIC
from arena.problems.pack import new_pack
from arena.tasks.shopping.problem import Problem
from arena.tasks.shopping.rulesets import get_ruleset
from arena.tasks.shoppingbench.strict import score_run
from arena.trajectory import TrajectoryEvent
from tests.support.postgres import fresh_database
from tests.unit.test_rulesets import BASKET, PRODUCTS
from validator.chain.port import Neuron
from validator.rescore import RescoreError, rescore_race
from validator.store.repository import Store, make_engine
from validator.store.schema import upgrade

lookup = PRODUCTS.get
SHOP = Problem(
    problem_id="shop-1", task="shop", split="race", query="a basket and a placemat from one shop", reward=BASKET
)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    def opened(url: str) -> Store:
        engine = make_engine(url)
        upgrade(engine)
        engine.dispose()
        return Store.open(url)

    if request.param == "sqlite":
        s = opened(f"sqlite:///{tmp_path / 'store.sqlite'}")
        yield s
        s.close()
    else:
        with fresh_database() as url:
            s = opened(url)
            yield s
            s.close()


def recommend(run_id: str, product_ids: str) -> list[TrajectoryEvent]:
    at = datetime(2026, 12, 1, tzinfo=UTC)
    return [
        TrajectoryEvent(
            run_id=run_id,
            seq=0,
            kind="tool_call",
            name="find_product",
            arguments={"q": "basket"},
            result=[],
            started_at=at,
        ),
        TrajectoryEvent(
            run_id=run_id,
            seq=1,
            kind="tool_call",
            name="recommend_product",
            arguments={"product_ids": product_ids},
            result="ok",
            started_at=at,
        ),
    ]


def race_with(store: Store, pack, answers: dict[str, str]) -> str:
    """A closed race of one shop problem in which each hotkey answered as given; scored and judged as the node does."""
    store.upsert_miners([Neuron(uid=i, hotkey=h, coldkey=f"c{h}") for i, h in enumerate(answers)], block=1)
    subs = [
        store.add_submission(hotkey=h, sha256=f"{i:064x}", commitment_block=10 + i)[0] for i, h in enumerate(answers)
    ]
    store.add_pack(pack_id=pack.pack_id, name="t", digest="d" * 64, problems=[SHOP.model_dump(mode="json")])
    store.create_race(race_id="race-1", pack_id=pack.pack_id, seed_block=1, seed_hash="h", problem_ids=["shop-1"])
    store.create_runs("race-1", [(s, "shop-1") for s in subs])
    for run in store.runs(race_id="race-1"):
        events = recommend(run.run_id, answers[run.hotkey])
        store.transition(run.run_id, "starting")
        store.transition(run.run_id, "running")
        store.record_run(run.run_id, "scoring", events)
        score = score_run(SHOP, answers[run.hotkey], lookup, ruleset=pack.ruleset)
        store.save_score(run.run_id, success=float(score.success), final=None, strict=score.model_dump(mode="json"))
        quality = 0.5
        store.save_judgment(
            run.run_id,
            verdict={"rubric_version": SN15_RUBRIC.version, "gate": "x"},
            quality=quality,
            coefficient=SN15_RUBRIC.coefficient(quality),
            final=SN15_RUBRIC.final(score.success, quality),
            evidence=[],
        )
    return "race-1"


def test_rescore_by_another_ruleset_keeps_the_old_verdicts(store: Store) -> None:
    pack = new_pack([SHOP], catalog_digest=None, generator_version="t", embed=False)
    race_id = race_with(store, pack, {"spaced": "A1, A2", "tight": "A1,A2"})
    runs = {r.hotkey: r for r in store.runs(race_id=race_id)}
    assert store.score(runs["spaced"].run_id).success == 0 and store.score(runs["tight"].run_id).success == 1
    assert store.score(runs["tight"].run_id).ruleset == "shoppingbench"

    report = rescore_race(store, pack, lookup, race_id, ruleset=get_ruleset("sn15"), rubric=SN15_RUBRIC)
    assert (report.runs, report.revised, report.flipped) == (2, 2, 1)
    spaced = store.score(runs["spaced"].run_id)
    assert spaced.ruleset == "sn15" and spaced.success == 1
    assert spaced.final == pytest.approx(SN15_RUBRIC.final(True, 0.5)) and spaced.judge_quality == 0.5
    old = store.score_revisions(runs["spaced"].run_id)
    assert len(old) == 1 and old[0].ruleset == "shoppingbench" and old[0].success == 0 and old[0].final == 0
    assert old[0].rubric_version == SN15_RUBRIC.version and "sn15" in old[0].reason
    assert report.per_miner["spaced"] == (0.0, pytest.approx(SN15_RUBRIC.final(True, 0.5)))

    # the same rescore again changes nothing and keeps no new revision
    again = rescore_race(store, pack, lookup, race_id, ruleset=get_ruleset("sn15"), rubric=SN15_RUBRIC)
    assert (again.revised, again.unchanged) == (0, 2)
    assert len(store.score_revisions(runs["spaced"].run_id)) == 1
    # and back: two revisions, the first verdict restored
    rescore_race(store, pack, lookup, race_id, ruleset=get_ruleset("shoppingbench"), rubric=SN15_RUBRIC)
    assert store.score(runs["spaced"].run_id).success == 0
    assert [r.ruleset for r in store.score_revisions(runs["spaced"].run_id)] == ["shoppingbench", "sn15"]


def test_rescore_refuses_another_pack_or_an_unknown_race(store: Store) -> None:
    pack = new_pack([SHOP], catalog_digest=None, generator_version="t", embed=False)
    race_with(store, pack, {"a": "A1,A2"})
    other = new_pack(
        [SHOP.model_copy(update={"query": "another"})], catalog_digest=None, generator_version="t", embed=False
    )
    with pytest.raises(RescoreError, match="was raced on pack"):
        rescore_race(store, other, lookup, "race-1", ruleset=get_ruleset("sn15"), rubric=SN15_RUBRIC)
    with pytest.raises(RescoreError, match="no race 'nope'"):
        rescore_race(store, pack, lookup, "nope", ruleset=get_ruleset("sn15"), rubric=SN15_RUBRIC)


@pytest.mark.slow  # runs arena-validator as a subprocess
def test_rescore_command_names_a_missing_race_in_one_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'v.sqlite'}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    exe = str(Path(sys.executable).parent / "arena-validator")
    proc = subprocess.run(
        [exe, "rescore", "--race", "r-1", "--database-url", url], capture_output=True, text=True, timeout=120
    )
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and lines and "--catalog and --pack" in lines[0], proc.stderr


def test_the_corpus_export_never_reads_a_race_still_open(store: Store) -> None:
    pack = new_pack([SHOP], catalog_digest=None, generator_version="t", embed=False)
    race_id = race_with(store, pack, {"a": "A1,A2", "b": "A1"})
    assert all(r.status == "finished" for r in store.runs(race_id=race_id))
    assert store.export_counts()["selected"] == 0 and not list(store.export_runs())
    store.save_race_results(race_id, [])
    assert store.export_counts()["selected"] == 2 and sum(len(rows) for rows, _ in store.export_runs()) == 2
