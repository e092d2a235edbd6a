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
