"""The gateway over a real unix socket, with a real local OpenAI-compatible upstream."""

from __future__ import annotations

import httpx
import pytest

from sandbox.gateway import Budgets, Gateway, GatewayServer, JsonlRecorder, MemoryRecorder, Upstream
from sandbox.gateway.registry import REJECTED_KEPT
from tests.support.openai_server import OpenAIServer

pytestmark = pytest.mark.slow  # the gateway's server and an OpenAI-compatible server


def client(sock, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(
        transport=httpx.HTTPTransport(uds=str(sock)), base_url="http://gateway", headers=headers, timeout=10
    )


@pytest.fixture
def upstream():
    def responder(body):
        return "Comparing 1234567890 at 499.0 against 1234567891 at 520.0: the first is cheaper and matches."

    with OpenAIServer(responder, models=("good-model", "other-model")) as server:
        yield server


@pytest.fixture
def gateway(tiny_catalog, tmp_path, upstream):
    recorder = MemoryRecorder()
    gw = Gateway(
        tiny_catalog,
        recorder=recorder,
        upstream=Upstream(
            base_url=upstream.base_url,
            api_key="node-secret-key",
            models=["good-model"],
            usd_per_1k_prompt=1.0,
            usd_per_1k_completion=2.0,
        ),
    )
    sock = tmp_path / "gw" / "gateway.sock"
    with GatewayServer(gw, sock):
        yield gw, sock, recorder


def test_tools_over_the_socket_are_recorded_in_order(gateway):
    gw, sock, recorder = gateway
    run = gw.open_run("r1")
    with client(sock, run.token) as c:
        schemas = c.get("/tools").json()
        assert [s["function"]["name"] for s in schemas][:2] == ["find_product", "view_product_information"]
        hits = c.post("/tools/find_product", json={"q": "desk lamp", "sort": "priceasc"}).json()
        assert hits["ok"] and hits["result"][0]["price"] == 100.0
        bad = c.post("/tools/find_product", json={"q": "lamp", "price": "cheap"}).json()
        assert bad == {
            "ok": False,
            "error": "price 'cheap' is not a range; use 'lo-hi', 'lo-' or '-hi' with numbers, e.g. '100-500'",
        }
        c.post("/tools/recommend_product", json={"product_ids": "D000"})
    record = gw.close_run("r1")
    assert [e.seq for e in record.events] == [0, 1, 2, 3]
    assert [e.name for e in record.events] == ["schemas", "find_product", "find_product", "recommend_product"]
    assert record.events[2].error.startswith("price 'cheap'")
    assert record.state.answer == ["D000"]
    assert recorder.events["r1"] == record.events


def test_no_token_wrong_token_and_closed_run_get_401(gateway):
    gw, sock, _ = gateway
    with client(sock) as c:
        assert c.post("/tools/find_product", json={"q": "lamp"}).status_code == 401
    with client(sock, "forged-token") as c:
        assert c.get("/tools").status_code == 401
    run = gw.open_run("r2")
    gw.close_run("r2")
    with client(sock, run.token) as c:
        assert c.post("/tools/find_product", json={"q": "lamp"}).status_code == 401
    assert len(gw.rejected) == 3 and all(e.status == 401 and e.kind == "rejected" for e in gw.rejected)


def test_requests_without_a_run_token_never_grow_the_gateways_memory(gateway):
    """A sandbox (or a late agent) that keeps calling without a valid token, for as long as the node runs: the gateway
    keeps the latest REJECTED_KEPT refusals, numbered on, not every one."""
    gw, sock, _ = gateway
    with client(sock, "forged-token") as c:
        for _ in range(REJECTED_KEPT + 20):
            assert c.get("/tools").status_code == 401
    assert len(gw.rejected) == REJECTED_KEPT and gw.rejected_total == REJECTED_KEPT + 20
    assert [e.seq for e in gw.rejected] == list(range(20, REJECTED_KEPT + 20))


def test_tool_budget_rate_limit_and_size_caps(gateway):
    gw, sock, _ = gateway
    run = gw.open_run("r3", Budgets(tool_calls=2, max_request_bytes=2048))
    with client(sock, run.token) as c:
        assert c.post("/tools/find_product", json={"q": "lamp"}).status_code == 200
        assert c.post("/tools/find_product", json={"q": "lamp"}).status_code == 200
        assert c.post("/tools/find_product", json={"q": "lamp"}).status_code == 429
        assert c.post("/tools/find_product", content=b'{"q": "' + b"x" * 4000 + b'"}').status_code == 413
        assert c.post("/tools/find_product", content=b"{not json").status_code == 400
    fast = gw.open_run("r4", Budgets(requests_per_second=1, burst=3))
    with client(sock, fast.token) as c:
        codes = [c.get("/tools").status_code for _ in range(6)]
    assert codes[:3] == [200, 200, 200] and 429 in codes[3:]
    statuses = [e.status for e in gw.close_run("r3").events]
    assert statuses == [200, 200, 429, 413, 400]


def test_llm_proxy_uses_the_node_key_allowlist_and_budgets(gateway, upstream):
    gw, sock, _ = gateway
    run = gw.open_run("r5", Budgets(llm_calls=2))
    body = {"model": "good-model", "messages": [{"role": "user", "content": "find me a lamp"}]}
    with client(sock, run.token) as c:
        models = c.get("/v1/models").json()
        assert [m["id"] for m in models["data"]] == ["good-model"]
        reply = c.post("/v1/chat/completions", json=body)
        assert reply.status_code == 200 and "cheaper" in reply.json()["choices"][0]["message"]["content"]
        assert c.post("/v1/chat/completions", json=body | {"model": "other-model"}).status_code == 403
        assert c.post("/v1/chat/completions", json=body | {"stream": True}).status_code == 400
        assert c.post("/v1/chat/completions", json=body).status_code == 200
        assert c.post("/v1/chat/completions", json=body).status_code == 429  # two LLM calls allowed
    record = gw.close_run("r5")
    calls = [e for e in record.events if e.kind == "llm_call" and e.status == 200 and e.name == "good-model"]
    assert len(calls) == 2 and calls[0].tokens["completion_tokens"] > 0 and calls[0].cost > 0
    assert record.llm_calls == 2 and record.tokens == sum(e.tokens["total_tokens"] for e in calls)
    assert len(upstream.requests) == 2  # refused calls never reached the upstream
    assert upstream.auth_headers == ["Bearer node-secret-key"] * 2  # the node's key, added by the gateway


def test_upstream_down_is_a_502_and_recorded(tiny_catalog, tmp_path):
    gw = Gateway(tiny_catalog, upstream=Upstream(base_url="http://127.0.0.1:9/v1", models=["m"], timeout=2))
    with GatewayServer(gw, tmp_path / "s" / "gateway.sock") as server:
        run = gw.open_run("r6")
        with client(server.socket_path, run.token) as c:
            reply = c.post("/v1/chat/completions", json={"model": "m", "messages": []})
        assert reply.status_code == 502
    assert gw.close_run("r6").events[-1].status == 502


def test_jsonl_recorder_and_socket_permissions(tiny_catalog, tmp_path):
    gw = Gateway(tiny_catalog, recorder=JsonlRecorder(tmp_path / "log.jsonl"))
    with GatewayServer(gw, tmp_path / "s" / "gateway.sock") as server:
        assert server.socket_path.stat().st_mode & 0o777 == 0o666
        assert server.socket_path.parent.stat().st_mode & 0o777 == 0o711
        run = gw.open_run("r7")
        with client(server.socket_path, run.token) as c:
            c.post("/tools/web_search", json={"q": "cello"})
    lines = (tmp_path / "log.jsonl").read_text().splitlines()
    assert len(lines) == 1 and '"web_search"' in lines[0]
    assert not server.socket_path.exists()


def test_oversized_upstream_answer_is_refused(tiny_catalog, tmp_path):
    with OpenAIServer(lambda body: "x " * 5000) as server:
        gw = Gateway(tiny_catalog, upstream=Upstream(base_url=server.base_url, models=["test-model"]))
        with GatewayServer(gw, tmp_path / "s" / "gateway.sock") as gws:
            run = gw.open_run("big", Budgets(max_response_bytes=4096))
            with client(gws.socket_path, run.token) as c:
                reply = c.post("/v1/chat/completions", json={"model": "test-model", "messages": []})
    assert reply.status_code == 502 and "over 4096 bytes" in reply.text


def _chat(c, model="m"):
    return c.post("/v1/chat/completions", json={"model": model, "messages": [{"role": "user", "content": "hi"}]})


def test_the_upstream_failing_is_recorded_as_the_nodes_and_the_agents_own_errors_are_not(tiny_catalog, tmp_path):
    from tests.support.openai_server import Fail

    statuses = iter([502, 502, 503, 503, 429, 402, 400, 200])  # a 5xx is sent again once: each scripted twice

    def responder(body):
        if body.get("max_tokens") == 1:  # the gateway's probe after a 5xx: answered, outside the script
            return "pong"
        status = next(statuses, 200)
        if status != 200:
            raise Fail(status, f"scripted {status}")
        return "fine"

    sock = tmp_path / "gw" / "gateway.sock"
    with OpenAIServer(responder, models=("m",)) as server:
        gw = Gateway(tiny_catalog, upstream=Upstream(base_url=server.base_url, models=["m"]))
        with GatewayServer(gw, sock):
            run = gw.open_run("r", Budgets(llm_calls=7))
            with client(sock, run.token) as c:
                codes = [_chat(c).status_code for _ in range(6)]
                assert _chat(c, model="not-allowed").status_code == 403  # the agent's own mistake
                assert _chat(c).status_code == 200 and _chat(c).status_code == 429  # its budget: spent
            record = gw.close_run("r")
    assert codes == [502, 503, 429, 402, 400, 200]
    # 5xx, 429 and 402 from the upstream are the node's (the run becomes 2005); the agent's 400 and 403 are not
    assert [e["status"] for e in record.upstream_errors] == [502, 503, 429, 402]
    assert all(record.events[e["seq"]].status == e["status"] for e in record.upstream_errors)
    assert record.budget_refusals == 1
    # an upstream nobody answers is the node's too
    with socket_closed_port() as port:
        gw = Gateway(tiny_catalog, upstream=Upstream(base_url=f"http://127.0.0.1:{port}/v1", models=["m"]))
        with GatewayServer(gw, sock):
            run = gw.open_run("down")
            with client(sock, run.token) as c:
                assert _chat(c).status_code == 502
            record = gw.close_run("down")
    assert len(record.upstream_errors) == 1 and "unreachable" in record.upstream_errors[0]["error"]


def test_a_run_cannot_burst_the_upstream(tiny_catalog, tmp_path):
    import threading
    import time

    lock = threading.Lock()
    flight = {"now": 0, "peak": 0}

    def responder(body):
        with lock:
            flight["now"] += 1
            flight["peak"] = max(flight["peak"], flight["now"])
        time.sleep(0.3)
        with lock:
            flight["now"] -= 1
        return "fine"

    sock = tmp_path / "gw" / "gateway.sock"
    with OpenAIServer(responder, models=("m",)) as server:
        gw = Gateway(tiny_catalog, upstream=Upstream(base_url=server.base_url, models=["m"]))
        with GatewayServer(gw, sock):
            run = gw.open_run("burst", Budgets(llm_concurrency=2))
            codes: list[int] = []

            def call():
                with client(sock, run.token) as c:
                    codes.append(_chat(c).status_code)

            threads = [threading.Thread(target=call) for _ in range(6)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            gw.close_run("burst")
    assert codes == [200] * 6 and len(server.requests) == 6
    assert flight["peak"] <= 2  # the others waited their turn instead of piling onto the upstream


class socket_closed_port:  # noqa: N801 - used as a context manager
    """A loopback port nothing listens on."""

    def __enter__(self) -> int:
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])

    def __exit__(self, *exc: object) -> None:
        return None


