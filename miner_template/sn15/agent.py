"""A subnet-15 (ORO) style agent: one file, written for ORO's sandbox, that runs unchanged in ShopArena's.

It imports ``src.agent.agent_interface`` and ``src.agent.proxy_client`` (the sandbox provides both), reaches the
catalog through the proxy's ``/search/*`` routes and the model through ``/inference/chat/completions`` at
``$SANDBOX_PROXY_URL``, runs a ReAct loop in which the model answers in XML (``<think>``, ``<tool_call>`` holding a
JSON array, ``<response>``), and returns its dialogue steps. The node takes the last ``recommend_product`` of those
steps as its answer (handed to the gateway by the harness); the gateway's log, not the steps, is what is scored.
"""

import json
import logging
import re
from os import getenv
from urllib.parse import quote_plus

from src.agent.agent_interface import Tool, create_dialogue_step, execute_tool_call, generate_tool_call_id
from src.agent.proxy_client import ProxyClient

logger = logging.getLogger(__name__)

MAX_STEPS = 12
_proxy = ProxyClient(timeout=60, max_retries=2)


@Tool
def find_product(q, page=1, shop_id=None, price=None, sort=None, service=None):
    """Search products; up to 10 per page (pages 1-5): product_id, shop_id, title, price, service, sold_count.

    q: a few keywords; price: "lo-hi"; sort: priceasc, pricedesc or order; service: official, freeShipping, COD,
    flashsale (comma-separated)."""
    params = {"q": quote_plus(q), "page": page, "shop_id": shop_id, "price": price, "sort": sort, "service": service}
    if params["sort"] == "default":
        params.pop("sort")
    return _proxy.get("/search/find_product", params) or []


@Tool
def view_product_information(product_ids):
    """Details of products (comma-separated ids): descriptions, SKU options and attributes."""
    return _proxy.get("/search/view_product_information", {"product_ids": product_ids}) or []


@Tool
def recommend_product(product_ids):
    """Recommend products (comma-separated ids, in the order the user asked for them). Call it once."""
    return f"Having recommended the products to the user: {product_ids}."


@Tool
def terminate(status="success"):
    """End the dialogue: success or failure."""
    return f"The interaction has been completed with status: {status}"


SYSTEM_PROMPT = """# Role
You are a shopping assistant that calls tools to find the products a user asks for.

# Tools
- find_product(q, page, shop_id, price, sort, service): search; use 2-4 keywords
- view_product_information(product_ids): check attributes before recommending
- recommend_product(product_ids): the answer, ids comma-separated in the user's order
- terminate(status): end the dialogue after recommending

# Output format
<think>your reasoning about the tool results</think>
<tool_call>[{"name": "tool name", "parameters": {"parameter": "value"}}]</tool_call>
<response>what the user sees</response>"""


def parse_output(content):
    """The <think>, <tool_call> (a JSON array, or one object) and <response> parts of the model's answer."""
    think = re.search(r"<think>(.+?)</think>", content, re.S)
    response = re.search(r"<response>(.+?)</response>", content, re.S)
    calls = []
    found = re.search(r"<tool_call>(.+?)</tool_call>", content, re.S)
    if found:
        try:
            parsed = json.loads(found.group(1).strip())
            for call in [parsed] if isinstance(parsed, dict) else parsed:
                parameters = call.get("parameters") or {}
                calls.append(
                    {
                        "name": call["name"],
                        "parameters": parameters,
                        "tool_call_id": generate_tool_call_id(call["name"], parameters),
                    }
                )
        except (ValueError, KeyError, TypeError, AttributeError):
            logger.warning("the model's tool_call is not a JSON array of calls")
    return (think.group(1).strip() if think else "", calls, response.group(1).strip() if response else "")


def ask_model(model, history):
    reply = _proxy.post(
        "/inference/chat/completions",
        json_data={
            "model": model,
            "temperature": 0.0,
            "stream": False,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": "# Dialogue Records History\n" + "\n\n".join(history)},
            ],
        },
    )
    if reply and reply.get("choices"):
        return reply["choices"][0].get("message", {}).get("content") or ""
    return ""


def agent_main(problem_data):
    query = problem_data.get("query", "")
    model = getenv("SANDBOX_MODEL", "deepseek-ai/DeepSeek-V3.2-TEE")
    history = [f"<user>{query}</user>"]
    steps = []
    for number in range(1, MAX_STEPS + 1):
        think, calls, response = parse_output(ask_model(model, history))
        if not (think or calls or response):
            break
        results, observations = [], []
        for call in calls:
            try:
                result = execute_tool_call(call["name"], call["parameters"])
            except Exception as exc:  # noqa: BLE001 - the model named a tool or parameter that does not exist
                result = {
                    "name": call["name"],
                    "parameters": call["parameters"],
                    "tool_call_id": call["tool_call_id"],
                    "result": f"Error: {exc}",
                }
            results.append(result)
            observations.append({"tool_call_id": result["tool_call_id"], "results": result["result"]})
        steps.append(create_dialogue_step(think, results, response, query, number))
        if think:
            history.append(f"<think>{think}</think>")
        if calls:
            history.append(
                "<tool_call>"
                + json.dumps([{"name": c["name"], "parameters": c["parameters"]} for c in calls])
                + "</tool_call>"
            )
            history.append("<obs>" + json.dumps(observations) + "</obs>")
        if response:
            history.append(f"<response>{response}</response>")
        if any(call["name"] == "terminate" for call in calls):
            break
    return steps
