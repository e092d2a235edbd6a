"""How hard a pack's problems are: who solves them, per task and difficulty level (bench/difficulty.py measures the
blind agent, the offline template and the oracle on a pack and its catalog, and writes every problem's outcome), and
which tasks are too easy to rank agents (`too_easy`: `arena problems pack --difficulty` warns about them).

A task the offline template, a rule-based baseline every miner can fork, solves almost always cannot separate
agents: its problems reward nothing beyond the template. The threshold `TOO_EASY` sits well above the template's
share on a fair pack (docs/miner.md: its figures per task) and below a share that leaves no room to rank."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from arena.pooling.estimators import wilson

#: the agents bench/difficulty.py measures, in the order it shows them
AGENTS = ("blind", "template", "oracle")
#: a task whose offline-template success is above this share is too easy to rank agents
TOO_EASY = 0.9


class DifficultyError(ValueError):
    """A difficulty figures file that cannot be read."""


def _cells(rows: list[dict[str, Any]]) -> dict[str, Any]:
    agents = {}
    for agent in AGENTS:
        played = [r[agent] for r in rows if r.get(agent) is not None]
        if played and len(played) == len(rows):
            k = sum(bool(x) for x in played)
            lo, hi = wilson(k / len(rows), len(rows))
            agents[agent] = {"k": k, "rate": k / len(rows), "ci95": [lo, hi]}
    return {"n": len(rows), "agents": agents}


def summarize(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Per task and difficulty, per task and over all: n and, for each agent that played every problem of the
    group, its successes k, rate and 95% Wilson interval. ``rows`` are problems' outcomes: ``task``,
    ``difficulty`` and a bool (or None: not played) per agent."""
    table = [dict(r) for r in rows]
    tasks = sorted({r["task"] for r in table})
    by_task = {t: _cells([r for r in table if r["task"] == t]) for t in tasks}
    levels = ("easy", "medium", "hard")
    by_level = {
        t: {
            lv: _cells(mine)
            for lv in levels
            if (mine := [r for r in table if r["task"] == t and r.get("difficulty") == lv])
        }
        for t in tasks
    }
    return {"by_task": by_task, "by_task_difficulty": by_level, "all": _cells(table)}


def too_easy(figures: Mapping[str, Any], threshold: float = TOO_EASY) -> dict[str, float]:
    """The tasks whose template success is above ``threshold``, with that success."""
    out = {}
    for task, cells in figures.get("by_task", {}).items():
        template = cells.get("agents", {}).get("template")
        if template is not None and template["rate"] > threshold:
            out[task] = float(template["rate"])
    return out


def read_outcomes(path: Path) -> dict[str, dict[str, Any]]:
    """Every problem's outcome in a figures file written by ``bench/difficulty.py --json``, by problem id."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        rows = data["problems"]
        return {str(r["problem_id"]): dict(r, task=str(r["task"])) for r in rows}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DifficultyError(
            f"{path} is no difficulty figures file of bench/difficulty.py --json ({type(exc).__name__}: {exc})"
        ) from None


def pack_warnings(
    problems: Iterable[Any], outcomes: Mapping[str, Mapping[str, Any]], threshold: float = TOO_EASY
) -> list[str]:
    """One line per task of ``problems`` the offline template solves above ``threshold`` (by the outcomes measured
    for those problems), and one for problems no outcome was measured for."""
    problems = list(problems)
    rows = [outcomes[p.problem_id] for p in problems if p.problem_id in outcomes]
    lines = [
        f"too easy to rank: the offline template solves {rate:.0%} of the {task} problems (above {threshold:.0%}); "
        "harder problems separate agents (bench/difficulty.py)"
        for task, rate in too_easy(summarize(rows), threshold).items()
    ]
    missing = len(problems) - len(rows)
    if missing:
        lines.append(f"{missing} of {len(problems)} problems have no difficulty figures in the file given")
    return lines
