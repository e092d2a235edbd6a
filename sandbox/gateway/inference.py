"""The inference proxy: ``GET /v1/models`` and ``POST /v1/chat/completions`` (and subnet 15's
``POST /inference/chat/completions``, the same proxy), forwarded to the node's upstream OpenAI-compatible endpoint
with the node's key (which never reaches a sandbox). Models outside the allowlist are refused; no streaming; LLM calls,
tokens and cost budgeted per run; the upstream failing (unreachable, timing out, answering 5xx, 402 or 429, or a body
that is not JSON) is recorded in the run's `upstream_errors`: it is the node's fault, not the agent's."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from sandbox.gateway.access import authorize, authorized_json
from sandbox.gateway.registry import RunRegistry
from sandbox.gateway.runs import RunHandle, now, upstream_fault


class _Refused(Exception):
    """A chat completion refused: its status, message, and whether the upstream failed (the node's fault)."""

    def __init__(self, status: int, message: str, *, upstream: bool = False) -> None:
        super().__init__(message)
        self.status, self.message, self.upstream = status, message, upstream


@dataclass
class _Completion:
    """One chat completion of a run: admitted against the allowlist and budgets, forwarded upstream, answered."""

    gateway: RunRegistry
    handle: RunHandle
    body: Any
    started: datetime = field(default_factory=now)
    t0: float = field(default_factory=time.perf_counter)

    def refuse(self, refused: _Refused) -> JSONResponse:
        name = str(self.body.get("model", "")) if isinstance(self.body, dict) else ""
        event = self.gateway._record(
            self.handle,
            {
                "kind": "llm_call",
                "name": name,
                "arguments": self.body,
                "started_at": self.started,
                "status": refused.status,
                "error": refused.message,
            },
        )
        if refused.upstream:
            self.gateway._upstream_failed(self.handle, event)
        return JSONResponse({"error": {"message": refused.message}}, status_code=refused.status)

    def admit(self) -> None:
        """Refuse a body that is not an object, streaming, a node without an endpoint, a model outside the
        allowlist, a run whose LLM budget is spent; else count the call."""
        gateway, handle, body = self.gateway, self.handle, self.body
        if not isinstance(body, dict):
            raise _Refused(400, "body must be a JSON object")
        if body.get("stream"):
            raise _Refused(400, "streaming is not supported by the gateway; send stream=false")
        model = body.get("model")
        if not gateway.upstream.base_url:  # said first: no model is allowed when there is no endpoint at all
            raise _Refused(503, "this node has no LLM endpoint configured")
        if model not in gateway.upstream.models:
            raise _Refused(403, f"model {model!r} is not allowed; allowed: {', '.join(gateway.upstream.models)}")
        with handle.lock:
            over = (
                handle.llm_calls >= handle.budgets.llm_calls
                or handle.tokens >= handle.budgets.tokens
                or handle.cost >= handle.budgets.cost > 0
            )
            if not over:
                handle.llm_calls += 1
        if over:
            with handle.lock:
                handle.budget_refusals += 1
            raise _Refused(429, "LLM budget (calls, tokens or cost) spent")

    async def forward(self) -> httpx.Response:
        """The upstream's answer, at most `Budgets.llm_concurrency` of the run's calls in flight at once; a call
        still pending when the agent hangs up is checked for a stall."""
        gateway, handle = self.gateway, self.handle
        upstream = gateway.upstream
        key = upstream.api_key.get_secret_value() if upstream.api_key else "none"
        with handle.lock:
            if handle.llm_gate is None:
                handle.llm_gate = asyncio.Semaphore(handle.budgets.llm_concurrency)
            gate = handle.llm_gate
        pending = id(self.body)
        try:
            async with (
                gate,
                httpx.AsyncClient(
                    base_url=upstream.base_url or "", timeout=upstream.timeout, transport=gateway._transport
                ) as client,
            ):
                with handle.lock:
                    handle.upstream_pending[pending] = (time.monotonic(), self.started, str(self.body.get("model")))
                resp = await client.post(
                    "/chat/completions", json=self.body, headers={"Authorization": f"Bearer {key}"}
                )
        except asyncio.CancelledError:  # the agent hung up: a stalled upstream is still the node's failure
            with handle.lock:
                waiting = handle.upstream_pending.pop(pending, None)
            if waiting is not None:
                gateway._stalled(handle, *waiting, "when the agent hung up")
            raise
        except httpx.HTTPError as exc:
            with handle.lock:
                handle.upstream_pending.pop(pending, None)
            kind = "timed out" if isinstance(exc, httpx.TimeoutException) else "unreachable"
            raise _Refused(502, f"upstream LLM {kind} ({type(exc).__name__})", upstream=True) from exc
        with handle.lock:
            handle.upstream_pending.pop(pending, None)
        return resp

    def answer(self, resp: httpx.Response) -> JSONResponse:
        """The upstream's answer passed on, its tokens and cost spent from the run's budget and recorded."""
        gateway, handle = self.gateway, self.handle
        if len(resp.content) > handle.budgets.max_response_bytes:
            raise _Refused(502, f"upstream answer over {handle.budgets.max_response_bytes} bytes; ask for less")
        try:
            data = resp.json()
        except ValueError:
            raise _Refused(
                502, f"upstream answered {resp.status_code} with a body that is not JSON", upstream=True
            ) from None
        usage = data.get("usage") or {} if isinstance(data, dict) else {}
        tokens = {k: int(usage.get(k) or 0) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
        cost = (
            tokens["prompt_tokens"] * gateway.upstream.usd_per_1k_prompt
            + tokens["completion_tokens"] * gateway.upstream.usd_per_1k_completion
        ) / 1000
        with handle.lock:
            handle.tokens += tokens["total_tokens"]
            handle.cost += cost
        event = gateway._record(
            handle,
            {
                "kind": "llm_call",
                "name": str(self.body.get("model")),
                "arguments": self.body,
                "result": data,
                "started_at": self.started,
                "duration_ms": (time.perf_counter() - self.t0) * 1000,
                "tokens": tokens,
                "cost": cost,
                "status": resp.status_code,
                "error": None if resp.is_success else f"upstream answered {resp.status_code}",
            },
        )
        if upstream_fault(resp.status_code):
            gateway._upstream_failed(handle, event)
        else:
            gateway.upstream_last = (True, f"answered {resp.status_code}")
        return JSONResponse(data, status_code=resp.status_code)


async def chat_completion(gateway: RunRegistry, request: Request) -> Any:
    """One chat completion through the proxy: authorized, read, admitted, forwarded, answered (every refusal and
    answer recorded as an ``llm_call``)."""
    admitted = await authorized_json(gateway, request, "llm_call", "chat.completions")
    if isinstance(admitted, JSONResponse):
        return admitted
    call = _Completion(gateway, *admitted)
    try:
        call.admit()
        return call.answer(await call.forward())
    except _Refused as refused:
        return call.refuse(refused)


def add_inference_routes(app: FastAPI, gateway: RunRegistry) -> None:
    """``GET /v1/models``, ``POST /v1/chat/completions`` and ``POST /inference/chat/completions``."""

    @app.get("/v1/models")
    def models(request: Request) -> Any:
        handle = authorize(gateway, request, "llm_call", "models")
        if isinstance(handle, JSONResponse):
            return handle
        gateway._record(handle, {"kind": "llm_call", "name": "models", "started_at": now()})
        return {
            "object": "list",
            "data": [{"id": m, "object": "model", "owned_by": "node"} for m in gateway.upstream.models],
        }

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        return await chat_completion(gateway, request)

    @app.post("/inference/chat/completions")  # subnet 15's route to the same LLM proxy
    async def sn15_chat(request: Request) -> Any:
        return await chat_completion(gateway, request)
