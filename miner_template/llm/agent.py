"""LLM agent template: a tool-calling loop through the gateway's OpenAI-compatible endpoint.

The model is the one the node serves (``$ARENA_LLM_MODEL``, set by the harness: `arena-miner test --model M`
locally, the validator's configured model in a race). The model sees the seven tools' schemas and the query; each
tool call goes to the gateway, its result (or the tool's error) goes back to the model. The loop stops at
`terminate`, at the step limit, or when the LLM or the budget is unavailable; if the model never recommended anything,
the best search hit is recommended so the run has an answer.
"""

import json

from arena_agent import BudgetExhausted, ToolError, call_tool, llm, llm_model, tools

MODEL = llm_model() or ""  # "": the node serves no LLM; the gateway refuses the call and the fallback answers
MAX_STEPS = 20
SYSTEM = (
    "You are a careful shopping assistant. Use the tools to find products that satisfy every constraint in the "
    "user's request (attributes, SKU options, services, price, one shop, budget after the voucher). Search, "
    "inspect details, compare candidates, then call recommend_product with the ids in the order asked, and "
    "finally terminate."
)


NUDGE = (
    "Do not answer in prose: call the tools. Search with find_product, then call recommend_product with the "
    "product ids, then terminate."
)


def agent_main(problem):
    client = llm()
    schemas = tools.schemas()
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": problem["query"]}]
    recommended = None
    nudged = False
    for _ in range(MAX_STEPS):
        try:
            reply = client.chat.completions.create(model=MODEL, messages=messages, tools=schemas, temperature=0)
        except Exception as exc:  # noqa: BLE001 - budget spent or endpoint down: answer with what we have
            messages.append({"role": "user", "content": f"(LLM unavailable: {exc})"})
            break
        message = reply.choices[0].message
        calls = message.tool_calls or []
        turn = {"role": "assistant", "content": message.content}
        if calls:  # servers differ on a null tool_calls: send the key only with calls in it
            turn["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.function.name, "arguments": c.function.arguments},
                }
                for c in calls
            ]
        messages.append(turn)
        if not calls:
            if recommended is None and not nudged:  # a model that talked instead of acting: ask once to use a tool
                nudged = True
                messages.append({"role": "user", "content": NUDGE})
                continue
            break
        done = False
        for call in calls:
            name = call.function.name
            try:
                arguments = json.loads(call.function.arguments or "{}")
                if name == "recommend_product" and isinstance(arguments.get("product_ids"), str):
                    # ShoppingBench's evaluator splits on commas only: "a, b" would make " b", no product
                    ids = [p.strip() for p in arguments["product_ids"].split(",") if p.strip()]
                    arguments["product_ids"] = ",".join(ids)
                result = call_tool(name, **arguments)
                content = json.dumps(result)[:8000]
            except (ToolError, ValueError, TypeError) as exc:
                content = f"error: {exc}"
            except BudgetExhausted:
                done = True
                content = "error: budget spent"
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
            if name == "recommend_product" and not content.startswith("error"):
                recommended = arguments.get("product_ids")
            if name == "terminate":
                done = True
        if done:
            break
    if recommended is None:
        try:
            hits = tools.find_product(q=problem["query"])
            if hits:
                recommended = hits[0]["product_id"]
                tools.recommend_product(product_ids=recommended)
            tools.terminate(status="success" if hits else "failure")
        except (ToolError, BudgetExhausted):
            pass
    return {"recommended": recommended}
