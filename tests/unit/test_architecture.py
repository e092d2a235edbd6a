"""The import rules of DESIGN.md, as import-linter contracts (pyproject.toml `[tool.importlinter]`): arena imports
nothing of ours and is pure, sandbox imports arena, validator imports arena, sandbox and its migrations,
miner_template imports validator.chain only, no package has a cycle between its folders (or modules), and the task
families are reached through the registry (`arena.tasks`) only."""

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


def test_every_task_family_package_is_reached_through_the_registry_only() -> None:
    """The contract forbids every family package under arena/tasks/ (a new family must be added to it)."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    contract = next(c for c in contracts if c["id"] == "families-through-the-registry")
    packages = {f"arena.tasks.{p.name}" for p in (ROOT / "arena" / "tasks").iterdir() if (p / "__init__.py").is_file()}
    assert set(contract["forbidden_modules"]) == packages
    assert {"sandbox", "validator", "miner_template", "arena.judge", "arena.scoring", "arena.cli"} <= set(
        contract["source_modules"]
    )
