"""One registry of typed tools: OpenAI function schemas from signatures, pydantic-validated arguments.

A tool is a plain function ``fn(ctx, **arguments)`` whose parameters after ``ctx`` are annotated (use
``Annotated[T, Field(description=...)]`` for parameter docs) and whose docstring's first paragraph is the tool's
description. Its own failures (bad argument, unknown id, page out of range) raise `ToolError`; the message goes
back to the agent as the tool result. Any other exception is a fault of the node, not of the agent.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

#: What a tool's result holds, as its family declares it (`ToolRegistry.register`), so the judge and the corpus read
#: results by kind, never by tool name: ``products`` (a list of product summaries), ``details`` (a list of product
#: pages), ``shops`` (shops with their matching products), ``prices`` (a price calculation), ``pages`` (web pages),
#: ``answer`` (the commit: it echoes the agent's ids), ``end`` (the run's end), ``reply`` (a simulated person's words),
#: ``other`` (anything else: its values less what the arguments echo).
RESULT_KINDS = ("products", "details", "shops", "prices", "pages", "answer", "end", "reply", "other")
#: the kinds whose results list catalog products
LISTING_KINDS = frozenset({"products", "details", "shops"})


class ToolError(Exception):
    """A tool's own error: its message is returned to the agent as the tool result."""


@dataclass
class RunState:
    """What the tools record during one run: every recommendation (the last one is the answer) and termination."""

    recommendations: list[list[str]] = field(default_factory=list)
    terminated: str | None = None
    calls: int = 0

    @property
    def answer(self) -> list[str]:
        """The product ids of the last ``recommend_product`` call, or [] if there was none."""
        return list(self.recommendations[-1]) if self.recommendations else []


@dataclass
class ToolContext:
    """The explicit context every tool receives: the catalog handle and this run's state."""

    catalog: Any  # arena.catalog.Catalog; typed loosely so tools can be unit-tested against any catalog-like object
    state: RunState = field(default_factory=RunState)


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    fn: Callable[..., Any]
    arguments: type[BaseModel]
    results: str = "other"

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-calling schema of this tool."""
        parameters = _strip_titles(self.arguments.model_json_schema())
        parameters.setdefault("required", [])
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": parameters},
        }


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title" or not isinstance(v, str)}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


def _describe(exc: ValidationError, tool: str) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        if err["type"] == "extra_forbidden":
            parts.append(f"unknown argument {where!r}")
        elif err["type"] == "missing":
            parts.append(f"missing required argument {where!r}")
        else:
            got = err.get("input")
            shown = json.dumps(got, default=str)[:60] if got is not None else "null"
            parts.append(f"{where}: {err['msg']} (got {shown})")
    return f"{tool}: " + "; ".join(parts)


class ToolRegistry:
    """The tools by name; shared by the gateway, the miner's local test and the scorer."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def register(self, fn: Callable[..., Any], *, results: str = "other") -> Callable[..., Any]:
        """Register ``fn`` as a tool named after it, whose results are of kind ``results`` (`RESULT_KINDS`)."""
        name = fn.__name__
        if results not in RESULT_KINDS:
            raise ValueError(f"tool {name!r}: results {results!r} is not one of {', '.join(RESULT_KINDS)}")
        if name in self._tools:
            raise ValueError(f"tool {name!r} is already registered")
        params = list(inspect.signature(fn, eval_str=True).parameters.values())
        if not params or params[0].name != "ctx":
            raise TypeError(f"tool {name!r} must take ctx as its first parameter")
        fields: dict[str, Any] = {}
        for p in params[1:]:
            if p.annotation is inspect.Parameter.empty:
                raise TypeError(f"tool {name!r}: parameter {p.name!r} has no type annotation")
            default = ... if p.default is inspect.Parameter.empty else p.default
            fields[p.name] = (p.annotation, default)
        model = create_model(f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
        doc = inspect.getdoc(fn) or ""
        description = " ".join(doc.split("\n\n", 1)[0].split())
        if not description:
            raise TypeError(f"tool {name!r} needs a docstring: it is the description the agent sees")
        self._tools[name] = Tool(name, description, fn, model, results)
        return fn

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            raise ToolError(f"unknown tool {name!r}; available tools: {', '.join(self._tools)}") from None

    def schemas(self) -> list[dict[str, Any]]:
        """Every tool's OpenAI function schema, in registration order."""
        return [tool.schema() for tool in self._tools.values()]

    def validate(self, name: str, arguments: dict[str, Any] | str | None) -> BaseModel:
        """Parse and validate a call's arguments (a dict, or a JSON object string as LLMs send them)."""
        tool = self.get(name)
        if arguments is None or arguments == "":
            arguments = {}
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except json.JSONDecodeError as exc:
                raise ToolError(f"{name}: arguments are not valid JSON ({exc.msg})") from None
        if not isinstance(arguments, dict):
            raise ToolError(f"{name}: arguments must be a JSON object, got {type(arguments).__name__}")
        try:
            return tool.arguments.model_validate(arguments)
        except ValidationError as exc:
            raise ToolError(_describe(exc, name)) from None

    def call(self, name: str, arguments: dict[str, Any] | str | None, ctx: ToolContext) -> Any:
        """Run one tool call. Returns its JSON-serialisable result; raises `ToolError` for the agent's mistakes."""
        parsed = self.validate(name, arguments)
        ctx.state.calls += 1
        values = {k: getattr(parsed, k) for k in type(parsed).model_fields}
        return self._tools[name].fn(ctx, **values)
