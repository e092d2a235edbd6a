"""The settings flags: every command that reads settings gets one btcli-style option per settings field it reads
(`with_settings`), each also read from `ARENA_<FIELD>` in the environment or `.env`; bad settings are all listed at
once, and the command exits 2."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from arena.cliutil import err
from validator.settings import GROUPS, Settings, SettingsError, field_flag, field_group, load_settings


def _metavar(annotation: Any) -> str:
    """The type a settings flag takes, as its help shows it (INTEGER, FLOAT, PATH, [a|b], TEXT)."""
    if typing.get_origin(annotation) is typing.Literal:
        return "[" + "|".join(str(a) for a in typing.get_args(annotation)) + "]"
    kinds = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
    for kind, shown in ((int, "INTEGER"), (float, "FLOAT"), (Path, "PATH")):
        if kind in kinds:
            return shown
    if any(typing.get_origin(k) is typing.Literal for k in kinds):
        return _metavar(next(k for k in kinds if typing.get_origin(k) is typing.Literal))
    if any(typing.get_origin(k) is list for k in kinds) or typing.get_origin(annotation) is list:
        return "TEXT,..."
    return "TEXT"


def _default_text(name: str) -> str:
    default = Settings.model_fields[name].get_default(call_default_factory=True)
    if default is None or default == []:
        return ""
    if isinstance(default, list):
        default = ",".join(default)
    return f"; default: {default}"


def _settings_parameters(fields: tuple[str, ...] | None = None, *, hidden: bool = False) -> list[inspect.Parameter]:
    """One keyword-only typer option per settings field (all, or `fields`), named by its btcli-style flag, with its
    type and default in the help, under its group's heading ("Settings (chain)", in `GROUPS` order; `hidden`: taken
    but not listed); "not given" is None, so the environment, .env and defaults still apply."""
    params = []
    grouped = [name for group in GROUPS.values() for name in group]
    for name in grouped + [name for name in Settings.model_fields if name not in grouped]:
        if fields is not None and name not in fields:
            continue
        info = Settings.model_fields[name]
        flag = field_flag(name)
        help_text = f"{info.description} (env ARENA_{name.upper()}{_default_text(name)})"
        heading = f"Settings ({field_group(name)})"
        if info.annotation is bool:
            option = typer.Option(
                None,
                f"{flag}/--no-{flag.removeprefix('--')}",
                help=help_text,
                rich_help_panel=heading,
                hidden=hidden,
                show_default=False,
            )
            annotation: Any = bool | None
        else:
            option = typer.Option(
                None,
                flag,
                help=help_text,
                rich_help_panel=heading,
                hidden=hidden,
                show_default=False,
                metavar=_metavar(info.annotation),
            )
            annotation = str | None
        params.append(
            inspect.Parameter(f"s__{name}", inspect.Parameter.KEYWORD_ONLY, default=option, annotation=annotation)
        )
    return params


STORE = ("data_dir", "database_url")  # the settings a command that only opens the store reads


def with_settings(
    *, require: tuple[str, ...] = (), fields: tuple[str, ...] | None = None, hidden: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the settings flags it reads (`fields`; default: all; `hidden`: taken but left out of its help);
    it receives the loaded `settings` (or exits 2 listing every problem), and `given` (the flags given) when it asks
    for it."""

    def wrap(command: Callable[..., Any]) -> Callable[..., Any]:
        hints = typing.get_type_hints(command, include_extras=True)
        own = [
            p.replace(annotation=hints.get(p.name, p.annotation))
            for p in inspect.signature(command).parameters.values()
            if p.name not in ("settings", "given")
        ]
        wants_given = "given" in inspect.signature(command).parameters

        @functools.wraps(command)
        def run(**kwargs: Any) -> Any:
            given = {k.removeprefix("s__"): kwargs.pop(k) for k in list(kwargs) if k.startswith("s__")}
            try:
                settings = load_settings(given, require=require)
            except SettingsError as exc:
                for problem in exc.problems:
                    err.print(f"[bold red]error:[/] {problem}", highlight=False)
                err.print(
                    f"{len(exc.problems)} setting(s) to fix; see `arena-validator --help` and .env", highlight=False
                )
                raise typer.Exit(2) from None
            if wants_given:
                kwargs["given"] = {k: v for k, v in given.items() if v is not None}
            return command(settings=settings, **kwargs)

        signature = inspect.Signature(own + _settings_parameters(fields, hidden=hidden))
        # inspect.signature (and so typer) reads a function's __signature__, which typeshed does not declare
        run.__signature__ = signature  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
        return run

    return wrap
