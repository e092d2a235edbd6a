"""What the dashboard's views share: when a race's content may be shown, timestamps as ISO text, and ties."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

#: How the node breaks a tie in a race's score (`validator.races.Arena.close_races`).
TIE_BREAK = "equal scores are ranked by the earlier commitment block, then by hotkey"
#: Scores closer than this are a tie.
TIE_EPSILON = 1e-9


def revealed(race_status: str | None) -> bool:
    """Whether a race's content may be shown: only once it closed (a cancelled race's problems may be drawn again)."""
    return race_status == "closed"


def iso(value: Any) -> Any:
    return value.isoformat() if hasattr(value, "isoformat") else value


def ties(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Groups of rows (ranked results with `score`, `rank`, `hotkey`, `commitment_block`) sharing one score."""
    groups: dict[float, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        key = next((k for k in groups if abs(k - float(row["score"])) <= TIE_EPSILON), float(row["score"]))
        groups[key].append(row)
    out = []
    for score, members in groups.items():
        if len(members) > 1:
            members = sorted(members, key=lambda r: r["rank"] or 0)
            out.append(
                {
                    "score": score,
                    "ranks": [m["rank"] for m in members],
                    "hotkeys": [m["hotkey"] for m in members],
                    "commitment_blocks": [m["commitment_block"] for m in members],
                    "broken_by": TIE_BREAK,
                }
            )
    return sorted(out, key=lambda g: g["ranks"][0])


def mark_ties(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row gets `tied_with`: the ranks of the other rows with its score (empty when alone)."""
    for group in ties(rows):
        for row in rows:
            if row["hotkey"] in group["hotkeys"]:
                row["tied_with"] = [r for r in group["ranks"] if r != row["rank"]]
    for row in rows:
        row.setdefault("tied_with", [])
    return rows
