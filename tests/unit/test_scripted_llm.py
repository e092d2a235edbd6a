"""The scripted OpenAI-compatible server (the tests' and benches' upstream LLM) stopped and started again at the same
address: in between a client is refused, after it the same base URL answers (an upstream outage, bench/faults.py)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from demo.scripted_llm import OpenAIServer


def ask(base_url: str) -> str:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
    request = urllib.request.Request(
        base_url + "/chat/completions", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as resp:
        return str(json.loads(resp.read())["choices"][0]["message"]["content"])


def test_a_server_stopped_then_started_on_its_port_answers_at_the_same_url_again() -> None:
    first = OpenAIServer(lambda body: "first", models=("m",)).__enter__()
    url, port = first.base_url, int(first.base_url.rsplit(":", 1)[1].split("/")[0])
    assert ask(url) == "first"
    first.__exit__(None, None, None)
    with pytest.raises(urllib.error.URLError):  # down: refused
        ask(url)
    with OpenAIServer(lambda body: "again", models=("m",), port=port) as again:
        assert again.base_url == url and ask(url) == "again"


def test_a_responder_scripts_an_html_error_page_a_dropped_connection_and_a_trickled_answer() -> None:
    """The upstream failures the LLM-call blame tests play (tests/support/llm_race.py): a 502 whose body is a proxy's
    HTML page, a connection closed without an answer, and a 200 whose body comes a byte at a time and never ends."""
    import http.client

    from demo.scripted_llm import Drop, Fail, Trickle

    def responder(body: dict[str, object]) -> str:
        what = str(body["messages"])
        if "html" in what:
            raise Fail(502, "Bad Gateway", html=True)
        if "drop" in what:
            raise Drop()
        if "trickle" in what:
            raise Trickle()
        return "ok"

    def post(port: int, content: str, timeout: float = 10) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": content}]})
        conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        return conn.getresponse()

    with OpenAIServer(responder, models=("m",)) as server:
        port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
        page = post(port, "html")
        assert page.status == 502 and page.getheader("Content-Type") == "text/html"
        assert page.read().startswith(b"<html>")
        with pytest.raises(http.client.RemoteDisconnected):
            post(port, "drop")
        trickled = post(port, "trickle", timeout=1)
        assert trickled.status == 200 and trickled.getheader("Content-Length") == "1000000"
        assert trickled.read(5) == b"     "  # a byte at a time, each well within a 1 s read timeout; never the rest
        trickled.close()
        assert post(port, "hello").status == 200
