"""A catalog folder's manifest (``catalog.json``; the layout: `arena.catalog.index`): its format, read and checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MANIFEST = "catalog.json"
FORMAT_VERSION = 3
#: 2: the products index may be written in parts (a generated build's workers, `arena.catalog.workers`), its
#: ``shop_ord`` fast field then the parts' numbers, which the manifest's ``shop_ords`` maps to its ``shops``'
#: (format 1 has no ``shop_ords``: its numbers are the ``shops``' own); 3: the products' JSON is kept in `STORE`
#: (`arena.catalog.docstore`), not in the products index
READABLE_FORMATS = (1, 2, 3)
#: a catalog folder's stored products (format 3)
STORE = "store"


class CatalogError(Exception):
    """A catalog folder is missing, incomplete, or of another format. The message says what to do."""


def read_manifest(root: Path) -> dict[str, Any]:
    """The manifest of the catalog folder ``root``; CatalogError where there is none or it cannot be read."""
    path = root / MANIFEST
    if not path.is_file():
        raise CatalogError(
            f"{root} is not a catalog (no {MANIFEST}); build one with `arena catalog build --out {root}` "
            f"or `arena catalog load FILE --out {root}`"
        )
    try:
        manifest = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise CatalogError(f"{path} is unreadable ({exc}); rebuild the catalog") from exc
    if not isinstance(manifest, dict) or manifest.get("format") not in READABLE_FORMATS:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        raise CatalogError(
            f"{root} has catalog format {found!r}, this version reads {FORMAT_VERSION}; "
            "rebuild it with this version of arena"
        )
    return manifest


def shop_table(root: Path, manifest: dict[str, Any]) -> list[int] | None:
    """The manifest's ``shop_ords`` (each index number's place in ``shops``, -1 for a number no product has), or
    None where the index numbers shops as ``shops`` does; CatalogError where it is no such table: every shop of
    ``shops`` (each has a product) has exactly one number."""
    table = manifest.get("shop_ords")
    if table is None:
        return None
    shops = len(manifest.get("shops", ()))
    if (
        not isinstance(table, list)
        or not all(isinstance(n, int) and -1 <= n < shops for n in table)
        or sorted(n for n in table if n >= 0) != list(range(shops))
    ):
        raise CatalogError(f"{root} is damaged: its {MANIFEST}'s shop_ords is not a shop table; rebuild the catalog")
    return table
