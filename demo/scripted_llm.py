"""A scripted OpenAI-compatible server on loopback: ``POST /v1/chat/completions`` and ``GET /v1/models``, each
completion computed by a responder function from the request (no model weights, no network). The demo's model
(`demo.llm`) and the tests' upstream LLM (``tests/support/openai_server.py``) are this server with their
own responders.

A responder returns the assistant's text, or a whole assistant message (a dict with ``content`` and optionally
``tool_calls`` in OpenAI's shape) to script a tool-calling model; it raises `Fail` to answer with an HTTP error (a
JSON body, or with ``html=True`` a proxy's HTML page), `Drop` to close the connection without an answer, `Trickle`
to answer 200 and send the body a byte at a time, never finishing it.
Every request is recorded (``requests``, and its ``Authorization`` header in ``auth_headers``). With ``keys`` it
answers 401 to a request whose bearer key is not one of them (a provider checking a key); with ``usage=False`` its
answers carry no ``usage`` (a provider that reports none). ``port`` binds a given port (a server stopped and started
again at the same address: an upstream outage)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

Responder = Callable[[dict[str, Any]], "str | dict[str, Any]"]


class Fail(Exception):
    """Raised by a responder to answer with an HTTP error (an upstream that is down, overloaded, refusing)."""

    def __init__(self, status: int, message: str = "scripted failure", *, html: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.html = html  # a proxy's HTML error page in place of a JSON body

    def body(self) -> dict[str, Any] | bytes:
        if self.html:
            return f"<html><body><h1>{self.status}</h1><p>{self.message}</p></body></html>".encode()
        return {"error": {"message": self.message}}


class Drop(Exception):
    """Raised by a responder to close the connection without an answer (an upstream that crashed on the request)."""


class Trickle(Exception):
    """Raised by a responder to answer 200 and then send the body a byte every 0.1 s, never finishing it (an upstream
    stalled mid-answer), until the client hangs up or the server stops."""


class OpenAIServer:
    """The server, started and stopped as a context manager; ``base_url`` ends in ``/v1``."""

    def __init__(
        self,
        responder: Responder,
        models: tuple[str, ...] = ("test-model",),
        *,
        name: str = "scripted-llm",
        keys: tuple[str, ...] | None = None,
        usage: bool = True,
        port: int = 0,
    ) -> None:
        self.responder = responder
        self.models = models
        self.keys = keys
        self.usage = usage
        self.requests: list[dict[str, Any]] = []
        self.auth_headers: list[str] = []
        self._stopped = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))  # 0: any free port
        self._thread = threading.Thread(target=self._httpd.serve_forever, name=name, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopped.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def models_list(self) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "scripted"} for m in self.models]}

    def complete(self, body: dict[str, Any]) -> tuple[int, dict[str, Any] | bytes]:
        """(status, payload) for one chat completion request, already recorded (a payload in bytes: an HTML page).
        `Drop` and `Trickle` pass through to the handler."""
        if body.get("model") not in self.models:
            return 404, {"error": {"message": f"model {body.get('model')} not found"}}
        try:
            answer = self.responder(body)
        except Fail as failure:
            return failure.status, failure.body()
        message: dict[str, Any] = (
            {"role": "assistant", **answer} if isinstance(answer, dict) else {"role": "assistant", "content": answer}
        )
        calls = message.get("tool_calls") or []
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        completion_tokens = len(str(message.get("content") or "").split()) + sum(
            len(str(c.get("function", {}).get("arguments", "")).split()) for c in calls
        )
        answer_body: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "tool_calls" if calls else "stop", "message": message}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        if not self.usage:
            del answer_body["usage"]
        return 200, answer_body


def _handler(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _send(self, status: int, payload: dict[str, Any] | bytes) -> None:
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html" if isinstance(payload, bytes) else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _answer(self, body: dict[str, Any]) -> None:
            try:
                self._send(*server.complete(body))
            except (BrokenPipeError, ConnectionResetError):  # the client hung up before the answer
                pass
            except Drop:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
            except Trickle:
                self.close_connection = True
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "1000000")
                self.end_headers()
                try:
                    while not server._stopped.wait(0.1):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                except OSError:  # the client hung up
                    pass

        def do_GET(self) -> None:  # noqa: N802
            if self.path.rstrip("/") == "/v1/models":
                self._send(200, server.models_list())
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:  # noqa: N802
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            except ValueError:
                self._send(400, {"error": {"message": "body is not JSON"}})
                return
            server.requests.append(body)
            server.auth_headers.append(self.headers.get("Authorization", ""))
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, {"error": {"message": "not found"}})
                return
            given = self.headers.get("Authorization", "")
            if server.keys is not None and given.removeprefix("Bearer ") not in server.keys:
                self._send(401, {"error": {"message": f"Incorrect API key provided: {given.removeprefix('Bearer ')}"}})
                return
            self._answer(body)

    return Handler
