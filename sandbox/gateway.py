"""The gateway: the only door out of a sandbox, and the recorder of the trajectory.

One gateway serves a whole node on one unix socket; runs are told apart by a per-run bearer token that the harness's
forwarder attaches (agents never handle it). Endpoints:

- ``GET /tools``: the OpenAI schemas of the seven tools; ``POST /tools/{name}``: call one (``{"ok", "result"}`` or
  ``{"ok": false, "error"}`` for a tool's own error);
- ``POST /v1/chat/completions`` and ``GET /v1/models``: proxied to the configured upstream OpenAI-compatible endpoint
  with the node's key (which never reaches a sandbox); models outside the allowlist are refused; no streaming.

Per run: budgets of tool calls, LLM calls, tokens and cost (429 when spent, counted in the run's `budget_refusals`),
a rate limit, request and response size caps. The upstream failing (unreachable, timing out, answering 5xx, 402 or
429, or a body that is not JSON) is recorded in the run's `upstream_errors`: it is the node's fault, not the agent's.
Every call, refused ones included, becomes a `TrajectoryEvent` through a `Recorder`, in order. A request with no
valid token gets 401 and is recorded as ``rejected``. The gateway holds the catalog, never a problem's answers.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field, SecretStr

from arena.tools import RunState, ToolContext, ToolError, ToolRegistry, default_registry
from arena.trajectory import TrajectoryEvent


class Budgets(BaseModel):
    """What one run may spend at the gateway."""

    tool_calls: int = Field(200, ge=0)
    llm_calls: int = Field(40, ge=0)
    tokens: int = Field(200_000, ge=0)
    cost: float = Field(1.0, ge=0)
    requests_per_second: float = Field(50.0, gt=0)
    burst: int = Field(100, ge=1)
    max_request_bytes: int = Field(256 * 1024, ge=1024)
    max_response_bytes: int = Field(2 * 1024 * 1024, ge=1024)
    #: LLM calls of one run in flight to the upstream at once (more wait their turn): an agent cannot burst the
    #: node's upstream into refusing (429) and so turn its own run into the node's fault (2005)
    llm_concurrency: int = Field(2, ge=1)


class Upstream(BaseModel):
    """The node's LLM endpoint (any OpenAI-compatible server) and what agents may use of it."""

    base_url: str | None = None
    api_key: SecretStr | None = None
    models: list[str] = Field(default_factory=list)  # the allowlist
    timeout: float = 120.0
    #: an LLM call still unanswered after this many seconds when its run ends (or its agent hangs up) is the
    #: upstream stalling: recorded as an upstream failure, so the run is the node's fault (2005), not the agent's
    stall_seconds: float = 30.0
    usd_per_1k_prompt: float = 0.0
    usd_per_1k_completion: float = 0.0


class Recorder(Protocol):
    def record(self, event: TrajectoryEvent) -> None: ...


class MemoryRecorder:
    """Keeps every event in memory, per run."""

    def __init__(self) -> None:
        self.events: dict[str, list[TrajectoryEvent]] = {}
        self._lock = threading.Lock()

    def record(self, event: TrajectoryEvent) -> None:
        with self._lock:
            self.events.setdefault(event.run_id, []).append(event)


