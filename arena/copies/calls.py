"""A run's tool calls as tokens in a canonical form: what the behaviour check (`arena.copies.behaviour`) compares.

Each call is a token of its tool's name and a digest of its arguments in a canonical form (`canonical`), the answer
tool's call among them. The form leaves out what a copy can change without changing what it does: string values are
read as their words (Unicode NFKC, case folded, punctuation and spacing dropped, in sorted order; a word repeated
once), numbers by value (``2``, ``2.0`` and ``"2"`` alike, to 6 significant digits), objects with their keys sorted
and lists of plain values as sorted bags; an argument given as None or as the tool's declared default
(``sort="default"``) is dropped; what the tool returned is added when that is a non-empty list. LLM calls are left
out (their prompts carry the agent's own wording; what the agent does with the tools is its behaviour).
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

import orjson

Calls = tuple[str, ...]

_WORD = re.compile(r"\w+")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def _number(value: float) -> Any:
    if not math.isfinite(value):
        return str(value)
    rounded = float(f"{value:.6g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 2**53 else rounded


def canonical(value: Any) -> Any:
    """An argument value with what a copy can change without changing the call left out (module docstring)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return _number(float(value))
    if isinstance(value, str):
        text = unicodedata.normalize("NFKC", value).casefold().strip()
        if _NUMBER.fullmatch(text):
            return _number(float(text))
        return " ".join(sorted(set(_WORD.findall(text))))
    if isinstance(value, Mapping):
        return {str(canonical(str(k))): canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        items = [canonical(v) for v in value]
        if all(not isinstance(v, dict | list) for v in items):
            return sorted(items, key=lambda v: (type(v).__name__, str(v)))
        return items
    return repr(value)


@lru_cache(maxsize=1)
def _defaults() -> dict[str, dict[str, Any]]:
    """Every tool's declared default arguments, canonical (tool name -> argument -> value)."""
    from arena.tasks import tool_declarations

    out: dict[str, dict[str, Any]] = {}
    for tool in tool_declarations():
        for arg, field in tool.arguments.model_fields.items():
            if not field.is_required() and field.default is not None:
                out.setdefault(str(canonical(tool.name)), {})[str(canonical(arg))] = canonical(field.default)
    return out


@lru_cache(maxsize=1)
def answer_names() -> frozenset[str]:
    from arena.tasks.answer import answer_tools

    return frozenset(str(canonical(n)) for n in answer_tools())


def _digest(value: Any) -> str:
    try:
        raw = orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except (TypeError, RecursionError):
        raw = repr(value).encode("utf-8", "replace")
    return hashlib.blake2b(raw, digest_size=6).hexdigest()


def _asked(name: str, arguments: Any) -> Any:
    """A call's arguments as a copy cannot reword them: canonical, with an argument that says what leaving it out
    says dropped (None, or the tool's declared default spelled out: ``sort="default"``, ``page=1``)."""
    args = canonical(arguments)
    if isinstance(args, dict):
        defaults = _defaults().get(name, {})
        args = {k: v for k, v in args.items() if v is not None and (k not in defaults or defaults[k] != v)}
    return args


def _unworded(value: Any) -> Any:
    """The arguments with every string's words left out: what they ask beside wording (page, sort, price...)."""
    if isinstance(value, str):
        return ""
    if isinstance(value, dict):
        return {k: _unworded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unworded(v) for v in value]
    return value


def _token(name: str, arguments: Any, result: Any = None) -> str:
    """``name:asked`` (the canonical arguments' digest), then ``:got`` when the tool returned a non-empty list: the
    digest of that result with the arguments but their words. Two searches that differ only in their wording and
    found the same results are the same call; another page, sort or filter that found the same stays another."""
    tool = str(canonical(name))
    asked = _asked(tool, arguments)
    token = f"{tool}:{_digest(asked)}"
    if isinstance(result, list) and result:
        token += f":{_digest([_unworded(asked), result])}"
    return token


def behaviour_of(events: Iterable[Mapping[str, Any] | Any]) -> Calls:
    """A run's tool calls in order, as tokens (``name:argsdigest``), from its trajectory (events as dicts or
    `arena.trajectory.TrajectoryEvent`)."""
    out = []
    for event in events:
        get = event.get if isinstance(event, Mapping) else lambda key, e=event: getattr(e, key, None)
        if get("kind") == "tool_call":
            out.append(_token(str(get("name")), get("arguments"), None if get("error") else get("result")))
    return tuple(out)
