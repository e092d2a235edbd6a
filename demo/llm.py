"""A scripted model behind a real OpenAI-compatible HTTP server on loopback: the demo's LLM (no model weights, no
network). It plays subnet 15's ReAct protocol (XML ``<think>``, ``<tool_call>`` JSON array, ``<response>``), reading
the dialogue history the agent sends: search the request, look at the top hits' details, recommend the first hit
and terminate, each step's reasoning citing the tool results it saw. Deterministic: the same history, the same text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from demo.scripted_llm import OpenAIServer

MODEL = "scripted-react"


def _calls(calls: list[dict[str, Any]]) -> str:
    return "<tool_call>" + json.dumps(calls) + "</tool_call>"


def react_reply(body: dict[str, Any]) -> str:
    """The model's answer to one chat request of an SN15-style ReAct agent."""
    text = "\n".join(str(m.get("content") or "") for m in body.get("messages", []) if m.get("role") == "user")
    found = re.search(r"<user>(.*?)</user>", text, re.S)
    query = found.group(1).strip() if found else text.strip()[-300:]
    observations = []
    for block in re.findall(r"<obs>(.*?)</obs>", text, re.S):
        try:
            observations.append(json.loads(block))
        except ValueError:
            observations.append([])
    if not observations:
        return (
            f"<think>The user asks: {query} I will search the catalog with the request's own words and then "
            "check the best hits.</think>\n" + _calls([{"name": "find_product", "parameters": {"q": query}}])
        )
    hits = [
        p
        for p in (observations[0][0].get("results") if observations[0] else None) or []
        if isinstance(p, dict) and "product_id" in p
    ]
    if not hits:
        return "<think>The search returned no products, so nothing can be recommended.</think>\n" + _calls(
            [{"name": "terminate", "parameters": {"status": "failure"}}]
        )
    top = hits[0]
    if len(observations) == 1:
        listed = "; ".join(f"{p['product_id']} '{p.get('title', '')}' at {p.get('price')}" for p in hits[:3])
        ids = ",".join(str(p["product_id"]) for p in hits[:3])
        return (
            f"<think>The search returned {len(hits)} products. The top ones are {listed}. Product "
            f"{top['product_id']} ranks first for the request; I will compare their details before "
            "choosing.</think>\n" + _calls([{"name": "view_product_information", "parameters": {"product_ids": ids}}])
        )
    details = next(
        (
            d
            for d in (observations[1][0].get("results") if observations[1] else None) or []
            if isinstance(d, dict) and d.get("product_id") == top["product_id"]
        ),
        {},
    )
    attributes = details.get("attributes") or {}
    cited = (
        ", ".join(
            f"{k} {', '.join(map(str, v)) if isinstance(v, list) else v}" for k, v in list(attributes.items())[:2]
        )
        or "no listed attributes"
    )
    return (
        f"<think>Product {top['product_id']} '{top.get('title', '')}' costs {top.get('price')} and its details "
        f"show {cited}, which matches the request better than the other hits. I recommend it.</think>\n"
        + _calls(
            [
                {"name": "recommend_product", "parameters": {"product_ids": str(top["product_id"])}},
                {"name": "terminate", "parameters": {"status": "success"}},
            ]
        )
        + f"\n<response>I recommend product {top['product_id']}.</response>"
    )


class ScriptedLLMServer(OpenAIServer):
    """`react_reply` behind the scripted OpenAI-compatible server (``POST /v1/chat/completions``,
    ``GET /v1/models``) on 127.0.0.1."""

    def __init__(self, model: str = MODEL) -> None:
        super().__init__(react_reply, models=(model,))
        self.model = model