class trickling:  # noqa: N801 - used as a context manager
    """An upstream that answers 200 and then sends its body a byte at a time, never finishing it: a stalled upstream
    whose call the gateway's read timeout never ends (each byte comes well within it). Counts the connections it saw
    closed by the gateway."""

    def __init__(self) -> None:
        import socket
        import threading

        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen()
        self.port = self.server.getsockname()[1]
        self.dropped = threading.Event()
        self.done = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        import time

        conn, _ = self.server.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
            while not self.done.is_set():
                try:
                    conn.sendall(b" ")
                except OSError:
                    self.dropped.set()  # the gateway gave the call up
                    return
                time.sleep(0.1)

    def __enter__(self) -> trickling:
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.server.close()


@pytest.mark.parametrize("ended_by", ["agent", "node"])
def test_a_call_pending_on_a_hanging_upstream_is_a_stall_only_when_the_node_ended_the_run(
    tiny_catalog, tmp_path, ended_by
):
    """A call its upstream is still trickling (within the gateway's upstream timeout, 30 s here) when the run ends,
    the upstream answering nothing else (the probe is never served): when the node ended the run (its wall clock) the
    upstream hung, a stall, an upstream failure (the run 2005, retried), however short the wait: an honest agent is not
    charged for an outage; when the agent ended its run itself the call is the agent's, abandoned. Either way the
    upstream request is given up (its connection closed) and nothing of it is recorded after the run closed."""
    import asyncio
    import threading
    import time

    sock = tmp_path / "gw" / "gateway.sock"
    with trickling() as server:
        gw = Gateway(
            tiny_catalog,
            upstream=Upstream(base_url=f"http://127.0.0.1:{server.port}/v1", models=["m"], timeout=30, probe_timeout=1),
        )
        with GatewayServer(gw, sock):
            run = gw.open_run("slow")
            with client(sock, run.token) as c:
                caller = threading.Thread(target=lambda: _chat(c), daemon=True)
                caller.start()
                deadline = time.monotonic() + 30
                while (
                    not run.upstream_pending or time.monotonic() - next(iter(run.upstream_pending.values())).since < 1.5
                ):
                    assert time.monotonic() < deadline, "the call never reached the upstream"
                    time.sleep(0.05)
                well = asyncio.run(gw.pending_well("slow")) if ended_by == "node" else None
                record = gw.close_run("slow", ended_by=ended_by, well=well)
                assert server.dropped.wait(10)  # its upstream request cancelled
                caller.join(10)
    (call,) = [e for e in record.events if e.kind == "llm_call"]
    if ended_by == "node":
        assert well is None
        (stalled,) = record.upstream_errors
        assert stalled["status"] == 504 and "did not answer a probe" in stalled["error"]
        assert call.seq == stalled["seq"] and call.status == 504
    else:
        assert record.upstream_errors == []
        assert call.status == 499 and "abandoned: the agent ended its run" in (call.error or "")
    assert record.upstream_pending == {}


