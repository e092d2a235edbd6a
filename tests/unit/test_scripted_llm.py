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
