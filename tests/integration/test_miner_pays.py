"""The miner pays for its own inference: a run's LLM calls go to the miner's provider (a real local OpenAI-compatible
server that requires a bearer key and reports usage) with the miner's key, never the node's; every call's tokens and
cost at the operator's prices; each failure its code and blame (docs/validator.md, "Who pays for inference")."""

from __future__ import annotations

import httpx
import pytest
from pydantic import SecretStr

from arena import blame, verdict
from arena.spend import Price, Provider, run_spend
from sandbox.gateway import Gateway, GatewayServer, MinerRoute, Upstream
from tests.support.openai_server import Fail, OpenAIServer

pytestmark = pytest.mark.slow  # the gateway's server and OpenAI-compatible servers

NODE_KEY = "node-secret-key-0123456789"
MINER_KEY = "sk-miner-own-key-abcdefghijklmnop"


def client(sock, token):
    return httpx.Client(
        transport=httpx.HTTPTransport(uds=str(sock)),
        base_url="http://gateway",
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )


def chat(c, model="miner-model", text="find me a desk lamp under 500"):
    return c.post("/v1/chat/completions", json={"model": model, "messages": [{"role": "user", "content": text}]})


@pytest.fixture
def servers():
    """The node's upstream (its key only) and the miner's provider (the miner's key only)."""
    script: list[int] = []

    def responder(body):
        status = script.pop(0) if script else 200
        if status != 200:
            raise Fail(status, f"scripted {status}")
        return "The first lamp is cheaper and matches."

    with (
        OpenAIServer(responder, models=("node-model",), keys=(NODE_KEY,)) as node,
        OpenAIServer(responder, models=("miner-model", "miner-big"), keys=(MINER_KEY,)) as miner,
    ):
        yield node, miner, script


def provider(server) -> Provider:
    return Provider(
        base_url=server.base_url,
        models={"miner-model": Price(prompt=0.5, completion=1.5), "miner-big": Price(prompt=3.0, completion=9.0)},
    )


@pytest.fixture
def gateway(tiny_catalog, tmp_path, servers):
    node, _, _ = servers
    gw = Gateway(
        tiny_catalog,
        upstream=Upstream(
            base_url=node.base_url,
            api_key=NODE_KEY,
            models=["node-model"],
            usd_per_1k_prompt=1.0,
            usd_per_1k_completion=2.0,
        ),
    )
    with GatewayServer(gw, tmp_path / "gw" / "gateway.sock") as server:
        yield gw, server.socket_path


def route(servers, key=MINER_KEY) -> MinerRoute:
    return MinerRoute("local", provider(servers[1]), SecretStr(key))


def facts(record):
    return verdict.Outcome(
        events=record.events,
        upstream_errors=record.upstream_errors,
        payer=record.payer,
        payer_errors=record.payer_errors,
    )


def test_the_miners_calls_reach_its_provider_with_its_key_never_the_nodes(gateway, servers):
    gw, sock = gateway
    node, miner, _ = servers
    run = gw.open_run("m1", route=route(servers))
    assert gw.model_for(run) == "miner-model"
    with client(sock, run.token) as c:
        assert [m["id"] for m in c.get("/v1/models").json()["data"]] == ["miner-model", "miner-big"]
        assert chat(c).status_code == 200
        assert chat(c, model="miner-big").status_code == 200
        assert chat(c, model="node-model").status_code == 403  # the node's models are not the miner's
        c.post("/tools/recommend_product", json={"product_ids": "D000"})
    record = gw.close_run("m1")
    assert miner.auth_headers == [f"Bearer {MINER_KEY}"] * 2 and node.auth_headers == []
    calls = [e for e in record.events if e.kind == "llm_call" and e.tokens]
    # each call's cost at the operator's price of its model, from the provider's usage
    for call, price in zip(calls, (Price(prompt=0.5, completion=1.5), Price(prompt=3.0, completion=9.0)), strict=True):
        assert call.cost == pytest.approx(price.cost(call.tokens["prompt_tokens"], call.tokens["completion_tokens"]))
        assert call.tokens["prompt_tokens"] > 0 and "counted" not in call.tokens
    spend = run_spend(record.events, payer=record.payer, provider="local")
    assert spend.payer == "miner" and spend.calls == 2 and set(spend.models) == {"miner-model", "miner-big"}
    assert spend.cost == pytest.approx(record.cost) == pytest.approx(sum(c.cost for c in calls))
    assert spend.prompt_tokens == record.prompt_tokens and spend.completion_tokens == record.completion_tokens
    assert record.tokens == record.prompt_tokens + record.completion_tokens
    assert verdict.error_of(facts(record)) == (None, None)


def test_the_validator_pays_when_the_run_has_no_route(gateway, servers):
    gw, sock = gateway
    node, miner, _ = servers
    run = gw.open_run("v1")
    with client(sock, run.token) as c:
        assert chat(c, model="node-model").status_code == 200
        assert chat(c).status_code == 403
    record = gw.close_run("v1")
    assert node.auth_headers == [f"Bearer {NODE_KEY}"] and miner.auth_headers == []
    spend = run_spend(record.events, payer=record.payer)
    assert spend.payer == "validator" and spend.calls == 1
    assert spend.cost == pytest.approx((spend.prompt_tokens * 1.0 + spend.completion_tokens * 2.0) / 1000)


