"""One verdict: a miner's `arena-miner test` gives exactly the verdict a validator's node gives, field by field.

The same agents race the same problems on a node (the store, LocalChain, the bubblewrap sandbox, the offline judge)
and under `arena-miner test` (a subprocess, the same harness and gateway), both behind one real OpenAI-compatible
server (the one double: an upstream LLM this machine cannot reach) that fails every call: an honest agent is
scored and judged alike; an agent that asks the LLM and carries on when it fails is the validator's fault on both
(retried, never scored); an agent that never answers is its own zero on both. An LLM judge that cannot be reached
leaves the run unscored in `arena-miner test`, said so in its headline, never success alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena import blame
from arena.catalog import Catalog
from arena.problems.pack import load_pack
from demo.agents import MINER_TEMPLATE, write_template
from sandbox.backends import Limits
from sandbox.backends.process import ProcessSandbox
from sandbox.gateway import Gateway, Upstream
from tests.support.openai_server import Fail, OpenAIServer
from tests.support.race import build_arena_inputs, drive, make_chain, open_store, place_submission, write_agent
from validator.races import Arena, ArenaConfig

pytestmark = pytest.mark.slow  # a node and `arena-miner test`, both in bubblewrap behind the gateway

MODEL = "verdict-test-model"

# The offline template asking the node's LLM for a thought first, and carrying on without it when the call fails.
ASKS_THE_LLM = f"""

import json as _json
import os as _os
import urllib.request as _request

_solve_now = agent_main


def agent_main(problem):
    body = _json.dumps({{"model": {MODEL!r}, "messages": [{{"role": "user", "content": problem["query"]}}]}}).encode()
    req = _request.Request(_os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=body,
                           headers={{"Content-Type": "application/json"}})
    try:
        _request.urlopen(req, timeout=60).read()
    except Exception:  # carry on without the LLM
        pass
    return _solve_now(problem)
"""
SILENT = "def agent_main(problem):\n    return {'thought': 'no answer today'}\n"


def always_down(body: dict[str, Any]) -> str:
    raise Fail(502, "bad gateway (upstream overloaded)")


def make_agents(root: Path) -> dict[str, Path]:
    silent = root / "silent"
    silent.mkdir(parents=True)
    (silent / "agent.py").write_text(SILENT)
    return {
        "honest": write_agent(root / "honest", "offline"),
        "asks-llm": write_template(root / "asks-llm", MINER_TEMPLATE.read_text() + ASKS_THE_LLM),
        "silent": silent,
    }


def node_verdicts(tmp_path: Path, inputs: Any, agents: dict[str, Path], base_url: str) -> tuple[dict, list]:
    """Race the agents on a node; returns {(agent, problem_id): verdict fields} and the race's problems."""
    setup = make_chain(tmp_path, list(agents))
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    names = {}
    for i, (name, folder) in enumerate(agents.items()):
        hotkey = setup.miners[name].hotkey.ss58_address
        names[hotkey] = name
        place_submission(store, data_dir, hotkey, folder, block=10 + i)
    catalog_dir, pack_path, signer = inputs
    catalog = Catalog.open(catalog_dir)
    pack = load_pack(pack_path, catalog_digest=catalog.digest, trusted_signers={signer})
    arena = Arena(
        store=store,
        chain=setup.chain,
        wallet=setup.validators[0],
        pack=pack,
        catalog=catalog,
        sandbox=ProcessSandbox("bwrap"),
        config=ArenaConfig(data_dir=data_dir, concurrency=2, max_attempts=1, limits=Limits(wall_seconds=60)),
        gateway=Gateway(catalog, upstream=Upstream(base_url=base_url, models=[MODEL])),
    )
    arena.start()
    try:
        race_id = arena.open_race()
        assert race_id is not None
        drive(arena, lambda: all(r.status in ("finished", "errored") for r in store.runs(race_id=race_id)))
    finally:
        arena.stop()
    found = {}
    for run in store.runs(race_id=race_id):
        score = store.score(run.run_id)
        judge = (score.judge or {}) if score is not None else {}
        found[(names[run.hotkey], run.problem_id)] = {
            "verdict": {"finished": "finished", "errored": "retry" if run.blame == "validator" else "errored"}[
                run.status
            ],
            "error_code": run.error_code,
            "blame": run.blame,
            "retry": run.blame == "validator",
            "success": bool(score and score.success),
            "before_judge": None if score is None else (score.strict or {}).get("final"),
            "judge_gate": judge.get("gate"),
            "judge_quality": None if score is None else score.judge_quality,
            "judge_coefficient": None if score is None else score.judge_coefficient,
            "final": (None if score is None else score.final) if run.blame != "agent" else 0.0,
        }
    problems = sorted({pid for _, pid in found})
    return found, [pack.problem(pid) for pid in problems]


