"""The tests keep their own rules (docs/architecture.md, "Habits"): none patches our code (no monkeypatch of an
attribute, no unittest.mock), and none imports a private name (``_name``) of our packages: a test goes through what a
user or another module can reach."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OURS = ("arena", "sandbox", "validator", "miner_template", "migrations", "demo")
PATCHES = ("setattr", "delattr", "setitem", "delitem")


def _trees() -> list[tuple[str, ast.AST]]:
    return [(str(p.relative_to(ROOT)), ast.parse(p.read_text())) for p in sorted((ROOT / "tests").rglob("*.py"))]


def test_no_test_patches_our_code() -> None:
    found = []
    for name, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("unittest.mock"):
                found.append(f"{name}:{node.lineno}: imports unittest.mock")
            if isinstance(node, ast.Import) and any(a.name.startswith("unittest.mock") for a in node.names):
                found.append(f"{name}:{node.lineno}: imports unittest.mock")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in PATCHES
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "monkeypatch"
            ):
                found.append(f"{name}:{node.lineno}: monkeypatch.{node.func.attr}")
    assert not found, "test through real inputs instead of patching:\n" + "\n".join(found)


def test_no_test_imports_a_private_name_of_ours() -> None:
    found = []
    for name, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in OURS:
                found += [
                    f"{name}:{node.lineno}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert not found, "make the name public, or test through a public one:\n" + "\n".join(found)
