"""The agent SDK's tool wrappers match the registry's schemas (names, parameters, required ones)."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

from arena.tasks.shopping.tools import default_registry

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sandbox" / "agent_sdk"))
import arena_agent  # noqa: E402


def test_every_tool_has_a_wrapper_with_the_schema_parameters():
    for schema in default_registry().schemas():
        fn = schema["function"]
        wrapper = getattr(arena_agent.tools, fn["name"])
        params = inspect.signature(wrapper).parameters
        assert list(params) == list(fn["parameters"]["properties"]), fn["name"]
        required = [name for name, p in params.items() if p.default is inspect.Parameter.empty]
        assert set(required) <= set(fn["parameters"]["required"]) | {"status"}, fn["name"]
