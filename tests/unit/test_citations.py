"""Code and docs cite only what a reader of the repository can open: every ``docs/<name>.md`` they name exists, and
none cites an issue number, a file outside the repository or a design document that is not in it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = (
    "arena",
    "sandbox",
    "validator",
    "miner_template",
    "migrations",
    "tests",
    "bench",
    "docs",
    "scripts",
    "deploy",
)
SUFFIXES = {".py", ".md", ".js", ".html", ".toml", ".sh", ".yml", ".yaml", ".cfg", ".ini"}
OUTSIDE = re.compile(r"\bissue [0-9]+|\bissue \"|shared/reference|\.\./shared|\bDESIGN(?:\.md|'s|\b)")
DOC = re.compile(r"\bdocs/([\w.-]+\.md)")
HERE = Path(__file__).name


def _files() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "pyproject.toml"]
    for folder in FOLDERS:
        found += [
            p
            for p in sorted((ROOT / folder).rglob("*"))
            if p.is_file() and p.suffix in SUFFIXES and "fixtures" not in p.parts and p.name != HERE
        ]
    return [p for p in found if p.exists()]


def test_no_citation_outside_the_repository() -> None:
    bad = []
    for path in _files():
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not bad, "cite a file of the repository (docs/...) instead:\n" + "\n".join(bad)


def test_every_cited_doc_exists() -> None:
    missing = []
    for path in _files():
        for name in set(DOC.findall(path.read_text(errors="replace"))):
            if not (ROOT / "docs" / name).is_file():
                missing.append(f"{path.relative_to(ROOT)} cites docs/{name}, which does not exist")
    assert not missing, "\n".join(missing)


ARCHITECTURE = ROOT / "docs" / "architecture.md"
PACKAGES = ("arena", "sandbox", "validator", "miner_template", "demo")
PATH = re.compile(
    r"^(?:arena|sandbox|validator|miner_template|demo|tests|bench|docs|migrations|scripts|deploy)/[\w./-]*$"
)
DOTTED = re.compile(r"^(?:arena|sandbox|validator|miner_template|demo)(?:\.\w+)+$")
HOOK = re.compile(r"^Family\.(\w+)")


def _resolves(dotted: str) -> bool:
    """A dotted name is a module of ours, or a name defined in one (``sandbox.bundle.stage``)."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(target, name):
                return False
            target = getattr(target, name)
        return True
    return False


def _layout() -> list[tuple[str, str]]:
    """The paths the Layout block names, from its indentation: (path, the line naming it)."""
    text = ARCHITECTURE.read_text()
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    found: list[tuple[str, str]] = []
    parents: list[str] = []
    for line in block.splitlines():
        if not line.strip() or line.startswith(" " * 20):
            continue  # a description's continuation
        depth = (len(line) - len(line.lstrip())) // 2
        head = line.strip().split("  ", 1)[0]
        parents = parents[:depth]
        names = [n.strip() for n in head.split(",")]
        for name in names:
            if name.endswith("/") or name.endswith(".py"):
                found.append(("/".join([*parents, name]).rstrip("/"), line.strip()))
        if len(names) == 1 and head.endswith("/"):
            parents.append(head.rstrip("/"))
    return found


def test_architecture_names_what_exists() -> None:
    """Every path, dotted name and `Family` hook docs/architecture.md cites is in the code, and its Layout names
    every folder of arena, sandbox and validator."""
    missing = []
    for token in set(re.findall(r"`([^`\s]+)`", ARCHITECTURE.read_text())):
        token = token.rstrip(".,:;")
        if "<" in token:
            continue  # a placeholder: `arena/tasks/<name>/`
        if PATH.match(token) and not (ROOT / token).exists():
            missing.append(f"path {token}")
        elif DOTTED.match(token) and not _resolves(token):
            missing.append(f"name {token}")
        elif (hook := HOOK.match(token)) is not None:
            from arena.tasks.base import Family

            if not hasattr(Family, hook.group(1)):
                missing.append(f"hook {token}")
    listed = _layout()
    missing += [f"layout {path} ({line})" for path, line in listed if not (ROOT / path).exists()]
    named = {path for path, _ in listed}
    for package in ("arena", "sandbox", "validator"):
        for folder in sorted((ROOT / package).iterdir()):
            if folder.is_dir() and (folder / "__init__.py").exists() and f"{package}/{folder.name}" not in named:
                missing.append(f"layout lacks {package}/{folder.name}/")
    assert not missing, "docs/architecture.md cites what is not in the code:\n" + "\n".join(sorted(missing))
