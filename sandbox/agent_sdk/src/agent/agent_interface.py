"""Subnet 15's ``src.agent.agent_interface``, provided by ShopArena's sandbox (standard library only).

A subnet-15 (ORO) agent imports these helpers from its sandbox image, not from its own file; this module offers the
same public names and behaviour (written for ShopArena from the contract in ``docs/miner.md``), so such an
``agent.py`` runs here unchanged:

- a tool registry: ``@Tool`` / ``@Tool("name")``, ``register_tool``, ``get_tool`` (``ValueError`` naming the
  registered tools), ``list_tools``;
- ``execute_tool_call(name, parameters)`` -> ``{"name", "parameters", "tool_call_id", "result"}``;
- ``generate_tool_call_id``, ``format_content`` and ``create_dialogue_step``: the dialogue-step format an agent
  returns from ``agent_main``.

What the agent returns is not trusted for scoring: the harness hands the last ``recommend_product`` of the returned
steps to the gateway as a call, and the gateway's log is the trajectory.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections.abc import Callable
from typing import Any, TypedDict

#: what ``agent_main`` returns: its dialogue steps
AgentOutput = list[dict[str, Any]]
ToolResult = Any


class ToolCallResult(TypedDict):
    name: str
    parameters: dict[str, Any]
    tool_call_id: str
    result: Any


_TOOL_REGISTRY: dict[str, Callable[..., Any]] = {}


def register_tool(name: str, func: Callable[..., Any]) -> None:
    """Register ``func`` under ``name`` (a later registration of the same name replaces the earlier one)."""
    _TOOL_REGISTRY[name] = func


def Tool(name: Any = None) -> Any:  # noqa: N802 - the contract's name
    """Register a tool: ``@Tool`` (named after the function) or ``@Tool("name")``; returns the function itself."""
    if callable(name):
        register_tool(name.__name__, name)
        return name

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        register_tool(func.__name__ if name is None else name, func)
        return func

    return decorate


def get_tool(name: str) -> Callable[..., Any]:
    """The tool registered as ``name``; ``ValueError`` listing the registered tools otherwise."""
    try:
        return _TOOL_REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_TOOL_REGISTRY)) or "(none)"
        raise ValueError(f"Tool '{name}' is not registered. Available tools: {known}") from None


def list_tools() -> list[str]:
    return list(_TOOL_REGISTRY)


def generate_tool_call_id(name: str, parameters: Any, length: int = 8) -> str:
    """A short id for a call: the md5 of ``"{name}\\n{parameters}"``, urlsafe base64 without ``=``, ``+``, ``/``."""
    digest = hashlib.md5(f"{name}\n{parameters}".encode(), usedforsecurity=False).digest()
    text = base64.urlsafe_b64encode(digest).decode()
    for char in "=+/":
        text = text.replace(char, "")
    return text[:length]


def format_content(think: str, tool_calls: list[dict[str, Any]], response: str) -> str:
    """The step's content: ``<think>``, ``<tool_call>`` (a JSON array of name and parameters) and ``<response>``,
    each only when present, one per line."""
    parts: list[str] = []
    if think:
        parts.append(f"<think>{think}</think>")
    if tool_calls:
        calls = [{"name": call["name"], "parameters": call["parameters"]} for call in tool_calls]
        parts.append(f"<tool_call>{json.dumps(calls)}</tool_call>")
    if response:
        parts.append(f"<response>{response}</response>")
    return "\n".join(parts)


def create_dialogue_step(think: str, tool_results: list[Any], response: str, query: str, step: int) -> dict[str, Any]:
    """One dialogue step as ``agent_main`` returns it."""
    message: dict[str, Any] = {}
    if think:
        message["think"] = think
    if tool_results:
        message["tool_call"] = tool_results
    if response:
        message["response"] = response
    return {
        "completion": {
            "reasoning_content": "",
            "content": format_content(think, tool_results, response),
            "message": message,
        },
        "extra_info": {"step": step, "query": query, "timestamp": int(time.time() * 1000)},
    }


def execute_tool_call(tool_name: str, parameters: dict[str, Any]) -> ToolCallResult:
    """Run a registered tool with ``**parameters`` and return the call with its id and result."""
    call_id = generate_tool_call_id(tool_name, parameters)
    result = get_tool(tool_name)(**parameters)
    return {"name": tool_name, "parameters": parameters, "tool_call_id": call_id, "result": result}


__all__ = [
    "AgentOutput",
    "Tool",
    "ToolCallResult",
    "ToolResult",
    "create_dialogue_step",
    "execute_tool_call",
    "format_content",
    "generate_tool_call_id",
    "get_tool",
    "list_tools",
    "register_tool",
]
