"""A scripted tool-calling model for `OpenAIServer`: it searches the query, recommends the first hit, terminates.

It plays the model's side of the OpenAI tool-calling protocol from what the agent sends (the query, then the tool
results the agent fed back), so an LLM agent runs its whole loop against it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any


def tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def scripted_shopper(chosen: dict[str, str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The responder; ``chosen`` collects query -> the product id it recommended."""

    def respond(body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        query = next(m["content"] for m in messages if m["role"] == "user")
        tool_results = [m for m in messages if m["role"] == "tool"]
        if not tool_results:
            return {"content": None, "tool_calls": [tool_call("c1", "find_product", {"q": query})]}
        if query not in chosen:
            found = re.search(r'"product_id": "([^"]+)"', tool_results[0]["content"])
            assert found, tool_results[0]["content"][:300]
            chosen[query] = found.group(1)
            return {
                "content": "The first hit fits.",
                "tool_calls": [
                    tool_call("c2", "recommend_product", {"product_ids": chosen[query]}),
                    tool_call("c3", "terminate", {"status": "success"}),
                ],
            }
        return {"content": "done"}

    return respond
