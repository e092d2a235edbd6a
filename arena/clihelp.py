"""Help pages that read well on an 80-column terminal and in a log file: plain click help, no boxes.

Every command line (`arena`, `arena-validator`, `arena-miner`) builds its apps with `App`. Its help lists a command's
options grouped under headings (an option's `rich_help_panel` is its heading: "Settings (chain)", "Chain", ...),
each subcommand with the full first sentence of its help, and wraps text at the terminal's width (COLUMNS, else the
terminal's, else 100 columns in a pipe or a file) without ever breaking a word: a flag, an `ARENA_` name or a URL
stays whole, and a docstring's line breaks are not kept (a blank line still starts a paragraph).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap
from collections.abc import Callable, Iterable
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

#: click's help formatter, of whichever click typer runs on (recent typers carry their own copy of click)
_ClickFormatter: Any = typer.Context.formatter_class

#: the width of help printed into a pipe or a file, where no terminal says how wide it is
PIPE_WIDTH = 100


def help_width() -> int:
    """The columns help is wrapped to: COLUMNS when set, else the terminal's, else PIPE_WIDTH."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return PIPE_WIDTH


def first_sentence(text: str) -> str:
    """A help text's first sentence, whole, on one line: up to the first full stop outside brackets that ends a
    word (none: the whole first paragraph)."""
    text = " ".join(text.partition("\f")[0].strip().split("\n\n")[0].split())
    depth = 0
    for at, char in enumerate(text):
        depth += (char in "([") - (char in ")]")
        if char == "." and depth <= 0 and (at + 1 == len(text) or text[at + 1] == " "):
            return text[: at + 1]
    return text


def wrap(text: str, width: int) -> list[str]:
    """`text` as lines of at most `width` columns (a word longer than that keeps its own line): paragraphs are
    separated by blank lines and rewrapped; a paragraph whose first line is click's ``\\b`` is kept as written."""
    lines: list[str] = []
    for paragraph in re.split(r"\n[ \t]*\n", text.strip("\n")):
        if lines:
            lines.append("")
        if paragraph.strip().startswith("\b"):
            lines += paragraph.split("\n")[1:]
            continue
        lines += textwrap.wrap(
            " ".join(paragraph.split()), max(width, 20), break_long_words=False, break_on_hyphens=False
        )
    return lines


class Formatter(_ClickFormatter):
    """click's formatter at `help_width()`, wrapping without breaking a word or at a hyphen."""

    def __init__(self, indent_increment: int = 2, width: int | None = None, max_width: int | None = None) -> None:
        super().__init__(indent_increment, width=width or max(help_width() - 2, 40))

    def write_text(self, text: str) -> None:
        indent = " " * self.current_indent
        for line in wrap(text, self.width - self.current_indent):
            self.write(f"{indent}{line}\n" if line else "\n")

    def write_dl(self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        rows = list(rows)
        if not rows:
            return
        first = min(max(len(term) for term, _ in rows), col_max) + col_spacing
        indent = " " * self.current_indent
        for term, text in rows:
            body = wrap(text, self.width - self.current_indent - first) if text else []
            if body and len(term) <= first - col_spacing:
                self.write(f"{indent}{term:<{first}}{body.pop(0)}\n")
            else:
                self.write(f"{indent}{term}\n")
            for line in body:
                self.write(f"{indent}{' ' * first}{line}\n" if line else "\n")


class Context(typer.Context):
    formatter_class = Formatter


def _format_options(command: Any, ctx: Any, formatter: Any) -> None:
    """The command's arguments, then its options, then each heading's options (`rich_help_panel`), in order."""
    sections: dict[str, list[tuple[str, str]]] = {"Arguments": [], "Options": []}
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx)
        if record is None:
            continue
        heading = getattr(param, "rich_help_panel", None)
        sections.setdefault(heading or ("Arguments" if param.param_type_name == "argument" else "Options"), [])
        sections[heading or ("Arguments" if param.param_type_name == "argument" else "Options")].append(record)
    for heading, rows in sections.items():
        if rows:
            with formatter.section(heading):
                formatter.write_dl(rows)


class Command(TyperCommand):
    """A command whose help is plain text (see the module)."""

    context_class = Context

    def format_options(self, ctx: Any, formatter: Any) -> None:
        _format_options(self, ctx, formatter)


class Group(TyperGroup):
    """A group whose help is plain text and lists each subcommand with its first sentence (see the module)."""

    context_class = Context

    def format_options(self, ctx: Any, formatter: Any) -> None:
        _format_options(self, ctx, formatter)
        self.format_commands(ctx, formatter)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, first_sentence(command.short_help or command.help or "")))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


class App(typer.Typer):
    """`typer.Typer` whose groups and commands print plain help (see the module); no rich markup in help texts."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", Group)
        kwargs.setdefault("rich_markup_mode", None)
        super().__init__(**kwargs)

    def command(  # type: ignore[override]  # typer's many keyword arguments, passed on as they are
        self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs: Any
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return super().command(name, cls=cls or Command, **kwargs)
