"""Subnet 15's one-file agents run unchanged in both sandboxes (bubblewrap and Docker), behind the same gateway:
`src.agent.*` importable, SANDBOX_PROXY_URL / SANDBOX_MODEL set, `/search/*` and `/inference/*` served from the one
tool registry and LLM proxy, the answer handed to the gateway from the returned steps, and scored from the gateway's
log only. The LLM is `demo.llm`'s scripted ReAct model behind a real HTTP server on loopback."""

from __future__ import annotations

import asyncio
import os
import textwrap
from pathlib import Path

import pytest

from arena.judge.offline import OfflineJudge
from arena.tasks.shopping.problem import Problem
from arena.tasks.shopping.tools import default_registry
from arena.tasks.shoppingbench.strict import score_run
from arena.tools import ToolContext
from demo.llm import MODEL, ScriptedLLMServer
from sandbox.backends import Limits
from sandbox.backends.process import ProcessSandbox
from sandbox.bundle import pack_dir, unpack
from sandbox.gateway import Budgets, Gateway, GatewayServer, Upstream
from sandbox.run import run_one

pytestmark = pytest.mark.slow  # both sandboxes behind the gateway, an OpenAI-compatible server

SN15_AGENT = Path(__file__).resolve().parents[2] / "miner_template" / "sn15" / "agent.py"
QUERY = "desk lamp"

# a code-first SN15 agent: no LLM, it only searches through the proxy and recommends the top hit
SEARCH_ONLY = """
    from urllib.parse import quote_plus
    from src.agent.agent_interface import Tool, create_dialogue_step, execute_tool_call
    from src.agent.proxy_client import ProxyClient

    proxy = ProxyClient(max_retries=1)

    @Tool
    def find_product(q, page=1):
        return proxy.get("/search/find_product", {"q": quote_plus(q), "page": page, "sort": "default"}) or []

    @Tool("recommend_product")
    def recommend(product_ids):
        return f"Having recommended the products to the user: {product_ids}."

    def agent_main(problem_data):
        query = problem_data["query"]
        search = execute_tool_call("find_product", {"q": query})
        best = search["result"][0]["product_id"]
        return [create_dialogue_step("search first", [search], "", query, 1),
                create_dialogue_step(f"{best} is the top hit", [execute_tool_call("recommend_product",
                                                                                  {"product_ids": best})],
                                     "done", query, 2)]
"""

# steps that claim searches, results and reasoning the gateway never saw
SPOOFED = """
    from src.agent.agent_interface import create_dialogue_step

    def agent_main(problem_data):
        fake = [{"product_id": "D999", "title": "Desk Lamp LED Reading Light (perfect match)", "price": 99}]
        search = {"name": "find_product", "parameters": {"q": "desk lamp"}, "tool_call_id": "x1", "result": fake}
        pick = {"name": "recommend_product", "parameters": {"product_ids": "D999"}, "tool_call_id": "x2",
                "result": "Having recommended the products to the user: D999."}
        think = "D999 is a desk lamp at 99, cheaper than every other hit, aluminium, USB powered: it matches."
        return [create_dialogue_step(think, [search], "", problem_data["query"], 1),
                create_dialogue_step(think, [pick], "I recommend D999.", problem_data["query"], 2)]
"""


@pytest.fixture(scope="session")
def docker_sandbox():
    from sandbox.backends.docker import DockerSandbox
    from sandbox.image.build import build_image

    build_image(log=lambda message: None)
    return DockerSandbox()


@pytest.fixture(scope="module", params=["process", "docker"])
def backend(request):
    if request.param == "docker":
        return request.getfixturevalue("docker_sandbox")
    return ProcessSandbox("bwrap")


@pytest.fixture(scope="module")
def node(tiny_catalog, tmp_path_factory, backend):
    root = tmp_path_factory.mktemp("sn15")
    os.chmod(root, 0o711)
    for parent in list(root.parents)[:-1]:
        os.chmod(parent, os.stat(parent).st_mode | 0o011)  # let uid 65534 traverse to the run folders
    with ScriptedLLMServer() as llm:
        gw = Gateway(tiny_catalog, upstream=Upstream(base_url=llm.base_url, models=[MODEL]))
        with GatewayServer(gw, root / "gw" / "gateway.sock"):
            yield gw, root, backend


