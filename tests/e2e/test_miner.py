"""`arena-miner` end to end: init, check, test with the validator's gateway and harness in bubblewrap."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
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


# ------------------------------------------------------------------------------------- shopping sessions


@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> tuple[str, str, list[str]]:
    """A small catalog and a JSONL of three generated session problems and one ShoppingBench product problem."""
    from arena.catalog import Catalog
    from arena.catalog.build import build_catalog
    from arena.tasks.session.generate import generate_sessions
    from arena.tasks.shoppingbench.generate import generate_problems

    root = tmp_path_factory.mktemp("sessions")
    build_catalog(5, 8000, root / "cat", workers=1)
    catalog = Catalog.open(root / "cat")
    # easy sessions (one item): the template's to solve, so pass^k has something to count; the generator gives up on
    # some draws
    problems = generate_sessions(catalog, 8, seed=2, mix={"easy": 1.0})[:3]
    assert len(problems) == 3
    problems += [p for p in generate_problems(catalog, 8, seed=3).problems if p.task == "product"][:1]
    (root / "problems.jsonl").write_text("".join(p.model_dump_json() + "\n" for p in problems))
    return str(root / "problems.jsonl"), str(root / "cat"), [p.problem_id for p in problems]


def test_the_offline_template_on_sessions_with_pass_hat_k(tmp_path, sessions):
    problems, catalog, ids = sessions
    agent = tmp_path / "agent"
    miner("init", str(agent), "--template", "offline")
    proc = miner(
        "test",
        str(agent),
        "--problems",
        problems,
        "--catalog",
        catalog,
        "--k",
        "2",
        "--out",
        str(tmp_path / "out"),
        "--json",
        str(tmp_path / "card.json"),
    )
    card = json.loads((tmp_path / "card.json").read_text())
    rows = card["problems"]
    assert card["k"] == 2 and len(rows) == 2 * len(ids) and all(row["status"] == "ok" for row in rows), rows
    assert [(row["problem_id"], row["trial"]) for row in rows] == [(pid, t) for pid in ids for t in (1, 2)]
    reliable = card["reliability"]
    assert reliable["problems"] == len(ids) and reliable["runs"] == 2 * len(ids)
    solved = {pid: [row["success"] for row in rows if row["problem_id"] == pid] for pid in ids}
    assert reliable["pass_hat_k"] == sum(all(s) for s in solved.values()) / len(ids)
    assert reliable["pass_at_1"] == sum(sum(s) for s in solved.values()) / (2 * len(ids))
    assert reliable["by_task"]["session"]["problems"] == 3 and reliable["by_task"]["session"]["pass_hat_k"] > 0
    assert "pass^2" in proc.stdout and "pass@1" in proc.stdout
    # each session's report holds its conversation, as the gateway logged it; a ShoppingBench run has none
    for row in rows:
        name = f"{row['problem_id']}.run{row['trial']}"
        report = (tmp_path / "out" / "reports" / f"{name}.md").read_text()
        events = [
            json.loads(line) for line in (tmp_path / "out" / "trajectories" / f"{name}.jsonl").read_text().splitlines()
        ]
        if row["task"] != "session":
            assert "## Conversation" not in report and "conversation" not in row
            continue
        assert "## Conversation" in report and "**agent:** (reads the profile)" in report
        talk = [e for e in events if e["name"] in ("ask_user", "respond")]
        assert talk and len(row["conversation"]) >= 2 * len(talk)
        for e in talk:
            assert f"**shopper:** {e['result']['user']}" in report
            if e["name"] == "ask_user":
                assert f"**agent:** asks: {e['arguments']['question']}" in report


def session_model(body):
    """A scripted tool-calling model for a session: reads the profile and searches the opening, proposes the hits
    one at a time (the same one again after a change of mind), commits the one the shopper agrees to."""
    from tests.support.shopper import tool_call

    messages = body["messages"]
    opening = messages[1]["content"]
    calls = [c for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    if not calls:
        return {
            "content": None,
            "tool_calls": [tool_call("p", "get_user_profile", {}), tool_call("s", "find_product", {"q": opening})],
        }
    search = next(m for m in messages if m["role"] == "tool" and m["tool_call_id"] == "s")
    hits = [h["product_id"] for h in json.loads(search["content"])]
    proposed = [
        json.loads(c["function"]["arguments"])["product_ids"][0] for c in calls if c["function"]["name"] == "respond"
    ]
    last = messages[-1]["content"] if messages[-1]["role"] == "user" and proposed else ""
    n = len(calls)
    if "go ahead" in last:
        return {
            "content": "They agreed.",
            "tool_calls": [
                tool_call(f"c{n}", "recommend_product", {"product_ids": proposed[-1]}),
                tool_call(f"c{n + 1}", "terminate", {"status": "success"}),
            ],
        }
    left = [h for h in hits if h not in proposed]
    pid = proposed[-1] if proposed and not last.startswith("Not that one") else (left[0] if left else hits[0])
    return {
        "content": None,
        "tool_calls": [tool_call(f"c{n}", "respond", {"message": "How about this?", "product_ids": [pid]})],
    }


def test_the_llm_template_talks_with_the_shopper_in_chat_turns(tmp_path, sessions):
    problems, catalog, ids = sessions
    agent = tmp_path / "llm"
    miner("init", str(agent), "--template", "llm")
    with OpenAIServer(session_model, models=(MODEL,)) as server:
        miner(
            "test",
            str(agent),
            "--problems",
            problems,
            "--catalog",
            catalog,
            "--n",
            "3",
            "--llm-base-url",
            server.base_url,
            "--model",
            MODEL,
            "--judge",
            "none",
            "--json",
            str(tmp_path / "card.json"),
            "--out",
            str(tmp_path / "o"),
        )
        requests = server.requests
    card = json.loads((tmp_path / "card.json").read_text())
    assert [row["problem_id"] for row in card["problems"]] == ids[:3]
    assert all(row["status"] == "ok" and row["task"] == "session" for row in card["problems"])
    # the model saw the session family's tools, and every answer of the shopper came back as a user turn
    names = {t["function"]["name"] for t in requests[0]["tools"]}
    assert {"ask_user", "respond", "get_user_profile", "recommend_product"} <= names
    for row in card["problems"]:
        events = [
            json.loads(line)
            for line in (tmp_path / "o" / "trajectories" / f"{row['problem_id']}.jsonl").read_text().splitlines()
        ]
        said = [e["result"]["user"] for e in events if e["name"] == "respond" and e["error"] is None]
        assert said and any(w["says"].startswith(said[0]) for w in row["conversation"] if w["who"] == "shopper")
        chats = [r["messages"] for r in requests]
        users = {m["content"] for msgs in chats for m in msgs if m["role"] == "user"}
        assert all(words in users for words in said[:-1])  # the last answer may end the run before a next request
        committed = [e for e in events if e["name"] == "recommend_product"]
        if committed:  # committed only after the shopper agreed
            assert "go ahead" in said[-1] or "works for me" in said[-1]


def test_the_default_problems_of_one_task(tmp_path, cache):
    """--task session: the default problems are a public pack of sessions generated (once) on the default catalog."""
    agent = tmp_path / "agent"
    miner("init", str(agent), "--template", "offline")
    args = ["--task", "session", "--n", "2", "--k", "2", "--judge", "none"]
    proc = miner(
        "test", str(agent), *args, "--json", str(tmp_path / "card.json"), "--out", str(tmp_path / "o"), env=cache
    )
    card = json.loads((tmp_path / "card.json").read_text())
    assert len(card["problems"]) == 4 and {row["task"] for row in card["problems"]} == {"session"}
    assert card["reliability"]["problems"] == 2 and "pass^2" in proc.stdout
    from pathlib import Path

    assert (Path(cache["ARENA_CACHE"]) / "public-session-12.json").exists()
    assert "unknown task type 'nope'" in miner("test", str(agent), "--task", "nope", check=False, env=cache).stderr


# ------------------------------------------------------------------------------------- stopping a test


@pytest.fixture(scope="module")
def two_problems(tmp_path_factory) -> tuple[str, str]:
    """A small catalog and a JSONL of two of its problems."""
    from arena.catalog import Catalog
    from arena.catalog.build import build_catalog
    from arena.tasks.shoppingbench.generate import generate_problems

    root = tmp_path_factory.mktemp("small")
    build_catalog(3, 1000, root / "cat", workers=1)
    problems = generate_problems(Catalog.open(root / "cat"), 4, seed=2).problems[:2]
    (root / "problems.jsonl").write_text("".join(p.model_dump_json() + "\n" for p in problems))
    return str(root / "problems.jsonl"), str(root / "cat")


def _sleepers(token: str) -> list[psutil.Process]:
    """Live processes running ``sleep <token>`` (the agent's own child, in whatever sandbox it is)."""
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        if proc.info["cmdline"] == ["sleep", token] and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found


@pytest.mark.parametrize("sandbox", [[], ["--unsafe-local"], ["--sandbox", "docker"]], ids=["bwrap", "bare", "docker"])
def test_sigterm_stops_the_running_sandbox_and_says_so(tmp_path, two_problems, sandbox):
    """`arena-miner test` stopped by SIGTERM (a terminal closed, a CI job cancelled) leaves no sandbox behind: not
    the agent's processes (in bare mode they run in a session of their own), not its container."""
    token = f"{600 + os.getpid() % 1000}.{time.time_ns() % 10**6}"  # this test's own sleep, told apart from others
    agent = tmp_path / "slow"
    agent.mkdir()
    (agent / "agent.py").write_text(
        "import subprocess, time\n\n\ndef agent_main(problem):\n"
        f"    subprocess.Popen(['sleep', '{token}'])\n    time.sleep(600)\n"
    )
    problems, catalog = two_problems
    args = ["test", str(agent), "--problems", problems, "--catalog", catalog, "--timeout", "300", *sandbox]
    proc = subprocess.Popen(
        [sys.executable, "-m", "miner_template.cli", *args, "--out", str(tmp_path / "out")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    try:
        deadline = time.monotonic() + 300
        while not _sleepers(token) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        running = _sleepers(token)
        assert running, f"the agent never started: {proc.poll()} {proc.stderr.read() if proc.poll() else ''}"
        children = psutil.Process(proc.pid).children(recursive=True)
        containers = {m for p in running for m in re.findall(r"docker[-/]([0-9a-f]{64})", _cgroup(p.pid))}
        assert bool(containers) == ("docker" in sandbox)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = [line for line in err.splitlines() if "stopped by SIGTERM" in line]
    assert proc.returncode == 143 and len(lines) == 1, err[-2000:]
    assert "sandbox was stopped" in lines[0] and "0 of 2 problems ran" in lines[0]
    _, alive = psutil.wait_procs([*running, *children], timeout=30)
    assert [p.pid for p in alive if _live(p)] == []
    if containers:
        import docker

        client = docker.from_env()
        assert [c.id for c in client.containers.list(all=True) if c.id in containers] == []


def _cgroup(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:
        return ""


def _live(proc: psutil.Process) -> bool:
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
