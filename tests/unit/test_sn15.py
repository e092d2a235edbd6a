"""Subnet 15's agent contract, piece by piece: the `src.agent` helpers agents import, how a returned step list
becomes the answer, how a bundle is recognised and what it imports, the scripted ReAct model, and the operator's
LLM budgets and prices."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "sandbox" / "agent_sdk"


@pytest.fixture(scope="module")
def interface():
    sys.path.insert(0, str(SDK))
    try:
        import src.agent.agent_interface as module

        yield module
    finally:
        sys.path.remove(str(SDK))


@pytest.fixture(scope="module")
def runner():
    spec = importlib.util.spec_from_file_location("arena_runner", ROOT / "sandbox" / "harness" / "runner.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tool_registry_and_tool_calls(interface):
    @interface.Tool
    def lookup(q, page=1):
        return [q, page]

    @interface.Tool("renamed")
    def anything(x):
        return x * 2

    assert interface.get_tool("lookup") is lookup and {"lookup", "renamed"} <= set(interface.list_tools())
    call = interface.execute_tool_call("renamed", {"x": 21})
    assert call == {"name": "renamed", "parameters": {"x": 21}, "tool_call_id": call["tool_call_id"], "result": 42}
    with pytest.raises(ValueError, match="Tool 'nope' is not registered. Available tools: .*lookup"):
        interface.get_tool("nope")


def test_tool_call_ids_follow_the_contract(interface):
    digest = hashlib.md5(b"find_product\n{'q': 'lamp'}").digest()
    expected = base64.urlsafe_b64encode(digest).decode().replace("=", "").replace("+", "").replace("/", "")[:8]
    assert interface.generate_tool_call_id("find_product", {"q": "lamp"}) == expected
    assert len(interface.generate_tool_call_id("x", {}, length=12)) == 12


def test_dialogue_steps(interface):
    call = {"name": "recommend_product", "parameters": {"product_ids": "D000"}, "tool_call_id": "abc", "result": "ok"}
    step = interface.create_dialogue_step("compare", [call], "here", "desk lamp", 3)
    content = step["completion"]["content"]
    assert content.splitlines() == [
        "<think>compare</think>",
        '<tool_call>[{"name": "recommend_product", "parameters": {"product_ids": "D000"}}]</tool_call>',
        "<response>here</response>",
    ]
    assert step["completion"]["message"] == {"think": "compare", "tool_call": [call], "response": "here"}
    assert step["extra_info"]["step"] == 3 and step["extra_info"]["query"] == "desk lamp"
    assert interface.format_content("", [], "only") == "<response>only</response>"


def test_the_answer_is_the_last_recommend_product_of_the_steps(runner, interface):
    rec = lambda ids: {"name": "recommend_product", "parameters": {"product_ids": ids}}  # noqa: E731
    steps = [
        interface.create_dialogue_step("a", [rec("D001")], "", "q", 1),
        interface.create_dialogue_step("b", [{"name": "find_product", "parameters": {}}], "", "q", 2),
        interface.create_dialogue_step("c", [rec("D002"), {"name": "terminate", "parameters": {}}], "", "q", 3),
    ]
    assert runner.steps_outcome(steps) == {
        "status": "ok",
        "return": None,
        "steps": {"count": 3, "recommend": {"product_ids": "D002"}},
    }
    assert runner.steps_outcome([])["steps"] == {"count": 0, "recommend": None}
    bad = runner.steps_outcome([steps[0], "text"])
    assert bad["status"] == "bad_return" and "item 2 is not a dialogue step" in bad["error"]
    odd = runner.steps_outcome([{"completion": {"message": {"tool_call": "recommend_product"}}}])
    assert odd["status"] == "bad_return" and "tool_call is a str, not a list" in odd["error"]


def test_a_bundle_is_recognised_from_its_imports(tmp_path):
    from sandbox.contracts import inspect_bundle

    (tmp_path / "helpers.py").write_text("import numpy\n")
    (tmp_path / "agent.py").write_text(
        "import json, requests\nimport helpers\nfrom src.agent import agent_interface\n"
        "from src.agent.proxy_client import ProxyClient\nfrom src.agent.agent import agent_main as template\n"
        "try:\n    import torch\nexcept ImportError:\n    torch = None\n"
        "def agent_main(problem_data):\n    import transformers\n    return []\n"
    )
    report = inspect_bundle(tmp_path)
    assert report.contract == "sn15"
    assert report.sn15_imports == ["src.agent.agent_interface", "src.agent.proxy_client"]
    assert report.missing == [("agent.py", 5, "src.agent.agent"), ("agent.py", 11, "transformers")]
    assert "agent.py:11 imports transformers, which the sandbox does not provide" in report.warnings()[1]
    (tmp_path / "agent.py").write_text("from arena_agent import tools\ndef agent_main(problem):\n    return None\n")
    assert inspect_bundle(tmp_path).contract == "arena" and not inspect_bundle(tmp_path).missing


def test_sn15_query_parameters_map_onto_find_product():
    from sandbox.gateway import sn15_search_arguments

    assert sn15_search_arguments(
        {
            "q": "nike+shoes",
            "page": "2",
            "price": "100-",
            "sort": "order",
            "service": "official,default,cod,nope",
            "shop_id": " S1 ",
        }
    ) == {"q": "nike shoes", "page": 2, "price": "100-", "sort": "order", "service": "official,COD", "shop_id": "S1"}
    assert sn15_search_arguments({"q": "a%26b", "page": "x", "price": "500", "sort": "default"}) == {
        "q": "a&b",
        "page": 0,
    }
    assert sn15_search_arguments({"q": "lamp"}) == {"q": "lamp", "page": 1}


def test_the_scripted_react_model_walks_a_search_to_a_recommendation():
    from demo.llm import react_reply

    def ask(*history):
        return react_reply(
            {"messages": [{"role": "user", "content": "\n\n".join(["<user>desk lamp</user>", *history])}]}
        )

    first = ask()
    assert '"name": "find_product"' in first and '"q": "desk lamp"' in first
    hits = [{"product_id": "D007", "title": "Desk Lamp 7", "price": 107.0}, {"product_id": "D001", "price": 101.0}]
    second = ask("<obs>" + json.dumps([{"tool_call_id": "a", "results": hits}]) + "</obs>")
    assert '"view_product_information"' in second and "D007,D001" in second and "107.0" in second
    third = ask(
        "<obs>" + json.dumps([{"tool_call_id": "a", "results": hits}]) + "</obs>",
        "<obs>"
        + json.dumps(
            [{"tool_call_id": "b", "results": [{"product_id": "D007", "attributes": {"material": ["aluminium"]}}]}]
        )
        + "</obs>",
    )
    assert '"recommend_product", "parameters": {"product_ids": "D007"}' in third and "aluminium" in third
    assert react_reply({"messages": [{"role": "user", "content": "x"}]}) == react_reply(
        {"messages": [{"role": "user", "content": "x"}]}
    )


def test_operators_set_the_llm_budgets_and_prices(tmp_path, monkeypatch, tiny_catalog):
    from validator.node import gateway_budgets, gateway_for
    from validator.settings import load_settings

    monkeypatch.setenv("ARENA_GATEWAY_COST_BUDGET", "0.25")
    settings = load_settings(
        {"gateway_token_budget": 50_000, "gateway_usd_per_1k_prompt": 0.002, "gateway_usd_per_1k_completion": 0.006},
        env_file=None,
    )
    budgets = gateway_budgets(settings)
    assert budgets.tokens == 50_000 and budgets.cost == 0.25
    upstream = gateway_for(settings, tiny_catalog).upstream
    assert (upstream.usd_per_1k_prompt, upstream.usd_per_1k_completion) == (0.002, 0.006)
