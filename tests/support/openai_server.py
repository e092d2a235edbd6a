"""A real OpenAI-compatible HTTP server on loopback, for tests: the one allowed double (an upstream LLM we cannot
reach here). It answers ``POST /v1/chat/completions`` and ``GET /v1/models`` with deterministic completions computed
by a responder function from the request, and records every request it received.

A responder returns the assistant's text, or a whole assistant message (a dict with ``content`` and optionally
``tool_calls`` in OpenAI's shape) to script a tool-calling model."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[dict[str, Any]], "str | dict[str, Any]"]


class Fail(Exception):
    """Raised by a responder to answer with an HTTP error (an upstream that is down, overloaded, refusing)."""

    def __init__(self, status: int, message: str = "scripted failure") -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class OpenAIServer:
    def __init__(self, responder: Responder, models: tuple[str, ...] = ("test-model",)) -> None:
        self.responder = responder
        self.models = models
        self.requests: list[dict[str, Any]] = []
        self.auth_headers: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "test"}
                                                                for m in server.models]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(body)
                server.auth_headers.append(self.headers.get("Authorization", ""))
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "not found"}})
                    return
                if body.get("model") not in server.models:
                    self._send(404, {"error": {"message": f"model {body.get('model')} not found"}})
                    return
                try:
                    answer = server.responder(body)
                except Fail as failure:
                    self._send(failure.status, {"error": {"message": failure.message}})
                    return
                message = {"role": "assistant", **answer} if isinstance(answer, dict) else {
                    "role": "assistant", "content": answer}
                calls = message.get("tool_calls") or []
                prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
                completion_tokens = len(str(message.get("content") or "").split()) + sum(
                    len(str(c.get("function", {}).get("arguments", "")).split()) for c in calls)
                self._send(200, {
                    "id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion", "created": int(time.time()),
                    "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "tool_calls" if calls else "stop",
                                 "message": message}],
                    "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                              "total_tokens": prompt_tokens + completion_tokens},
                })

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> OpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
