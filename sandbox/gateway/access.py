"""The door every request passes: the run token and rate limit (`authorize`), the body's size and JSON (`read_json`),
the remaining budget on every answer (`BudgetHeaders`, ``GET /budget``), the health routes, and the routes the
gateway does not serve (`unserved`: 404, or 403 for ``/search/get_product_raw``, recorded as ``rejected``)."""

from __future__ import annotations

import json
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from arena.trajectory import without_nul
from sandbox.gateway.registry import RunRegistry
from sandbox.gateway.runs import RunHandle, now

#: the remaining-budget headers on every answer to a run's request (`RunHandle.remaining`)
BUDGET_HEADERS = {
    "tool_calls": "X-Arena-Budget-Tool-Calls",
    "llm_calls": "X-Arena-Budget-LLM-Calls",
    "tokens": "X-Arena-Budget-Tokens",
    "cost": "X-Arena-Budget-Cost",
    "seconds": "X-Arena-Budget-Seconds",
}


def bearer(header: str) -> str:
    """The token of an ``Authorization: Bearer ...`` header ('' for any other)."""
    return header[7:].strip() if header.lower().startswith("bearer ") else ""


def authorize(gateway: RunRegistry, request: Request, kind: str, name: str) -> RunHandle | JSONResponse:
    """The run a request's token belongs to, or the answer refusing it: 401 for a missing or unknown token, 429 over
    the run's rate limit (both recorded)."""
    handle = gateway.by_token(bearer(request.headers.get("authorization", "")))
    if handle is None:
        gateway._record(
            None,
            {
                "kind": "rejected",
                "name": f"{kind}:{name}",
                "started_at": now(),
                "error": "missing or unknown run token",
                "status": 401,
            },
        )
        return JSONResponse({"error": "missing or unknown run token"}, status_code=401)
    if not handle.rate_ok():
        gateway._record(
            handle,
            {
                "kind": kind,
                "name": name,
                "started_at": now(),
                "status": 429,
                "error": "rate limit: too many requests per second",
            },
        )
        return JSONResponse({"error": "rate limit: too many requests per second"}, status_code=429)
    return handle


async def read_json(gateway: RunRegistry, request: Request, handle: RunHandle, kind: str, name: str) -> Any:
    """The request's JSON body, or the answer refusing it (recorded): 413 over the run's request size, 400 for a body
    that is not JSON or holds text that is not Unicode."""
    limit = handle.budgets.max_request_bytes
    declared = int(request.headers.get("content-length") or 0)
    body = b"" if declared > limit else await request.body()
    if declared > limit or len(body) > limit:
        gateway._record(
            handle,
            {
                "kind": kind,
                "name": name,
                "started_at": now(),
                "status": 413,
                "error": f"request body over {limit} bytes",
            },
        )
        return JSONResponse({"error": f"request body over {limit} bytes"}, status_code=413)
    try:
        parsed = json.loads(body or b"{}")
        # JSON may hold what no store or log can: a lone surrogate escape (\ud800), an integer past 64 bits, nesting
        # past orjson's 255 levels; the store writes with orjson (`validator.store.engine.dumps`): the agent's mistake
        orjson.dumps(parsed, option=orjson.OPT_NON_STR_KEYS)
        return parsed
    except json.JSONDecodeError as exc:
        message = f"body is not JSON ({exc.msg})"
    except (ValueError, RecursionError) as exc:  # a number past Python's digit limit, nesting past its stack
        message = f"body cannot be read as JSON ({type(exc).__name__}: {str(exc)[:200]})"
    except TypeError as exc:  # orjson's: what it names (surrogates, an integer past 64 bits, the nesting)
        message = (
            f"body holds what the node cannot store ({exc}): send valid Unicode text (a lone surrogate escape such as "
            "\\ud800 is not valid Unicode), integers within 64 bits, at most 255 levels of nesting"
        )
    gateway._record(handle, {"kind": kind, "name": name, "started_at": now(), "status": 400, "error": message})
    return JSONResponse({"error": message}, status_code=400)