@pytest.mark.parametrize("ended_by", ["agent", "node"])
def test_a_call_pending_on_a_well_upstream_is_the_agents_however_the_run_ended(tiny_catalog, tmp_path, ended_by):
    """An upstream that takes long over a call (the agent asked it for a long completion) but within the gateway's
    upstream timeout, and answers the gateway's probe at once: when the run ends first, whether the agent quit (it gave
    the call up; it hung up long before) or its wall clock ran out (it spent its time waiting on a serving upstream),
    the call is abandoned, the agent's; no upstream failure. The upstream's later answer is not recorded in the closed
    run."""
    import asyncio
    import threading

    release = threading.Event()

    def responder(body):
        if body.get("max_tokens") != 1:  # the gateway's probe is answered at once
            release.wait(60)
        return "too late"

    sock = tmp_path / "gw" / "gateway.sock"
    with OpenAIServer(responder, models=("m",)) as server:
        gw = Gateway(tiny_catalog, upstream=Upstream(base_url=server.base_url, models=["m"]))
        try:
            with GatewayServer(gw, sock):
                run = gw.open_run("quit")
                with client(sock, run.token) as c, pytest.raises(httpx.ReadTimeout):
                    c.post("/v1/chat/completions", json={"model": "m", "messages": []}, timeout=1.5)
                well = asyncio.run(gw.pending_well("quit")) if ended_by == "node" else None
                record = gw.close_run("quit", ended_by=ended_by, well=well)  # the agent hung up, then the run ended
                seen = list(record.events)
                release.set()
                assert wait_for(lambda: len(server.requests) == (2 if ended_by == "node" else 1))
        finally:
            release.set()
    assert record.upstream_errors == []
    (call,) = seen
    assert call.kind == "llm_call" and call.status == 499 and (call.error or "").startswith("abandoned: ")
    if ended_by == "node":
        assert well == "answered a probe" and "answered a probe" in (call.error or "")
    assert record.events == seen  # nothing recorded after the run closed