RUNS = iter(range(10**6))


def run_agent(node, code, name, *, budgets=None, wall=60):
    gw, root, backend = node
    name = f"{name}-{next(RUNS)}"
    src = root / f"src-{name}"
    src.mkdir()
    (src / "agent.py").write_text(textwrap.dedent(code))
    agent_dir = unpack(pack_dir(src).data, root / f"agent-{name}")
    problem = {"problem_id": name, "task": "product", "query": QUERY, "n_products": 1}
    return asyncio.run(
        run_one(
            gw, backend, agent_dir, root / "gw", problem, limits=Limits(wall_seconds=wall), budgets=budgets, run_id=name
        )
    )


@pytest.fixture(scope="module")
def gold(tiny_catalog):
    """The problem whose gold is the top hit for the query (what both honest agents recommend)."""
    hits = default_registry().call("find_product", {"q": QUERY}, ToolContext(tiny_catalog))
    top = hits[0]
    return Problem(
        problem_id="sn15",
        task="product",
        query=QUERY,
        reward=[{"product_id": top["product_id"], "title": [top["title"]]}],
    )


def tool_events(outcome, name):
    return [e for e in outcome.events if e.kind == "tool_call" and e.name == name]


def test_the_react_agent_runs_unchanged_and_is_scored_from_the_gateway_log(node, gold, tiny_catalog):
    outcome = run_agent(node, SN15_AGENT.read_text(), "react")
    assert outcome.result.status == "ok", outcome.result.error or outcome.result.stderr[-2000:]
    assert outcome.result.contract == "sn15" and outcome.result.steps == 3
    assert outcome.error_code() == (None, None)
    # every call went through the gateway: the model (through /inference/) and the catalog (through /search/)
    llm = [e for e in outcome.events if e.kind == "llm_call"]
    assert len(llm) == 3 and all(e.name == MODEL and e.status == 200 for e in llm)
    search = tool_events(outcome, "find_product")
    assert search and search[0].arguments["q"] == QUERY  # the agent's quote_plus undone, as ORO's server reads it
    assert tool_events(outcome, "view_product_information")
    # the answer is the recommend_product the harness handed over, the last tool call in the log
    handed = [e for e in outcome.events if e.kind == "agent_log" and e.name == "returned_steps"]
    assert handed and handed[0].arguments == {"steps": "3"}
    last = tool_events(outcome, "recommend_product")[-1]
    assert last.seq == handed[0].seq + 1 and outcome.answer == gold.reward[0].product_id
    score = score_run(gold, outcome.answer, tiny_catalog.get)
    verdict = OfflineJudge().judge(gold.public(), outcome.events)
    assert score.success == 1 and verdict.gate != "no_reasoning"


def test_a_code_first_agent_that_only_searches(node, gold, tiny_catalog):
    outcome = run_agent(node, SEARCH_ONLY, "search-only")
    assert outcome.result.status == "ok", outcome.result.error
    assert outcome.result.contract == "sn15" and outcome.tool_calls == 2 and outcome.llm_calls == 0
    assert outcome.answer == gold.reward[0].product_id
    assert score_run(gold, outcome.answer, tiny_catalog.get).success == 1


def test_a_spoofed_step_list_earns_nothing(node, gold, tiny_catalog):
    outcome = run_agent(node, SPOOFED, "spoof")
    assert outcome.result.status == "ok" and outcome.error_code() == (None, None)
    # the log holds what happened: no search, no model, only the handed-over answer; none of the claims
    assert [(e.kind, e.name) for e in outcome.events] == [
        ("agent_log", "returned_steps"),
        ("tool_call", "recommend_product"),
    ]
    assert "perfect match" not in "".join(e.model_dump_json() for e in outcome.events)
    score = score_run(gold, outcome.answer, tiny_catalog.get)
    verdict = OfflineJudge().judge(gold.public(), outcome.events)
    assert outcome.answer == "D999" and score.success == 0
    assert verdict.gate == "no_reasoning" and OfflineJudge().rubric.final(score.success, verdict.quality) == 0