async def authorized_json(
    gateway: RunRegistry, request: Request, kind: str, name: str
) -> tuple[RunHandle, Any] | JSONResponse:
    """The run a request belongs to and its JSON body (`authorize`, then `read_json`), or the answer refusing it."""
    handle = authorize(gateway, request, kind, name)
    if isinstance(handle, JSONResponse):
        return handle
    body = await read_json(gateway, request, handle, kind, name)
    return body if isinstance(body, JSONResponse) else (handle, body)


async def unserved(gateway: RunRegistry, request: Request, path: str) -> Any:
    """A route the gateway does not serve: 404 (403 for the full product records), kept in the run's `unserved`."""
    route = without_nul(f"{request.method} /{path}")
    handle = authorize(gateway, request, "rejected", route)
    if isinstance(handle, JSONResponse):
        return handle
    forbidden = path.startswith("search/get_product_raw")
    message = (
        f"{route} is refused: the full product records are for scoring only"
        if forbidden
        else f"the gateway does not serve {route}; it serves /tools/{{name}}, /v1/chat/completions, "
        "/search/find_product, /search/view_product_information and /inference/chat/completions"
    )
    with handle.lock:
        handle.unserved.append(route)
    gateway._record(
        handle,
        {"kind": "rejected", "name": route, "started_at": now(), "status": 403 if forbidden else 404, "error": message},
    )
    return JSONResponse({"error": message}, status_code=403 if forbidden else 404)


class BudgetHeaders:
    """ASGI middleware: the run's remaining budget (after this call's spend) on every answer to a request that
    carries a live run token. Pure ASGI, so an agent hanging up still cancels the call it was waiting on."""

    def __init__(self, app: Any, gateway: RunRegistry) -> None:
        self.app = app
        self.gateway = gateway

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        handle = None
        if scope.get("type") == "http":
            header = dict(scope.get("headers") or []).get(b"authorization", b"").decode("latin-1")
            handle = self.gateway.by_token(bearer(header))
        if handle is None:
            await self.app(scope, receive, send)
            return
        run = handle

        async def send_with_budget(message: Any) -> None:
            if message.get("type") == "http.response.start":
                extra = [
                    (BUDGET_HEADERS[k].lower().encode(), ("off" if v is None else str(v)).encode())
                    for k, v in run.remaining().items()
                ]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_budget)


def add_status_routes(app: FastAPI, gateway: RunRegistry) -> None:
    """``GET /healthz``, ``GET /health`` (subnet 15's proxy answers it too) and ``GET /budget``."""

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/health")  # subnet 15's proxy answers it too
    def health() -> Response:
        return Response("healthy\n", media_type="text/plain")

    @app.get("/budget")
    def budget(request: Request) -> Any:
        handle = authorize(gateway, request, "agent_log", "budget")
        if isinstance(handle, JSONResponse):
            return handle
        left = handle.remaining()
        gateway._record(handle, {"kind": "agent_log", "name": "budget", "result": left, "started_at": now()})
        return left


def add_harness_routes(app: FastAPI, gateway: RunRegistry) -> None:
    """``POST /harness/syscall_denied``: the harness's note that the sandbox's syscall filter ended the agent (the
    call named), kept in the trajectory as an ``agent_log`` event. Only the harness sends ``X-Arena-Origin`` (its
    forwarder strips it from the agent's requests); any other request is unserved."""

    @app.post("/harness/syscall_denied")
    async def syscall_denied(request: Request) -> Any:
        if request.headers.get("x-arena-origin") != "harness":
            return await unserved(gateway, request, "harness/syscall_denied")
        admitted = await authorized_json(gateway, request, "agent_log", "syscall_denied")
        if isinstance(admitted, JSONResponse):
            return admitted
        handle, body = admitted
        error = str(body.get("error", "")) if isinstance(body, dict) else ""
        gateway._record(
            handle, {"kind": "agent_log", "name": "syscall_denied", "result": error[:1000], "started_at": now()}
        )
        return {"ok": True}


def add_catch_all(app: FastAPI, gateway: RunRegistry) -> None:
    """Every other route, any method: `unserved`. Added last."""

    @app.api_route("/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
    async def catch_all(path: str, request: Request) -> Any:
        return await unserved(gateway, request, path)
