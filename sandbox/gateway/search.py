"""Subnet 15's search routes, served from the same tool registry, logged and budgeted the same way:
``GET /search/find_product`` and ``GET /search/view_product_information`` (query parameters, a plain JSON list back,
as ORO's search server answers) and ``POST /search/{find_product|view_product_information}`` (the arguments as the
body); any other ``POST /search/...`` is `unserved`."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote_plus

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from arena.catalog.models import SERVICES
from arena.tasks.shopping.tools import SORTS, parse_price
from arena.tools import ToolError
from sandbox.gateway.access import authorize, authorized_json, unserved
from sandbox.gateway.registry import RunRegistry
from sandbox.gateway.runs import RunHandle
from sandbox.gateway.tools import run_tool

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


async def search(gateway: RunRegistry, handle: RunHandle, name: str, arguments: Any) -> Any:
    """A subnet-15 /search/ call: the tool's result as a plain list, [] for the tool's own error (ORO's
    search server answers bad parameters with an empty list), unknown ids left out."""
    status, result, error, _ = await run_tool(gateway, handle, name, arguments)
    if status == 429:
        return JSONResponse({"error": error}, status_code=429)
    if error is not None:
        return JSONResponse([], headers={"X-Arena-Tool-Error": error.encode("ascii", "replace").decode()})
    if name == "view_product_information":
        result = [item for item in result if "error" not in item]
    return JSONResponse(result)


def add_search_routes(app: FastAPI, gateway: RunRegistry) -> None:
    """``GET /search/find_product``, ``GET /search/view_product_information`` and ``POST /search/{name}``."""

    @app.get("/search/find_product")
    async def sn15_find_product(request: Request) -> Any:
        handle = authorize(gateway, request, "tool_call", "find_product")
        if isinstance(handle, JSONResponse):
            return handle
        return await search(gateway, handle, "find_product", sn15_search_arguments(dict(request.query_params)))

    @app.get("/search/view_product_information")
    async def sn15_view(request: Request) -> Any:
        handle = authorize(gateway, request, "tool_call", "view_product_information")
        if isinstance(handle, JSONResponse):
            return handle
        return await search(
            gateway, handle, "view_product_information", {"product_ids": request.query_params.get("product_ids", "")}
        )

    @app.post("/search/{name}")
    async def sn15_dispatch(name: str, request: Request) -> Any:
        if name not in SN15_SEARCH_TOOLS:
            return await unserved(gateway, request, f"search/{name}")
        admitted = await authorized_json(gateway, request, "tool_call", name)
        if isinstance(admitted, JSONResponse):
            return admitted
        handle, arguments = admitted
        return await search(gateway, handle, name, arguments)