def wait_for(predicate, seconds=10.0):
    import time

    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_body_no_store_can_hold_is_refused_and_never_replaces_the_answer(gateway):
    """A lone surrogate escape is valid JSON but not Unicode: refused with 400 before any tool, recorded without it,
    and the earlier answer stands (arena.tasks.answer counts only calls a tool saw)."""
    from arena.tasks.answer import raw_answer

    gw, sock, _ = gateway
    run = gw.open_run("r-surrogate")
    with client(sock, run.token) as c:
        assert c.post("/tools/recommend_product", json={"product_ids": "D000"}).json()["ok"]
        refused = c.post(
            "/tools/recommend_product",
            content=b'{"product_ids": "\\ud800"}',
            headers={"Content-Type": "application/json"},
        )
        assert refused.status_code == 400 and "not valid Unicode" in refused.json()["error"]
    record = gw.close_run("r-surrogate")
    assert [(e.name, e.status) for e in record.events] == [("recommend_product", 200), ("recommend_product", 400)]
    assert record.events[1].model_dump_json()  # storable
    assert raw_answer(record.events) == "D000"


def test_a_call_over_the_max_tokens_cap_is_refused_before_the_upstream(tiny_catalog, tmp_path):
    """`Upstream.max_tokens` (the node's --gateway.max_tokens) bounds what one call may ask for: a call over it is
    refused to the agent (400, the cap named), never reaches the upstream and is not counted; where the miner pays,
    its provider's own cap is the bound (docs/scoring.md, "An LLM call that takes too long")."""
    from pydantic import SecretStr

    from arena.spend import Price, Provider
    from sandbox.gateway.runs import MinerRoute

    with OpenAIServer(lambda body: "ok", models=("m",)) as server:
        gw = Gateway(tiny_catalog, upstream=Upstream(base_url=server.base_url, models=["m"], max_tokens=100))
        provider = Provider(base_url=server.base_url, models={"m": Price()}, max_tokens=10)
        route = MinerRoute("local", provider, SecretStr("sk-miner-own-key-abcdefghijklmnop"))
        with GatewayServer(gw, tmp_path / "s" / "gateway.sock") as gws:
            run, paid = gw.open_run("capped"), gw.open_run("paid", route=route)
            with client(gws.socket_path, run.token) as c, client(gws.socket_path, paid.token) as p:
                ask = {"model": "m", "messages": [{"role": "user", "content": "an essay"}]}
                over = c.post("/v1/chat/completions", json={**ask, "max_tokens": 101})
                over_new = c.post("/v1/chat/completions", json={**ask, "max_completion_tokens": 5000})
                bad = c.post("/v1/chat/completions", json={**ask, "max_tokens": "lots"})
                within = c.post("/v1/chat/completions", json={**ask, "max_tokens": 100})
                unbounded = c.post("/v1/chat/completions", json=ask)
                paid_over = p.post("/v1/chat/completions", json={**ask, "max_tokens": 11})
                paid_within = p.post("/v1/chat/completions", json={**ask, "max_tokens": 10})
            record, paid_record = gw.close_run("capped"), gw.close_run("paid")
    assert over.status_code == 400 and "cap of 100 completion tokens" in over.json()["error"]["message"]
    assert over_new.status_code == 400 and "max_completion_tokens 5000" in over_new.json()["error"]["message"]
    assert bad.status_code == 400 and "whole number" in bad.json()["error"]["message"]
    assert within.status_code == 200 and unbounded.status_code == 200
    assert paid_over.status_code == 400 and "cap of 10 " in paid_over.json()["error"]["message"]
    assert paid_within.status_code == 200
    assert [r.get("max_tokens") for r in server.requests] == [100, None, 10]  # only the calls within reached it
    assert record.llm_calls == 2 and paid_record.llm_calls == 1  # refusals not counted
    assert record.upstream_errors == [] and paid_record.upstream_errors == []


