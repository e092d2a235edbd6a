"""`arena-validator SUBCOMMAND --help` shows that subcommand's own options, each with its type and default:
`localchain init` once listed all 33 node settings."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from validator.settings import Settings, field_flag

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
    ("config", "show"): ALL,
    ("config", "check"): ALL,
}


def help_of(*command: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")} | {"COLUMNS": "400"}
    proc = subprocess.run([EXE, *command, "--help"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def options(text: str, panel: str) -> dict[str, str]:
    """The panel's options: flag -> the rest of its row (type, help)."""
    rows: dict[str, str] = {}
    inside = False
    for line in text.splitlines():
        if line.startswith("╭"):
            inside = f" {panel} " in line
        elif inside and (match := re.match(r"^│\s+(--[\w.-]+)(?:\s+--no-[\w.-]+)?\s+(.*?)\s*│$", line)):
            rows[match.group(1)] = match.group(2)
    return rows


@pytest.mark.parametrize("command", list(EXPECTED), ids=" ".join)
def test_each_subcommand_shows_only_the_settings_it_reads_with_type_env_and_default(command: tuple[str, ...]) -> None:
    text = help_of(*command)
    settings = options(text, "Settings")
    assert set(settings) == EXPECTED[command]
    for flag, row in settings.items():
        name = next(n for n in Settings.model_fields if field_flag(n) == flag)
        kind = row.split()[0]
        assert re.fullmatch(r"INTEGER|FLOAT|PATH|TEXT|TEXT,\.\.\.|\[[\w|]+\]|<bool>", kind), (flag, row)
        assert f"env ARENA_{name.upper()}" in row, row
        default = Settings.model_fields[name].get_default(call_default_factory=True)
        if default not in (None, []):
            assert f"default: {default}" in row, row
    for flag, row in options(text, "Options").items():  # the command's own options say their type too
        assert row.startswith("<") or row.split()[0].isupper(), (flag, row)


def test_typed_settings_show_their_choices() -> None:
    settings = options(help_of("run"), "Settings")
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
    text = " ".join(help_of("standings").replace("│", " ").split())
    assert "Wilson score interval over the problems" in text and "P(rank 1)" in text
    assert "a new submission joins the miner's window" in text
    assert "--weights.shadow band" in text and "ties within noise share" in text
    assert "--json" in text and "--race" in text
