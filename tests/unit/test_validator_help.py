"""`arena-validator SUBCOMMAND --help` shows that subcommand's own options, each with its type and default, the
settings under their group's heading: `localchain init` once listed all 33 node settings, and `config show` and
`config check` all ~50 of theirs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.main import get_command

from validator.cli import app
from validator.settings import Settings, field_flag, field_group

pytestmark = pytest.mark.slow  # runs arena-validator as a subprocess

EXE = str(Path(sys.executable).parent / "arena-validator")
ALL = {field_flag(name) for name in Settings.model_fields}
STORE = {"--data-dir", "--database-url"}

EXPECTED = {
    ("localchain", "init"): {"--localchain.path", "--netuid"},
    ("localchain", "register"): {"--localchain.path", "--wallet.name", "--wallet.hotkey", "--wallet.path"},
    ("localchain", "show"): {"--localchain.path"},
    ("db", "upgrade"): STORE,
    ("db", "downgrade"): STORE,
    ("db", "current"): STORE,
    ("corpus", "export"): STORE,
    ("dashboard",): STORE | {"--api.host", "--api.port"},
    ("rescore",): STORE | {"--catalog", "--pack", "--pack.signer", "--pack.allow_dev_signer"},
    ("standings",): STORE,
    ("run",): ALL,
    ("config", "show"): set(),  # they take every setting, as the node does, and say where those are listed
    ("config", "check"): set(),
}


def command_of(*names: str) -> Any:
    """The click command `arena-validator NAMES...` runs."""
    command: Any = get_command(app)
    for name in names:
        command = command.commands[name]
    return command


def help_of(*command: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")} | {"COLUMNS": "400"}
    proc = subprocess.run([EXE, *command, "--help"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def sections(text: str) -> dict[str, dict[str, str]]:
    """Each heading's options (plain help: "Settings (chain):", then a row per option, its help wrapped under it):
    flag -> the rest of its row (type, help) on one line."""
    found: dict[str, dict[str, str]] = {}
    rows: dict[str, str] | None = None
    last = None
    for line in text.splitlines():
        if re.fullmatch(r"\S.*:", line):
            rows, last = found.setdefault(line[:-1], {}), None
        elif rows is not None and (match := re.match(r"^  (--[\w.-]+)(?: / --no-[\w.-]+)?(.*)$", line)):
            last = match.group(1)
            rows[last] = match.group(2).strip()
        elif rows is not None and last and line.startswith("    "):
            rows[last] = f"{rows[last]} {line.strip()}".strip()
        else:
            last = None
    return found


def settings_of(text: str) -> dict[str, str]:
    """The settings flags a help lists, each under its group's heading ("Settings (chain)", ...)."""
    rows: dict[str, str] = {}
    for heading, found in sections(text).items():
        if heading.startswith("Settings ("):
            for flag, row in found.items():
                name = next(n for n in Settings.model_fields if field_flag(n) == flag)
                assert heading == f"Settings ({field_group(name)})", (flag, heading)
                rows[flag] = row
    return rows


@pytest.mark.parametrize("command", list(EXPECTED), ids=" ".join)
def test_each_subcommand_shows_only_the_settings_it_reads_with_type_env_and_default(command: tuple[str, ...]) -> None:
    text = help_of(*command)
    settings = settings_of(text)
    assert set(settings) == EXPECTED[command]
    for flag, row in settings.items():
        name = next(n for n in Settings.model_fields if field_flag(n) == flag)
        if Settings.model_fields[name].annotation is bool:  # a switch: `--pool / --no-pool`, no value to type
            assert re.search(rf"^  {re.escape(flag)} / --no-{re.escape(flag[2:])}", text, re.MULTILINE), flag
        else:
            assert re.fullmatch(r"INTEGER|FLOAT|PATH|TEXT|TEXT,\.\.\.|\[[\w|]+\]", row.split()[0]), (flag, row)
        assert f"env ARENA_{name.upper()}" in row, row
        default = Settings.model_fields[name].get_default(call_default_factory=True)
        if default not in (None, []):
            assert f"default: {default}" in row, row
    for flag, row in sections(text).get("Options", {}).items():  # an own option that takes a value says its type
        own = command_of(*command)
        param = next(p for p in own.get_params(typer.Context(own)) if flag in p.opts)
        assert getattr(param, "is_flag", False) or row.startswith("<") or row.split()[0].isupper(), (flag, row)


def test_typed_settings_show_their_choices() -> None:
    settings = settings_of(help_of("run"))
    assert settings["--sandbox.backend"].startswith("[process|docker]")
    assert settings["--chain"].startswith("[subtensor|localchain]")
    assert settings["--netuid"].startswith("INTEGER")
    assert settings["--sandbox.wall_seconds"].startswith("FLOAT")
    assert "default: 300.0" in settings["--sandbox.wall_seconds"]


def test_config_show_says_where_each_value_came_from(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("ARENA_CONCURRENCY=3\nARENA_NETUID=9\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")} | {
        "COLUMNS": "300",
        "ARENA_WALLET_NAME": "owner",
        "ARENA_CONCURRENCY": "5",
    }
    proc = subprocess.run(
        [EXE, "config", "show", "--netuid", "15"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    rows = {
        cells[0]: cells
        for line in proc.stdout.splitlines()
        if len(cells := [c.strip() for c in line.strip("│ ").split("│")]) == 4
    }
    assert rows["netuid"][2:] == ["15", "flag"]  # a flag beats the .env
    assert rows["concurrency"][2:] == ["5", "env"]  # the environment beats the .env
    assert rows["wallet_name"][2:] == ["owner", "env"]
    assert rows["sandbox_backend"][2:] == ["process", "default"]
    (tmp_path / ".env").write_text("ARENA_SANDBOX_BACKEND=docker\n")
    proc = subprocess.run([EXE, "config", "show"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    rows = {
        cells[0]: cells
        for line in proc.stdout.splitlines()
        if len(cells := [c.strip() for c in line.strip("│ ").split("│")]) == 4
    }
    assert rows["sandbox_backend"][2:] == ["docker", ".env"]


def test_standings_help_says_what_the_interval_and_p_rank1_are_and_documents_the_band_policy() -> None:
    text = " ".join(help_of("standings").split())
    assert "Wilson score interval over the problems" in text and "P(rank 1)" in text
    assert "a new submission joins the miner's window" in text
    assert "--weights.shadow band" in text and "ties within noise share" in text
    assert "--json" in text and "--race" in text


@pytest.mark.parametrize("command", ["show", "check"])
def test_config_help_is_short_and_says_where_every_setting_is_documented(command: str) -> None:
    text = help_of("config", command)
    assert len(text.splitlines()) < 25, text
    assert not any(heading.startswith("Settings") for heading in sections(text)), text
    words = " ".join(text.split())
    assert "`arena-validator run --help` lists them by group" in words
    assert "deploy/.env.example" in words and "docs/validator.md" in words
