"""Task families: a family that is not ShoppingBench (the tests' `mock` family, one folder registered) goes through
the same registry into packs, the gateway, the sandbox, strict scoring, the judge, the race and the weights, and
each of its hooks is reached where it is used: its importer as an `arena problems` command, its self-check, its
rulesets in a pack, its judge context, its answer tool by kind, the run page, and a baseline of the offline template
that is one file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from bittensor.sp_core import Keypair
from fastapi.testclient import TestClient

from arena import tasks
from arena.catalog import Catalog
from arena.judge.evidence import build_evidence
from arena.problems.pack import PackError, Rotation, load_pack, new_pack, write_pack
from arena.problems.splits import assign_splits
from arena.tasks.answer import raw_answer
from arena.trajectory import TrajectoryEvent
from tests.support import mock_family
from tests.support.race import build_arena_inputs, make_chain, place_submission, run_race, start_node
from validator.api import create_app

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
    assert set(public) == {"problem_id", "task", "query", "difficulty", "names"}
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
        assert score.strict["ruleset"] == "mock-exact" and score.strict["answer"] == [problem.codes[problem.name]]
        calls = [e for e in store.events(run.run_id) if e.kind == "tool_call"]
        assert [e.name for e in calls] == ["lookup_code", "commit_code"]  # its answer tool, found by its kind
        assert calls[0].result == problem.codes[problem.name]  # served from the gateway's copy of the problem
    # the same agent on a ShoppingBench problem gets that family's tools: lookup_code is unknown, the agent raises
    product_run = by[(hotkeys["lookup"], "product")]
    assert (product_run.status, product_run.error_code, product_run.blame) == ("errored", 1002, "agent")
    silent = [r for r in runs if r.hotkey == hotkeys["silent"]]
    assert all((r.status, r.error_code) == ("errored", 1006) for r in silent)
    results = {r.hotkey: r.score for r in store.race_results(race.race_id)}
    assert results[hotkeys["lookup"]] > results[hotkeys["silent"]] == 0.0
    assert store.weight_sets()[-1].status == "set"
    # the run page of each family is the sections it draws (`Family.run_sections`): the mock's the default ones
    client = TestClient(create_app(store))
    page = client.get(f"/api/runs/{lookup_runs[0].run_id}").json()
    sections = {s["id"]: s for s in page["sections"]}
    assert sections["strict-generic"]["facts"]["success"] == "yes" and sections["checks"]["checks"][0]["passed"]
    product_run = by[(hotkeys["silent"], "product")]  # errored, not scored: ShoppingBench's page shows its gold
    shown = client.get(f"/api/runs/{product_run.run_id}").json()["sections"]
    assert [s["id"] for s in shown] == ["gold", "checks-none"]
    assert shown[0]["rows"][0][1][0]["text"] == arena.pack.problem(product_run.problem_id).gold_ids[0]  # type: ignore[union-attr]
    store.close()


def arena_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`arena` in a process that loads the mock family by the environment, as an operator's would."""
    env = {**os.environ, tasks.ENV: "tests.support.mock_family", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", "from arena.cli import app; app()", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)


def test_a_familys_importer_is_an_arena_problems_command_and_its_selfcheck_runs(
    mixed_inputs: Any, tmp_path: Path
) -> None:
    """No command is wired for the mock family: its importer becomes `arena problems import-lookups`, and
    `arena problems selfcheck` runs its self-check (the default: every gold answer passes its checks)."""
    records = tmp_path / "lookups.jsonl"
    good = [{"name": f"n{i}", "codes": {f"n{i}": f"{i:04d}", "other": "9"}} for i in range(3)]
    lines = [json.dumps(r) for r in good] + ['{"name": "x", "codes": {"y": "1"}}', "not json"]
    records.write_text("\n".join(lines) + "\n")
    pack = tmp_path / "lookups.json"
    done = arena_cli("problems", "import-lookups", str(records), "--out", str(pack), "--ruleset", "mock-number")
    assert done.returncode == 0, done.stderr
    assert "imported 3 problems (3 lookup)" in done.stdout
    assert "lookups.jsonl:4" in done.stderr and "lookups.jsonl:5" in done.stderr  # each bad line said, skipped
    written = load_pack(pack, require_signature=False)
    assert [p.task for p in written.problems] == ["lookup"] * 3 and written.ruleset_for("lookup") == "mock-number"
    refused = arena_cli(
        "problems", "import-lookups", str(records), "--out", str(tmp_path / "x.json"), "--ruleset", "sn15"
    )
    assert refused.returncode == 2 and "--ruleset" in refused.stderr and not (tmp_path / "x.json").exists()
    catalog_dir = mixed_inputs[0]
    report = tmp_path / "c.json"
    check = arena_cli("problems", "selfcheck", str(pack), "--catalog", str(catalog_dir), "--json", str(report))
    assert check.returncode == 0, check.stdout + check.stderr
    assert json.loads(report.read_text())["by_task"]["lookup"] == {"problems": 3, "gold_passed": 3}
    # combined with the mixed pack (its lookups by the default, mock-exact): each family keeps its own ruleset, and
    # the one family scored two ways is refused until --ruleset chooses
    mixed = load_pack(mixed_inputs[1], require_signature=False)
    same_catalog = tmp_path / "lookups-cat.json"
    write_pack(written.model_copy(update={"catalog_digest": mixed.catalog_digest}), same_catalog)
    combine = ["problems", "pack", str(same_catalog), str(mixed_inputs[1]), "--key-uri", "//Alice"]
    clash = arena_cli(*combine, "--out", str(tmp_path / "both.json"))
    assert clash.returncode == 2 and "mock: mock-exact, mock-number" in clash.stderr, clash.stderr
    done = arena_cli(*combine, "--out", str(tmp_path / "both.json"), "--ruleset", "sn15,mock=mock-number")
    assert done.returncode == 0, done.stderr
    both = load_pack(tmp_path / "both.json", require_signature=False)
    assert [both.ruleset_for(t) for t in ("lookup", "product")] == ["mock-number", "sn15"]


def test_a_pack_names_a_ruleset_per_family_each_family_defaulting_to_its_first() -> None:
    problems = mock_family.problems(2)
    old = new_pack(problems, catalog_digest=None, generator_version="mock", embed=False)  # one ruleset, as before
    assert old.ruleset == "shoppingbench" and old.ruleset_for("lookup") == "mock-exact"
    assert old.ruleset_for("product") == "shoppingbench" and old.ruleset_for("session") == "shoppingbench"
    chosen = new_pack(
        problems,
        catalog_digest=None,
        generator_version="mock",
        embed=False,
        ruleset="sn15",
        rulesets={"mock": "mock-number"},
    )
    assert [chosen.ruleset_for(t) for t in ("lookup", "product", "session")] == ["mock-number", "sn15", "sn15"]
    with pytest.raises(PackError, match="mock.*no ruleset 'sn15'"):
        new_pack(problems, catalog_digest=None, generator_version="mock", embed=False, rulesets={"mock": "sn15"})
    problem = problems[0]
    short = str(int(problem.codes[problem.name]))  # the code without its leading zeros
    assert short != problem.codes[problem.name]
    verdicts = {
        name: tasks.score(problem, short, lambda _: None, ruleset=chosen.ruleset_for("lookup") if name else None)
        for name in ("number", "")
    }
    assert verdicts["number"].success and verdicts["number"].ruleset == "mock-number"
    assert not verdicts[""].success and verdicts[""].ruleset == "mock-exact"


def test_the_judge_sees_the_familys_context_and_the_answer_is_its_answer_tools_call() -> None:
    problem = mock_family.problems(1)[0]
    context = tasks.judge_context(problem)
    assert context["names"] == "name0, name1, name2, name3" and problem.codes[problem.name] not in str(context)
    code = problem.codes[problem.name]
    at = datetime.now(UTC)
    events = [
        TrajectoryEvent(
            run_id="r", seq=0, kind="tool_call", name="commit_code", arguments={"product_ids": code}, started_at=at
        ),
        TrajectoryEvent(
            run_id="r", seq=1, kind="tool_call", name="recommend_product", arguments={"product_ids": "x"}, started_at=at
        ),
    ]
    assert raw_answer(events, "lookup") == code  # recommend_product is no tool of this family: not its answer
    assert raw_answer(events, "product") == "x"
    evidence = build_evidence(context, events)
    assert "names:\n| name0, name1, name2, name3" in evidence and f"<answer seq=0>\n| {code}" in evidence


BASELINE = """
\"\"\"Task ``lookup``: the code of the name the query asks for, looked up and committed.\"\"\"


def solve(s, query):
    name = query.split("'")[1]
    code = s.tool("lookup_code", key=name)
    if code:
        s.answer = [code]
        s.tool("commit_code", final=True, product_ids=code)
"""


def test_a_new_familys_baseline_in_the_offline_template_is_one_file(tmp_path: Path) -> None:
    """The offline template finds a task's strategy by the task's name: `baseline/lookup.py` is all it takes."""
    bundle = tmp_path / "bundle"
    shutil.copytree(ROOT / "miner_template" / "offline", bundle, ignore=shutil.ignore_patterns("__pycache__"))
    (bundle / "baseline" / "lookup.py").write_text(BASELINE)
    problem = mock_family.problems(1)[0]
    script = f"""
import importlib.util, json, sys
from arena import tasks
from arena.tools import ToolContext
from tests.support import mock_family
from validator.api import create_app

problem = mock_family.problems(1)[0]
registry, state, calls = tasks.tools_for("lookup"), mock_family.FAMILY.run_state(problem), []
def call(name, **arguments):
    calls.append(name)
    return registry.call(name, arguments, ToolContext(catalog=None, state=state))
spec = importlib.util.spec_from_file_location("agent", {str(bundle / "agent.py")!r})
agent = importlib.util.module_from_spec(spec)
spec.loader.exec_module(agent)
print(json.dumps({{"out": agent.solve(problem.public(), call), "calls": calls}}))
"""
    env = {**os.environ, tasks.ENV: "tests.support.mock_family", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown["calls"] == ["lookup_code", "commit_code", "terminate"]
    assert shown["out"]["recommended"] == [problem.codes[problem.name]] and not shown["out"]["errors"]
