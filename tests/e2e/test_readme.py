"""The README tells the truth: every command block it marks as a quick start runs as written, in order,
in a fresh clone of this repository (its own empty `var/`, its own home with no wallets), as a newcomer types it."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the README's commands: builds, the demo, the node

ROOT = Path(__file__).resolve().parents[2]
MARK = re.compile(r"<!-- quick start[^>]*-->\n```bash\n(.*?)```", re.S)


def quick_starts(readme: str) -> list[str]:
    return [block for block in MARK.findall(readme)]


def test_the_readme_marks_its_quick_starts() -> None:
    blocks = quick_starts((ROOT / "README.md").read_text())
    assert len(blocks) == 7
    assert blocks[0].strip().endswith("bash scripts/demo")
    assert "../" not in (ROOT / "README.md").read_text().split("## Layout")[1]  # the layout points inside the repo


def test_every_quick_start_block_of_the_readme_runs_as_written_in_a_fresh_clone(tmp_path: Path) -> None:
    clone = tmp_path / "shoparena"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True)
    shutil.copy2(ROOT / "README.md", clone / "README.md")  # the README as it is in this checkout
    # the fresh clone reuses this checkout's environment, made by `scripts/setup`; its own .venv holds links to it
    # and the stamp saying it is installed, so `scripts/setup` in the clone never runs pip (which would point the
    # shared environment's editable install at the clone)
    venv = clone / ".venv"
    venv.mkdir()
    for name in ("bin", "lib", "include", "pyvenv.cfg"):
        if (Path(sys.prefix) / name).exists():
            (venv / name).symlink_to(Path(sys.prefix) / name)
    (venv / ".shoparena-installed").write_text(
        hashlib.sha256((clone / "pyproject.toml").read_bytes()).hexdigest() + "\n"
    )
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "VIRTUAL_ENV"))}
    env.update(
        HOME=str(home),
        COLUMNS="160",
        PATH=":".join(p for p in env.get("PATH", "").split(":") if not p.startswith(sys.prefix)),
    )
    for number, block in enumerate(quick_starts((clone / "README.md").read_text()), start=1):
        started = time.monotonic()
        proc = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block], cwd=clone, env=env, capture_output=True, text=True, timeout=1200
        )
        print(f"quick start {number}: {time.monotonic() - started:.0f} s")  # the README states these times
        assert proc.returncode == 0, f"quick start {number} failed:\n{block}\n{proc.stdout[-3000:]}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr, f"quick start {number}:\n{proc.stderr}"
        if number == 1:  # the demo says what its validators are doing, its nodes' log lines kept in a file
            assert re.search(r"race: runs dispatched (\d+)/\1, scoring \1/\1, judging \1/\1", proc.stdout)
            assert "weights: validator: set" in proc.stdout and "the nodes' log: var/demo/demo.log" in proc.stdout
            assert "submissions.synced" not in proc.stdout + proc.stderr and "[info" not in proc.stderr
    # what the quick starts promise is there
    assert (clone / "var" / "demo" / "validator" / "validator.sqlite").is_file()
    assert (clone / "card.json").is_file() and (clone / "var" / "pack.json").is_file()
    assert (clone / "var" / "corpus" / "train.jsonl").is_file()
    exported = [clone / "var" / "corpus-b" / name for name in ("train.jsonl", "eval.jsonl")]
    assert any(path.read_text().strip() for path in exported)  # the demo's winning runs, as the block says
    assert (home / ".bittensor" / "wallets" / "owner" / "hotkeys" / "default").is_file()  # btcli's, for the operator
    assert (clone / "var" / "wallets" / "val" / "hotkeys" / "default").is_file()  # dev wallets beside the LocalChain
    assert not (home / ".bittensor" / "wallets" / "val").exists()