def test_a_call_that_times_out_while_the_upstream_answers_is_the_agents_and_a_failing_upstream_the_nodes(
    tiny_catalog, tmp_path
):
    """A call the upstream has not answered within the gateway's timeout (1 s here): when the upstream answered
    another call of that model within the probe's time (2 s here) before, or answers the gateway's one-token probe,
    the call was too long, the agent's (504 'too long', no upstream failure); when the upstream answers neither, it is
    the upstream's (502, an upstream failure: the run 2005)."""
    import threading

    down = threading.Event()
    release = threading.Event()

    def responder(body):
        if down.is_set() or "endless" in str(body.get("messages")):
            release.wait(30)
        return "ok"

    try:
        with OpenAIServer(responder, models=("m",)) as server:
            gw = Gateway(
                tiny_catalog, upstream=Upstream(base_url=server.base_url, models=["m"], timeout=1, probe_timeout=2)
            )
            endless = {"model": "m", "messages": [{"role": "user", "content": "an endless essay"}]}
            with GatewayServer(gw, tmp_path / "s" / "gateway.sock") as gws:
                probed = gw.open_run("probed")
                with client(gws.socket_path, probed.token) as c:
                    long_alone = c.post("/v1/chat/completions", json=endless)
                probes = [r for r in server.requests if r.get("max_tokens") == 1]
                seen = gw.open_run("seen")
                with client(gws.socket_path, seen.token) as c:
                    assert _chat(c).status_code == 200
                    long_seen = c.post("/v1/chat/completions", json=endless)
                after_seen = [r for r in server.requests if r.get("max_tokens") == 1]
                down.set()  # now the upstream answers nothing
                failing = gw.open_run("failing")
                with client(gws.socket_path, failing.token) as c:
                    # the answers of 'seen' are older than the probe's 2 s: they show nothing now
                    import time

                    time.sleep(2.2)
                    long_down = c.post("/v1/chat/completions", json=endless)
                records = {name: gw.close_run(name) for name in ("probed", "seen", "failing")}
    finally:
        release.set()
    assert len(probes) == 1 and probes[0]["messages"][0]["content"] == "ping"
    assert long_alone.status_code == 504 and long_alone.json()["error"]["message"].startswith("too long: ")
    assert "answered a probe" in long_alone.json()["error"]["message"]
    assert long_seen.status_code == 504 and "answered other calls" in long_seen.json()["error"]["message"]
    assert len(after_seen) == 1  # no probe where another call had just been answered
    assert records["probed"].upstream_errors == [] and records["seen"].upstream_errors == []
    (call,) = [e for e in records["probed"].events if e.kind == "llm_call"]
    assert call.status == 504 and (call.error or "").startswith("too long: ")
    assert long_down.status_code == 502 and "did not answer a probe" in long_down.json()["error"]["message"]
    (failed,) = records["failing"].upstream_errors
    assert failed["status"] == 502