@pytest.mark.parametrize("status", [402, 429])
def test_out_of_credit_or_over_its_quota_is_the_miners_fault(gateway, servers, status):
    gw, sock = gateway
    servers[2].append(status)
    run = gw.open_run("q", route=route(servers))
    with client(sock, run.token) as c:
        reply = chat(c)
    record = gw.close_run("q")
    assert reply.status_code == status and "miner" in reply.json()["error"]["message"]
    assert record.upstream_errors == [] and [e["status"] for e in record.payer_errors] == [status]
    code, error = verdict.error_of(facts(record))
    assert code == blame.MINER_KEY_REFUSED and blame.blame_of(code) == "agent" and not blame.retried(code)
    assert verdict.errored(code, error).final == 0.0 and str(status) in (error or "")


def test_a_refused_key_is_the_miners_fault_and_the_agent_never_sees_it(gateway, servers):
    gw, sock = gateway
    run = gw.open_run("bad", route=route(servers, key="sk-miner-wrong-key-zyxwvutsrq"))
    with client(sock, run.token) as c:
        reply = chat(c)
    record = gw.close_run("bad")
    # the provider's body echoed the key; the agent gets the gateway's own words, and so does the trajectory
    assert reply.status_code == 401 and "sk-miner" not in reply.text
    assert "sk-miner" not in "".join(e.model_dump_json() for e in record.events)
    assert verdict.error_of(facts(record))[0] == blame.MINER_KEY_REFUSED


def test_the_key_an_answer_echoes_is_cut_out(tiny_catalog, tmp_path):
    with OpenAIServer(lambda body: f"my key is {MINER_KEY}!", models=("miner-model",), keys=(MINER_KEY,)) as miner:
        gw = Gateway(tiny_catalog)
        with GatewayServer(gw, tmp_path / "gw" / "gateway.sock") as server:
            run = gw.open_run("echo", route=MinerRoute("local", provider(miner), SecretStr(MINER_KEY)))
            with client(server.socket_path, run.token) as c:
                reply = chat(c)
            record = gw.close_run("echo")
    assert reply.status_code == 200 and MINER_KEY not in reply.text and "[miner key]" in reply.text
    assert MINER_KEY not in record.events[-1].model_dump_json()


def test_a_short_node_key_an_upstream_echoes_is_cut_out(tiny_catalog, tmp_path):
    """The node's own key is the operator's and need not be a 16-character token (a local server's ``sk-local-42``):
    echoed by its upstream, it reaches neither the agent nor the trajectory (which results bundles publish)."""
    short = "sk-local-42"
    with OpenAIServer(lambda body: f"my key is {short}!", models=("node-model",), keys=(short,)) as node:
        upstream = Upstream(base_url=node.base_url, api_key=short, models=["node-model"])
        gw = Gateway(tiny_catalog, upstream=upstream)
        with GatewayServer(gw, tmp_path / "gw" / "gateway.sock") as server:
            run = gw.open_run("echo")
            with client(server.socket_path, run.token) as c:
                reply = chat(c, model="node-model")
            record = gw.close_run("echo")
    assert reply.status_code == 200 and short not in reply.text and "[node key]" in reply.text
    assert short not in record.events[-1].model_dump_json()


@pytest.mark.parametrize("status", [500, 503])
def test_the_miners_provider_failing_is_nobodys_fault_and_retried(gateway, servers, status):
    gw, sock = gateway
    servers[2].extend([status, status])  # the call and the gateway's one resend of it (a single 5xx is absorbed)
    run = gw.open_run("down", route=route(servers))
    with client(sock, run.token) as c:
        assert chat(c).status_code == status
        assert chat(c).status_code == 200
    record = gw.close_run("down")
    assert [e["status"] for e in record.upstream_errors] == [status] and record.payer_errors == []
    code, _ = verdict.error_of(facts(record))
    assert code == blame.PROVIDER_DOWN and blame.blame_of(code) == "validator" and blame.retried(code)
    assert gw.upstream_last is None  # the node's own upstream's health is not the miner's provider's


def test_a_provider_nobody_answers_is_nobodys_fault(tiny_catalog, tmp_path):
    dead = Provider(base_url="http://127.0.0.1:9/v1", models={"miner-model": Price()})
    gw = Gateway(tiny_catalog, upstream=Upstream(timeout=2))
    with GatewayServer(gw, tmp_path / "gw" / "gateway.sock") as server:
        run = gw.open_run("dead", route=MinerRoute("local", dead, SecretStr(MINER_KEY)))
        with client(server.socket_path, run.token) as c:
            reply = chat(c)
        record = gw.close_run("dead")
    assert reply.status_code == 502 and "miner's provider 'local' unreachable" in reply.text
    assert verdict.error_of(facts(record))[0] == blame.PROVIDER_DOWN


def test_tokens_a_provider_does_not_report_are_counted_by_the_gateway(tiny_catalog, tmp_path):
    with OpenAIServer(lambda body: "a twelve character answer", models=("miner-model",), usage=False) as miner:
        gw = Gateway(tiny_catalog)
        with GatewayServer(gw, tmp_path / "gw" / "gateway.sock") as server:
            run = gw.open_run("count", route=MinerRoute("local", provider(miner), SecretStr(MINER_KEY)))
            with client(server.socket_path, run.token) as c:
                assert chat(c).status_code == 200
            record = gw.close_run("count")
    call = record.events[-1]
    assert call.tokens["counted"] == 1 and call.tokens["prompt_tokens"] > 0 and call.tokens["completion_tokens"] > 0
    assert call.cost == pytest.approx(
        Price(prompt=0.5, completion=1.5).cost(call.tokens["prompt_tokens"], call.tokens["completion_tokens"])
    )
    assert run_spend(record.events, payer="miner").counted_calls == 1
