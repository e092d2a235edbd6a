"""How a chat is written: its family's system prompt (instructions and tool schemas) and the two output formats."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import orjson

from arena.tasks import UnknownTask, family, family_for
from validator.corpus.normalize import dumps, loads
from validator.corpus.options import CorpusError


@dataclass(frozen=True)
class ChatFormat:
    """What a chat of one task family is written with: the system prompt (the family's instructions and its tool
    schemas), the schemas, each tool's declared kind of result (name -> `arena.tools.registry.RESULT_KINDS`), and
    how the family reads an answer's ids and the ids its verdict found."""

    family: str
    system: str
    schemas: list[dict[str, Any]]
    kinds: Mapping[str, str]
    #: the ids a raw answer names, as the family reads them (`Family.answer_ids`)
    answer_ids: Callable[[Any], list[str]]
    #: the answer's ids the stored strict verdict found in the catalog (`Family.corpus_known`)
    known: Callable[[Mapping[str, Any] | None], set[str]]


def chat_format(task: str) -> ChatFormat:
    """The `ChatFormat` of the family that owns task type ``task``."""
    try:
        family = family_for(task)
    except UnknownTask as exc:
        raise CorpusError(
            f"the store holds runs of task {task!r}, which no loaded task family owns: {exc}; load its family "
            "(SHOPARENA_FAMILIES) or export other tasks (--task)"
        ) from None
    return _family_format(family.name)


@cache
def _family_format(name: str) -> ChatFormat:
    fam = family(name)
    tools = fam.tools()
    schemas = tools.schemas()
    return ChatFormat(
        family=name,
        system=system_prompt(schemas, fam.corpus_prompt),
        schemas=schemas,
        kinds={tool.name: tool.results for tool in tools},
        answer_ids=fam.answer_ids,
        known=fam.corpus_known,
    )


def tool_schemas(task: str) -> list[dict[str, Any]]:
    """The tool schemas of the family that owns task type ``task``."""
    return chat_format(task).schemas


def system_prompt(schemas: Sequence[dict[str, Any]], instructions: str) -> str:
    """The system prompt every chat starts with: the family's instructions and its tool schemas."""
    lines = "\n".join(dumps(s) for s in schemas)
    return (
        f"{instructions}\n\nYou may call one or more functions to help with the request. The function "
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