def test_an_upstream_5xx_is_kept_with_whether_the_upstream_was_seen_well(tiny_catalog, tmp_path):
    """An upstream 5xx is the upstream's failure (502/500 passed on, recorded in the run's upstream_errors); the
    gateway checks the upstream as it does for a timeout and keeps why it was seen well (another call just answered,
    or its probe answered) with the failure; an upstream failing every call (its probe too) is not seen well. The
    verdict uses it on a run's last try only (`arena.verdict.choked`)."""
    import threading

    down = threading.Event()

    def responder(body):
        from tests.support.openai_server import Fail

        if down.is_set() or "choke" in str(body.get("messages")):
            raise Fail(500, "internal error")
        return "ok"

    with OpenAIServer(responder, models=("m",)) as server:
        gw = Gateway(tiny_catalog, upstream=Upstream(base_url=server.base_url, models=["m"], probe_timeout=2))
        choke = {"model": "m", "messages": [{"role": "user", "content": "choke"}]}
        with GatewayServer(gw, tmp_path / "s" / "gateway.sock") as gws:
            probed = gw.open_run("probed")
            with client(gws.socket_path, probed.token) as c:
                alone = c.post("/v1/chat/completions", json=choke)
            seen = gw.open_run("seen")
            with client(gws.socket_path, seen.token) as c:
                assert _chat(c).status_code == 200
                after = c.post("/v1/chat/completions", json=choke)
            down.set()  # now the upstream answers every call 500, the probe too
            failing = gw.open_run("failing")
            with client(gws.socket_path, failing.token) as c:
                import time

                time.sleep(2.2)  # the answers of 'seen' are older than the probe's 2 s
                outage = c.post("/v1/chat/completions", json=choke)
            records = {name: gw.close_run(name) for name in ("probed", "seen", "failing")}
    assert alone.status_code == after.status_code == outage.status_code == 500
    (a,) = records["probed"].upstream_errors
    (b,) = records["seen"].upstream_errors
    (c_,) = records["failing"].upstream_errors
    assert a["status"] == 500 and a["well"] == "answered a probe"
    assert b["status"] == 500 and b["well"] == "answered other calls"
    assert c_["status"] == 500 and "well" not in c_


def test_an_upstream_trickling_bytes_past_the_timeout_is_cut_off_at_it(tiny_catalog, tmp_path):
    """httpx's timeout bounds each read, not the call: an upstream that sends a byte every 0.1 s and never finishes
    must still be given up at the gateway's upstream timeout (1 s here) and go through the timeout rule (its probe,
    queued behind the one connection the trickler serves, is not answered: a 502, the upstream's failure), not hold
    the call (and the run's wall clock) for ever."""
    sock = tmp_path / "gw" / "gateway.sock"
    with trickling() as server:
        gw = Gateway(
            tiny_catalog,
            upstream=Upstream(base_url=f"http://127.0.0.1:{server.port}/v1", models=["m"], timeout=1, probe_timeout=1),
        )
        with GatewayServer(gw, sock):
            run = gw.open_run("trickled")
            with client(sock, run.token) as c:
                resp = _chat(c)
            assert server.dropped.wait(10)  # the upstream request given up
            record = gw.close_run("trickled")
    assert resp.status_code == 502 and "timed out after" in resp.json()["error"]["message"]
    (failed,) = record.upstream_errors
    assert failed["status"] == 502


