"""Task families: a family that is not ShoppingBench (the tests' `mock` family, one folder registered) goes through
the same registry into packs, the gateway, the sandbox, strict scoring, the judge, the race and the weights."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bittensor.sp_core import Keypair

from arena import tasks
from arena.catalog import Catalog
from arena.problems.pack import Rotation, load_pack, new_pack, write_pack
from arena.problems.splits import assign_splits
from tests.support import mock_family
from tests.support.race import build_arena_inputs, make_chain, place_submission, run_race, start_node

pytestmark = pytest.mark.slow  # races in bubblewrap

ROOT = Path(__file__).resolve().parents[2]


def test_a_family_module_named_in_the_environment_is_registered_in_any_process() -> None:
    code = "from arena import tasks; print(','.join(tasks.all_tasks()))"
    env = {**os.environ, tasks.ENV: "tests.support.mock_family", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().split(",")[-1] == "lookup"
    env[tasks.ENV] = "tests.support.no_such_family"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode != 0 and "tests.support.no_such_family" in done.stderr.splitlines()[-1]


def test_a_pack_of_the_mock_family_keeps_its_private_fields_and_shows_only_the_public_view(tmp_path: Path) -> None:
    problems = mock_family.problems(3)
    pack = new_pack(problems, catalog_digest=None, generator_version="mock", rotation=Rotation(task_mix={"lookup": 1}))
    path = write_pack(pack, tmp_path / "pack.json")
    again = load_pack(path, require_signature=False)
    assert [type(p) for p in again.problems] == [mock_family.LookupProblem] * 3
    assert again.problems[0].model_dump() == problems[0].model_dump()
    public = again.problems[0].public()
    assert set(public) == {"problem_id", "task", "query", "difficulty"}
    assert not any(code in json.dumps(public) for code in problems[0].codes.values())


@pytest.fixture(scope="module")
def mixed_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The race test's catalog and ShoppingBench pack, plus mock problems, in one signed pack mixing both families."""
    root = tmp_path_factory.mktemp("families")
    catalog_dir, pack_path, _ = build_arena_inputs(root, problems=24, per_race=4)
    shopping = load_pack(pack_path, require_signature=False)
    lookups = assign_splits(mock_family.problems(8), {"public": 0.0, "race": 1.0, "held_out": 0.0}, seed=1)
    operator = Keypair.create_from_uri("//ShopArenaFamilies")
    pack = new_pack(
        [*shopping.problems, *lookups],
        catalog_digest=Catalog.open(catalog_dir).digest,
        generator_version="mixed",
        rotation=Rotation(cadence_blocks=5, problems_per_race=4, task_mix={"product": 0.5, "lookup": 0.5}),
    ).signed(operator)
    return catalog_dir, write_pack(pack, root / "mixed.json"), operator.ss58_address


def test_a_race_mixing_the_mock_family_with_shoppingbench_scores_each_by_its_family(
    mixed_inputs: Any, tmp_path: Path
) -> None:
    setup = make_chain(tmp_path, ["lookup", "silent"])
    data_dir = tmp_path / "node"
    url = f"sqlite:///{tmp_path / 'node.sqlite'}"
    arena = start_node(url, setup.chain, setup.validators[0], mixed_inputs, data_dir, concurrency=2)
    store = arena.store
    agents = {"lookup": mock_family.AGENT, "silent": "def agent_main(problem):\n    return {}\n"}
    hotkeys = {}
    for i, (name, source) in enumerate(agents.items()):
        folder = tmp_path / "agents" / name
        folder.mkdir(parents=True)
        (folder / "agent.py").write_text(source)
        hotkeys[name] = setup.miners[name].hotkey.ss58_address
        place_submission(store, data_dir, hotkeys[name], folder, block=10 + i)
    run_race(arena, store)

    race = [r for r in store.races() if r.status == "closed"][0]
    drawn = [arena.pack.problem(p) for p in race.problem_ids]
    assert {p.task for p in drawn if p is not None} == {"product", "lookup"}
    runs = store.runs(race_id=race.race_id)
    by = {(r.hotkey, arena.pack.problem(r.problem_id).task): r for r in runs}  # type: ignore[union-attr]
    lookup_runs = [r for r in runs if r.hotkey == hotkeys["lookup"] and r.problem_id.startswith("lookup-")]
    assert lookup_runs and all(r.status == "finished" for r in lookup_runs), [(r.status, r.error) for r in runs]
    for run in lookup_runs:
        problem = arena.pack.problem(run.problem_id)
        assert isinstance(problem, mock_family.LookupProblem)
        score = store.score(run.run_id)
        assert score is not None and score.success == 1.0
        assert score.strict["ruleset"] == "mock" and score.strict["answer"] == [problem.codes[problem.name]]
        calls = [e for e in store.events(run.run_id) if e.kind == "tool_call"]
        assert [e.name for e in calls] == ["lookup_code", "recommend_product"]
        assert calls[0].result == problem.codes[problem.name]  # served from the gateway's copy of the problem
    # the same agent on a ShoppingBench problem gets that family's tools: lookup_code is unknown, the agent raises
    product_run = by[(hotkeys["lookup"], "product")]
    assert (product_run.status, product_run.error_code, product_run.blame) == ("errored", 1002, "agent")
    silent = [r for r in runs if r.hotkey == hotkeys["silent"]]
    assert all((r.status, r.error_code) == ("errored", 1006) for r in silent)
    results = {r.hotkey: r.score for r in store.race_results(race.race_id)}
    assert results[hotkeys["lookup"]] > results[hotkeys["silent"]] == 0.0
    assert store.weight_sets()[-1].status == "set"
    store.close()
