"""The gateway: the only door out of a sandbox, and the recorder of the trajectory.

One gateway serves a whole node on one unix socket; runs are told apart by a per-run bearer token that the harness's
forwarder attaches (agents never handle it). Endpoints:

- ``GET /tools``: the OpenAI schemas of the seven tools; ``POST /tools/{name}``: call one (``{"ok", "result"}`` or
  ``{"ok": false, "error"}`` for a tool's own error);
- ``POST /v1/chat/completions`` and ``GET /v1/models``: proxied to the configured upstream OpenAI-compatible endpoint
  with the node's key, or where the miner pays to its provider with its own key (`MinerRoute`; neither key ever
  reaches a sandbox); models outside the allowlist are refused; no streaming; each call's tokens and cost recorded.

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

The parts: `runs` (a run's budgets and record), `recorders`, `registry` (the open runs), `access` (tokens, rate,
bodies, budget headers, health, unserved routes), `tools`, `search` (subnet 15's), `inference` (the LLM proxy),
`llmclient` (its upstream client), `app` (`Gateway`: the registry with its app, and `HotRoutes`) and `server`
(`GatewayServer`: the unix socket).
"""

from sandbox.gateway.access import BUDGET_HEADERS
from sandbox.gateway.app import Gateway
from sandbox.gateway.recorders import JsonlRecorder, MemoryRecorder, Recorder
from sandbox.gateway.registry import RunRegistry
from sandbox.gateway.runs import Budgets, MinerRoute, RunHandle, Upstream, upstream_fault
from sandbox.gateway.search import SN15_SEARCH_TOOLS, sn15_search_arguments
from sandbox.gateway.server import GatewayServer

__all__ = [
    "BUDGET_HEADERS",
    "SN15_SEARCH_TOOLS",
    "Budgets",
    "Gateway",
    "GatewayServer",
    "JsonlRecorder",
    "MemoryRecorder",
    "MinerRoute",
    "Recorder",
    "RunHandle",
    "RunRegistry",
    "Upstream",
    "sn15_search_arguments",
    "upstream_fault",
]
