"""The family's tools: the four of the shared shopping domain (`arena.tasks.shopping.tools`) an agent needs to find
an accessory: search, product details, the answer, the end. The answer is the ``product_ids`` of the last call of the
tool declared with kind ``answer`` (``recommend_product``): one product id."""

from __future__ import annotations

from arena.tasks.shopping.tools import find_product, recommend_product, terminate, view_product_information
from arena.tools.registry import ToolRegistry

#: each tool and the kind of its result (the judge and the corpus read results by kind)
KINDS = ((find_product, "products"), (view_product_information, "details"), (recommend_product, "answer"))


def registry() -> ToolRegistry:
    """A fresh registry of the family's four tools."""
    tools = ToolRegistry()
    for fn, kind in (*KINDS, (terminate, "end")):
        tools.register(fn, results=kind)
    return tools
