"""The normalized trajectory: the gateway's ordered record of a run (the corpus makes its chats, `validator.corpus`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import orjson
from pydantic import BaseModel, Field, field_validator

#: what a NUL character in an agent's text becomes (PostgreSQL stores no NUL in text or JSON; every store the same)
NUL_STANDIN = "\ufffd"


#: how deeply an agent's return may nest (dicts and lists within each other): deeper is the agent's bad return, told by
#: the harness where it reads the agent's result (`sandbox.harness.harness.MAX_DEPTH`) and by the node again
#: (`sandbox.backends.result_from_report`); docs/validator.md, "Error codes"
MAX_DEPTH = 100


def without_nul(value: Any) -> Any:
    """``value`` with every NUL character and lone surrogate in its strings (and dict keys) replaced by U+FFFD, so
    that what an agent sends is stored, read back and scored alike on SQLite and PostgreSQL: a NUL it slips into a
    call, a surrogate into its exception's message, can never make the node fail to record its run (which would blame
    the node for the agent's own answer). Walked without recursion: an agent's value nested however deep is copied,
    never a RecursionError of the node's."""
    if isinstance(value, str):
        return _text(value)
    if not isinstance(value, dict | list | tuple) or _clean(value):
        return value
    top = _empty(value)
    todo = [(value, top)]
    while todo:
        source, copy = todo.pop()
        pairs = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in pairs:
            kept = _empty(item) if isinstance(item, dict | list | tuple) else without_nul(item)
            if isinstance(copy, dict):
                copy[without_nul(key)] = kept
            else:
                copy.append(kept)
            if isinstance(item, dict | list | tuple):
                todo.append((item, kept))
    return top


def _text(value: str) -> str:
    """``value`` with NUL and any lone surrogate (an agent's ``"\\ud800"``, which no store, log or UTF-8 text can
    hold: its exception's message, say) each made U+FFFD."""
    if "\x00" in value:
        value = value.replace("\x00", NUL_STANDIN)
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(NUL_STANDIN if "\ud800" <= char <= "\udfff" else char for char in value)
    return value


def _empty(value: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> dict[Any, Any] | list[Any]:
    return {} if isinstance(value, dict) else []


def depth_of(value: Any) -> int:
    """How deeply ``value`` nests (a scalar 0, ``[]`` 1), walked without recursion."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict | list | tuple):
            deepest = max(deepest, level)
            todo.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _clean(value: Any) -> bool:
    """No NUL anywhere in ``value``, told by its JSON in one C pass (orjson writes a NUL as ``\\u0000``); a value
    that is not JSON is walked."""
    try:
        return b"\\u0000" not in orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return False


class TrajectoryEvent(BaseModel):
    """One call the gateway saw during a run (or a harness log line), in order. Its text holds no NUL
    (`without_nul`)."""

    run_id: str
    seq: int
    kind: Literal["tool_call", "llm_call", "agent_log", "rejected"]
    name: str
    arguments: Any = None
    result: Any = None
    started_at: datetime
    duration_ms: float = 0.0
    tokens: dict[str, int] = Field(default_factory=dict)  # prompt / completion / total
    cost: float = 0.0
    error: str | None = None
    status: int = 200

    @field_validator("name", "arguments", "result", "error", mode="before")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        return without_nul(value)