class choking:  # noqa: N801 - used as a context manager
    """An upstream that answers every call 200 (the gateway's probe too) but a request naming 'html' (a proxy's 502
    page, not JSON) and one naming 'drop' (the connection closed without an answer): failures the agent's own request
    can bring about while the upstream serves everything else."""

    def __init__(self) -> None:
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                if "drop" in body:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if "html" in body:
                    status, data, kind = 502, b"<html><body>502 Bad Gateway</body></html>", "text/html"
                else:
                    answer = {"role": "assistant", "content": "ok"}
                    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
                    payload = {"id": "x", "object": "chat.completion", "model": json.loads(body)["model"]}
                    payload |= {"choices": [{"index": 0, "message": answer, "finish_reason": "stop"}], "usage": usage}
                    status, data, kind = 200, json.dumps(payload).encode(), "application/json"
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def __enter__(self) -> choking:
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("how", ["html", "drop"])
def test_a_5xx_whatever_its_body_or_a_dropped_connection_is_kept_with_whether_the_upstream_was_well(
    tiny_catalog, tmp_path, how
):
    """A request the upstream answers 502 with an HTML page (not JSON), or drops the connection on, while it answers
    the gateway's probe: a 502 to the agent and the upstream's failure as any, kept with the upstream seen well, as a
    JSON 5xx is; else one such failure would keep a choking run the upstream's on its last try
    (`arena.verdict.choked` needs every failure seen well)."""
    from arena import verdict

    with choking() as server:
        gw = Gateway(tiny_catalog, upstream=Upstream(base_url=server.base_url, models=["m"], probe_timeout=2))
        with GatewayServer(gw, tmp_path / "s" / "gateway.sock") as gws:
            run = gw.open_run("choker")
            with client(gws.socket_path, run.token) as c:
                resp = c.post(
                    "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": how}]}
                )
            record = gw.close_run("choker")
    assert resp.status_code == 502
    (failed,) = record.upstream_errors
    assert failed["status"] == 502 and failed["well"] == "answered a probe"
    assert verdict.choked(record.upstream_errors)


@pytest.mark.parametrize("status", [401, 429])
def test_a_probe_refusing_the_miners_key_is_the_miners_failure_not_a_sick_provider(tiny_catalog, tmp_path, status):
    """Where the miner pays, the gateway's probe goes with the miner's own key: a miner could fail it on purpose (its
    rate limit burnt, its key revoked a moment) to have a call that timed out, or a request its provider chokes on, read
    as the provider failing (2011, retried). A probe answered with a status of the miner's key is the miner's: recorded
    in the run's payer_errors (1009); the timed-out call is not an upstream failure, and a 5xx met meanwhile is kept as
    seen well (the upstream answered), so a last try scores it."""
    import threading

    from pydantic import SecretStr

    from arena import verdict
    from arena.spend import Price, Provider
    from sandbox.gateway.runs import MinerRoute
    from tests.support.openai_server import Fail

    release = threading.Event()

    def responder(body):
        if body.get("max_tokens") == 1:
            raise Fail(status, "key refused")
        if "choke" in str(body.get("messages")):
            raise Fail(500, "internal error")
        release.wait(30)
        return "ok"

    try:
        with OpenAIServer(responder, models=("m",)) as server:
            gw = Gateway(tiny_catalog, upstream=Upstream(models=["m"], timeout=1, probe_timeout=2))
            route = MinerRoute(
                "local", Provider(base_url=server.base_url, models={"m": Price()}), SecretStr("sk-" + "m" * 40)
            )
            with GatewayServer(gw, tmp_path / "s" / "gateway.sock") as gws:
                slow, choke = gw.open_run("slow", route=route), gw.open_run("choke", route=route)
                with client(gws.socket_path, slow.token) as c:
                    timed_out = c.post("/v1/chat/completions", json={"model": "m", "messages": []})
                with client(gws.socket_path, choke.token) as c:
                    choked = c.post(
                        "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "choke"}]}
                    )
                records = {name: gw.close_run(name) for name in ("slow", "choke")}
    finally:
        release.set()
    assert timed_out.status_code == status and "refusing the miner's key" in timed_out.json()["error"]["message"]
    assert records["slow"].upstream_errors == []
    (refused,) = records["slow"].payer_errors
    assert refused["status"] == status
    assert choked.status_code == 500
    (failed,) = records["choke"].upstream_errors
    assert "refusing the miner's key" in failed["well"] and verdict.choked(records["choke"].upstream_errors)
    assert [e["status"] for e in records["choke"].payer_errors] == [status]


