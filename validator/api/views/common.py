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


#: What a standing's interval and P(rank 1) are (`arena.sampling`).
CERTAINTY = (
    "score: the mean of the miner's samples over the rotation's window of races (a new submission joins the window; "
    "its older versions' races roll out of it); interval: 95% Wilson interval over the problems it ran; P(rank 1): "
    "the share of 2000 bootstrap resamples of the problems in which it ranks first"
)


def noise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Which of the ranked rows (with `rank`, `hotkey`, `score`, `low`, `high`) are within noise of rank 1: those
    whose score lies inside rank 1's 95% interval (`arena.pooling.within_noise`, the band policy's rule), with one
    sentence saying what that means."""
    ranked = sorted((r for r in rows if r.get("rank") is not None), key=lambda r: r["rank"])
    if not ranked or ranked[0].get("low") is None:
        return {"within_noise": [], "note": "this race's results carry no interval (closed before intervals existed)"}
    leader = ranked[0]
    band = [r for r in ranked if r.get("high") is not None and leader["low"] <= r["score"] <= leader["high"]]
    if len(band) < 2:
        return {
            "within_noise": [],
            "note": f"rank 1 is clear of the field: no other miner scores inside its 95% interval "
            f"({leader['low']:.3f} to {leader['high']:.3f})",
        }
    ranks = [r["rank"] for r in band]
    return {
        "within_noise": ranks,
        "note": f"ranks {', '.join(str(r) for r in ranks)} are within noise: their scores lie inside rank 1's 95% "
        f"interval ({leader['low']:.3f} to {leader['high']:.3f}), so more samples could reorder them; P(rank 1) says "
        "how often each came first when the problems are resampled",
    }


def mark_ties(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row gets `tied_with`: the ranks of the other rows with its score (empty when alone)."""
    for group in ties(rows):
        for row in rows:
            if row["hotkey"] in group["hotkeys"]:
                row["tied_with"] = [r for r in group["ranks"] if r != row["rank"]]
    for row in rows:
        row.setdefault("tied_with", [])
    return rows
