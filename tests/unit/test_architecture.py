"""The import rules of DESIGN.md, as import-linter contracts (pyproject.toml `[tool.importlinter]`): arena imports
nothing of ours and is pure, sandbox imports arena, validator imports arena, sandbox and its migrations,
miner_template imports validator.chain only, and no package has a cycle between its folders (or modules)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[2]


def test_the_import_contracts_are_kept(capsys: pytest.CaptureFixture[str]) -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    passed = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True) == 0
    report = capsys.readouterr().out
    assert passed, f"lint-imports found a broken import rule:\n{report}"
    assert f"Contracts: {len(contracts)} kept, 0 broken." in report, report
