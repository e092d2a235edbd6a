"""mypy, with the pydantic plugin, finds no type error in our packages. What it checks and how is pyproject.toml's
`[tool.mypy]`: arena, sandbox, validator, miner_template and migrations, the agents' own code under the names it runs
under; a bare `mypy` in the repository's root runs the same check (its cache, .mypy_cache/, makes a rerun quick)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow  # a fresh interpreter, and about a minute of one core on a cold cache


def test_mypy_finds_no_type_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    report = done.stdout + done.stderr
    if done.returncode != 0 or "Success: no issues found" not in report:
        pytest.fail(f"mypy found type errors (run `mypy` in the repository's root):\n{report}", pytrace=False)
