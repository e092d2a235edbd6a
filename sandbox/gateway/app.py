"""`Gateway`: the run registry with its web app, assembled from the routes of each part, and `HotRoutes`, what
agents call most answered ahead of the web app's routing."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse, Response

from sandbox.gateway.access import BudgetHeaders, add_catch_all, add_harness_routes, add_status_routes
from sandbox.gateway.inference import CHAT_PATHS, add_inference_routes, chat_completion
from sandbox.gateway.registry import RunRegistry
from sandbox.gateway.search import add_search_routes
from sandbox.gateway.tools import add_tool_routes, tool_answer


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
    def asgi(self) -> HotRoutes:
        """What `GatewayServer` serves: `app`, with the agents' tool calls and chat completions answered ahead of its
        routing."""
        return HotRoutes(self.app, self)


class HotRoutes:
    """ASGI: an agent's every tool call (``POST /tools/{name}``: `tool_answer`) and chat completion (``POST`` to
    `CHAT_PATHS`: `chat_completion`), answered straight with the budget headers (`BudgetHeaders`), ahead of the web
    app's routing, dependency resolution and middleware (a fifth of a tool call's time at the gateway); every other
    request, and any other form of those paths, goes to ``app``, which serves the same answers."""

    def __init__(self, app: Any, gateway: RunRegistry) -> None:
        self.app = app
        self.gateway = gateway
        self.hot = BudgetHeaders(self._answer, gateway)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and scope.get("method") == "POST" and _hot(scope.get("path", "")):
            await self.hot(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _answer(self, scope: Any, receive: Any, send: Any) -> None:
        path, request = scope["path"], Request(scope, receive)
        try:
            response: Response = await (
                chat_completion(self.gateway, request)
                if path in CHAT_PATHS
                else tool_answer(self.gateway, path[len("/tools/") :], request)
            )
        except Exception:
            await PlainTextResponse("Internal Server Error", status_code=500)(scope, receive, send)
            raise  # logged by the server, as the web app's error middleware does
        await response(scope, receive, send)


def _hot(path: str) -> bool:
    """A path `HotRoutes` answers itself (a POST to it): a chat completion's, or one tool's."""
    if path in CHAT_PATHS:
        return True
    return path.startswith("/tools/") and len(path) > len("/tools/") and "/" not in path[len("/tools/") :]
