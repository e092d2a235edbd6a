"""Subnet 15's routes at the gateway, over the real socket with a real local upstream: mapped onto the one tool
registry and LLM proxy, logged and budgeted like ours; the remaining budget on every answer."""

from __future__ import annotations

from urllib.parse import quote_plus

import httpx
import pytest

from sandbox.gateway import Budgets, Gateway, GatewayServer, Upstream
from tests.support.openai_server import OpenAIServer

pytestmark = pytest.mark.slow  # the gateway's server and an OpenAI-compatible server


def client(sock, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(
        transport=httpx.HTTPTransport(uds=str(sock)), base_url="http://gateway", headers=headers, timeout=10
    )


@pytest.fixture
def gateway(tiny_catalog, tmp_path):
    with OpenAIServer(lambda body: "D000 at 100.0 is the cheapest desk lamp.", models=("m",)) as upstream:
        gw = Gateway(
            tiny_catalog,
            upstream=Upstream(
                base_url=upstream.base_url, models=["m"], usd_per_1k_prompt=1.0, usd_per_1k_completion=2.0
            ),
        )
        sock = tmp_path / "gw" / "gateway.sock"
        with GatewayServer(gw, sock):
            yield gw, sock


def test_search_routes_read_parameters_as_oros_search_server_does(gateway):
    gw, sock = gateway
    run = gw.open_run("s1")
    with client(sock, run.token) as c:
        # the agent quotes q itself before the client encodes it; sort=default and unknown services are no filter
        hits = c.get(
            "/search/find_product",
            params={
                "q": quote_plus("desk lamp"),
                "page": 1,
                "sort": "priceasc",
                "service": "default,COD",
                "price": "cheap",
            },
        )
        prices = [h["price"] for h in hits.json()]
        assert hits.status_code == 200 and len(prices) == 10 and prices == sorted(prices)
        assert all("COD" in h["service"] for h in hits.json())
        assert set(hits.json()[0]) == {"product_id", "shop_id", "title", "price", "service", "sold_count"}
        assert c.get("/search/find_product", params={"q": "lamp", "page": "x"}).json() == []
        assert c.get("/search/find_product", params={"q": ""}).json() == []  # a tool error: an empty list
        view = c.get("/search/view_product_information", params={"product_ids": "D000,NOPE"}).json()
        assert [v["product_id"] for v in view] == ["D000"] and "title" not in view[0]  # unknown ids left out
        posted = c.post("/search/view_product_information", json={"product_ids": "D001"}).json()
        assert posted[0]["product_id"] == "D001"
        raw = c.get("/search/get_product_raw", params={"product_ids": "D000"})
        assert raw.status_code == 403
        assert c.post("/search/web_browse", json={}).status_code == 404
        assert c.get("/health").text == "healthy\n"
    record = gw.close_run("s1")
    calls = [e for e in record.events if e.kind == "tool_call"]
    assert calls[0].name == "find_product"
    assert calls[0].arguments == {"q": "desk lamp", "page": 1, "sort": "priceasc", "service": "COD"}
    assert calls[2].error and calls[2].error.startswith("find_product: q is empty")
    assert [(e.kind, e.status) for e in record.events if e.kind == "rejected"] == [("rejected", 403), ("rejected", 404)]
    assert record.unserved == ["GET /search/get_product_raw", "POST /search/web_browse"]
    assert record.tool_calls == 5  # the unserved routes cost nothing


def test_budget_headers_on_every_answer_and_the_cost_budget(gateway):
    gw, sock = gateway
    run = gw.open_run("b1", Budgets(tool_calls=2, llm_calls=5, tokens=1000, cost=0.01), wall_seconds=30)
    body = {"model": "m", "messages": [{"role": "user", "content": "find a desk lamp under 150 please"}]}
    with client(sock, run.token) as c:
        first = c.post("/inference/chat/completions", json=body)
        assert first.status_code == 200 and first.json()["choices"][0]["message"]["content"].startswith("D000")
        spent = 1.0 - float(first.headers["x-arena-budget-cost"]) / 0.01
        assert first.headers["x-arena-budget-llm-calls"] == "4" and int(first.headers["x-arena-budget-tokens"]) < 1000
        assert 0 < spent and 0 < float(first.headers["x-arena-budget-seconds"]) <= 30
        while c.post("/v1/chat/completions", json=body).status_code == 200:
            pass
        refused = c.post("/inference/chat/completions", json=body)
        assert refused.status_code == 429 and refused.headers["x-arena-budget-cost"] == "0.0"
        tools = [c.post("/tools/find_product", json={"q": "lamp"}) for _ in range(3)]
        assert [t.headers["x-arena-budget-tool-calls"] for t in tools] == ["1", "0", "0"]
        assert tools[-1].status_code == 429
        left = c.get("/budget").json()
        assert left["tool_calls"] == 0 and left["cost"] == 0.0 and left["llm_calls"] >= 1
    record = gw.close_run("b1")
    assert record.budget_refusals == 3 and record.cost >= 0.01  # the loop's last call, the next, the tool
    assert [e.name for e in record.events if e.kind == "agent_log"] == ["budget"]
    with client(sock) as c:  # no run token: no budget to show
        assert "x-arena-budget-tool-calls" not in c.get("/budget").headers
