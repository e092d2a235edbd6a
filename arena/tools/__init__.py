"""The seven shopping tools behind one `ToolRegistry` (the gateway, the miner's local test and the scorer share it)."""

from arena.tools.registry import RunState, Tool, ToolContext, ToolError, ToolRegistry
from arena.tools.shopping import Voucher, apply_voucher, default_registry

__all__ = [
    "RunState",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "Voucher",
    "apply_voucher",
    "default_registry",
]
