"""`ruff check` (the rules, line length and target of pyproject.toml's `[tool.ruff]`) finds nothing, and `ruff format
--check` changes nothing. Run `ruff check --fix .` and `ruff format .` in the repository's root to fix what they can."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # runs ruff as a subprocess


def test_ruff_check_finds_nothing() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"ruff check found problems:\n{done.stdout}{done.stderr}"


def test_ruff_format_is_the_one_style() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "."], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"run `ruff format .` in the repository's root:\n{done.stdout}{done.stderr}"
