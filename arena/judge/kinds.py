"""The kind of result each tool declares (`arena.tools.registry.RESULT_KINDS`), by tool name, for the judges: a tool's
kind is looked up among the tools of every registered family (`arena.tasks`); a name no family declares is of kind
``other``."""

from __future__ import annotations

from functools import lru_cache

#: calls the gateway logs as tool calls that are no family's tool: ``schemas`` (the agent asked for the tools' list)
GATEWAY_CALLS = {"schemas": "end"}
#: the kinds whose results give no catalog facts: the commit and the end echo the agent's own arguments, a reply is
#: a simulated person's words
NO_FACTS = frozenset({"answer", "end", "reply"})


def result_kind(name: str) -> str:
    """The kind of result tool ``name`` declares (``other`` for a tool no registered family declares)."""
    from arena.tasks import families

    return _kinds(tuple(f.name for f in families())).get(name, "other")


@lru_cache(maxsize=4)
def _kinds(families: tuple[str, ...]) -> dict[str, str]:
    """name -> declared kind of every tool of the families registered now (``families`` keys the cache)."""
    from arena.tasks import tool_declarations

    return {**{tool.name: tool.results for tool in tool_declarations()}, **GATEWAY_CALLS}
