"""Retention settings that would delete live data are refused with one line each (negative, zero where not allowed,
a path outside the node's folder, trajectories dropped with no archive), before the janitor touches anything; a dry
run on a good store lists every sweep and removes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs arena-validator as a subprocess

EXE = str(Path(sys.executable).parent / "arena-validator")


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI with a temp folder of its own: the janitor's sweep of dead nodes' work folders reads the temp folder,
    where other nodes on this machine (the suite's other tests) leave theirs."""
    (cwd / "tmp").mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")} | {"TMPDIR": str(cwd / "tmp")}
    return subprocess.run([EXE, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--retention.bundle_days", "-1"], "--retention.bundle_days"),
        (["--retention.results_days", "-1"], "--retention.results_days"),
        (["--retention.log_keep", "0"], "--retention.log_keep"),
        (["--retention.corpus_days", "0"], "--retention.corpus_days"),
        (["--retention.images_keep", "-2"], "--retention.images_keep"),
        (["--retention.trajectory_days", "0", "--retention.archive", "data/a.jsonl"], "--retention.trajectory_days"),
        (["--log.file", "/etc/node.log"], "--log.file /etc/node.log is outside the node's folder"),
        (["--retention.trajectory_days", "30", "--retention.archive", "../a.jsonl"], "--retention.archive"),
        (["--retention.trajectory_days", "30"], "needs --retention.archive"),
        (["--retention.archive", "data"], "--retention.archive data is outside"),
    ],
)
def test_bad_retention_is_one_line_and_nothing_is_touched(args: list[str], names: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "bundles").mkdir(parents=True)
    kept = data / "bundles" / ("a" * 64)
    kept.mkdir()
    done = cli("janitor", "--data-dir", "data", *args, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and names in errors[0], done.stderr
    assert "Traceback" not in done.stderr
    assert kept.is_dir()


def test_a_dry_run_lists_every_sweep_and_removes_nothing(tmp_path: Path) -> None:
    assert cli("db", "upgrade", "--data-dir", "data", cwd=tmp_path).returncode == 0
    stale = tmp_path / "data" / "bundles" / ("b" * 64)
    stale.mkdir(parents=True)
    (stale / "agent.py").write_text("def agent_main(problem):\n    return None\n")
    os.utime(stale, (0, 0))  # decades old, and no submission of the store has it
    done = cli("janitor", "--data-dir", "data", "--dry-run", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "bundles: would free 1 (0.0 MB)" in lines
    for sweep in (
        "results bundles",
        "sandbox leftovers",
        "staged agents",
        "dead nodes' work folders",
        "corpus workspaces",
        "logs",
    ):
        assert any(line.startswith(f"{sweep}: would free") for line in lines), done.stdout
    assert lines[-1].startswith("would free 1 item(s)") and stale.is_dir()
    done = cli("janitor", "--data-dir", "data", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.splitlines()[-1].startswith("freed 1 item(s)"), done.stdout
    assert not stale.exists()


def test_a_pass_that_fails_half_way_is_finished_by_the_next(tmp_path: Path) -> None:
    assert cli("db", "upgrade", "--data-dir", "data", cwd=tmp_path).returncode == 0
    stale = tmp_path / "data" / "bundles" / ("c" * 64)
    (stale / "pkg").mkdir(parents=True)
    stuck = stale / "pkg" / "agent.py"
    stuck.write_text("x = 1\n")
    os.utime(stale, (0, 0))
    subprocess.run(["chattr", "+i", str(stuck)], check=True)  # the delete fails half way, as a full disk or EIO would
    try:
        done = cli("janitor", "--data-dir", "data", cwd=tmp_path)
        assert done.returncode == 1 and "sweep(s) failed: bundles: " in done.stdout.splitlines()[-1], done.stdout
        assert not stale.exists()  # renamed away first: no half-deleted bundle under its name
        (trash,) = (tmp_path / "data" / "bundles").glob(".janitor-trash-*")
    finally:
        subprocess.run(["chattr", "-i", str(next((tmp_path / "data").rglob("agent.py")))], check=True)
    done = cli("janitor", "--data-dir", "data", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not trash.exists() and list((tmp_path / "data" / "bundles").iterdir()) == []
