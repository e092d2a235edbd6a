"""The import rules of docs/architecture.md ("Layers"), as import-linter contracts (pyproject.toml
`[tool.importlinter]`): arena imports nothing of ours and is pure, sandbox imports arena, validator imports arena,
sandbox and its migrations, miner_template imports validator.chain only, demo sits on top, no package has a cycle
between its folders (or modules), and the task families are reached through the registry (`arena.tasks`) only."""

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
    """The contracts cover every family package under arena/tasks/ by wildcard, a new family without an edit: no
    layer imports one, and no family imports another. Only the shared modules (the registry's and the shopping
    domain) are let through, and no registered family is among them."""
    from arena.tasks import BUILT_IN

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    contract = next(c for c in contracts if c["id"] == "families-through-the-registry")
    independent = next(c for c in contracts if c["id"] == "families-independent")
    assert contract["forbidden_modules"] == ["arena.tasks.*"] and independent["modules"] == ["arena.tasks.*"]
    shared = {"arena.tasks.base", "arena.tasks.hooks", "arena.tasks.answer", "arena.tasks.shopping"}
    for rules in (contract["ignore_imports"], independent["ignore_imports"]):
        let_through = {rule.split(" -> ")[1].removesuffix(".**") for rule in rules if rule.startswith("** -> ")}
        assert let_through == shared
    assert all(m.count(".") == 2 and m.startswith("arena.tasks.") and m not in shared for m in BUILT_IN)
    assert {"sandbox", "validator", "miner_template", "arena.judge", "arena.scoring", "arena.cli"} <= set(
        contract["source_modules"]
    )
