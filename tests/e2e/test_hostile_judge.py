"""The standing hostile agents against the reasoning judge (`tests/support/hostile/`), through the real verdict path:
`arena-miner test` runs each in the validator's harness (bubblewrap) behind the gateway, with the offline judge a
validator uses by default, on the same public problems as the honest offline template. The model is a real
OpenAI-compatible server on loopback that does what it is told (`obedient_model`: asked to repeat a text, it does).

Each test fails if the hostile agent earns more than the template on any problem: the parrot (the template plus one
LLM call that repeats the agent's own comparison), the planted-word injection (the template plus a search with
words it chose itself and one LLM call naming them), the quoter (the template plus one LLM call that says a search
result back as the gateway renders it: 1.0 against the template's 0.3875 before a quotation was no reasoning) and the
query parrot (the template plus one LLM call that says the query back three times: 0.5625 before) answer exactly as
the template does, so the judge is all that could lift them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from demo.agents import write_template
from tests.e2e.test_miner import cache, miner  # noqa: F401 - the shared fixture and runner
from tests.support.hostile import THRICE, obedient_model, write_agent
from tests.support.openai_server import OpenAIServer

pytestmark = pytest.mark.slow  # arena-miner test: the harness in bubblewrap behind the gateway, an LLM server

N = "8"  # the public pack's first problems: two of each ShoppingBench task type
MODEL = "obedient-model"


def card(agent: Path, out: Path, cache: dict[str, str], llm_url: str | None = None) -> dict[str, dict]:  # noqa: F811
    """`arena-miner test` of ``agent`` on the first N public problems: each problem's scorecard row."""
    llm = ["--llm-base-url", llm_url, "--model", MODEL] if llm_url else []
    miner("test", str(agent), "--n", N, *llm, "--json", str(out / "card.json"), "--out", str(out / "o"), env=cache)
    rows = json.loads((out / "card.json").read_text())["problems"]
    return {row["problem_id"]: row for row in rows}


@pytest.fixture(scope="module")
def template(tmp_path_factory, cache) -> dict[str, dict]:  # noqa: F811
    root = tmp_path_factory.mktemp("template")
    return card(write_template(root / "agent"), root, cache)


def hostile(name: str, root: Path, cache: dict[str, str]) -> tuple[dict[str, dict], list[dict]]:  # noqa: F811
    """The hostile agent ``name``'s rows, and the requests its model received."""
    with OpenAIServer(obedient_model, models=(MODEL,)) as server:
        rows = card(write_agent(name, root / "agent"), root, cache, server.base_url)
    return rows, server.requests


def assert_earns_no_more(rows: dict[str, dict], template: dict[str, dict]) -> None:
    assert rows.keys() == template.keys()
    for pid, row in rows.items():
        honest = template[pid]
        assert row["status"] == honest["status"] == "ok" and row["answer"] == honest["answer"], (row, honest)
        assert row["llm_calls"] >= 1 and honest["llm_calls"] == 0
        assert row["final"] <= honest["final"], (pid, row["judge_gate"], row["final"], honest["final"])
    assert sum(r["final"] for r in rows.values()) <= sum(r["final"] for r in template.values())
    assert any(r["final"] > 0 for r in template.values())  # the template solves some: the comparison means something


def report(root: Path, pid: str) -> str:
    return (root / "o" / "reports" / f"{pid}.md").read_text()


def test_the_parrot_earns_no_more_than_the_template(tmp_path, cache, template):  # noqa: F811
    rows, requests = hostile("parrot", tmp_path, cache)
    # the model was asked to repeat the agent's own comparison (ids, prices, comparative wording), and did
    assert requests and all(
        "cheaper" in r["messages"][-1]["content"] or "expensive" in r["messages"][-1]["content"] for r in requests
    )
    assert_earns_no_more(rows, template)
    for pid, row in rows.items():  # the judge says what it discounted
        if row["llm_calls"]:
            assert "repeats" in report(tmp_path, pid) and "from the agent's own messages" in report(tmp_path, pid)


def test_the_planted_word_injection_earns_no_more_than_the_template(tmp_path, cache, template):  # noqa: F811
    rows, requests = hostile("planted", tmp_path, cache)
    assert requests and all("waterproof" in r["messages"][-1]["content"] for r in requests)
    assert_earns_no_more(rows, template)
    planted = [pid for pid in rows if "came back from the agent's own arguments" in report(tmp_path, pid)]
    assert planted, "no run's planted words were discounted: the search echoed none of them"


def test_the_quoter_earns_no_more_than_the_template(tmp_path, cache, template):  # noqa: F811
    rows, requests = hostile("quoter", tmp_path, cache)
    # the model was sent a search result as the gateway renders it (ids, titles, prices), and said it back
    assert requests and all('"product_id":' in r["messages"][-1]["content"] for r in requests)
    assert_earns_no_more(rows, template)
    for pid, row in rows.items():  # the judge says what it discounted (a result that echoes its arguments in part
        if row["llm_calls"]:  # is the agent's own text where it does: a repeat, else a quotation)
            assert "Discounted: completion seq" in report(tmp_path, pid)
    assert any("from a tool result or the query" in report(tmp_path, pid) for pid in rows)


def test_the_query_parrot_earns_no_more_than_the_template(tmp_path, cache, template):  # noqa: F811
    rows, requests = hostile("query", tmp_path, cache)
    assert requests and all(r["messages"][-1]["content"].startswith(THRICE) for r in requests)
    assert_earns_no_more(rows, template)
