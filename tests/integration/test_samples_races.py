"""k samples per (miner, problem), the standings' window with its rule for a new submission, and sharding, on running
nodes: real stores, LocalChain, bubblewrap sandboxes, the offline template and a hostile agent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from arena.problems.pack import Rotation
from arena.weights import MinerResult, compute_weights, parse_policy
from tests.integration.test_races import make_arena
from tests.support.race import build_arena_inputs, drive, make_chain, open_store, place_submission, write_agent
from validator.api import create_app
from validator.chain.results import commit_results

MINERS = ["offline", "hostile"]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("samples"))


def _next_slot(chain: Any, after: int, cadence: int) -> int:
    """The first block of a rotation slot after `after`, once the chain has made it (the chain makes a block every
    half second)."""
    while chain.block() - chain.block() % cadence <= after:
        time.sleep(0.2)
    return chain.block()


def _race(arena: Any, store: Any, block: int) -> Any:
    race_id = arena.open_race(block)
    assert race_id is not None
    drive(arena, lambda: store.race(race_id).status == "closed", race_id)
    return store.race(race_id)


def _submit(store: Any, setup: Any, root: Path, data_dir: Path, name: str, block: int) -> Any:
    hotkey = setup.miners[name].hotkey.ss58_address
    return place_submission(store, data_dir, hotkey, write_agent(root / "agents" / name, name), block=block)


@pytest.mark.slow  # two races in bubblewrap
def test_k_samples_pass_at_k_and_a_window_that_a_new_submission_joins(inputs: Any, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, MINERS)
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    store.upsert_miners(setup.chain.metagraph().neurons)
    data_dir = tmp_path / "node"
    hk = {name: setup.miners[name].hotkey.ss58_address for name in MINERS}
    for i, name in enumerate(MINERS):
        _submit(store, setup, tmp_path, data_dir, name, block=1 + i)
    rotation = Rotation(cadence_blocks=2, problems_per_race=2, samples=3, window=2)
    arena = make_arena(
        store, setup.chain, setup.validators[0], inputs, data_dir, rotation=rotation, weight_shadow="band"
    )
    arena.start()

    first = _race(arena, store, setup.chain.block())
    runs = store.runs(race_id=first.race_id)
    # three runs per (miner, problem), each its own sample; the retry count is apart from the sample index
    assert sorted((r.hotkey, r.problem_id, r.sample) for r in runs) == sorted(
        (h, p, a) for h in hk.values() for p in first.problem_ids for a in range(3)
    )
    assert first.plan["samples"] == 3 and first.plan["window"] == 2 and "mine" not in first.plan
    results = {r.hotkey: r for r in store.race_results(first.race_id)}
    offline, hostile = results[hk["offline"]], results[hk["hostile"]]
    assert (offline.samples, offline.runs, hostile.samples) == (6, 6, 6)
    finals = [store.score(r.run_id).final for r in runs if r.hotkey == hk["offline"]]  # type: ignore[union-attr]
    assert offline.score == pytest.approx(sum(finals) / 6)  # the mean of every sample
    assert offline.low <= offline.score <= offline.high and hostile.high < 1.0
    assert offline.p_rank1 + hostile.p_rank1 == pytest.approx(1.0)
    assert hostile.pass_at_k and all(v == 0.0 for v in hostile.pass_at_k.values())  # no answer: never passes
    for task, at_k in offline.pass_at_k.items():
        assert 0.0 <= offline.pass_hat_k[task] <= at_k <= 1.0

    # the band policy tried as the shadow: its vector, from the standings' intervals, stored beside the live one
    ws_id = arena.weigh()
    ws = next(w for w in store.weight_sets() if w.id == ws_id)
    uids = {n.hotkey: n.uid for n in setup.chain.metagraph().neurons}
    with_intervals = [
        MinerResult(hotkey=r.hotkey, score=r.score, commitment_block=r.commitment_block, low=r.low, high=r.high)
        for r in results.values()
    ]
    band = compute_weights(with_intervals, uids, parse_policy("band"))
    assert ws.policy == "top_heavy" and ws.shadow_policy == "band"
    assert ws.shadow_vector == {str(k): v for k, v in band.items()}

    # the API: the leaderboard, the race, the standings and the miner page carry the interval and P(rank 1); the
    # race's grid holds every sample of a (miner, problem)
    api = TestClient(create_app(store))
    board = api.get("/api/leaderboard").json()
    row = next(r for r in board["rows"] if r["hotkey"] == hk["offline"])
    assert (row["low"], row["high"], row["p_rank1"], row["samples"]) == (offline.low, offline.high, offline.p_rank1, 6)
    assert board["noise"]["note"] and "Wilson" in board["certainty"]
    race = api.get(f"/api/races/{first.race_id}").json()
    assert race["noise"] == board["noise"] and race["results"][0]["p_rank1"] is not None
    standing = next(r for r in api.get("/api/standings").json()["rows"] if r["hotkey"] == hk["offline"])
    assert (standing["score"], standing["low"], standing["p_rank1"]) == (offline.score, offline.low, offline.p_rank1)
    mine = api.get(f"/api/miners/{hk['offline']}").json()["races"][0]
    assert (mine["high"], mine["pass_at_k"]) == (offline.high, offline.pass_at_k)
    cells = [c for r in api.get(f"/api/races/{first.race_id}/grid").json()["rows"] for c in r["cells"]]
    assert all(sorted(x["sample"] for x in c["samples"]) == [0, 1, 2] for c in cells)
    assert {x["run_id"] for c in cells for x in c["samples"]} == {r.run_id for r in runs}

    # `arena-validator standings` says the same, as a table and as JSON
    cli = [sys.executable, "-m", "validator.cli", "standings", "--database-url", str(store.engine.url)]
    shown = subprocess.run([*cli, "--json"], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    found = json.loads(shown.stdout)
    assert found["race_id"] == first.race_id and found["samples_per_problem"] == 3 and found["window"] == 2
    rows = {r["hotkey"]: r for r in found["rows"]}
    assert rows[hk["offline"]]["low"] == offline.low and rows[hk["offline"]]["p_rank1"] == offline.p_rank1
    assert rows[hk["hostile"]]["pass_at_k"] == hostile.pass_at_k
    assert found["noise"]["note"] and found["certainty"].startswith("score: the mean")
    table = subprocess.run(cli, capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "250"})
    assert table.returncode == 0 and "95% interval" in table.stdout and "P(rank 1)" in table.stdout
    assert f"{offline.low:.3f}–{offline.high:.3f}" in table.stdout

    # the offline miner commits a new version: it joins the miner's window, which spans both races for both miners
    new = _submit(store, setup, tmp_path, data_dir, "offline", block=setup.chain.block())
    second = _race(arena, store, _next_slot(setup.chain, first.seed_block, 2))
    results = {r.hotkey: r for r in store.race_results(second.race_id)}
    assert results[hk["offline"]].submission_id == new.id
    assert results[hk["offline"]].samples == results[hk["hostile"]].samples == 12  # two races of six
    second_runs = [r for r in store.runs(race_id=second.race_id) if r.hotkey == hk["offline"]]
    both = [store.score(r.run_id) for r in runs + second_runs if r.hotkey == hk["offline"]]
    assert results[hk["offline"]].score == pytest.approx(sum(s.final for s in both) / 12)  # type: ignore[union-attr]
    arena.stop()
    store.close()


@pytest.mark.slow  # three validators race in bubblewrap
def test_sharding_with_r_2_covers_every_run_twice_and_the_next_race_makes_up_what_nobody_published(
    inputs: Any, tmp_path: Path
) -> None:
    setup = make_chain(tmp_path, MINERS, validators=3)
    rotation = Rotation(cadence_blocks=2, problems_per_race=3, samples=2, shard_r=2)
    nodes = []
    for i, wallet in enumerate(setup.validators):
        store = open_store(f"sqlite:///{tmp_path / f'v{i}.sqlite'}")
        store.upsert_miners(setup.chain.metagraph().neurons)
        data_dir = tmp_path / f"v{i}"
        for j, name in enumerate(MINERS):
            _submit(store, setup, tmp_path, data_dir, name, block=1 + j)
        arena = make_arena(store, setup.chain, wallet, inputs, data_dir, rotation=rotation)
        arena.start()
        nodes.append((arena, store))
    block = setup.chain.block()
    races = [_race(arena, store, block) for arena, store in nodes]
    assert len({r.race_id for r in races}) == 1 and len({tuple(r.problem_ids) for r in races}) == 1
    units = {(h.hotkey.ss58_address, p, a) for h in setup.miners.values() for p in races[0].problem_ids for a in (0, 1)}
    held: dict[tuple[str, str, int], list[int]] = {}
    for i, (_, store) in enumerate(nodes):
        for run in store.runs(race_id=races[0].race_id):
            held.setdefault((run.hotkey, run.problem_id, run.sample), []).append(i)
    assert set(held) == units and all(len(set(vs)) == 2 for vs in held.values())  # every run by two validators
    sizes = [len(store.runs(race_id=races[0].race_id)) for _, store in nodes]
    assert sum(sizes) == 2 * len(units) and max(sizes) - min(sizes) <= 1  # 2/3 of the runs each, not all of them

    # only validator 0 commits its results on chain; validators 1 and 2 publish nothing: validator 0 runs the next
    # race alone, and the runs only they held come back as extra samples of the same miners
    assert commit_results(setup.chain, setup.validators[0], "ab" * 32).success
    committed = setup.chain.block()
    arena, store = nodes[0]
    lost = [u for u, vs in held.items() if 0 not in vs]
    second = _race(arena, store, _next_slot(setup.chain, committed, 2))
    assert second.plan["validators"] == [setup.validators[0].hotkey.ss58_address]
    assert second.plan["make_up"] == len(lost) > 0
    runs = store.runs(race_id=second.race_id)
    extra = [r for r in runs if r.sample >= 2]
    assert len(runs) == len(units) + len(lost) and len(extra) == len(lost)
    assert sorted(r.hotkey for r in extra) == sorted(u[0] for u in lost)
    assert set(r.problem_id for r in extra) <= set(second.problem_ids)  # never a problem made public by the close
    for arena, store in nodes:
        arena.stop()
        store.close()
