"""`arena-miner` end to end: init, check, test with the validator's gateway and harness in bubblewrap."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support.openai_server import OpenAIServer
from tests.support.shopper import scripted_shopper

pytestmark = pytest.mark.slow  # arena-miner test: the harness in bubblewrap behind the gateway


def miner(*args: str, env: dict[str, str] | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "miner_template.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"arena-miner {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-3000:]}")
    return proc


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> dict[str, str]:
    return {"ARENA_CACHE": str(tmp_path_factory.mktemp("cache"))}


def test_init_check_and_test_the_offline_template(tmp_path, cache):
    agent = tmp_path / "agent"
    miner("init", str(agent), "--template", "offline")
    assert "sha256" in miner("check", str(agent)).stdout
    proc = miner(
        "test",
        str(agent),
        "--n",
        "12",
        "--out",
        str(tmp_path / "out"),
        "--json",
        str(tmp_path / "card.json"),
        env=cache,
    )
    card = json.loads((tmp_path / "card.json").read_text())
    assert card["suite"]["problems"] == 12 and card["backend"] == "process-bwrap"
    assert all(row["status"] == "ok" for row in card["problems"]), card["problems"]
    assert card["suite"]["success_rate"] > 0, proc.stdout
    assert "scorecard" in proc.stdout
    # the recorded trajectory is exactly the gateway's log, and the answer is its last recommendation
    for row in card["problems"]:
        lines = (tmp_path / "out" / "trajectories" / f"{row['problem_id']}.jsonl").read_text().splitlines()
        events = [json.loads(line) for line in lines]
        assert [e["seq"] for e in events] == list(range(len(events)))
        recs = [e for e in events if e["name"] == "recommend_product" and e["error"] is None]
        assert row["answer"] == [p.strip() for p in recs[-1]["arguments"]["product_ids"].split(",")]
        assert (tmp_path / "out" / "reports" / f"{row['problem_id']}.md").exists()
    node_log = (tmp_path / "out" / "gateway.jsonl").read_text().splitlines()
    assert len(node_log) == sum(row["tool_calls"] for row in card["problems"])


def test_a_fake_trajectory_earns_nothing(tmp_path, cache):
    # warm the cache and learn the gold answers the way a cheater would try to claim them: printing and returning
    agent = tmp_path / "liar"
    agent.mkdir()
    (agent / "agent.py").write_text(
        "def agent_main(problem):\n"
        "    print('recommend_product(product_ids=1000000001)')\n"
        "    return {'trajectory': [{'name': 'recommend_product', 'arguments': {'product_ids': '1000000001'}}]}\n"
    )
    miner(
        "test", str(agent), "--n", "12", "--json", str(tmp_path / "card.json"), "--out", str(tmp_path / "o"), env=cache
    )
    card = json.loads((tmp_path / "card.json").read_text())
    assert card["suite"]["success_rate"] == 0 and all(row["answer"] == [] for row in card["problems"])


MODEL = "shopper-7b-q4"  # not a default anywhere: it reaches the agent only through --model


def test_llm_template_runs_the_model_given_with_model(tmp_path, cache):
    agent = tmp_path / "llm"
    miner("init", str(agent), "--template", "llm")
    chosen: dict[str, str] = {}
    with OpenAIServer(scripted_shopper(chosen), models=(MODEL, "other-model")) as server:
        proc = miner(
            "test",
            str(agent),
            "--n",
            "4",
            "--llm-base-url",
            server.base_url,
            "--model",
            MODEL,
            "--model",
            "other-model",
            "--json",
            str(tmp_path / "card.json"),
            "--out",
            str(tmp_path / "o"),
            env=cache,
        )
        assert server.requests and {r["model"] for r in server.requests} == {MODEL}  # the first --model
        assert all("tools" in r for r in server.requests)  # the agent sent the registry's schemas
        # the tool results went back to the model in OpenAI's shape (the assistant turn carries its tool calls)
        later = [r["messages"] for r in server.requests if any(m["role"] == "tool" for m in r["messages"])]
        assert later and all(any(m.get("tool_calls") for m in msgs if m["role"] == "assistant") for msgs in later)
    card = json.loads((tmp_path / "card.json").read_text())
    assert card["llm_model"] == MODEL and card["notes"] == [] and "note:" not in proc.stdout
    rows = card["problems"]
    assert all(row["status"] == "ok" and row["llm_calls"] >= 2 for row in rows), rows
    # the answer of every run is what the model recommended through the tools
    assert len(chosen) == len(rows)
    for row in rows:
        events = [
            json.loads(line)
            for line in (tmp_path / "o" / "trajectories" / f"{row['problem_id']}.jsonl").read_text().splitlines()
        ]
        recommended = [e["arguments"]["product_ids"] for e in events if e["name"] == "recommend_product"]
        assert len(recommended) == 1 and recommended[0] in chosen.values()
        assert recommended[0] in json.dumps(row["answer"])


def test_llm_template_without_an_endpoint_says_so_in_one_line(tmp_path, cache):
    agent = tmp_path / "llm"
    miner("init", str(agent), "--template", "llm")
    proc = miner(
        "test", str(agent), "--n", "2", "--json", str(tmp_path / "card.json"), "--out", str(tmp_path / "o"), env=cache
    )
    card = json.loads((tmp_path / "card.json").read_text())
    assert card["llm_model"] is None and len(card["notes"]) == 1
    assert "no LLM endpoint is configured" in card["notes"][0] and "--llm-base-url" in card["notes"][0]
    lines = [line for line in proc.stdout.splitlines() if "no LLM endpoint" in line]
    assert len(lines) == 1 and lines[0].startswith("note:")
    # the template still answers (its search fallback), and the refused calls were recorded, none served
    assert all(row["status"] == "ok" and row["answer"] and row["llm_calls"] == 0 for row in card["problems"])


def test_a_model_the_agent_was_not_given_is_named(tmp_path, cache):
    agent = tmp_path / "fixed"
    agent.mkdir()
    (agent / "agent.py").write_text(
        "from arena_agent import llm\n"
        "def agent_main(problem):\n"
        "    try:\n"
        "        llm().chat.completions.create(model='gpt-4o', messages=[{'role': 'user', 'content': 'hi'}])\n"
        "    except Exception:\n"
        "        pass\n"
    )
    with OpenAIServer(lambda body: "hello", models=(MODEL,)) as server:
        proc = miner(
            "test",
            str(agent),
            "--n",
            "1",
            "--llm-base-url",
            server.base_url,
            "--model",
            MODEL,
            "--out",
            str(tmp_path / "o"),
            env=cache,
        )
        assert server.requests == []  # refused at the gateway
    assert "'gpt-4o'" in proc.stdout and "ARENA_LLM_MODEL" in proc.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--llm-base-url", "http://127.0.0.1:9/v1"], "--llm-base-url needs --model"),
        (["--model", MODEL], "--model needs --llm-base-url"),
        (["--llm-base-url", "127.0.0.1:9", "--model", MODEL], "not an http:// or https:// URL"),
    ],
)
def test_llm_options_go_together(tmp_path, args, fragment):
    agent = tmp_path / "llm"
    miner("init", str(agent), "--template", "llm")
    proc = miner("test", str(agent), *args, check=False)
    assert proc.returncode == 2 and fragment in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_bad_bundles_and_arguments(tmp_path, cache):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "agent.py").write_text("def agent_main():\n    pass\n")
    (bad / "x.py").write_text("def (:\n")
    proc = miner("check", str(bad), check=False)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert proc.returncode == 1 and len(lines) == 2
    assert miner("test", str(bad), check=False).returncode == 1
    assert (
        "--problems and --catalog go together"
        in miner("test", str(tmp_path), "--problems", "x.json", check=False).stderr
    )
    assert "not empty" in miner("init", str(bad), check=False).stderr
    assert "unknown template" in miner("init", str(tmp_path / "n"), "--template", "gpt", check=False).stderr


def test_unsafe_local_says_what_it_does_not_protect(tmp_path, cache):
    agent = tmp_path / "agent"
    miner("init", str(agent))
    proc = miner("test", str(agent), "--n", "2", "--unsafe-local", "--out", str(tmp_path / "o"), env=cache)
    assert "NO isolation" in miner("test", "--help").stdout or "no isolation" in proc.stderr.lower()
    assert "can read your files" in proc.stderr


def test_the_docker_backend_runs_the_same_harness(tmp_path, cache):
    agent = tmp_path / "agent"
    miner("init", str(agent))
    miner(
        "test",
        str(agent),
        "--n",
        "4",
        "--sandbox",
        "docker",
        "--json",
        str(tmp_path / "card.json"),
        "--out",
        str(tmp_path / "o"),
        env=cache,
    )
    card = json.loads((tmp_path / "card.json").read_text())
    assert card["backend"] == "docker" and all(row["status"] == "ok" for row in card["problems"])
    assert all(row["tool_calls"] > 0 for row in card["problems"])
