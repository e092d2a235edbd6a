"""`Gateway`: the run registry with its web app, assembled from the routes of each part."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from arena.tools import ToolRegistry
from sandbox.gateway.access import BudgetHeaders, add_catch_all, add_status_routes
from sandbox.gateway.inference import add_inference_routes
from sandbox.gateway.recorders import Recorder
from sandbox.gateway.registry import RunRegistry
from sandbox.gateway.runs import Upstream
from sandbox.gateway.search import add_search_routes
from sandbox.gateway.tools import add_tool_routes


class Gateway(RunRegistry):
    """The node's gateway. ``open_run`` before a sandbox starts, ``close_run`` after it ends; ``app`` serves the
    runs' sandboxes (`GatewayServer` puts it on a unix socket)."""

    def __init__(
        self,
        catalog: Any,
        *,
        registry: ToolRegistry | None = None,
        upstream: Upstream | None = None,
        recorder: Recorder | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(catalog, registry=registry, upstream=upstream, recorder=recorder, transport=transport)
        self.app = self._build_app()

    def _build_app(self) -> FastAPI:
        app = FastAPI(title="ShopArena gateway", docs_url=None, redoc_url=None, openapi_url=None)
        app.add_middleware(BudgetHeaders, gateway=self)
        add_status_routes(app, self)
        add_tool_routes(app, self)
        add_search_routes(app, self)
        add_inference_routes(app, self)
        add_catch_all(app, self)  # last: every route not served above
        return app
