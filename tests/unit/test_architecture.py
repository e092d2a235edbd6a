"""The import rules of DESIGN.md, as import-linter contracts (pyproject.toml `[tool.importlinter]`): arena imports
nothing of ours and is pure, sandbox imports arena, validator imports arena, sandbox and its migrations,
miner_template imports validator.chain only, and no package has a cycle between its folders (or modules)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def test_the_import_contracts_are_kept() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    done = subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    report = done.stdout + done.stderr
    assert done.returncode == 0, f"lint-imports found a broken import rule:\n{report}"
    assert f"Contracts: {len(contracts)} kept, 0 broken." in report, report
