"""The gateway: the only door out of a sandbox, and the recorder of the trajectory.

One gateway serves a whole node on one unix socket; runs are told apart by a per-run bearer token that the harness's
forwarder attaches (agents never handle it). Endpoints:

- ``GET /tools``: the OpenAI schemas of the seven tools; ``POST /tools/{name}``: call one (``{"ok", "result"}`` or
  ``{"ok": false, "error"}`` for a tool's own error);
- ``POST /v1/chat/completions`` and ``GET /v1/models``: proxied to the configured upstream OpenAI-compatible endpoint
  with the node's key (which never reaches a sandbox); models outside the allowlist are refused; no streaming.

Subnet 15's routes are served too, from the same registry and LLM proxy, logged and budgeted the same way:
``GET /search/find_product`` and ``GET /search/view_product_information`` (query parameters, a plain JSON list back,
as ORO's search server answers), ``POST /search/{find_product|view_product_information}`` (the arguments as the
body), ``POST /inference/chat/completions`` and ``GET /health``. ``/search/get_product_raw`` is refused (403), as
ORO's proxy refuses it; any other route gets 404 and is recorded (kind ``rejected``, in the run's `unserved`).

Every answer to a run's request carries the run's remaining budget in ``X-Arena-Budget-Tool-Calls``,
``-LLM-Calls``, ``-Tokens``, ``-Cost`` (``off`` when the run has no cost budget) and ``-Seconds``; ``GET /budget``
returns the same as JSON (recorded as an ``agent_log`` event, free of charge).

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
from urllib.parse import unquote_plus

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field, SecretStr

from arena.catalog.models import SERVICES
from arena.tools import RunState, ToolContext, ToolError, ToolRegistry, default_registry
from arena.tools.shopping import SORTS, parse_price
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
    #: routes the agent asked for that the gateway does not serve ("GET /search/get_product_raw"), in order
    unserved: list[str] = field(default_factory=list)
    wall_seconds: float | None = None  # the run's wall-clock limit, for the remaining-seconds header
    opened: float = field(default_factory=time.monotonic)
    llm_gate: asyncio.Semaphore | None = None  # made on first use, on the gateway's event loop
    upstream_pending: dict[int, tuple[float, datetime, str]] = field(default_factory=dict)  # in flight upstream
    _allowance: float = 0.0
    _last: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def remaining(self) -> dict[str, Any]:
        """What the run may still spend: tool calls, LLM calls, tokens, cost (None: no cost budget) and seconds
        (None: no known wall-clock limit)."""
        b = self.budgets
        with self.lock:
            left: dict[str, Any] = {"tool_calls": max(0, b.tool_calls - self.tool_calls),
                                    "llm_calls": max(0, b.llm_calls - self.llm_calls),
                                    "tokens": max(0, b.tokens - self.tokens),
                                    "cost": round(max(0.0, b.cost - self.cost), 6) if b.cost > 0 else None}
        left["seconds"] = (round(max(0.0, self.wall_seconds - (time.monotonic() - self.opened)), 1)
                           if self.wall_seconds is not None else None)
        return left

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


#: the remaining-budget headers on every answer to a run's request (`RunHandle.remaining`)
BUDGET_HEADERS = {"tool_calls": "X-Arena-Budget-Tool-Calls", "llm_calls": "X-Arena-Budget-LLM-Calls",
                  "tokens": "X-Arena-Budget-Tokens", "cost": "X-Arena-Budget-Cost",
                  "seconds": "X-Arena-Budget-Seconds"}
#: the tools subnet 15's proxy serves under /search/
SN15_SEARCH_TOOLS = ("find_product", "view_product_information")


def sn15_search_arguments(params: dict[str, str]) -> dict[str, Any]:
    """``find_product``'s arguments from subnet 15's query parameters, read as ORO's search server reads them: ``q``
    arrives URL-encoded once more (the agent quotes it before the client encodes it); a page that is not a number
    gives an empty page; an unknown sort is the default order; unknown services and a price that is not a range are
    ignored."""
    arguments: dict[str, Any] = {"q": unquote_plus(params.get("q") or "")}
    page = (params.get("page") or "").strip()
    arguments["page"] = int(page) if page.isdigit() else (1 if not page else 0)
    if (params.get("shop_id") or "").strip():
        arguments["shop_id"] = params["shop_id"].strip()
    price = (params.get("price") or "").strip()
    if price:
        try:
            if parse_price(price) != (None, None):
                arguments["price"] = price
        except ToolError:
            pass
    if params.get("sort") in SORTS and params["sort"] != "default":
        arguments["sort"] = params["sort"]
    known = {s.lower(): s for s in SERVICES}
    wanted = [x.strip().lower() for x in (params.get("service") or "").split(",")]
    services = [known[x] for x in wanted if x in known]
    if services:
        arguments["service"] = ",".join(dict.fromkeys(services))
    return arguments


class _BudgetHeaders:
    """ASGI middleware: the run's remaining budget (after this call's spend) on every answer to a request that
    carries a live run token. Pure ASGI, so an agent hanging up still cancels the call it was waiting on."""

    def __init__(self, app: Any, gateway: Gateway) -> None:
        self.app = app
        self.gateway = gateway

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        handle = None
        if scope.get("type") == "http":
            header = dict(scope.get("headers") or []).get(b"authorization", b"").decode("latin-1")
            token = header[7:].strip() if header.lower().startswith("bearer ") else ""
            handle = self.gateway._by_token.get(token) if token else None
        if handle is None:
            await self.app(scope, receive, send)
            return
        run = handle

        async def send_with_budget(message: Any) -> None:
            if message.get("type") == "http.response.start":
                extra = [(BUDGET_HEADERS[k].lower().encode(), ("off" if v is None else str(v)).encode())
                         for k, v in run.remaining().items()]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_budget)


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

    def open_run(self, run_id: str, budgets: Budgets | None = None, *, wall_seconds: float | None = None) -> RunHandle:
        with self._lock:
            if run_id in self._runs:
                raise ValueError(f"run {run_id!r} is already open")
            handle = RunHandle(run_id, secrets.token_urlsafe(32), budgets or Budgets(), wall_seconds=wall_seconds)
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
                parsed = json.loads(body or b"{}")
                # JSON may escape a lone surrogate (\ud800), which no store or log can hold: the agent's mistake
                json.dumps(parsed, ensure_ascii=False).encode("utf-8")
                return parsed
            except json.JSONDecodeError as exc:
                gateway._record(handle, {"kind": kind, "name": name, "started_at": _now(), "status": 400,
                                         "error": f"body is not JSON ({exc.msg})"})
                return JSONResponse({"error": f"body is not JSON ({exc.msg})"}, status_code=400)
            except UnicodeEncodeError:
                message = "body holds text that is not valid Unicode (a lone surrogate escape such as \\ud800)"
                gateway._record(handle, {"kind": kind, "name": name, "started_at": _now(), "status": 400,
                                         "error": message})
                return JSONResponse({"error": message}, status_code=400)

        app.add_middleware(_BudgetHeaders, gateway=gateway)

        @app.get("/healthz")
        def healthz() -> dict[str, str]:
            return {"status": "ok"}

        @app.get("/health")  # subnet 15's proxy answers it too
        def health() -> Response:
            return Response("healthy\n", media_type="text/plain")

        @app.get("/budget")
        def budget(request: Request) -> Any:
            handle = authorize(request, "agent_log", "budget")
            if isinstance(handle, JSONResponse):
                return handle
            left = handle.remaining()
            gateway._record(handle, {"kind": "agent_log", "name": "budget", "result": left, "started_at": _now()})
            return left

        @app.get("/tools")
        def list_tools(request: Request) -> Any:
            handle = authorize(request, "tool_call", "schemas")
            if isinstance(handle, JSONResponse):
                return handle
            gateway._record(handle, {"kind": "tool_call", "name": "schemas", "started_at": _now()})
            return gateway.registry.schemas()

        async def run_tool(handle: RunHandle, name: str, arguments: Any) -> tuple[int, Any, str | None]:
            """One tool call, budgeted and recorded: (429, None, message) when the budget is spent, (200, None,
            message) for the tool's own error, else (200, result, None)."""
            started, t0 = _now(), time.perf_counter()
            with handle.lock:
                spent = handle.tool_calls >= handle.budgets.tool_calls
                if spent:
                    handle.budget_refusals += 1
                else:
                    handle.tool_calls += 1
            if spent:
                gateway._record(handle, {"kind": "tool_call", "name": name, "arguments": arguments,
                                         "started_at": started, "status": 429, "error": "tool call budget spent"})
                return 429, None, f"tool call budget of {handle.budgets.tool_calls} spent"
            ctx = ToolContext(gateway.catalog, handle.state)
            try:
                result = await asyncio.to_thread(gateway.registry.call, name, arguments, ctx)
            except ToolError as exc:
                gateway._record(handle, {"kind": "tool_call", "name": name, "arguments": arguments,
                                         "started_at": started, "duration_ms": (time.perf_counter() - t0) * 1000,
                                         "error": str(exc)})
                return 200, None, str(exc)
            if len(json.dumps(result)) > handle.budgets.max_response_bytes:
                message = f"result over {handle.budgets.max_response_bytes} bytes; ask for fewer items"
                gateway._record(handle, {"kind": "tool_call", "name": name, "arguments": arguments,
                                         "started_at": started, "error": message})
                return 200, None, message
            gateway._record(handle, {"kind": "tool_call", "name": name, "arguments": arguments, "result": result,
                                     "started_at": started, "duration_ms": (time.perf_counter() - t0) * 1000})
            return 200, result, None

        @app.post("/tools/{name}")
        async def call_tool(name: str, request: Request) -> Any:
            handle = authorize(request, "tool_call", name)
            if isinstance(handle, JSONResponse):
                return handle
            arguments = await read_json(request, handle, "tool_call", name)
            if isinstance(arguments, JSONResponse):
                return arguments
            if name == "recommend_product" and request.headers.get("x-arena-origin") == "returned-steps":
                # the harness (the forwarder strips this header from the agent's own requests) hands over the
                # last recommend_product of the dialogue steps an SN15 agent returned
                steps = request.headers.get("x-arena-steps", "?")
                gateway._record(handle, {"kind": "agent_log", "name": "returned_steps", "arguments": {"steps": steps},
                                         "result": f"agent_main returned {steps} dialogue step(s); the harness makes "
                                                   "their last recommend_product call (next event)",
                                         "started_at": _now()})
            status, result, error = await run_tool(handle, name, arguments)
            if status == 429:
                return JSONResponse({"error": error}, status_code=429)
            if error is not None:
                return {"ok": False, "error": error}
            return Response(content=json.dumps({"ok": True, "result": result}), media_type="application/json")

        async def search(handle: RunHandle, name: str, arguments: Any) -> Any:
            """A subnet-15 /search/ call: the tool's result as a plain list, [] for the tool's own error (ORO's
            search server answers bad parameters with an empty list), unknown ids left out."""
            status, result, error = await run_tool(handle, name, arguments)
            if status == 429:
                return JSONResponse({"error": error}, status_code=429)
            if error is not None:
                return JSONResponse([], headers={"X-Arena-Tool-Error": error.encode("ascii", "replace").decode()})
            if name == "view_product_information":
                result = [item for item in result if "error" not in item]
            return JSONResponse(result)

        @app.get("/search/find_product")
        async def sn15_find_product(request: Request) -> Any:
            handle = authorize(request, "tool_call", "find_product")
            if isinstance(handle, JSONResponse):
                return handle
            return await search(handle, "find_product", sn15_search_arguments(dict(request.query_params)))

        @app.get("/search/view_product_information")
        async def sn15_view(request: Request) -> Any:
            handle = authorize(request, "tool_call", "view_product_information")
            if isinstance(handle, JSONResponse):
                return handle
            return await search(handle, "view_product_information",
                                {"product_ids": request.query_params.get("product_ids", "")})

        @app.post("/search/{name}")
        async def sn15_dispatch(name: str, request: Request) -> Any:
            if name not in SN15_SEARCH_TOOLS:
                return await unserved(request, f"search/{name}")
            handle = authorize(request, "tool_call", name)
            if isinstance(handle, JSONResponse):
                return handle
            arguments = await read_json(request, handle, "tool_call", name)
            if isinstance(arguments, JSONResponse):
                return arguments
            return await search(handle, name, arguments)

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
            return await chat_completion(request)

        @app.post("/inference/chat/completions")  # subnet 15's route to the same LLM proxy
        async def sn15_chat(request: Request) -> Any:
            return await chat_completion(request)

        async def chat_completion(request: Request) -> Any:
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


        async def unserved(request: Request, path: str) -> Any:
            route = f"{request.method} /{path}"
            handle = authorize(request, "rejected", route)
            if isinstance(handle, JSONResponse):
                return handle
            forbidden = path.startswith("search/get_product_raw")
            message = (f"{route} is refused: the full product records are for scoring only" if forbidden else
                       f"the gateway does not serve {route}; it serves /tools/{{name}}, /v1/chat/completions, "
                       "/search/find_product, /search/view_product_information and /inference/chat/completions")
            with handle.lock:
                handle.unserved.append(route)
            gateway._record(handle, {"kind": "rejected", "name": route, "started_at": _now(),
                                     "status": 403 if forbidden else 404, "error": message})
            return JSONResponse({"error": message}, status_code=403 if forbidden else 404)

        @app.api_route("/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
        async def catch_all(path: str, request: Request) -> Any:
            return await unserved(request, path)

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

