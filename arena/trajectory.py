"""The normalized trajectory: the gateway's ordered record of a run (the corpus makes its chats, `validator.corpus`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import orjson
from pydantic import BaseModel, Field, field_validator

#: what a NUL character in an agent's text becomes (PostgreSQL stores no NUL in text or JSON; every store the same)
NUL_STANDIN = "\ufffd"


def without_nul(value: Any) -> Any:
    """``value`` with every NUL character in its strings (and dict keys) replaced by U+FFFD, so that what an agent
    sends is stored, read back and scored alike on SQLite and PostgreSQL: a NUL it slips into a call can never make
    the node fail to record its run (which would blame the node for the agent's own answer)."""
    if isinstance(value, str):
        return value.replace("\x00", NUL_STANDIN) if "\x00" in value else value
    if isinstance(value, dict | list) and _clean(value):
        return value
    if isinstance(value, dict):
        return {without_nul(k): without_nul(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [without_nul(v) for v in value]
    return value


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