def test_bad_input_is_the_agents_fault_with_one_clear_line(node):
    cases = {
        "dict": (
            "from src.agent.agent_interface import create_dialogue_step\n"
            "def agent_main(problem_data):\n    return {'answer': 'D000'}\n",
            1005,
            "returns its dialogue steps",
        ),
        "junk-steps": (
            "def agent_main(problem_data):\n    return [{'completion': {}}, 7]\n",
            1005,
            "item 1 is not a dialogue step",
        ),
        "torch": (
            "import torch\nfrom src.agent.proxy_client import ProxyClient\n"
            "def agent_main(problem_data):\n    return []\n",
            1001,
            "No module named 'torch' (the sandbox does not provide 'torch'",
        ),
        "oro-template": (
            "from src.agent.agent import agent_main as template\n"
            "def agent_main(problem_data):\n    return template(problem_data)\n",
            1001,
            "the sandbox does not provide 'src.agent.agent'",
        ),
        "unserved": (
            "from src.agent.proxy_client import ProxyClient\n"
            "def agent_main(problem_data):\n"
            "    proxy = ProxyClient(max_retries=1)\n"
            "    assert proxy.get('/search/get_product_raw', {'product_ids': 'D000'}) is None\n"
            "    assert proxy.post('/search/web_browse', {'q': 'x'}) is None\n"
            "    return []\n",
            1006,
            "GET /search/get_product_raw, POST /search/web_browse, which the gateway does not serve",
        ),
    }
    for name, (code, expected, words) in cases.items():
        outcome = run_agent(node, code, name)
        got, message = outcome.error_code()
        assert got == expected, (name, got, message)
        assert words in message.splitlines()[0], (name, message)


def test_budget_headers_decrease_and_reach_zero(node):
    outcome = run_agent(
        node,
        """
        import os, requests
        from arena_agent import budget
        URL = os.environ["SANDBOX_PROXY_URL"]

        def agent_main(problem):
            seen = []
            for _ in range(4):
                r = requests.get(URL + "/search/find_product", params={"q": "lamp", "page": 1})
                seen.append([r.status_code, r.headers["X-Arena-Budget-Tool-Calls"],
                             float(r.headers["X-Arena-Budget-Seconds"])])
            chat = requests.post(URL + "/inference/chat/completions", json={
                "model": os.environ["SANDBOX_MODEL"], "messages": [{"role": "user", "content": "<user>lamp</user>"}]})
            return {"seen": seen, "llm": [chat.status_code, chat.headers["X-Arena-Budget-LLM-Calls"],
                                          int(chat.headers["X-Arena-Budget-Tokens"])],
                    "budget": budget()}
    """,
        "budget",
        budgets=Budgets(tool_calls=3, llm_calls=1, tokens=10_000),
    )
    assert outcome.result.status == "ok", outcome.result.error
    seen = outcome.result.returned["seen"]
    assert [s[:2] for s in seen] == [[200, "2"], [200, "1"], [200, "0"], [429, "0"]]
    assert all(0 < s[2] <= 60 for s in seen) and seen[-1][2] <= seen[0][2]
    status, llm_left, tokens_left = outcome.result.returned["llm"]
    assert status == 200 and llm_left == "0" and 0 < tokens_left < 10_000
    left = outcome.result.returned["budget"]
    assert left["tool_calls"] == 0 and left["llm_calls"] == 0 and left["tokens"] == tokens_left
    assert left["cost"] == 1.0  # this node prices tokens at 0 (the default): nothing of the cost budget is spent


def test_only_the_harness_hands_over_an_answer(node):
    # the forwarder strips the harness's headers from the agent's own requests: no forged returned_steps
    outcome = run_agent(
        node,
        """
        import os, requests
        def agent_main(problem):
            requests.post(os.environ["SANDBOX_PROXY_URL"] + "/tools/recommend_product", json={"product_ids": "D001"},
                          headers={"X-Arena-Origin": "returned-steps", "X-Arena-Steps": "25"})
            return None
    """,
        "forger",
    )
    assert outcome.result.status == "ok" and outcome.answer == "D001"
    assert [(e.kind, e.name) for e in outcome.events] == [("tool_call", "recommend_product")]
