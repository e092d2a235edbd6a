"""The shapes a family's hooks (`arena.tasks.base.Family`) hand to the layers that call them: an importer and what it
made (`Importer`, `ImportOptions`, `Imported`), a self-check's report (`SelfCheckReport`), the run page's sections
(`Section`). Plain data, no behaviour: a family fills them, `arena problems` and the dashboard show them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

#: a progress reporter: ``step(label, total)`` opens a bar and returns its ``advance(k)``
Step = Callable[[str, "int | None"], Callable[[int], None]]


def no_step(label: str, total: int | None) -> Callable[[int], None]:
    """A progress reporter that shows nothing."""
    return lambda k: None


@dataclass(frozen=True)
class ImportOptions:
    """The options every ``arena problems import...`` command has; an importer reads those it declares."""

    rebuild_catalog: Path | None = None
    background_size: int = 0
    background_seed: int = 0
    force: bool = False
    keep_failing: bool = False
    step: Step = no_step


@dataclass
class Imported:
    """What an importer made: the problems to pack, the records it skipped (one line each, with the reason), notes
    (warnings, one line each: what was left out and why), the summary (the figures, one line each), why nothing
    is left when nothing is (``nothing``), the rebuilt catalog's digest and the importer's version (the pack's
    ``generator_version``)."""

    problems: list[Any] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    nothing: str = ""
    catalog_digest: str | None = None
    version: str = ""


@dataclass(frozen=True)
class Importer:
    """One ``arena problems <command>`` of a family: ``run(files, options)`` reads the records and returns what it
    made. ``rebuild`` says whether ``--rebuild-catalog`` is taken ("optional"), needed ("required") or not offered
    ("none"); ``keep_failing`` whether the command offers ``--keep-failing``."""

    command: str
    help: str
    files_help: str
    run: Callable[[Sequence[Path], ImportOptions], Imported]
    rebuild: Literal["optional", "required", "none"] = "optional"
    default_background: str = "100k"
    keep_failing: bool = False


@dataclass
class Table:
    """A titled table: column names and rows of cells (text)."""

    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)


@dataclass
class SelfCheckReport:
    """A family's self-check of its problems on a catalog: tables to print, one line per failure, whether the
    problems and catalog belong together (``ok``), the figures as JSON (``--json``), and the problems that passed
    every check (``kept``; an importer packs those)."""

    tables: list[Table] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    ok: bool = True
    figures: dict[str, Any] = field(default_factory=dict)
    kept: list[Any] = field(default_factory=list)


@dataclass
class Section:
    """One section of a run's page (`Family.run_sections`), drawn by the dashboard's one generic run page.

    ``kind`` says how: "facts" (``facts``: label -> cell), "table" (``columns`` and ``rows`` of cells), "checks"
    (``checks``: name, passed, evidence), "text" (``text``), "json" (``value``), "conversation" (``entries``: one
    dict per turn: ``who``, ``kind``, ``label``, ``text``, ``seq``, ``turn``, ``error``, ``marks`` (``{"text",
    "cls", "title"}``), ``items`` (cells), ``classes``). A cell is text, ``{"text", "tone"}`` (tone "ok" | "bad" |
    "muted" | "code" | "bold"), or a list of lines, each a cell or a list of inline cells. ``id`` is the HTML id the
    section's table, list or paragraph gets (tests and links find it by it); ``note`` a line under it."""

    title: str
    kind: Literal["facts", "table", "checks", "text", "json", "conversation"]
    id: str = ""
    facts: dict[str, Any] = field(default_factory=dict)
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    text: str = ""
    value: Any = None
    entries: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)


__all__ = ["ImportOptions", "Imported", "Importer", "Section", "SelfCheckReport", "Step", "Table", "no_step"]
