"""The nine kinds of copies a miner makes of the offline template to earn without doing the work, each written as
a bundle folder: identical, comments changed, a local renamed, a function renamed, functions reordered, dead code
added (an unused function and an ``if False:`` block), one function moved into a new module, one constant changed,
the package folder renamed. Each keeps the template's behaviour; `tests/unit/test_copies.py` checks every one is
judged a copy, and `docs/validator.md` gives their similarity figures."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "miner_template" / "offline"
SKIP = {"__pycache__"}

Files = dict[str, str]


def read_bundle(folder: Path) -> Files:
    return {
        p.relative_to(folder).as_posix(): p.read_text()
        for p in sorted(folder.rglob("*.py"))
        if not SKIP.intersection(p.relative_to(folder).parts)
    }


def write_bundle(files: Files, folder: Path) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def _units(text: str) -> list[str]:
    """A module's top-level units: each starts at a column-0 line (a decorator joins the definition after it)."""
    units: list[str] = []
    for line in text.splitlines(keepends=True):
        starts = line[:1] not in ("", " ", "\t", "\n", "#", ")", "]", "}", '"')
        if starts and not (units and units[-1].lstrip().startswith("@") and units[-1].count("\n") == 1):
            units.append(line)
        elif units:
            units[-1] += line
        else:
            units.append(line)
    return units


def _is_def(unit: str) -> bool:
    return unit.startswith(("def ", "@", "class "))


def comments_changed(files: Files) -> Files:
    out = {}
    for name, text in files.items():
        text = text.replace("\ndef ", "\n# my own helper, written from scratch\ndef ")
        out[name] = re.sub(r'^"""[^"]*', '"""My very own shopping agent, not the template.', text, count=1)
    return out


def local_renamed(files: Files) -> Files:
    return {**files, "agent.py": re.sub(r"\bproblem\b", "the_task", files["agent.py"])}


def function_renamed(files: Files) -> Files:
    return {name: re.sub(r"\bsolve_problem\b", "work_it_out", text) for name, text in files.items()}


def reordered(files: Files) -> Files:
    """Every module's top-level functions and classes in reverse order (the rest stays in place)."""
    out = {}
    for name, text in files.items():
        units = _units(text)
        slots = [i for i, u in enumerate(units) if _is_def(u)]
        defs = [units[i] for i in slots]
        for i, unit in zip(slots, reversed(defs), strict=True):
            units[i] = unit if unit.endswith("\n\n") else unit + "\n\n"
        out[name] = "".join(units)
    return out


DEAD_FUNCTION = '''

def _unused_ranking(items, weights=None):
    """Never called."""
    weights = weights or {}
    total = 0.0
    for index, item in enumerate(items):
        score = weights.get(item, 1.0) * (index + 1)
        if score > total:
            total = score
        elif score < 0:
            total -= score
    return sorted(items, key=lambda x: (weights.get(x, 0.0), str(x)))[:10], total
'''


def dead_code(files: Files) -> Files:
    agent = files["agent.py"].replace(
        "    try:\n", "    if False:\n        print('debug', problem)\n        return {}\n    try:\n", 1
    )
    return {**files, "agent.py": agent, "baseline/rank.py": files["baseline/rank.py"] + DEAD_FUNCTION}


def function_moved(files: Files, module: str = "baseline/answer.py", function: str = "fallback") -> Files:
    """``function`` moved out of ``module`` into a new module of the package, imported back from there."""
    units = _units(files[module])
    (moved,) = [u for u in units if u.startswith(f"def {function}(")]
    imports = "".join(u for u in units if u.startswith(("from ", "import ")))
    new = "baseline/helpers.py"
    kept = [u for u in units if u is not moved]
    last_import = max(i for i, u in enumerate(kept) if u.startswith(("from ", "import ")))
    kept.insert(last_import + 1, f"from baseline.helpers import {function}\n")
    return {**files, module: "".join(kept), new: f'"""Helpers."""\n\n{imports}\n\n{moved}'}


def constant_changed(files: Files) -> Files:
    return {**files, "agent.py": re.sub(r"^MAX_CALLS = \d+", "MAX_CALLS = 41", files["agent.py"], count=1, flags=re.M)}


def folder_renamed(files: Files) -> Files:
    out = {}
    for name, text in files.items():
        out[re.sub(r"^baseline/", "strategy/", name)] = re.sub(r"\bbaseline\b", "strategy", text)
    return out


VARIANTS: dict[str, Callable[[Files], Files]] = {
    "identical": dict,
    "comments_changed": comments_changed,
    "local_renamed": local_renamed,
    "function_renamed": function_renamed,
    "functions_reordered": reordered,
    "dead_code": dead_code,
    "function_moved": function_moved,
    "constant_changed": constant_changed,
    "folder_renamed": folder_renamed,
}


def write_variants(folder: Path) -> dict[str, Path]:
    """The nine variants of the offline template as bundle folders under ``folder``."""
    template = read_bundle(TEMPLATE)
    return {kind: write_bundle(make(template), folder / kind) for kind, make in VARIANTS.items()}
