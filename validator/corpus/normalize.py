"""Step 2 and 3 of the funnel: a run's gateway events as one chat (`normalize`), and the validity check."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from arena.tasks.base import split_ids
from arena.tools.registry import LISTING_KINDS


def dumps(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def loads(text: str | bytes | None) -> Any:
    if text is None:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None


def _args_key(arguments: Any) -> str:
    """Tool arguments compared as the gateway saw them: parsed, keys sorted, null-valued keys left out (agents drop
    them before calling)."""
    if isinstance(arguments, str):
        try:
            arguments = orjson.loads(arguments or "{}")
        except orjson.JSONDecodeError:
            return "raw:" + arguments
    if isinstance(arguments, dict):
        arguments = {k: v for k, v in arguments.items() if v is not None}
    return dumps(arguments)


def _listed_ids(value: Any, out: set[str]) -> None:
    """Product ids a catalog tool returned (entries carrying an error, e.g. an unknown id, do not count)."""
    if isinstance(value, list):
        for item in value:
            _listed_ids(item, out)
    elif isinstance(value, dict) and "error" not in value:
        product_id = value.get("product_id")
        if isinstance(product_id, str | int) and not isinstance(product_id, bool):
            out.add(str(product_id))
        for item in value.values():
            if isinstance(item, list | dict):
                _listed_ids(item, out)


@dataclass
class Chat:
    """A run as one chat (`turns`: the user query, then assistant and tool turns; the system prompt is added when
    the chat is written) and what the validity and axis steps need to know about it."""

    turns: list[dict[str, Any]]
    completions: int = 0
    calls: list[tuple[str, str]] = field(default_factory=list)  # (tool, "A"|"B") per gateway tool call
    unpaired: int = 0
    recommend_calls: int = 0
    recommended: list[str] = field(default_factory=list)
    answer_raw: Any = None  # the raw answer of the last answer call that succeeded
    listed: set[str] = field(default_factory=set)  # product ids the catalog's tool results showed
    complete: bool = False

    @property
    def axis(self) -> str:
        return "A" if self.calls and all(a == "A" for _, a in self.calls) else "B"

    def body(self) -> bytes:
        return orjson.dumps(self.turns)


_Pending = tuple[str, str, str]  # (call id, tool, arguments key) of a tool call an LLM completion emitted


def normalize(
    query: str,
    events: Iterable[Sequence[Any]],
    kinds: Mapping[str, str],
    answer_ids: Callable[[Any], list[str]] = split_ids,
) -> Chat:
    """The chat of a run from its gateway events, each ``(seq, kind, name, arguments JSON, result JSON, error,
    status)`` in seq order (`Store.export_runs`' shape; LLM request bodies are not needed). ``kinds``: the kind of
    result each tool of the run's family declares (`arena.tools.registry.RESULT_KINDS`; a tool not in it: other);
    ``answer_ids``: the ids of a raw answer, as the family reads them (`Family.answer_ids`)."""
    chat = Chat(turns=[{"role": "user", "content": query}])
    pending: list[_Pending] = []  # (call id, tool, arguments key) of the latest completion
    next_id = 0
    last_tool: tuple[str, bool] | None = None  # (kind, ok) of the latest tool turn
    for _seq, kind, name, arguments_text, result_text, error, status in events:
        if kind == "llm_call":
            if name == "models" or error is not None or not 200 <= int(status or 0) < 300:
                continue
            made = _completion_turn(result_text, next_id)
            if made is None:
                continue
            turn, new_pending, next_id = made
            chat.unpaired += len(pending)  # the previous completion's calls that never reached the gateway
            pending = new_pending
            chat.turns.append(turn)
            chat.completions += 1
            last_tool = None
        elif kind == "tool_call":
            if name == "schemas":
                continue  # the agent fetching the tool list, not a tool call
            result_kind = kinds.get(name, "other")
            next_id, ok = _tool_turn(chat, pending, next_id, (name, result_kind), arguments_text, result_text, error)
            last_tool = (result_kind, ok)
        # agent_log and rejected events are not part of the conversation
    chat.unpaired += len(pending)
    chat.recommended = answer_ids(chat.answer_raw) if chat.answer_raw is not None else []
    last = chat.turns[-1]
    if last["role"] == "tool":
        chat.complete = last_tool == ("end", True)
    else:
        chat.complete = last["role"] == "assistant" and "tool_calls" not in last and bool(last.get("content"))
    return chat


def _completion_turn(
    result_text: str | bytes | None, next_id: int
) -> tuple[dict[str, Any], list[_Pending], int] | None:
    """The assistant turn of an LLM completion, the tool calls it emitted and the next free call number; None for a
    completion that says nothing."""
    result = loads(result_text)
    choices = result.get("choices") if isinstance(result, dict) else None
    message = (
        choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    )
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    turn: dict[str, Any] = {
        "role": "assistant",
        "content": content if isinstance(content, str) and content != "" else None,
    }
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(reasoning, str) and reasoning.strip():
        turn["reasoning_content"] = reasoning
    calls = []
    new_pending = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            continue
        tool = str(function.get("name") or "")
        raw = function.get("arguments")
        text = raw if isinstance(raw, str) else dumps(raw if raw is not None else {})
        call_id = f"call_{next_id}"
        next_id += 1
        calls.append({"id": call_id, "type": "function", "function": {"name": tool, "arguments": text}})
        new_pending.append((call_id, tool, _args_key(text)))
    if calls:
        turn["tool_calls"] = calls
    elif turn["content"] is None and "reasoning_content" not in turn:
        return None  # an empty completion says nothing
    return turn, new_pending, next_id


def _tool_turn(
    chat: Chat,
    pending: list[_Pending],
    next_id: int,
    called: tuple[str, str],
    arguments_text: str | bytes | None,
    result_text: str | bytes | None,
    error: str | None,
) -> tuple[int, bool]:
    """Add a gateway tool call (``called``: its tool's name and declared kind of result) to `chat`: paired with the
    pending LLM call it answers (Axis A), or shown as a synthesized assistant call (Axis B); then its result. The next
    free call number, and whether the call succeeded."""
    name, result_kind = called
    arguments = loads(arguments_text)
    result = loads(result_text)
    key = _args_key(arguments)
    found = next((i for i, (_, tool, k) in enumerate(pending) if tool == name and k == key), None)
    if found is not None:
        call_id = pending.pop(found)[0]
        chat.calls.append((name, "A"))
    else:
        call_id = f"call_{next_id}"
        next_id += 1
        chat.calls.append((name, "B"))
        chat.turns.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": dumps(arguments if arguments is not None else {})},
                    }
                ],
            }
        )
    if error is not None:
        content = f"Error: {error}"
    elif result is None:
        chat.unpaired += 1
        content = ""
    else:
        content = result if isinstance(result, str) else dumps(result)
    chat.turns.append({"role": "tool", "tool_call_id": call_id, "content": content})
    ok = error is None and result is not None
    if result_kind == "answer":
        chat.recommend_calls += 1
        if ok:
            raw = arguments.get("product_ids") if isinstance(arguments, dict) else None
            chat.answer_raw = raw
    elif ok and result_kind in LISTING_KINDS:
        _listed_ids(result, chat.listed)
    return next_id, ok


def estimate_tokens(n_bytes: int) -> int:
    """Tokens of a chat, estimated as its UTF-8 bytes / 4 (OpenAI's rule of thumb); deterministic, no tokenizer."""
    return math.ceil(n_bytes / 4)


def invalid_reason(chat: Chat, tokens: int, known: set[str], max_tokens: int) -> str | None:
    """Why a chat fails the validity step (the first check it fails), or None."""
    if chat.unpaired:
        return "unpaired_tool_call"
    if chat.recommend_calls != 1:
        return "recommend_not_once"
    if not chat.recommended or any(i not in chat.listed and i not in known for i in chat.recommended):
        return "unknown_product"
    if not chat.complete:
        return "incomplete"
    if tokens > max_tokens:
        return "too_long"
    return None
