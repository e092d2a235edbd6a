"""The tool routes: ``GET /tools`` (the OpenAI schemas) and ``POST /tools/{name}`` (one call, ``{"ok", "result"}``
or ``{"ok": false, "error"}`` for the tool's own error), and `run_tool`, the budgeted and recorded call that the
subnet-15 search routes make too."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from arena.tools import ToolContext, ToolError
from sandbox.gateway.access import authorize, authorized_json
from sandbox.gateway.registry import RunRegistry
from sandbox.gateway.runs import RunHandle, now


async def run_tool(
    gateway: RunRegistry, handle: RunHandle, name: str, arguments: Any
) -> tuple[int, Any, str | None, str | None]:
    """One tool call, budgeted and recorded: (429, None, message, None) when the budget is spent, (200, None,
    message, None) for the tool's own error, else (200, result, None, the result as JSON: ``json.dumps``, made once
    for the size cap and the answer)."""
    started, t0 = now(), time.perf_counter()

    def record(**fields: Any) -> None:
        event = {"kind": "tool_call", "name": name, "arguments": arguments, "started_at": started, **fields}
        gateway._record(handle, event)

    with handle.lock:
        spent = handle.tool_calls >= handle.budgets.tool_calls
        if spent:
            handle.budget_refusals += 1
        else:
            handle.tool_calls += 1
    if spent:
        record(status=429, error="tool call budget spent")
        return 429, None, f"tool call budget of {handle.budgets.tool_calls} spent", None
    ctx = ToolContext(gateway.catalog, handle.state)
    try:
        result = await asyncio.to_thread(handle.tools.call, name, arguments, ctx)
    except ToolError as exc:
        record(duration_ms=(time.perf_counter() - t0) * 1000, error=str(exc))
        return 200, None, str(exc), None
    text = json.dumps(result)
    if len(text) > handle.budgets.max_response_bytes:
        message = f"result over {handle.budgets.max_response_bytes} bytes; ask for fewer items"
        record(error=message)
        return 200, None, message, None
    record(result=result, duration_ms=(time.perf_counter() - t0) * 1000)
    return 200, result, None, text


def add_tool_routes(app: FastAPI, gateway: RunRegistry) -> None:
    """``GET /tools`` and ``POST /tools/{name}``."""

    @app.get("/tools")
    def list_tools(request: Request) -> Any:
        handle = authorize(gateway, request, "tool_call", "schemas")
        if isinstance(handle, JSONResponse):
            return handle
        gateway._record(handle, {"kind": "tool_call", "name": "schemas", "started_at": now()})
        return handle.tools.schemas()

    @app.post("/tools/{name}")
    async def call_tool(name: str, request: Request) -> Response:
        return await tool_answer(gateway, name, request)


async def tool_answer(gateway: RunRegistry, name: str, request: Request) -> Response:
    """The answer to ``POST /tools/{name}``: the run by its token, the arguments, the call budgeted and recorded."""
    admitted = await authorized_json(gateway, request, "tool_call", name)
    if isinstance(admitted, JSONResponse):
        return admitted
    handle, arguments = admitted
    if name == "recommend_product" and request.headers.get("x-arena-origin") == "returned-steps":
        # the harness (the forwarder strips this header from the agent's own requests) hands over the
        # last recommend_product of the dialogue steps an SN15 agent returned
        steps = request.headers.get("x-arena-steps", "?")
        gateway._record(
            handle,
            {
                "kind": "agent_log",
                "name": "returned_steps",
                "arguments": {"steps": steps},
                "result": f"agent_main returned {steps} dialogue step(s); the harness makes "
                "their last recommend_product call (next event)",
                "started_at": now(),
            },
        )
    status, _, error, text = await run_tool(gateway, handle, name, arguments)
    if status == 429:
        return JSONResponse({"error": error}, status_code=429)
    if error is not None or text is None:
        return JSONResponse({"ok": False, "error": error})
    # json.dumps({"ok": True, "result": result}) byte for byte, the result's JSON not made a second time
    return Response(content='{"ok": true, "result": ' + text + "}", media_type="application/json")
