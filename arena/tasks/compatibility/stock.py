"""The catalog's products the family reads: every rule's accessory category and device categories, by leaf name, in
catalog order, gathered in one pass (`pools`)."""

from __future__ import annotations

from typing import Any

from arena.tasks.compatibility.fit import RULES

Pool = list[dict[str, Any]]


def leaf_of(category: str) -> str:
    """A category path's leaf name: ``A > B > Phone Cases`` -> ``Phone Cases``."""
    return category.rsplit(" > ", 1)[-1]


def pools(catalog: Any) -> dict[str, Pool]:
    """The products every rule reads, by leaf name, in catalog order (one pass over the catalog)."""
    wanted = {r.leaf for r in RULES} | {leaf for r in RULES if r.owned for leaf in r.owned.leaves}
    out: dict[str, Pool] = {name: [] for name in wanted}
    for product in catalog.iter_products():
        leaf = leaf_of(str(product.get("category") or ""))
        if leaf in out:
            out[leaf].append(product)
    return out
