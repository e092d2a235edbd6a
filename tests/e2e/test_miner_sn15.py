"""`arena-miner check` and `test` on a subnet-15 one-file agent, with no flag: detected from its imports, run in the
validator's harness (bubblewrap and Docker) against a scripted ReAct model behind a real OpenAI-compatible server."""

from __future__ import annotations

import json
import shutil

import pytest

from demo.llm import MODEL, ScriptedLLMServer
from tests.e2e.test_miner import cache, miner  # noqa: F401 - the shared fixture and runner

pytestmark = pytest.mark.slow  # arena-miner test in bubblewrap and Docker, an OpenAI-compatible server

SN15_AGENT = __import__("pathlib").Path(__file__).resolve().parents[2] / "miner_template" / "sn15" / "agent.py"
TORCH_AGENT = """import json
import torch
from src.agent.agent_interface import create_dialogue_step

try:
    import pandas
except ImportError:
    pandas = None


def agent_main(problem_data):
    return [create_dialogue_step("", [], json.dumps(torch.ones(1).tolist()), problem_data["query"], 1)]
"""


def test_check_says_it_is_an_sn15_agent_and_warns_about_missing_imports(tmp_path):
    agent = tmp_path / "sn15"
    miner("init", str(agent), "--template", "sn15")
    assert (agent / "agent.py").read_text() == SN15_AGENT.read_text()
    proc = miner("check", str(agent))
    assert "SN15 agent (imports src.agent.agent_interface, src.agent.proxy_client)" in proc.stdout
    assert "warning" not in proc.stderr
    (agent / "agent.py").write_text(TORCH_AGENT)
    proc = miner("check", str(agent))
    assert proc.returncode == 0 and "SN15 agent" in proc.stdout
    assert "agent.py:2 imports torch, which the sandbox does not provide" in proc.stderr
    assert "pandas" not in proc.stderr  # guarded by try/except ImportError: the agent copes without it


@pytest.mark.parametrize("sandbox", ["process", "docker"])
def test_an_sn15_agent_runs_unchanged_in_arena_miner_test(tmp_path, cache, sandbox):  # noqa: F811
    if sandbox == "docker":
        from sandbox.image.build import build_image

        build_image(log=lambda message: None)
    agent = tmp_path / "sn15"
    agent.mkdir()
    shutil.copyfile(SN15_AGENT, agent / "agent.py")
    with ScriptedLLMServer() as llm:
        miner(
            "test",
            str(agent),
            "--n",
            "4",
            "--sandbox",
            sandbox,
            "--llm-base-url",
            llm.base_url,
            "--model",
            MODEL,
            "--out",
            str(tmp_path / "out"),
            "--json",
            str(tmp_path / "card.json"),
            env=cache,
        )
    card = json.loads((tmp_path / "card.json").read_text())
    rows = card["problems"]
    assert all(r["status"] == "ok" and r["error_code"] is None for r in rows), rows
    assert all(r["llm_calls"] >= 2 and r["tool_calls"] >= 2 and r["raw_answer"] for r in rows), rows
    for row in rows:  # the answer is the gateway's last recommend_product, handed over from the returned steps
        events = [
            json.loads(x)
            for x in (tmp_path / "out" / "trajectories" / f"{row['problem_id']}.jsonl").read_text().splitlines()
        ]
        assert [e["name"] for e in events[-2:]] == ["returned_steps", "recommend_product"]
        assert events[-1]["arguments"]["product_ids"] == row["raw_answer"]


def test_test_prints_the_agents_real_error_line(tmp_path, cache):  # noqa: F811
    agent = tmp_path / "torch"
    agent.mkdir()
    (agent / "agent.py").write_text(TORCH_AGENT)
    proc = miner("test", str(agent), "--n", "1", "--out", str(tmp_path / "out"), env=cache)
    assert (
        "import_failed (1001) ModuleNotFoundError: No module named 'torch' (the sandbox does not provide 'torch'"
        in " ".join(proc.stderr.split())
    )
    report = next((tmp_path / "out" / "reports").glob("*.md")).read_text()
    status = next(line for line in report.splitlines() if line.startswith("**Status:**"))
    assert "code 1001: ModuleNotFoundError: No module named 'torch'" in status
