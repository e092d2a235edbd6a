"""Every command's --help of the three command lines (`arena`, `arena-validator`, `arena-miner`) reads on an
80-column terminal and in a log file (`arena.clihelp`): no line wider than the terminal, no flag or `ARENA_` name
cut, a group lists each subcommand with the first sentence of its help, whole and without a docstring's line breaks,
and in a pipe help is 100 columns wide."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.main import get_command

from arena.cli import app as arena_app
from arena.clihelp import PIPE_WIDTH, first_sentence
from miner_template.cli import app as miner_app
from validator.cli import app as validator_app
from validator.settings import GROUPS, Settings

APPS = {"arena": arena_app, "arena-validator": validator_app, "arena-miner": miner_app}


def commands() -> Iterator[tuple[str, Any, Any]]:
    """(the command line typed, the click command, its context) for every command and group of the three CLIs."""

    def walk(command: Any, ctx: Any, typed: str) -> Iterator[tuple[str, Any, Any]]:
        yield typed, command, ctx
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, sub.context_class(sub, info_name=name, parent=ctx), f"{typed} {name}")

    for name, app in APPS.items():
        root = get_command(app)
        yield from walk(root, root.context_class(root, info_name=name), name)


ALL = list(commands())


def test_every_help_fits_80_columns_with_every_flag_and_arena_name_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert len(ALL) > 40
    for typed, command, ctx in ALL:
        text = command.get_help(ctx)
        assert "╭" not in text and "│" not in text, typed  # no boxes
        assert not re.search(r"\[/?(bold|dim|red|green|yellow|cyan|italic|b|i)?\]", text), typed  # no rich markup
        assert max(len(line) for line in text.splitlines()) <= 80, (typed, text)
        words = {word.rstrip(".:") for word in re.split(r"[\s,;()\[\]$`]+", text)}
        for param in command.get_params(ctx):
            if getattr(param, "hidden", False) or param.param_type_name != "option":
                continue
            for flag in (*param.opts, *param.secondary_opts):
                assert flag in words, (typed, flag)
            for env in re.findall(r"ARENA_[A-Z0-9_]+", param.help or "") + [str(param.envvar or "")]:
                assert not env or env in words, (typed, env)
        assert "…" not in text, typed  # nothing cut
        for env in re.findall(r"ARENA_(?!\*)[A-Z0-9_]*", text):  # every ARENA_ name whole (ARENA_* means them all)
            assert env.rstrip("_") == env and len(env) > len("ARENA_"), (typed, env)


def test_a_group_lists_each_subcommand_with_its_whole_first_sentence_rewrapped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    groups = [(typed, command, ctx) for typed, command, ctx in ALL if getattr(command, "commands", None)]
    assert len(groups) >= 9
    for typed, group, ctx in groups:
        text = group.get_help(ctx).split("\nCommands:\n", 1)[1]
        width = max(len(name) for name in group.commands) + 4  # where the sentences start
        rows: dict[str, list[str]] = {}
        for line in text.splitlines():
            if not line.startswith(" " * width):
                rows[line.split()[0]] = [line[width:]]
            else:
                rows[list(rows)[-1]].append(line[width:])
        for name, lines in rows.items():
            sub = group.commands[name]
            assert " ".join(lines) == first_sentence(sub.short_help or sub.help or ""), (typed, name)
            assert " ".join(lines).endswith((".", ")")) or "." not in (sub.help or ""), (typed, name, lines)
            for before, after in zip(lines, lines[1:], strict=False):  # each line as full as the width allows
                assert len(before) + 1 + len(after.split()[0]) > 78 - width, (typed, name, lines)


def test_every_setting_of_the_node_is_in_one_group_of_its_help() -> None:
    grouped = [name for fields in GROUPS.values() for name in fields]
    assert sorted(grouped) == sorted(Settings.model_fields)


def test_first_sentence_is_whole_and_on_one_line() -> None:
    assert first_sentence("Run the node: sync,\n    race (e.g. the pack. Its rotation), score. Then more.") == (
        "Run the node: sync, race (e.g. the pack. Its rotation), score."
    )
    assert first_sentence("No full stop here\n\nSecond paragraph.") == "No full stop here"
    assert first_sentence("Serve GET /bundle/<sha256> to v1.2 validators.\fhidden") == (
        "Serve GET /bundle/<sha256> to v1.2 validators."
    )


@pytest.mark.slow  # runs arena-validator as a subprocess, its help into a pipe
def test_help_into_a_pipe_is_plain_text_100_columns_wide() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    exe = str(Path(sys.executable).parent / "arena-validator")
    proc = subprocess.run([exe, "run", "--help"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "Settings (chain):" in lines and "Settings (store):" in lines
    assert max(len(line) for line in lines) <= PIPE_WIDTH
    assert max(len(line) for line in lines) > 90  # the width is used: 100 columns, not 80
    assert "\x1b[" not in proc.stdout  # no colours in a log file