def miner_test(agent: Path, problems: Path, catalog: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    out.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "miner_template.cli", "test", str(agent), "--problems", str(problems)]
        + ["--catalog", str(catalog), "--n", "10", "--out", str(out), "--json", str(out.with_suffix(".json")), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_the_node_and_arena_miner_test_give_the_same_verdicts_field_by_field(tmp_path: Path) -> None:
    inputs = build_arena_inputs(tmp_path / "arena", problems=16, per_race=3)
    agents = make_agents(tmp_path / "agents")
    with OpenAIServer(always_down, models=(MODEL,)) as server:
        node, problems = node_verdicts(tmp_path, inputs, agents, server.base_url)
        jsonl = tmp_path / "race.jsonl"
        jsonl.write_text("".join(p.model_dump_json() + "\n" for p in problems))
        cards = {}
        for name, folder in agents.items():
            out = tmp_path / "out" / name
            proc = miner_test(folder, jsonl, inputs[0], out, "--llm-base-url", server.base_url, "--model", MODEL)
            assert out.with_suffix(".json").is_file(), proc.stderr[-3000:]
            cards[name] = (proc, json.loads(out.with_suffix(".json").read_text()))
    assert {v["verdict"] for v in node.values()} == {"finished", "retry", "errored"}, node
    fields = next(iter(node.values())).keys()
    for name, (proc, card) in cards.items():
        assert len(card["problems"]) == len(problems), proc.stderr
        for row in card["problems"]:
            mine = {f: row[f] for f in fields}
            assert mine == node[(name, row["problem_id"])], (name, row["problem_id"])
    # the honest agent is judged; the one whose LLM failed is the validator's to retry, its answer never scored
    assert all(r["judge_gate"] and r["final"] is not None for r in cards["honest"][1]["problems"])
    asked = cards["asks-llm"]
    assert all(r["error_code"] == blame.UPSTREAM_LLM_DOWN and r["final"] is None for r in asked[1]["problems"])
    assert asked[0].returncode == 3 and "the validator would retry this run, never score it" in asked[0].stderr
    assert "run(s) left out that a validator would retry" in asked[0].stdout
    assert all(r["error_code"] == blame.NO_ANSWER and r["final"] == 0.0 for r in cards["silent"][1]["problems"])


def test_an_llm_judge_that_cannot_be_reached_leaves_the_run_unscored_never_success_alone(tmp_path: Path) -> None:
    inputs = build_arena_inputs(tmp_path / "arena", problems=8, per_race=2)
    catalog = Catalog.open(inputs[0])
    pack = load_pack(inputs[1], catalog_digest=catalog.digest, trusted_signers={inputs[2]})
    jsonl = tmp_path / "two.jsonl"
    jsonl.write_text("".join(p.model_dump_json() + "\n" for p in pack.problems[:2]))
    agent = write_agent(tmp_path / "honest", "offline")
    with OpenAIServer(always_down, models=(MODEL,)) as server:
        judge = ["--judge", "llm", "--judge-url", server.base_url, "--judge-model", MODEL]
        proc = miner_test(agent, jsonl, inputs[0], tmp_path / "out", *judge)
    card = json.loads((tmp_path / "out.json").read_text())
    rows = card["problems"]
    assert len(rows) == 2 and all(r["status"] == "ok" and r["before_judge"] is not None for r in rows), rows
    # strictly scored, but the judge could not judge: the validator's fault, judged again later, never scored yet
    assert all(
        (r["verdict"], r["error_code"], r["blame"], r["final"]) == ("retry", 2004, "validator", None) for r in rows
    )
    assert proc.returncode == 3
    assert "2 run(s) left out because the judge could not judge them" in proc.stdout
    assert "mean final score 0.000 over 0 run(s)" in proc.stdout
