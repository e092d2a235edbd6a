"""The compatibility family raced end to end beside ShoppingBench: its generated problems in one signed pack, the
gateway serving its tools, the offline template's baseline and an agent answering the best-selling accessory
without reading fit, each run in bubblewrap, scored by the family's strict check, judged, ranked and weighed; then
its runs exported to the training corpus under the family's prompt and tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bittensor.sp_core import Keypair
from fastapi.testclient import TestClient

from arena import tasks
from arena.catalog import Catalog
from arena.problems.pack import Rotation, load_pack, new_pack, write_pack
from arena.problems.splits import assign_splits
from arena.tasks.compatibility import FAMILY
from arena.tasks.compatibility.generate import generate_report
from arena.tasks.compatibility.problem import CompatProblem
from tests.support.race import build_arena_inputs, make_chain, place_submission, run_race, start_node, write_agent
from validator.api import create_app
from validator.corpus import ExportOptions, export_corpus

pytestmark = pytest.mark.slow  # races in bubblewrap

#: the attacker: the best-selling listing for the accessory's words, whatever it fits
POPULAR = """
import re
from arena_agent import call_tool


def agent_main(problem):
    asked = re.search(r"[Ff]ind me (?:an? )?(.+?)(?: that | made | big enough|[.])", problem["query"])
    hits = call_tool("find_product", q=asked.group(1) if asked else problem["query"], sort="order")
    answer = str(hits[0]["product_id"]) if hits else "0"
    call_tool("recommend_product", product_ids=answer)
    call_tool("terminate", status="success")
    return {"answer": answer}
"""


@pytest.fixture(scope="module")
def mixed_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The race test's catalog and ShoppingBench pack, plus compatibility problems generated from that catalog, in
    one signed pack whose races are two thirds compatibility."""
    root = tmp_path_factory.mktemp("compat-race")
    catalog_dir, pack_path, _ = build_arena_inputs(root, problems=12, per_race=6)
    catalog = Catalog.open(catalog_dir)
    shopping = load_pack(pack_path, require_signature=False)
    generated = generate_report(catalog, 16, seed=1).problems
    assert len(generated) >= 8
    compat = assign_splits(generated, {"public": 0.0, "race": 1.0, "held_out": 0.0}, seed=1)
    operator = Keypair.create_from_uri("//ShopArenaCompat")
    pack = new_pack(
        [*shopping.problems, *compat],
        catalog_digest=catalog.digest,
        generator_version="mixed",
        rotation=Rotation(cadence_blocks=5, problems_per_race=6, task_mix={"product": 1, "compatibility": 2}),
    ).signed(operator)
    return catalog_dir, write_pack(pack, root / "mixed.json"), operator.ss58_address


def _compat_scores(arena: Any, store: Any, race_id: str, hotkey: str) -> list[tuple[Any, CompatProblem, Any]]:
    out = []
    for run in store.runs(race_id=race_id):
        problem = arena.pack.problem(run.problem_id)
        if run.hotkey == hotkey and isinstance(problem, CompatProblem):
            out.append((run, problem, store.score(run.run_id)))
    return out


def test_a_race_of_compatibility_problems_scores_each_run_by_fit(mixed_inputs: Any, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, ["offline", "popular"])
    data_dir = tmp_path / "node"
    url = f"sqlite:///{tmp_path / 'node.sqlite'}"
    arena = start_node(url, setup.chain, setup.validators[0], mixed_inputs, data_dir, concurrency=2)
    store = arena.store
    hotkeys = {name: setup.miners[name].hotkey.ss58_address for name in ("offline", "popular")}
    write_agent(tmp_path / "agents" / "offline", "offline")
    (tmp_path / "agents" / "popular").mkdir(parents=True)
    (tmp_path / "agents" / "popular" / "agent.py").write_text(POPULAR)
    for i, name in enumerate(("offline", "popular")):
        place_submission(store, data_dir, hotkeys[name], tmp_path / "agents" / name, block=10 + i)
    run_race(arena, store)

    race = [r for r in store.races() if r.status == "closed"][0]
    catalog = Catalog.open(mixed_inputs[0])
    means = {}
    for name, hotkey in hotkeys.items():
        scored = _compat_scores(arena, store, race.race_id, hotkey)
        assert len(scored) >= 3, [(r.status, r.error) for r, _, _ in scored]
        for run, problem, score in scored:
            assert run.status == "finished", (run.status, run.error)
            assert score is not None and score.strict["ruleset"] == "compatibility"
            names = {e.name for e in store.events(run.run_id) if e.kind == "tool_call"}
            assert names <= {t.name for t in FAMILY.tools()} and "recommend_product" in names
            # the stored verdict is the family's check of the committed answer, with the checks that explain it
            again = FAMILY.score(problem, ",".join(score.strict["answer"]), catalog.get)
            assert score.success == float(again.success)
            assert [c["name"] for c in score.strict["checks"]][:2] == ["one_product", "known"] or not again.answer
        means[name] = sum(s.success for _, _, s in scored) / len(scored)
    assert means["offline"] > means["popular"], means
    assert means["offline"] >= 0.5, means
    assert store.weight_sets()[-1].status == "set"

    # the run page (the race closed): the device, what fits it and the gold, then the answer and its checks
    run, problem, score = _compat_scores(arena, store, race.race_id, hotkeys["offline"])[0]
    page = TestClient(create_app(store)).get(f"/api/runs/{run.run_id}").json()
    sections = {s["id"]: s for s in page["sections"]}
    assert list(sections) == ["compat-request", "strict-generic", "checks"]
    assert all(v in sections["compat-request"]["facts"]["fits when"] for v in problem.fit.values)
    assert sections["strict-generic"]["facts"]["answer"] == (", ".join(score.strict["answer"]) or "nothing")
    assert [c["name"] for c in sections["checks"]["checks"]] == [c["name"] for c in score.strict["checks"]]

    # the corpus: the family's runs as chats under its own prompt and tool schemas, their calls as the gateway logged
    done = export_corpus(
        store,
        tmp_path / "corpus",
        ExportOptions(tasks=("compatibility",), axis="b", judge_threshold=0.0, held_out_fraction=0.0),
    )
    rows = [json.loads(line) for line in (tmp_path / "corpus" / "train.jsonl").read_text().splitlines()]
    assert done.train == len(rows) >= 1, done.funnel
    for row in rows:
        assert row["metadata"]["task"] == "compatibility"
        assert row["messages"][0]["content"].startswith(tasks.family("compatibility").corpus_prompt)
        assert {t["function"]["name"] for t in row["tools"]} == {t.name for t in FAMILY.tools()}
        calls = [c for m in row["messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        logged = [e for e in store.events(row["metadata"]["run_id"]) if e.kind == "tool_call"]
        assert [c["function"]["name"] for c in calls] == [e.name for e in logged]
    store.close()
