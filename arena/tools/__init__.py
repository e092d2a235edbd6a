"""The tool registry every family's tools are served through (the gateway, the miner's local test and the scorer
share it). The tools themselves belong to their family (`arena.tasks`)."""

from arena.tools.registry import LISTING_KINDS, RESULT_KINDS, RunState, Tool, ToolContext, ToolError, ToolRegistry

__all__ = ["LISTING_KINDS", "RESULT_KINDS", "RunState", "Tool", "ToolContext", "ToolError", "ToolRegistry"]