class JsonlRecorder:
    """Appends every event as a JSON line to ``path`` (one file for the node, or one per run)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def record(self, event: TrajectoryEvent) -> None:
        line = event.model_dump_json() + "\n"
        with self._lock, open(self.path, "a") as fh:
            fh.write(line)


@dataclass
class RunHandle:
    run_id: str
    token: str
    budgets: Budgets
    state: RunState = field(default_factory=RunState)
    events: list[TrajectoryEvent] = field(default_factory=list)
    seq: int = 0
    tool_calls: int = 0
    llm_calls: int = 0
    tokens: int = 0
    cost: float = 0.0
    #: the upstream LLM failing during the run (unreachable, timeout, 5xx, 402, 429, a body that is not JSON): the
    #: node's fault, whatever the agent made of it (`arena.blame.UPSTREAM_LLM_DOWN`)
    upstream_errors: list[dict[str, Any]] = field(default_factory=list)
    budget_refusals: int = 0  # calls refused because a budget of the run was spent
    llm_gate: asyncio.Semaphore | None = None  # made on first use, on the gateway's event loop
    upstream_pending: dict[int, tuple[float, datetime, str]] = field(default_factory=dict)  # in flight upstream
    _allowance: float = 0.0
    _last: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def rate_ok(self) -> bool:
        now = time.monotonic()
        self._allowance = min(float(self.budgets.burst),
                              self._allowance + (now - self._last) * self.budgets.requests_per_second)
        self._last = now
        if self._allowance < 1:
            return False
        self._allowance -= 1
        return True


def upstream_fault(status: int) -> bool:
    """An upstream answer that is the upstream's (so the node's) failure, not a bad request of the agent's: any 5xx,
    402 (the node's account has no credit) and 429 (the node's rate limit or quota)."""
    return status >= 500 or status in (402, 429)


def _now() -> datetime:
    return datetime.now(UTC)


class Gateway:
    """The node's gateway. ``open_run`` before a sandbox starts, ``close_run`` after it ends."""

    def __init__(self, catalog: Any, *, registry: ToolRegistry | None = None, upstream: Upstream | None = None,
                 recorder: Recorder | None = None, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.catalog = catalog
        self.registry = registry or default_registry()
        self.upstream = upstream or Upstream()
        self.recorder = recorder
        self._runs: dict[str, RunHandle] = {}
        self._by_token: dict[str, RunHandle] = {}
        self._lock = threading.Lock()
        self._transport = transport
        self.rejected: list[TrajectoryEvent] = []
        self.app = self._build_app()

    @property
    def agent_model(self) -> str | None:
        """The model agents are told to use (``ARENA_LLM_MODEL``): the first of the allowlist, when there is an
        upstream to serve it."""
        return self.upstream.models[0] if self.upstream.base_url and self.upstream.models else None

    # --- runs

    def open_run(self, run_id: str, budgets: Budgets | None = None) -> RunHandle:
        with self._lock:
            if run_id in self._runs:
                raise ValueError(f"run {run_id!r} is already open")
            handle = RunHandle(run_id, secrets.token_urlsafe(32), budgets or Budgets())
            handle._allowance = float(handle.budgets.burst)
            self._runs[run_id] = handle
            self._by_token[handle.token] = handle
            return handle

    def close_run(self, run_id: str) -> RunHandle:
        """Revoke the run's token and return its record (events, answer state, spend). An LLM call the upstream
        has left unanswered for `Upstream.stall_seconds` is recorded as the upstream's failure."""
        with self._lock:
            handle = self._runs.pop(run_id)
            self._by_token.pop(handle.token, None)
        with handle.lock:
            pending = list(handle.upstream_pending.items())
            handle.upstream_pending.clear()
        for _key, (since, started, model) in pending:
            self._stalled(handle, since, started, model, "when the run ended")
        return handle

    def _stalled(self, handle: RunHandle, since: float, started: datetime, model: str, when: str) -> None:
        waited = time.monotonic() - since
        if waited < self.upstream.stall_seconds:
            return
        event = self._record(handle, {"kind": "llm_call", "name": model, "started_at": started, "status": 504,
                                      "duration_ms": waited * 1000,
                                      "error": f"upstream LLM had not answered after {waited:.0f}s {when}"})
        self._upstream_failed(handle, event)

    def _record(self, handle: RunHandle | None, event: dict[str, Any]) -> TrajectoryEvent:
        if handle is None:
            ev = TrajectoryEvent(run_id="-", seq=len(self.rejected), **event)
            self.rejected.append(ev)
        else:
            with handle.lock:
                ev = TrajectoryEvent(run_id=handle.run_id, seq=handle.seq, **event)
                handle.seq += 1
                handle.events.append(ev)
        if self.recorder is not None:
            self.recorder.record(ev)
        return ev

    def _upstream_failed(self, handle: RunHandle, event: TrajectoryEvent) -> None:
        with handle.lock:
            handle.upstream_errors.append({"seq": event.seq, "status": event.status, "error": event.error,
                                           "at": event.started_at.isoformat()})

    # --- app

    def _build_app(self) -> FastAPI:
        app = FastAPI(title="ShopArena gateway", docs_url=None, redoc_url=None, openapi_url=None)
        gateway = self

        def authorize(request: Request, kind: str, name: str) -> RunHandle | JSONResponse:
            header = request.headers.get("authorization", "")
            token = header[7:].strip() if header.lower().startswith("bearer ") else ""
            handle = gateway._by_token.get(token) if token else None
            if handle is None:
                gateway._record(None, {"kind": "rejected", "name": f"{kind}:{name}", "started_at": _now(),
                                       "error": "missing or unknown run token", "status": 401})
                return JSONResponse({"error": "missing or unknown run token"}, status_code=401)
            if not handle.rate_ok():
                gateway._record(handle, {"kind": kind, "name": name, "started_at": _now(), "status": 429,
                                         "error": "rate limit: too many requests per second"})
                return JSONResponse({"error": "rate limit: too many requests per second"}, status_code=429)
            return handle

        async def read_json(request: Request, handle: RunHandle, kind: str, name: str) -> Any:
            limit = handle.budgets.max_request_bytes
            declared = int(request.headers.get("content-length") or 0)
            body = b"" if declared > limit else await request.body()
            if declared > limit or len(body) > limit:
                gateway._record(handle, {"kind": kind, "name": name, "started_at": _now(), "status": 413,
                                         "error": f"request body over {limit} bytes"})
                return JSONResponse({"error": f"request body over {limit} bytes"}, status_code=413)
            try:
                return json.loads(body or b"{}")
            except json.JSONDecodeError as exc:
                gateway._record(handle, {"kind": kind, "name": name, "started_at": _now(), "status": 400,
                                         "error": f"body is not JSON ({exc.msg})"})
                return JSONResponse({"error": f"body is not JSON ({exc.msg})"}, status_code=400)

        @app.get("/healthz")
        def healthz() -> dict[str, str]:
            return {"status": "ok"}

        @app.get("/tools")
        def list_tools(request: Request) -> Any:
            handle = authorize(request, "tool_call", "schemas")
            if isinstance(handle, JSONResponse):
                return handle
            gateway._record(handle, {"kind": "tool_call", "name": "schemas", "started_at": _now()})
            return gateway.registry.schemas()

        @app.post("/tools/{name}")
        async def call_tool(name: str, request: Request) -> Any:
            handle = authorize(request, "tool_call", name)
            if isinstance(handle, JSONResponse):
                return handle
            arguments = await read_json(request, handle, "tool_call", name)
            if isinstance(arguments, JSONResponse):
                return arguments
            started, t0 = _now(), time.perf_counter()
            with handle.lock:
                spent = handle.tool_calls >= handle.budgets.tool_calls
                if not spent:
                    handle.tool_calls += 1
            if spent:
                with handle.lock:
                    handle.budget_refusals += 1
                gateway._record(handle, {"kind": "tool_call", "name": name, "arguments": arguments,
                                         "started_at": started, "status": 429, "error": "tool call budget spent"})
                return JSONResponse({"error": f"tool call budget of {handle.budgets.tool_calls} spent"},
                                    status_code=429)
            ctx = ToolContext(gateway.catalog, handle.state)
            try:
                result = await asyncio.to_thread(gateway.registry.call, name, arguments, ctx)
            except ToolError as exc:
                gateway._record(handle, {"kind": "tool_call", "name": name, "arguments": arguments,
                                         "started_at": started, "duration_ms": (time.perf_counter() - t0) * 1000,
                                         "error": str(exc)})
                return {"ok": False, "error": str(exc)}
            payload = json.dumps({"ok": True, "result": result})
            if len(payload) > handle.budgets.max_response_bytes:
                message = f"result over {handle.budgets.max_response_bytes} bytes; ask for fewer items"
                gateway._record(handle, {"kind": "tool_call", "name": name, "arguments": arguments,
                                         "started_at": started, "error": message})
                return {"ok": False, "error": message}
            gateway._record(handle, {"kind": "tool_call", "name": name, "arguments": arguments, "result": result,
                                     "started_at": started, "duration_ms": (time.perf_counter() - t0) * 1000})
            return Response(content=payload, media_type="application/json")

        @app.get("/v1/models")
        def models(request: Request) -> Any:
            handle = authorize(request, "llm_call", "models")
            if isinstance(handle, JSONResponse):
                return handle
            gateway._record(handle, {"kind": "llm_call", "name": "models", "started_at": _now()})
            return {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "node"}
                                               for m in gateway.upstream.models]}

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> Any:
            handle = authorize(request, "llm_call", "chat.completions")
            if isinstance(handle, JSONResponse):
                return handle
            body = await read_json(request, handle, "llm_call", "chat.completions")
            if isinstance(body, JSONResponse):
                return body
            started, t0 = _now(), time.perf_counter()

            def refuse(status: int, message: str, *, upstream: bool = False) -> JSONResponse:
                name = str(body.get("model", "")) if isinstance(body, dict) else ""
                event = gateway._record(handle, {"kind": "llm_call", "name": name, "arguments": body,
                                                 "started_at": started, "status": status, "error": message})
                if upstream:
                    gateway._upstream_failed(handle, event)
                return JSONResponse({"error": {"message": message}}, status_code=status)

            if not isinstance(body, dict):
                return refuse(400, "body must be a JSON object")
            if body.get("stream"):
                return refuse(400, "streaming is not supported by the gateway; send stream=false")
            model = body.get("model")
            if not gateway.upstream.base_url:  # said first: no model is allowed when there is no endpoint at all
                return refuse(503, "this node has no LLM endpoint configured")
            if model not in gateway.upstream.models:
                return refuse(403, f"model {model!r} is not allowed; allowed: {', '.join(gateway.upstream.models)}")
            with handle.lock:
                over = (handle.llm_calls >= handle.budgets.llm_calls or handle.tokens >= handle.budgets.tokens
                        or handle.cost >= handle.budgets.cost > 0)
                if not over:
                    handle.llm_calls += 1
            if over:
                with handle.lock:
                    handle.budget_refusals += 1
                return refuse(429, "LLM budget (calls, tokens or cost) spent")
            key = gateway.upstream.api_key.get_secret_value() if gateway.upstream.api_key else "none"
            with handle.lock:
                if handle.llm_gate is None:
                    handle.llm_gate = asyncio.Semaphore(handle.budgets.llm_concurrency)
                gate = handle.llm_gate
            pending = id(body)
            try:
                async with gate, httpx.AsyncClient(base_url=gateway.upstream.base_url,
                                                   timeout=gateway.upstream.timeout,
                                                   transport=gateway._transport) as client:
                    with handle.lock:
                        handle.upstream_pending[pending] = (time.monotonic(), started, str(model))
                    resp = await client.post("/chat/completions", json=body,
                                             headers={"Authorization": f"Bearer {key}"})
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
                return refuse(502, f"upstream LLM {kind} ({type(exc).__name__})", upstream=True)
            with handle.lock:
                handle.upstream_pending.pop(pending, None)
            if len(resp.content) > handle.budgets.max_response_bytes:
                return refuse(502, f"upstream answer over {handle.budgets.max_response_bytes} bytes; ask for less")
            try:
                data = resp.json()
            except ValueError:
                return refuse(502, f"upstream answered {resp.status_code} with a body that is not JSON", upstream=True)
            usage = data.get("usage") or {} if isinstance(data, dict) else {}
            tokens = {k: int(usage.get(k) or 0) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
            cost = (tokens["prompt_tokens"] * gateway.upstream.usd_per_1k_prompt
                    + tokens["completion_tokens"] * gateway.upstream.usd_per_1k_completion) / 1000
            with handle.lock:
                handle.tokens += tokens["total_tokens"]
                handle.cost += cost
            event = gateway._record(handle, {
                "kind": "llm_call", "name": str(model), "arguments": body, "result": data, "started_at": started,
                "duration_ms": (time.perf_counter() - t0) * 1000, "tokens": tokens, "cost": cost,
                "status": resp.status_code,
                "error": None if resp.is_success else f"upstream answered {resp.status_code}"})
            if upstream_fault(resp.status_code):
                gateway._upstream_failed(handle, event)
            return JSONResponse(data, status_code=resp.status_code)

        return app


class GatewayServer:
    """Serves a `Gateway` on a unix socket (uvicorn in a background thread). The socket's folder is made 0711 and
    the socket 0666 so a sandbox user can connect through a read-only mount of the folder."""

    def __init__(self, gateway: Gateway, socket_path: str | os.PathLike[str]) -> None:
        import uvicorn

        self.gateway = gateway
        self.socket_path = Path(socket_path)
        self.socket_path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(self.socket_path.parent, 0o711)
        if self.socket_path.exists():
            self.socket_path.unlink()
        config = uvicorn.Config(gateway.app, uds=str(self.socket_path), log_level="warning", lifespan="off",
                                access_log=False, timeout_keep_alive=30)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="gateway", daemon=True)

    def start(self, timeout: float = 10.0) -> GatewayServer:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError(f"gateway did not start on {self.socket_path}")
            time.sleep(0.01)
        os.chmod(self.socket_path, 0o666)
        return self

    @property
    def alive(self) -> bool:
        """Serving: started, not told to stop, its thread running (a dead gateway is the node's fault, 2002)."""
        return bool(self._server.started and not self._server.should_exit and self._thread.is_alive())

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        if self.socket_path.exists():
            self.socket_path.unlink()

    def __enter__(self) -> GatewayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