def test_a_call_within_the_max_tokens_cap_that_times_out_is_the_upstreams(tiny_catalog, tmp_path):
    """The cap (`Upstream.max_tokens`) is the operator's word that the upstream writes that many tokens within its
    timeout: a call naming a max_tokens within it that times out, the upstream answering everything else (the probe
    too), is the upstream's (502, an upstream failure: retried), not 'too long'; only a call naming no limit can be
    too long (the agent's)."""
    import threading

    release = threading.Event()

    def responder(body):
        if "endless" in str(body.get("messages")):
            release.wait(30)
        return "ok"

    endless = {"model": "m", "messages": [{"role": "user", "content": "an endless essay"}]}
    try:
        with OpenAIServer(responder, models=("m",)) as server:
            gw = Gateway(
                tiny_catalog, upstream=Upstream(base_url=server.base_url, models=["m"], timeout=1, probe_timeout=2)
            )
            with GatewayServer(gw, tmp_path / "s" / "gateway.sock") as gws:
                run = gw.open_run("bounded")
                with client(gws.socket_path, run.token) as c:
                    bounded = c.post("/v1/chat/completions", json={**endless, "max_tokens": 50})
                    unbounded = c.post("/v1/chat/completions", json=endless)
                record = gw.close_run("bounded")
    finally:
        release.set()
    assert bounded.status_code == 502 and "within this node's cap of 4096" in bounded.json()["error"]["message"]
    assert unbounded.status_code == 504 and unbounded.json()["error"]["message"].startswith("too long: ")
    (failed,) = record.upstream_errors
    assert failed["status"] == 502 and "at most 50 completion tokens" in failed["error"]


def test_an_upstream_5xx_is_sent_again_once_before_it_counts(tiny_catalog, tmp_path):
    """A flaky upstream fails a call now and then while it serves: an honest request that met one 5xx is sent once more
    and its answer passed on, no upstream failure recorded (else on a run's last try that 5xx, met while the upstream
    answers the probe, reads as the agent's request choking it: `arena.verdict.choked`); a request the upstream fails
    twice is a failure kept with the upstream seen well, the upstream having seen it twice."""
    from tests.support.openai_server import Fail

    seen: dict[str, int] = {}

    def responder(body):
        text = str(body.get("messages"))
        for name in ("flaky", "choke"):
            if name in text:
                seen[name] = seen.get(name, 0) + 1
                if name == "choke" or seen[name] == 1:
                    raise Fail(500, "internal error")
        return "ok"

    with OpenAIServer(responder, models=("m",)) as server:
        gw = Gateway(tiny_catalog, upstream=Upstream(base_url=server.base_url, models=["m"], probe_timeout=2))
        with GatewayServer(gw, tmp_path / "s" / "gateway.sock") as gws:
            run = gw.open_run("flaky")
            with client(gws.socket_path, run.token) as c:
                flaky = c.post(
                    "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "flaky"}]}
                )
                record = gw.close_run("flaky")
            run = gw.open_run("choke")
            with client(gws.socket_path, run.token) as c:
                choke = c.post(
                    "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "choke"}]}
                )
                choked = gw.close_run("choke")
    assert flaky.status_code == 200 and record.upstream_errors == [] and seen["flaky"] == 2
    assert [e.status for e in record.events if e.kind == "llm_call"] == [200] and record.llm_calls == 1
    assert choke.status_code == 500 and seen["choke"] == 2
    (failed,) = choked.upstream_errors
    assert failed["status"] == 500 and failed["well"]  # it answered the flaky call's second sending, or the probe


def test_a_provider_failing_one_miners_account_is_not_seen_well_for_it_by_anothers_answers(tiny_catalog, tmp_path):
    """Where miners pay at one provider, "well" is by key: a provider answering one miner's calls while it fails every
    call of another's account (its probe too) is not seen well for the second miner's runs, so that miner's failures
    stay the provider's (2011, counted toward dropping the provider for it, never scored as its agent's choking)."""
    from pydantic import SecretStr

    from arena import verdict
    from arena.spend import Price, Provider
    from sandbox.gateway.runs import MinerRoute
    from tests.support.openai_server import Fail

    keys = {"fine": "sk-" + "f" * 40, "failing": "sk-" + "x" * 40}
    servers: list[OpenAIServer] = []

    def responder(body):
        if servers[0].auth_headers[-1] == f"Bearer {keys['failing']}":  # this account only, its probe too
            raise Fail(500, "internal error")
        return "ok"

    with OpenAIServer(responder, models=("m",)) as server:
        servers.append(server)
        gw = Gateway(tiny_catalog, upstream=Upstream(models=["m"], probe_timeout=5))
        provider = Provider(base_url=server.base_url, models={"m": Price()})
        routes = {name: MinerRoute("local", provider, SecretStr(key)) for name, key in keys.items()}
        with GatewayServer(gw, tmp_path / "s" / "gateway.sock") as gws:
            handles = {name: gw.open_run(name, route=route) for name, route in routes.items()}
            with client(gws.socket_path, handles["fine"].token) as c:
                assert _chat(c).status_code == 200
            with client(gws.socket_path, handles["failing"].token) as c:
                assert _chat(c).status_code == 500
            records = {name: gw.close_run(name) for name in handles}
    assert records["fine"].upstream_errors == []
    failed = records["failing"].upstream_errors
    assert failed and all("well" not in e for e in failed), failed
    assert not verdict.choked(failed)
