"""The gateway's upstream client (`sandbox.gateway.llmclient`) against real local HTTP servers: what it sends (httpx's
headers and JSON, the key as a bearer token), an answer compressed although the client asked for none, and its errors
raised as httpx's (what the LLM proxy's blame rules catch)."""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from sandbox.gateway.llmclient import LLMClient


class _Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[tuple[dict[str, str], bytes]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.seen.append(({k.lower(): v for k, v in self.headers.items()}, body))
        answer = json.dumps({"echo": json.loads(body)}).encode()
        compressed = self.path.endswith("/gzip")
        if compressed:
            answer = gzip.compress(answer)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if compressed:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def upstream() -> Any:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Upstream.seen = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_sends_the_json_and_key_as_httpx_did_and_keeps_the_connection(upstream: str) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "¿café?"}]}

    async def two() -> list[Any]:
        client = LLMClient()
        return [await client.post(f"{upstream}/v1/chat/completions", body, "sk-key-0123456789", 5) for _ in range(2)]

    answers = asyncio.run(two())
    assert [a.status_code for a in answers] == [200, 200] and all(a.is_success for a in answers)
    assert json.loads(answers[0].content) == {"echo": body}
    headers, sent = _Upstream.seen[0]
    assert sent == json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    assert headers["authorization"] == "Bearer sk-key-0123456789"
    assert headers["content-type"] == "application/json"
    assert headers["host"] == upstream.removeprefix("http://")
    assert headers["user-agent"] == f"python-httpx/{httpx.__version__}"
    assert len(_Upstream.seen) == 2


def test_an_answer_compressed_anyway_is_read_plain(upstream: str) -> None:
    answer = asyncio.run(LLMClient().post(f"{upstream}/gzip", {"a": 1}, "k", 5))
    assert json.loads(answer.content) == {"echo": {"a": 1}}


def test_errors_are_httpx_errors() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    with pytest.raises(httpx.ConnectError):
        asyncio.run(LLMClient().post(f"http://127.0.0.1:{port}/x", {}, "k", 5))

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    try:  # accepted by the kernel, never answered: the read times out
        with pytest.raises(httpx.ReadTimeout):
            asyncio.run(LLMClient().post(f"http://127.0.0.1:{silent.getsockname()[1]}/x", {}, "k", 0.3))
    finally:
        silent.close()
