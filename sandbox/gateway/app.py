"""`Gateway`: the run registry with its web app, assembled from the routes of each part."""

from __future__ import annotations

from functools import cached_property

from fastapi import FastAPI

from sandbox.gateway.access import BudgetHeaders, add_catch_all, add_harness_routes, add_status_routes
from sandbox.gateway.inference import add_inference_routes
from sandbox.gateway.registry import RunRegistry
from sandbox.gateway.search import add_search_routes
from sandbox.gateway.tools import ToolCalls, add_tool_routes


class Gateway(RunRegistry):
    """The node's gateway. ``open_run`` before a sandbox starts, ``close_run`` after it ends; ``app`` serves the
    runs' sandboxes (`GatewayServer` puts it on a unix socket)."""

    @cached_property
    def app(self) -> FastAPI:
        """The web app, made on first use (it holds no state of its own: the runs are the registry's)."""
        app = FastAPI(title="ShopArena gateway", docs_url=None, redoc_url=None, openapi_url=None)
        app.add_middleware(BudgetHeaders, gateway=self)
        add_status_routes(app, self)
        add_tool_routes(app, self)
        add_search_routes(app, self)
        add_inference_routes(app, self)
        add_harness_routes(app, self)
        add_catch_all(app, self)  # last: every route not served above
        return app

    @cached_property
    def asgi(self) -> ToolCalls:
        """What `GatewayServer` serves: `app`, with the agents' tool calls answered ahead of its routing."""
        return ToolCalls(self.app, self)
