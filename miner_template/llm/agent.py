"""LLM agent template: a tool-calling loop through the gateway's OpenAI-compatible endpoint.

The model is the one the node serves (``$ARENA_LLM_MODEL``, set by the harness: `arena-miner test --model M`
locally, the validator's configured model in a race). The model sees the run's tool schemas (``GET /tools``: the
problem's task family's tools) and the query; each tool call goes to the gateway, its result (or the tool's error)
goes back to the model. The loop stops at `terminate`, at the step limit, or when the LLM or the budget is
unavailable; if the model never recommended anything, the best search hit is recommended so the run has an answer.

A shopping session (task ``session``) is a chat: the shopper's opening is the first user turn, and every answer of
the shopper (to ``ask_user`` and ``respond``) comes back as the next user turn, after the tool's own result (the
turns left, whether the shopper closed the conversation). Prose the model writes instead of a tool call is said to
the shopper (``respond`` without products). The model commits with ``recommend_product`` once the shopper agrees; if
it never does, the product the shopper last agreed to is committed (never one they did not agree to).
"""

import json

from arena_agent import BudgetExhausted, ToolError, call_tool, llm, llm_model, tools

MODEL = llm_model() or ""  # "": the node serves no LLM; the gateway refuses the call and the fallback answers
MAX_STEPS = 20
MAX_SESSION_STEPS = 30
SYSTEM = (
    "You are a careful shopping assistant. Use the tools to find products that satisfy every constraint in the "
    "user's request (attributes, SKU options, services, price, one shop, budget after the voucher). Search, "
    "inspect details, compare candidates, then call recommend_product with the ids in the order asked, and "
    "finally terminate."
)
SESSION_SYSTEM = (
    "You are a shopping assistant talking with a shopper. Their opening request is only part of what they need. "
    "Read their profile with get_user_profile, search with find_product and view_product_information, and ask "
    "short questions with ask_user, one thing at a time. Propose products with respond (at most three ids, quoting "
    "each one's price and the values they asked for). Keep track of everything the shopper says, including changes "
    "of mind, and never propose a rejected product again. Once the shopper agrees to a product, call "
    "recommend_product with its id, then terminate."
)
NUDGE = (
    "Do not answer in prose: call the tools. Search with find_product, then call recommend_product with the "
    "product ids, then terminate."
)
#: the tools whose answer is the shopper's words (they come back to the model as a user turn)
SHOPPER_TOOLS = ("ask_user", "respond")
AGREED = ("works for me", "go ahead", "i'll take it")


def agent_main(problem):
    session = problem.get("task") == "session"
    client = llm()
    schemas = tools.schemas()
    system = SESSION_SYSTEM if session else SYSTEM
    messages = [{"role": "system", "content": system}, {"role": "user", "content": problem["query"]}]
    run = {"recommended": None, "agreed": None, "closed": False}
    nudged = False
    for _ in range(MAX_SESSION_STEPS if session else MAX_STEPS):
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
            if session and run["agreed"] is not None:
                break  # the shopper agreed and the model talks on: their product is committed (`finish`)
            if session and message.content and run["recommended"] is None and not run["closed"]:
                heard = say(run, message.content)  # prose is said to the shopper; their answer is the next turn
                if heard is not None:
                    messages.append({"role": "user", "content": heard})
                    continue
            if run["recommended"] is None and not nudged:  # a model that talked instead of acting: ask once
                nudged = True
                messages.append({"role": "user", "content": NUDGE})
                continue
            break
        if run_calls(calls, messages, run) or run["closed"]:  # terminated, budget spent, or the shopper left
            break
    finish(problem, session, run)
    return {"recommended": run["recommended"]}


def run_calls(calls, messages, run):
    """Each tool call of one assistant turn through the gateway, its result as a tool message; the shopper's
    answers after them as one user turn. Whether the run is over (terminated, or the budget spent)."""
    done = False
    heard = []
    for call in calls:
        name = call.function.name
        arguments = {}
        try:
            arguments = json.loads(call.function.arguments or "{}")
            if name == "recommend_product" and isinstance(arguments.get("product_ids"), str):
                # ShoppingBench's evaluator splits on commas only: "a, b" would make " b", no product
                ids = [p.strip() for p in arguments["product_ids"].split(",") if p.strip()]
                arguments["product_ids"] = ",".join(ids)
            result = call_tool(name, **arguments)
            if name in SHOPPER_TOOLS and isinstance(result, dict) and "user" in result:
                heard.append(hear(run, result, arguments))
                result = {k: v for k, v in result.items() if k != "user"}
                result["note"] = "the shopper's answer follows as their next message"
            content = json.dumps(result)[:8000]
        except (ToolError, ValueError, TypeError) as exc:
            content = f"error: {exc}"
        except BudgetExhausted:
            done = True
            content = "error: budget spent"
        messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        if name == "recommend_product" and not content.startswith("error"):
            run["recommended"] = arguments.get("product_ids")
        if name == "terminate":
            done = True
    if heard:
        messages.append({"role": "user", "content": "\n".join(heard)})
    return done


def hear(run, result, arguments):
    """The shopper's words, remembered: whether they closed the conversation, the product they agreed to."""
    words = str(result.get("user") or "")
    run["closed"] = bool(result.get("closed"))
    ids = arguments.get("product_ids") or []
    ids = [p.strip() for p in ids.split(",")] if isinstance(ids, str) else [str(p).strip() for p in ids]
    ids = [p for p in ids if p]
    if len(ids) == 1 and any(a in words.lower() for a in AGREED) and not words.lower().startswith("not "):
        run["agreed"] = ids[0]
    return words


def say(run, text):
    """Prose of the model, said to the shopper (``respond`` without products); their words, or None."""
    try:
        result = call_tool("respond", message=text[:1000], product_ids=[])
    except (ToolError, BudgetExhausted, RuntimeError):
        return None
    if not isinstance(result, dict) or "user" not in result:
        return None
    return hear(run, result, {})


def finish(problem, session, run):
    """An answer for the run: a session commits the product the shopper agreed to (if the model did not); any other
    task the best search hit. Then terminate."""
    if run["recommended"] is not None:
        return
    try:
        if session:
            agreed = run["agreed"]
            if agreed is not None:
                run["recommended"] = agreed
                tools.recommend_product(product_ids=agreed)
            tools.terminate(status="success" if agreed else "failure")
            return
        hits = tools.find_product(q=problem["query"])
        if hits:
            top = hits[0]["product_id"]
            run["recommended"] = top
            tools.recommend_product(product_ids=top)
        tools.terminate(status="success" if hits else "failure")
    except (ToolError, BudgetExhausted):
        pass
