"""Shared pieces of the command lines: consoles, the one-line error, the write check, progress bars, size parsing."""

from __future__ import annotations

import os
import re
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """One clear line on stderr, then exit non-zero."""
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True, markup=True)
    raise typer.Exit(code)


class _Terminated(BaseException):
    """SIGTERM, raised where the command is (a BaseException: no ``except Exception`` takes it for an error)."""


@contextmanager
def terminate_cleanly(what: str, made: Callable[[], bool] = lambda: False) -> Iterator[None]:
    """SIGTERM ends the command through its clean-up, as Ctrl-C does (temporary folders removed, worker processes
    ended; by default it ended Python at once and left them): one line on stderr, whether ``what`` was made
    (``made``: stopped after its last step), exit status 143. A second SIGTERM does not break into the clean-up."""

    def stop(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise _Terminated

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    except _Terminated:
        outcome = "made (stopped after its last step)" if made() else "not made; nothing of it is left behind"
        err.print(f"stopped by SIGTERM: {what} {outcome}", highlight=False)
        raise SystemExit(128 + signal.SIGTERM) from None
    finally:
        signal.signal(signal.SIGTERM, previous)


def check_writable(path: Path, what: str) -> None:
    """One line and exit 2 unless files can be made at `path` (a file or folder to create, or a folder to fill),
    before any work: its nearest existing folder is probed with a real temporary file, so a read-only mount, /proc
    or missing permissions are caught for root as for anyone."""
    folder = path
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    if not folder.is_dir():
        fail(f"{what}: {folder} is a file, not a folder; choose a path in a folder")
    try:
        handle, name = tempfile.mkstemp(dir=folder, prefix=".arena-write-check-")
        os.close(handle)
        os.unlink(name)
    except OSError as exc:
        shown = folder.absolute() if str(folder) == "." else folder
        fail(f"{what}: cannot write in {shown} ({exc.strerror or exc}); choose a folder you can write to")


def utf8_text(value: str, what: str) -> str:
    """`value` unchanged when it is text (UTF-8); one line and exit 2 when it holds bytes that are not (a shell
    passes them as lone surrogates, which the search index and JSON cannot take)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        char = value[exc.start]
        try:
            shown = f"byte 0x{char.encode('utf-8', 'surrogateescape')[0]:02x}"
        except UnicodeEncodeError:
            shown = f"U+{ord(char):04X}, a lone surrogate"
        fail(
            f"{what} is not UTF-8 text ({shown} at character {exc.start + 1}); set your terminal to UTF-8 or retype it"
        )
    return value


def print_table(table: Any, console: Console | None = None) -> None:
    """Print a table whose cells must not be cut (on stdout, or `console`): as a table when it fits; too wide for a
    terminal, a line per row (each cell after its column's header, the line left whole for the terminal to wrap, so
    an id copies whole); into a file or a pipe at its natural width, however wide, rather than 80 columns."""
    console = console or out
    wide = natural_width(table, console)
    if wide <= console.width:
        console.print(table)
    elif console.is_terminal:
        print_rows(table, console)
    else:
        Console(file=console.file, width=wide, soft_wrap=True).print(table)  # print() caps at the width


def print_rows(table: Any, console: Console | None = None) -> None:
    """A table as a line per row: "header: cell; header: cell ..." (empty cells left out), under its title."""
    from rich.text import Text

    def plain(cell: Any) -> str:
        return cell.plain if isinstance(cell, Text) else Text.from_markup(str(cell)).plain

    console = console or out
    if table.title:
        console.print(plain(table.title), highlight=False, markup=False)
    columns = [(plain(column.header), list(column.cells)) for column in table.columns]
    for row in range(table.row_count):
        cells = [(header, plain(cells[row])) for header, cells in columns]
        line = "; ".join(f"{header}: {cell}" if header else cell for header, cell in cells if cell)
        console.print(f"  {line}", highlight=False, markup=False, soft_wrap=True)
    if table.caption:
        console.print(plain(table.caption), highlight=False, markup=False)


def natural_width(table: Any, console: Console | None = None) -> int:
    """The columns a table takes with no cell wrapped or cut."""
    console = console or out
    return console.measure(table, options=console.options.update_width(100_000)).maximum


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")


def parse_size(text: str) -> int:
    """``10000``, ``100k``, ``2.5M`` -> number of products."""
    match = _SIZE.match(text.replace(",", "").replace("_", ""))
    if not match:
        raise ValueError(f"size {text!r} is not a number of products (examples: 5000, 100k, 2.5M)")
    value = float(match.group(1)) * {"": 1, "k": 1_000, "m": 1_000_000}[match.group(2).lower()]
    if value != int(value):
        raise ValueError(f"size {text!r} is not a whole number of products")
    return int(value)


#: in a pipe or a log file, seconds before a long command's first progress line, and between two
PLAIN_EVERY = 30.0


class _Progress(Progress):
    """rich's progress bar in a terminal; into a pipe or a log file (`plain`), a line on stderr once the work has
    gone on for PLAIN_EVERY seconds, then every PLAIN_EVERY seconds, and a last one when it ends (if any was said)."""

    def __init__(self, *columns: Any, plain: bool, every: float = PLAIN_EVERY, **options: Any) -> None:
        super().__init__(*columns, **options)
        self.plain, self.every, self.said_at, self.said = plain, every, time.monotonic(), False
        self.shown: dict[TaskID, tuple[float, float | None]] = {}  # what each task's last line said

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        self._line()

    def update(self, task_id: TaskID, **changes: Any) -> None:
        super().update(task_id, **changes)
        self._line()

    def stop(self) -> None:
        if self.said:
            self._line(now=True)
        super().stop()

    def _line(self, *, now: bool = False) -> None:
        if not self.plain or (not now and time.monotonic() - self.said_at < self.every):
            return
        self.said_at, self.said = time.monotonic(), True
        for task in self.tasks:
            of = f"/{task.total:,.0f}" if task.total else ""
            rate = f" {task.fields.get('rate')}" if task.fields.get("rate") else ""
            if self.shown.get(task.id) != (task.completed, task.total):
                self.shown[task.id] = (task.completed, task.total)
                err.print(f"{task.description}: {task.completed:,.0f}{of}{rate} ({task.elapsed or 0:.0f} s)")


def progress_bar(every: float = PLAIN_EVERY) -> Progress:
    """A progress bar on stderr: rich's in a terminal (or with ARENA_PROGRESS=1); into a pipe or a log file, a plain
    line every `every` seconds of long work (none with ARENA_PROGRESS=0)."""
    forced = os.environ.get("ARENA_PROGRESS")
    live = err.is_terminal or forced == "1"
    return _Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=False,
        disable=not live,
        plain=not live and forced != "0",
        every=every,
    )


#: what a scorecard's columns mean, printed under it (the same words as docs/scoring.md)
SCORECARD_LEGEND = (
    "columns: success = the answer passes every strict check of its task; gt = it names exactly the "
    "gold product(s); mean rule = the mean rule score, the share of a problem's checks its answer "
    "passes (0 to 1; the gold id scores 1)"
)
