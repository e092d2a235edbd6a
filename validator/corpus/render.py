"""How a chat is written: the system prompt (instructions and tool schemas) and the two output formats."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from validator.corpus.normalize import dumps, loads

SYSTEM_INSTRUCTIONS = (
    "You are a shopping assistant. Find the products that satisfy every constraint in the user's request: "
    "attributes, SKU options, services, price, one shop when asked, the budget after a voucher. Use the tools: "
    "search, inspect the details, compare the candidates, then call recommend_product once with the product ids in "
    "the order the user asked for them, and finally call terminate."
)


def tool_schemas() -> list[dict[str, Any]]:
    from arena.tasks.shoppingbench.tools import default_registry

    return default_registry().schemas()


def system_prompt(schemas: Sequence[dict[str, Any]]) -> str:
    """The system prompt every chat starts with: the instructions and the tool schemas."""
    lines = "\n".join(dumps(s) for s in schemas)
    return (
        f"{SYSTEM_INSTRUCTIONS}\n\nYou may call one or more functions to help with the request. The function "
        f"signatures are within <tools></tools> XML tags:\n<tools>\n{lines}\n</tools>"
    )


def render_openai(
    system: str, schemas: Sequence[dict[str, Any]], turns: list[dict[str, Any]], metadata: dict[str, Any]
) -> bytes:
    return orjson.dumps(
        {"messages": [{"role": "system", "content": system}, *turns], "tools": list(schemas), "metadata": metadata}
    )


def render_sharegpt(
    system: str, schemas: Sequence[dict[str, Any]], turns: list[dict[str, Any]], metadata: dict[str, Any]
) -> bytes:
    """ShareGPT with Hermes-style tool calls: ``system`` (instructions and <tools>), ``human``, ``gpt`` (text, then
    one ``<tool_call>{"name", "arguments"}</tool_call>`` per call), ``tool`` (one ``<tool_response>`` per result;
    consecutive results share one turn)."""
    conversations: list[dict[str, str]] = [{"from": "system", "value": system}]
    names: dict[str, str] = {}
    for turn in turns:
        role = turn["role"]
        if role == "user":
            conversations.append({"from": "human", "value": turn["content"]})
        elif role == "assistant":
            parts = []
            if turn.get("reasoning_content"):
                parts.append(f"<think>\n{turn['reasoning_content']}\n</think>")
            if turn.get("content"):
                parts.append(turn["content"])
            for call in turn.get("tool_calls") or []:
                function = call["function"]
                names[call["id"]] = function["name"]
                arguments = loads(function["arguments"])
                shown = arguments if arguments is not None else function["arguments"]
                parts.append(
                    f"<tool_call>\n{orjson.dumps({'name': function['name'], 'arguments': shown}).decode()}"
                    "\n</tool_call>"
                )
            conversations.append({"from": "gpt", "value": "\n".join(parts)})
        else:
            block = (
                "<tool_response>\n"
                + orjson.dumps({"name": names.get(turn["tool_call_id"], ""), "content": turn["content"]}).decode()
                + "\n</tool_response>"
            )
            if conversations[-1]["from"] == "tool":
                conversations[-1]["value"] += "\n" + block
            else:
                conversations.append({"from": "tool", "value": block})
    return orjson.dumps({"conversations": conversations, "metadata": metadata})


RENDER = {"openai": render_openai, "sharegpt": render_sharegpt}
