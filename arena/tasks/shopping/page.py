"""What the shopping families' run pages share (`Family.run_sections`): the product titles a run saw, and a
check as a cell of the dashboard's generic run page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def titles_seen(steps: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """product id -> its title, from every product summary or document in the run's tool results."""
    titles: dict[str, str] = {}

    def walk(value: Any, depth: int = 0) -> None:
        if depth > 6:
            return
        if isinstance(value, list):
            for item in value:
                walk(item, depth + 1)
        elif isinstance(value, dict):
            pid, title = value.get("product_id"), value.get("title") or value.get("short_description")
            if pid is not None and title:
                titles[str(pid)] = str(title).split(";")[0] if not value.get("title") else str(title)
            for item in value.values():
                walk(item, depth + 1)

    for step in steps:
        walk(step.get("result"))
    return titles


def check_line(check: Mapping[str, Any]) -> list[dict[str, str]]:
    """A check as one line of inline cells: its mark and name (ok or bad), then its evidence (muted)."""
    passed = bool(check.get("passed"))
    mark = {"text": f"{'✓' if passed else '✗'} {check.get('name', '')}", "tone": "ok" if passed else "bad"}
    return [mark, {"text": str(check.get("evidence") or ""), "tone": "muted"}]


def ids_of(value: Any) -> list[str]:
    """The ids of a raw ``product_ids`` argument (a comma-separated string or a list)."""
    parts = value if isinstance(value, list) else value.split(",") if isinstance(value, str) else []
    return [str(p).strip() for p in parts if str(p).strip()]
