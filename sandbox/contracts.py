"""Which agent contract a bundle follows, and what it imports that a sandbox does not provide (read from its source,
never run). `arena-miner check` reports both; nothing needs a flag.

- ``arena``: ours, ``agent_main(problem) -> dict | None`` with ``arena_agent`` (or any HTTP client) at the gateway;
- ``sn15``: subnet 15's one-file contract: the agent imports ``src.agent.agent_interface`` /
  ``src.agent.proxy_client`` (the sandbox provides both) and returns its dialogue steps.

Inside a sandbox an agent can import the standard library, ``arena_agent``, those two ``src.agent`` modules, the
sandbox packages (`sandbox.env.SANDBOX_PACKAGES`) with their dependencies, and its own bundle's modules.
"""

from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from arena import syntax

#: subnet 15's modules the sandbox provides (sandbox/agent_sdk/src/agent/)
SN15_MODULES = ("src.agent.agent_interface", "src.agent.proxy_client")
#: top-level names importable from the sandbox's environment: the sandbox packages and what they install
SANDBOX_IMPORTABLE = frozenset(
    {
        "arena_agent",
        "openai",
        "httpx",
        "requests",
        "pydantic",
        "numpy",
        "annotated_types",
        "anyio",
        "certifi",
        "charset_normalizer",
        "h11",
        "httpcore",
        "idna",
        "jiter",
        "pydantic_core",
        "sniffio",
        "typing_extensions",
        "typing_inspection",
        "urllib3",
        "distro",
        "tqdm",
    }
)
_GUARDS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


@dataclass
class ImportReport:
    contract: str = "arena"  # "arena" or "sn15"
    sn15_imports: list[str] = field(default_factory=list)
    #: (file relative to the bundle, line, module) for each import the sandbox cannot satisfy
    missing: list[tuple[str, int, str]] = field(default_factory=list)

    def warnings(self) -> list[str]:
        return [
            f"{path}:{line} imports {module}, which the sandbox does not provide (it has the standard library, "
            "arena_agent, src.agent.agent_interface, src.agent.proxy_client, openai, httpx, requests, pydantic and "
            "numpy); the run would fail to import (1001)"
            for path, line, module in self.missing
        ]


def _guarded(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """The import sits in a ``try`` whose handlers catch its failure (the agent copes without the module)."""
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, ast.Try) and child in parent.body:
            for handler in parent.handlers:
                names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                if handler.type is None or any(isinstance(n, ast.Name) and n.id in _GUARDS for n in names):
                    return True
        child, parent = parent, parents.get(parent)
    return False


def _local_names(root: Path) -> set[str]:
    names = set()
    for entry in root.iterdir():
        if entry.suffix == ".py":
            names.add(entry.stem)
        elif entry.is_dir() and not entry.name.startswith("."):
            names.add(entry.name)
    return names


def _provided(module: str, root: Path, local: set[str]) -> bool:
    top = module.split(".")[0]
    if top == "src":
        if (
            module in ("src", "src.agent")
            or module in SN15_MODULES
            or any(module.startswith(m + ".") for m in SN15_MODULES)
        ):
            return True
        return (root / Path(*module.split("."))).with_suffix(".py").exists() or (
            root / Path(*module.split("."))
        ).is_dir()
    return top in sys.stdlib_module_names or top in SANDBOX_IMPORTABLE or top in local


def inspect_bundle(folder: str | os.PathLike[str]) -> ImportReport:
    """The bundle's contract and the imports a sandbox cannot satisfy, from every ``.py`` file's syntax tree."""
    root = Path(folder)
    local = _local_names(root)
    report = ImportReport()
    for path in sorted(root.rglob("*.py")):
        try:
            tree = syntax.parse(path.read_text(encoding="utf-8", errors="replace"), filename=str(path))
        except SyntaxError:
            continue  # `check` reports it
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
                if node.module in ("src.agent", "src"):  # from src.agent import agent_interface
                    modules = [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            for module in modules:
                if module in SN15_MODULES or module.startswith("src.agent."):
                    if module in SN15_MODULES and module not in report.sn15_imports:
                        report.sn15_imports.append(module)
                if not _provided(module, root, local) and not _guarded(node, parents):
                    report.missing.append((str(path.relative_to(root)), node.lineno, module))
    if report.sn15_imports:
        report.contract = "sn15"
    return report
