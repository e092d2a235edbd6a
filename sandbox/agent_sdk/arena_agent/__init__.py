"""The agent SDK, importable as ``arena_agent`` inside the sandbox.

The gateway is the agent's only door out; inside the sandbox it listens on ``http://127.0.0.1:8080`` (the harness
forwards it to the gateway socket and attaches the run's token), so any HTTP client works too:

- ``POST /tools/{name}`` with the arguments as a JSON object -> ``{"ok": true, "result": ...}`` or
  ``{"ok": false, "error": "..."}`` (a tool's own error, e.g. a bad argument or an unknown id);
- ``GET /tools`` -> the OpenAI function schemas of the seven tools;
- ``POST /v1/chat/completions`` and ``GET /v1/models`` -> the node's LLM endpoint (OpenAI-compatible, no streaming).

Every answer of the gateway carries the run's remaining budget in ``X-Arena-Budget-Tool-Calls``, ``-LLM-Calls``,
``-Tokens``, ``-Cost`` (``off``: no cost budget) and ``-Seconds`` headers; `budget()` asks for it (free of charge).

The node's model is in ``$ARENA_LLM_MODEL`` (`llm_model()`); it is unset when the node serves no LLM, and then
every LLM call is refused (503). ``GET /v1/models`` lists every model the node allows.

Usage::

    from arena_agent import llm, llm_model, tools
    hits = tools.find_product(q="rattan basket", price="100-500")
    reply = llm().chat.completions.create(model=llm_model(), messages=[...], tools=tools.schemas())
"""

from __future__ import annotations

import http.client
import json
import os
import threading
from typing import Any
from urllib.parse import urlsplit

GATEWAY_URL = os.environ.get("ARENA_GATEWAY_URL", "http://127.0.0.1:8080").rstrip("/")
_GATEWAY = urlsplit(GATEWAY_URL)
#: each thread's connection to the gateway, kept open across calls (HTTP keep-alive; a forked process opens its own)
_local = threading.local()


class ToolError(Exception):
    """The tool refused the call (bad argument, unknown id, ...): the message says why."""


class BudgetExhausted(Exception):
    """The run's budget of tool or LLM calls is spent (HTTP 429)."""


def _connection(timeout: float) -> tuple[http.client.HTTPConnection, bool]:
    """This thread's connection to the gateway, and whether it served a call before."""
    conn = getattr(_local, "conn", None)
    if conn is None or _local.pid != os.getpid():
        conn = http.client.HTTPConnection(_GATEWAY.hostname or "127.0.0.1", _GATEWAY.port or 80, timeout=timeout)
        _local.conn, _local.pid = conn, os.getpid()
    conn.timeout = timeout
    if conn.sock is not None:
        conn.sock.settimeout(timeout)
        return conn, True
    return conn, False


def _drop() -> None:
    conn = getattr(_local, "conn", None)
    if conn is not None:
        conn.close()
    _local.conn = None


def _exchange(method: str, path: str, data: bytes | None, timeout: float) -> tuple[int, bytes]:
    """One request on this thread's kept connection: (status, body). A kept connection the far end closed while it
    sat idle (nothing of the request was taken) is replaced once."""
    headers = {"Content-Type": "application/json"}
    for attempt in (1, 2):
        conn, reused = _connection(timeout)
        try:
            conn.request(method, _GATEWAY.path + path, body=data, headers=headers)
            response = conn.getresponse()
            body = response.read()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            _drop()
            if reused and attempt == 1:
                continue
            raise
        except BaseException:
            _drop()
            raise
        if response.will_close:
            _drop()
        return response.status, body
    raise AssertionError("unreachable")


def _request(method: str, path: str, body: Any = None, timeout: float = 60.0) -> Any:
    data = None if body is None else json.dumps(body).encode()
    status, payload = _exchange(method, path, data, timeout)
    if status >= 400:
        detail = payload.decode(errors="replace")[:500]
        if status == 429:
            raise BudgetExhausted(detail)
        raise RuntimeError(f"gateway answered {status}: {detail}")
    return json.loads(payload or b"null")


def call_tool(name: str, **arguments: Any) -> Any:
    """Call one tool; returns its result or raises `ToolError` with the tool's message."""
    reply = _request("POST", f"/tools/{name}", {k: v for k, v in arguments.items() if v is not None})
    if not reply.get("ok"):
        raise ToolError(reply.get("error", "tool error"))
    return reply["result"]


class _Tools:
    """Typed-by-convention wrappers: ``tools.find_product(q=..., page=...)``; names and parameters are the schemas'."""

    _schemas: list[dict[str, Any]] | None = None

    def schemas(self) -> list[dict[str, Any]]:
        if self._schemas is None:
            self._schemas = _request("GET", "/tools")
        return self._schemas

    def names(self) -> list[str]:
        return [s["function"]["name"] for s in self.schemas()]

    def find_product(
        self,
        q: str,
        page: int = 1,
        shop_id: str | None = None,
        price: str | None = None,
        sort: str = "default",
        service: str | None = None,
    ) -> list[dict[str, Any]]:
        return call_tool("find_product", q=q, page=page, shop_id=shop_id, price=price, sort=sort, service=service)

    def view_product_information(self, product_ids: str) -> list[dict[str, Any]]:
        return call_tool("view_product_information", product_ids=product_ids)

    def find_products_in_same_shop(
        self,
        queries: list[str],
        price: str | None = None,
        service: str | None = None,
        max_shops: int = 5,
        per_query: int = 3,
    ) -> list[dict[str, Any]]:
        return call_tool(
            "find_products_in_same_shop",
            queries=queries,
            price=price,
            service=service,
            max_shops=max_shops,
            per_query=per_query,
        )

    def calculate_voucher(self, product_ids: str, voucher: dict[str, Any]) -> dict[str, Any]:
        return call_tool("calculate_voucher", product_ids=product_ids, voucher=voucher)

    def web_search(self, q: str, max_results: int = 10) -> list[dict[str, Any]]:
        return call_tool("web_search", q=q, max_results=max_results)

    def recommend_product(self, product_ids: str) -> str:
        return call_tool("recommend_product", product_ids=product_ids)

    def terminate(self, status: str = "success") -> str:
        return call_tool("terminate", status=status)


tools = _Tools()


def budget() -> dict[str, Any]:
    """What the run may still spend: ``tool_calls``, ``llm_calls``, ``tokens``, ``cost`` (None when the node sets no
    cost budget) and ``seconds`` of wall-clock time (None when unknown)."""
    return dict(_request("GET", "/budget"))


def llm() -> Any:
    """An ``openai.OpenAI`` client pointed at the gateway (the key is a placeholder; the gateway holds the real one)."""
    from openai import OpenAI

    return OpenAI(
        base_url=os.environ.get("OPENAI_BASE_URL", GATEWAY_URL + "/v1"),
        api_key=os.environ.get("OPENAI_API_KEY", "sandbox"),
        max_retries=0,
    )


def llm_model() -> str | None:
    """The model the node serves agents (its first allowed model), or None when the node has no LLM endpoint."""
    return os.environ.get("ARENA_LLM_MODEL") or None


__all__ = ["BudgetExhausted", "GATEWAY_URL", "ToolError", "budget", "call_tool", "llm", "llm_model", "tools"]
