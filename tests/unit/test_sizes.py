"""The size rules of docs/architecture.md's habits: no module over 400 lines (the taxonomy's data tables aside), no
function over 80 lines, none over 60 in the run path (the race machine, the dispatchers, a sandboxed run, the
verdict). A room too large to read in one sitting is split before it lands."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("arena", "sandbox", "validator", "miner_template", "demo")
DATA_TABLES = {"arena/catalog/taxonomy.py"}
RUN_PATH = ("validator/races/", "validator/dispatch/", "sandbox/run.py", "arena/verdict.py")


def _modules() -> list[tuple[str, str]]:
    return [
        (path.relative_to(ROOT).as_posix(), path.read_text())
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    ]


def test_no_module_is_over_400_lines() -> None:
    long = [f"{name}: {len(text.splitlines())}" for name, text in _modules() if name not in DATA_TABLES]
    assert [row for row in long if int(row.rsplit(": ", 1)[1]) > 400] == []


def test_no_function_is_over_80_lines_nor_over_60_in_the_run_path() -> None:
    over = []
    for name, text in _modules():
        limit = 60 if name.startswith(RUN_PATH) else 80
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > limit:
                    over.append(f"{name}:{node.lineno} {node.name} is {lines} lines (limit {limit})")
    assert over == []
