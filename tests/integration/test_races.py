"""Races end to end with the real pieces: LocalChain, the store (SQLite and Postgres), the process sandbox (bubblewrap)
and the Docker sandbox, the gateway, strict scoring, weights set on chain."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import generate_latest

from arena.catalog import Catalog
from arena.judge import Judge
from arena.problems.pack import Rotation, load_pack
from arena.tasks.shoppingbench.strict import parse_answer
from arena.weights import MinerResult, compute_weights, parse_policy
from sandbox.backends import Limits
from tests.support.postgres import fresh_database
from tests.support.race import build_arena_inputs, make_chain, open_store, place_submission, run_race, write_agent
from validator.chain.local import LocalChain
from validator.metrics import Metrics
from validator.races import Arena, ArenaConfig
from validator.store.repository import Store

pytestmark = pytest.mark.slow  # races in bubblewrap and Docker, on SQLite and PostgreSQL

MINERS = ["offline", "lite", "hostile"]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("arena"))


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'node.sqlite'}"


def sandbox(kind: str) -> Any:
    if kind == "docker":
        from sandbox.backends.docker import DockerSandbox

        return DockerSandbox()
    from sandbox.backends.process import ProcessSandbox

    return ProcessSandbox("bwrap")


def make_arena(
    store: Store,
    chain: LocalChain,
    wallet: Any,
    inputs: tuple[Path, Path, str],
    data_dir: Path,
    kind: str = "process",
    *,
    judge: Judge | None = None,
    metrics: Metrics | None = None,
    rotation: Rotation | None = None,
    **config: Any,
) -> Arena:
    """The node's race machinery on the test's pack (its rotation replaced by `rotation` if given); `config`
    overrides the test defaults of ArenaConfig."""
    catalog_dir, pack_path, signer = inputs
    catalog = Catalog.open(catalog_dir)
    pack = load_pack(pack_path, catalog_digest=catalog.digest, trusted_signers={signer})
    if rotation is not None:
        pack = pack.model_copy(update={"rotation": rotation})
    # the fork rule off unless a test asks for it: "offline" and "lite" race as distinct miners for the other rules
    settings = {
        "concurrency": 2,
        "max_attempts": 2,
        "retry_backoff": 0.2,
        "limits": Limits(wall_seconds=60),
        "fork_rule": False,
        **config,
    }
    return Arena(
        store=store,
        chain=chain,
        wallet=wallet,
        pack=pack,
        catalog=catalog,
        sandbox=sandbox(kind),
        config=ArenaConfig(data_dir=data_dir, **settings),
        judge=judge,
        metrics=metrics,
    )


def seed_submissions(store: Store, setup: Any, root: Path, data_dir: Path) -> dict[str, str]:
    store.upsert_miners(setup.chain.metagraph().neurons)
    hotkeys = {}
    for i, name in enumerate(MINERS):
        hotkey = setup.miners[name].hotkey.ss58_address
        place_submission(store, data_dir, hotkey, write_agent(root / "agents" / name, name), block=10 + i)
        hotkeys[name] = hotkey
    return hotkeys


@pytest.fixture(params=[("sqlite", "process"), ("postgresql", "docker")], ids=["sqlite-bwrap", "postgres-docker"])
def backend(request: pytest.FixtureRequest, sqlite_url: str) -> Iterator[tuple[str, str]]:
    db, kind = request.param
    if db == "sqlite":
        yield sqlite_url, kind
    else:
        with fresh_database() as url:
            yield url, kind


def test_a_whole_race_scores_miners_and_sets_weights_on_chain(
    backend: tuple[str, str], inputs: Any, tmp_path: Path
) -> None:
    url, kind = backend
    setup = make_chain(tmp_path, MINERS)
    store = open_store(url)
    data_dir = tmp_path / "node"
    hotkeys = seed_submissions(store, setup, tmp_path, data_dir)
    arena = make_arena(
        store,
        setup.chain,
        setup.validators[0],
        inputs,
        data_dir,
        kind,
        metrics=Metrics(store, run_timeout=60),
        fork_rule=True,
    )
    run_race(arena, store)

    race = [r for r in store.races() if r.status == "closed"][0]
    held_out = {p.problem_id for p in arena.pack.problems if p.split != "race"}
    assert len(race.problem_ids) == 4 and not held_out & set(race.problem_ids)
    assert race.seed_hash == setup.chain.block_hash(race.seed_block)
    runs = store.runs(race_id=race.race_id)
    assert len(runs) == len(MINERS) * 4 and all(arena.final(r) for r in runs)
    assert {(r.hotkey, r.problem_id) for r in runs} == {(h, p) for h in hotkeys.values() for p in race.problem_ids}
    by_name = {name: [r for r in runs if r.hotkey == hk] for name, hk in hotkeys.items()}
    # the hostile agent escapes nothing and forges nothing: no answer through the gateway, its own fault (1006)
    for run in by_name["hostile"]:
        assert (run.status, run.error_code, run.blame) == ("errored", 1006, "agent") and store.score(run.run_id) is None
        assert all(e.name != "recommend_product" for e in store.events(run.run_id))
    # the offline agent's trajectories are stored and its answers are the gateway's last recommend_product
    offline = by_name["offline"]
    assert all(store.events(r.run_id) for r in offline)
    assert all(
        store.score(r.run_id).strict["answer"] == parse_answer(r.sandbox["answer"], arena.pack.ruleset) for r in offline
    )  # type: ignore[union-attr]
    assert all(store.score(r.run_id).strict["ruleset"] == "shoppingbench" for r in offline)  # type: ignore
    results = {r.hotkey: r for r in store.race_results(race.race_id)}
    assert results[hotkeys["hostile"]].score == 0.0
    assert results[hotkeys["offline"]].score >= results[hotkeys["hostile"]].score
    # the fork rule: "lite" is the offline template with one constant changed, committed after "offline": it does
    # not beat it beyond noise, so it is a copy, earns nothing, and "offline" keeps its rank
    (verdict,) = store.copy_verdicts(race_id=race.race_id)
    assert (verdict.hotkey, verdict.copy_of, verdict.copy) == (hotkeys["lite"], hotkeys["offline"], True)
    assert verdict.kind == "code" and verdict.similarity >= 0.8 and verdict.earlier_high >= verdict.score
    # the weight vector is the policy's over the metagraph without the copy, and the chain holds it
    graph = setup.chain.metagraph()
    uids = {n.hotkey: n.uid for n in graph.neurons}
    expected = compute_weights(
        [
            MinerResult(hotkey=r.hotkey, score=r.score, commitment_block=r.commitment_block, low=r.low, high=r.high)
            for r in results.values()
            if r.hotkey != hotkeys["lite"]
        ],
        uids,
        parse_policy("top_heavy"),
    )
    ws = store.weight_sets()[-1]
    assert ws.status == "set" and {int(k): v for k, v in ws.vector.items()} == expected
    assert uids[hotkeys["lite"]] not in expected and expected[uids[hotkeys["offline"]]] > 0
    # `arena-validator submissions show` gives the evidence
    cli = [sys.executable, "-m", "validator.cli", "submissions", "show", hotkeys["lite"], "--database-url", url]
    shown = subprocess.run(cli, capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "100"})
    assert shown.returncode == 0, shown.stderr
    assert f"copy of {hotkeys['offline']}: code similarity {verdict.similarity:.3f}" in shown.stdout
    assert "earns nothing" in shown.stdout
    on_chain = setup.chain.weights()[uids[setup.validators[0].hotkey.ss58_address]]
    assert set(on_chain) == set(expected)
    assert all(abs(on_chain[u] - expected[u]) < 1e-4 for u in expected)
    # what the node observed, as Prometheus scrapes it (of every race: the next slot's race may have opened while
    # the weights were made)
    scraped = generate_latest(arena.metrics.registry).decode()
    finished, errored = store.runs(status="finished"), store.runs(status="errored")
    assert f'shoparena_runs_final_total{{blame="none",outcome="finished"}} {float(len(finished))}' in scraped
    assert f'shoparena_runs_final_total{{blame="agent",outcome="errored"}} {float(len(errored))}' in scraped
    assert len(finished) >= len(runs) - len(by_name["hostile"]) and all(r.blame == "agent" for r in errored)
    sandboxes = re.search(r"^shoparena_sandbox_seconds_count (\S+)$", scraped, re.M)
    assert sandboxes is not None and float(sandboxes[1]) >= len(runs)
    assert 'shoparena_set_weights_total{result="set"} 1.0' in scraped
    assert 'shoparena_gateway_calls_total{kind="tool_call",outcome="ok"}' in scraped
    assert 'shoparena_judge_seconds_count{judge="offline"}' in scraped and "shoparena_queue_depth " in scraped
    store.close()


def test_two_validators_draw_the_same_problems_and_set_identical_vectors(inputs: Any, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, MINERS[:2], validators=2)
    vectors = []
    draws = []
    block = setup.chain.block()
    for i, wallet in enumerate(setup.validators):
        store = open_store(f"sqlite:///{tmp_path / f'v{i}.sqlite'}")
        data_dir = tmp_path / f"node{i}"
        store.upsert_miners(setup.chain.metagraph().neurons)
        for j, name in enumerate(MINERS[:2]):
            agent = write_agent(tmp_path / "agents" / name, name)
            place_submission(store, data_dir, setup.miners[name].hotkey.ss58_address, agent, block=10 + j)
        arena = make_arena(store, setup.chain, wallet, inputs, data_dir)
        arena.start()
        try:
            arena.open_race(block=block - block % 5)  # the same rotation slot for both
        finally:
            arena.stop()
        race = store.races()[0]
        draws.append((race.race_id, race.problem_ids, race.seed_hash))
        run_race(arena, store)
        vectors.append(json.dumps(store.weight_sets()[-1].vector, sort_keys=False))
        store.close()
    assert draws[0] == draws[1]
    assert vectors[0] == vectors[1]


def test_the_llm_judge_failing_defers_judging_and_never_zeroes_a_run(inputs: Any, tmp_path: Path) -> None:
    from arena.judge.llm import LLMJudge
    from tests.support.openai_server import Fail, OpenAIServer

    down = {"yes": True}

    def upstream(body: dict[str, Any]) -> str:
        if down["yes"]:  # down until the test has seen every run wait for it
            raise Fail(503, "judge model overloaded")
        return json.dumps({"gate": "no_comparison", "explanation": "cites prices, compares nothing", "evidence": [0]})

    setup = make_chain(tmp_path, ["offline"])
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    place_submission(
        store,
        data_dir,
        setup.miners["offline"].hotkey.ss58_address,
        write_agent(tmp_path / "agents" / "offline", "offline"),
        block=10,
    )
    with OpenAIServer(upstream, models=("judge-a",)) as server:
        arena = make_arena(
            store,
            setup.chain,
            setup.validators[0],
            inputs,
            data_dir,
            judge=LLMJudge(server.base_url, ["judge-a"], rounds=1, backoff=0.01),
            judge_retry=0.3,
        )
        arena.start()
        try:
            arena.open_race()
            asyncio.run(arena.dispatch())
            asyncio.run(arena.judge_runs())  # the judge is down: every run waits, none is zeroed
            waiting = store.runs(status="scoring")
            assert len(waiting) == 4 and all("judge unavailable" in (r.error or "") for r in waiting)
            assert all(r.not_before is not None for r in waiting)
            assert all(store.score(r.run_id).final is None for r in waiting)  # type: ignore[union-attr]
            assert arena.close_races() == []  # a race never closes on unjudged runs
            down["yes"] = False  # the judge is back: the deferred runs are judged once their backoff passes
            deadline = time.time() + 30
            while store.runs(status="scoring") and time.time() < deadline:
                time.sleep(0.3)
                asyncio.run(arena.judge_runs())
        finally:
            arena.stop()
    runs = store.runs()
    assert all(r.status == "finished" and r.judged_at is not None for r in runs)
    for run in runs:
        score = store.score(run.run_id)
        assert score is not None and score.judge is not None and score.judge["gate"] == "no_comparison"
        assert score.final == pytest.approx(score.success * (0.3 + 0.875 * 0.7))
        assert json.loads(score.judge["raw"])["gate"] == "no_comparison" and score.judge_evidence == [0]
    assert arena.close_races() != []
    store.close()


def test_a_scored_run_is_judged_at_once_and_closing_never_reads_the_runs_back(inputs: Any, tmp_path: Path) -> None:
    """A run is judged as soon as it is scored, by `dispatch` itself: no judge job runs here, yet every run is
    final when `dispatch` returns. Closing asks the store how many runs are not final: a tick of a running race
    loads none of its runs, and the close reads them in one query, as rows, not as runs."""
    from sqlalchemy import event

    from validator.store.models import Run

    setup = make_chain(tmp_path, MINERS)
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    hotkeys = seed_submissions(store, setup, tmp_path, data_dir)
    arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir)
    loaded: list[str] = []

    def count(target: Run, _context: Any) -> None:
        loaded.append(target.run_id)

    event.listen(Run, "load", count)
    arena.start()
    try:
        race_id = arena.open_race()
        assert race_id is not None
        loaded.clear()
        assert arena.close_races() == []  # every run pending: nothing to close, and no run read to know it
        assert loaded == []
        asyncio.run(arena.dispatch())
        runs = store.runs(race_id=race_id)
        assert len(runs) == len(MINERS) * 4
        for run in runs:  # judged by the offline judge, final score success x coefficient
            score = store.score(run.run_id)
            assert run.status == "finished" or run.blame == "agent", (run.status, run.error)
            if run.status == "finished":
                assert run.judged_at is not None and score is not None and score.judge is not None
                assert score.final == pytest.approx(score.success * score.judge_coefficient)
        assert arena.stages.counts["judge"] == sum(1 for r in runs if r.status == "finished")
        assert asyncio.run(arena.judge_runs()) == 0  # nothing was left for the judge job
        loaded.clear()
        assert arena.close_races() == [race_id]
        assert loaded == []
    finally:
        event.remove(Run, "load", count)
        arena.stop()
    results = {r.hotkey: r for r in store.race_results(race_id)}
    assert set(results) == set(hotkeys.values())
    finals = {
        h: [
            store.score(r.run_id).final if r.status == "finished" else 0.0  # type: ignore[union-attr]
            for r in store.runs(race_id=race_id, hotkey=h)
        ]
        for h in results
    }
    for hotkey, values in finals.items():
        assert results[hotkey].score == pytest.approx(sum(values) / len(values))
    store.close()


def test_an_llm_judge_judges_each_run_once_scored_within_its_own_concurrency(inputs: Any, tmp_path: Path) -> None:
    """A judge with I/O (the LLM judge) takes each run as soon as `dispatch` has scored it and freed its sandbox
    slot, never more than `judge_concurrency` at a time, with no judge job involved."""
    import threading

    from arena.judge.llm import LLMJudge
    from tests.support.openai_server import OpenAIServer

    lock, now, most = threading.Lock(), [0], [0]

    def upstream(body: dict[str, Any]) -> str:
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
        time.sleep(0.3)  # a judge model takes its time: runs scored meanwhile queue at the judge's gate
        with lock:
            now[0] -= 1
        return json.dumps({"gate": "no_comparison", "explanation": "cites prices, compares nothing", "evidence": [0]})

    setup = make_chain(tmp_path, ["offline", "lite"])
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    for i, name in enumerate(["offline", "lite"]):
        place_submission(
            store,
            data_dir,
            setup.miners[name].hotkey.ss58_address,
            write_agent(tmp_path / "agents" / name, name),
            block=10 + i,
        )
    with OpenAIServer(upstream, models=("judge-a",)) as server:
        arena = make_arena(
            store,
            setup.chain,
            setup.validators[0],
            inputs,
            data_dir,
            judge=LLMJudge(server.base_url, ["judge-a"], rounds=1, backoff=0.01),
            concurrency=4,
            judge_concurrency=1,
        )
        arena.start()
        try:
            race_id = arena.open_race()
            asyncio.run(arena.dispatch())
        finally:
            arena.stop()
    runs = store.runs(race_id=race_id)
    assert len(runs) == 8 and all(r.status == "finished" for r in runs), [(r.status, r.error) for r in runs]
    assert all(store.score(r.run_id).judge["gate"] == "no_comparison" for r in runs)  # type: ignore[union-attr]
    assert most[0] == 1  # the judge's own concurrency, whatever the sandboxes' is
    assert arena.close_races() == [race_id]
    store.close()


def test_an_empty_race_and_an_ended_rotation_are_stored_with_their_reason(inputs: Any, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, [])

    def node(name: str, rotation: Rotation | None = None) -> tuple[Arena, Store]:
        """A node of its own (store and data) on the chain, racing the test's pack with `rotation` if given."""
        store = open_store(f"sqlite:///{tmp_path / f'{name}.sqlite'}")
        arena = make_arena(store, setup.chain, setup.validators[0], inputs, tmp_path / name, rotation=rotation)
        arena.start()
        return arena, store

    arena, store = node("empty")
    try:
        race_id = arena.open_race(block=0)
        race = store.race(race_id)  # type: ignore[arg-type]
        assert race is not None and race.status == "cancelled" and "no accepted submission" in (race.reason or "")
        assert store.runs() == []
    finally:
        arena.stop()
        store.close()
    arena, store = node("ended", Rotation(cadence_blocks=5, end_block=50))
    try:
        assert arena.open_race(block=60) is None and arena.open_race(block=75) is None
        ended = [r for r in store.races() if r.race_id.endswith("-ended")]
        assert len(ended) == 1 and "ended at block 50" in (ended[0].reason or "") and len(store.races()) == 1
    finally:
        arena.stop()
        store.close()
    arena, store = node("later", Rotation(cadence_blocks=5, start_block=1000))
    try:
        assert arena.open_race(block=60) is None and store.races() == []  # not started yet: nothing stored
    finally:
        arena.stop()
        store.close()


def test_a_race_left_half_open_by_a_dead_node_is_finished_with_the_same_draw(inputs: Any, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, ["offline"])
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    place_submission(
        store,
        data_dir,
        setup.miners["offline"].hotkey.ss58_address,
        write_agent(tmp_path / "agents" / "offline", "offline"),
        block=1,
    )
    arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir)
    arena.start()
    try:
        pool = [p.problem_id for p in arena.pack.problems if p.split == "race"][:3]
        # the node died after storing the race and before its runs: a later slot must not strand it
        store.create_race(
            race_id="stranded-0",
            pack_id=arena.pack.pack_id,
            seed_block=0,
            seed_hash=setup.chain.block_hash(0),
            problem_ids=pool,
        )
        assert arena.open_race(block=0) == "stranded-0"
        race = store.race("stranded-0")
        assert race is not None and race.status == "running" and race.problem_ids == pool
        assert sorted(r.problem_id for r in store.runs(race_id="stranded-0")) == sorted(pool)
        assert arena.open_race(block=0) is None  # and nothing else opens while it runs
    finally:
        arena.stop()
    store.close()
