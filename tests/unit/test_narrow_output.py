"""Read on an 80-column terminal and in a log file: ids, hotkeys and digests are printed whole (never cut with an
ellipsis, never broken over lines), and a table written to a file or a pipe keeps its columns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


def run(exe: str, *args: str, cwd: Path, columns: int = 80) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")} | {"COLUMNS": str(columns)}
    proc = subprocess.run([str(BIN / exe), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.slow  # runs our CLIs as subprocesses, piped as into a log file
def test_problems_show_prints_ids_and_the_digest_whole_at_80_columns(tmp_path: Path) -> None:
    run("arena", "catalog", "build", "--size", "300", "--seed", "4", "--out", "cat", cwd=tmp_path)
    run("arena", "problems", "generate", "--catalog", "cat", "--n", "12", "--out", "gen.json", cwd=tmp_path)
    run("arena", "problems", "pack", "gen.json", "--out", "pack.json", "--key-uri", "//Alice", cwd=tmp_path)
    shown = run("arena", "problems", "show", "pack.json", cwd=tmp_path).stdout
    pack = json.loads((tmp_path / "pack.json").read_text())
    lines = shown.splitlines()
    assert any(pack["catalog_digest"] in line for line in lines)  # on one line, whole
    first = [p["problem_id"] for p in pack["problems"][:8]]
    assert all(any(pid in line for line in lines) for pid in first), shown
    assert "…" not in shown, shown
    assert "problems" in lines[next(i for i, line in enumerate(lines) if "split" in line and "┃" in line)]


@pytest.mark.slow  # runs our CLIs as subprocesses, piped as into a log file
def test_localchain_show_prints_hotkeys_whole_at_80_columns(tmp_path: Path) -> None:
    chain = ["--localchain.path", str(tmp_path / "chain.sqlite")]
    run("arena-validator", "localchain", "init", *chain, cwd=tmp_path)
    for name in ("val", "miner1"):
        run("arena-validator", "localchain", "register", "--wallet.name", name, "--create", *chain, cwd=tmp_path)
    listed = json.loads(run("arena-validator", "localchain", "show", "--json", *chain, cwd=tmp_path).stdout)
    hotkeys = [n["hotkey"] for n in listed["neurons"]]
    narrow = run("arena-validator", "localchain", "show", *chain, cwd=tmp_path).stdout
    assert all(any(h in line for line in narrow.splitlines()) for h in hotkeys), narrow
    assert "…" not in narrow and "stake" in narrow and "miner" in narrow, narrow  # no header one letter a line
    wide = run("arena-validator", "localchain", "show", *chain, cwd=tmp_path, columns=200).stdout
    assert "commitment" in wide and all(h in wide for h in hotkeys)  # the table when it fits


def test_a_table_piped_to_a_file_keeps_its_columns() -> None:
    script = (
        "from rich.table import Table\n"
        "from arena.cliutil import print_table\n"
        "t = Table()\n"
        "for c in ('#', 'miner', 'uid', 'score', 'succ', 'judge', 'err', 'product', 'session', 'shop', 'voucher',"
        " 'web', 'compatibility'):\n"
        "    t.add_column(c, no_wrap=True)\n"
        "t.add_row('1', 'offline-deep-copycat-lite', *['0.125'] * 11)\n"
        "print_table(t)\n"
    )
    env = os.environ | {"COLUMNS": "80"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "compatibility" in proc.stdout and "offline-deep-copycat-lite" in proc.stdout and "…" not in proc.stdout


def test_long_work_into_a_log_file_says_how_far_it_is(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A progress bar into a pipe or a file (not a terminal) is a plain line on stderr every `every` seconds and
    a last one at the end; short work says nothing, and ARENA_PROGRESS=0 silences it."""
    from arena import cliutil

    def work(n: int, every: float) -> list[str]:
        with cliutil.progress_bar(every) as bar:
            task = bar.add_task("generating problems", total=n, rate="")
            for _ in range(n):
                bar.advance(task)
        return [line.rsplit(" (", 1)[0] for line in capsys.readouterr().err.splitlines()]

    monkeypatch.delenv("ARENA_PROGRESS", raising=False)
    assert work(3, 3600.0) == []  # done before the first line is due
    assert work(3, 0.0) == [f"generating problems: {k}/3" for k in (1, 2, 3)]
    monkeypatch.setenv("ARENA_PROGRESS", "0")
    assert work(3, 0.0) == []


def test_a_table_too_wide_for_the_terminal_is_a_line_per_row_with_every_id_whole() -> None:
    import io

    from rich.console import Console
    from rich.table import Table

    from arena import cliutil

    screen = io.StringIO()
    terminal = Console(file=screen, width=80, force_terminal=True, color_system=None)
    hotkey, url = (
        "5GgGpyabUYQ6YbhVVWmEAFJ5w2LXSprsXwrn8GuQE8Xbr7WS",
        "postgresql+psycopg://arena:****@db.example:5432/x",
    )
    table = Table(title="arena-validator settings")
    for column in ("setting", "flag", "value", "from"):
        table.add_column(column)
    table.add_row("pack_signer", "--pack.signer", hotkey, "env")
    table.add_row("database_url", "--database-url", url, ".env")
    table.add_row("netuid", "--netuid", "", "default")
    cliutil.print_table(table, terminal)
    assert screen.getvalue().splitlines() == [
        "arena-validator settings",
        f"  setting: pack_signer; flag: --pack.signer; value: {hotkey}; from: env",
        f"  setting: database_url; flag: --database-url; value: {url}; from: .env",
        "  setting: netuid; flag: --netuid; from: default",
    ]
    narrow = Table(title="fits")
    narrow.add_column("uid")
    narrow.add_row("7")
    cliutil.print_table(narrow, terminal)
    assert "┃ uid ┃" in screen.getvalue()  # a table that fits stays a table
