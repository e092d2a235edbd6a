"""Whether a folder's owner is gone (`arena.owner`), and the three places that ask it: a killed catalog build's
folders (`arena.catalog.leftovers`), a dead node's work folder and a corpus export's workspace
(`validator.upkeep.sweeps`). Real processes hold the locks and the process ids."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from arena import owner
from arena.catalog.leftovers import LOCK, STALE_SECONDS, clear_dead
from validator.corpus.options import CorpusError
from validator.corpus.workspace import Workspace
from validator.upkeep.sweeps import OWNER_FILE, WORK_PREFIX, Grounds, Retention, corpus_workspaces, dead_work

pytestmark = pytest.mark.slow  # lock holders in fresh interpreters

_HOLDER = """
import fcntl, sys
fh = open(sys.argv[1], "ab")
fcntl.flock(fh, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def holder() -> Iterator[list[subprocess.Popen[str]]]:
    """Processes that hold a lock until their standard input closes (`_hold`); ended after the test."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        process.kill()
        process.wait()


def _hold(started: list[subprocess.Popen[str]], path: Path) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    started.append(process)
    assert process.stdout is not None and process.stdout.readline() == "held\n"
    return process


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def _sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen(["sleep", "600"])


def _aged(path: Path, seconds: float) -> Path:
    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


def test_a_lock_another_live_process_holds_is_held_until_it_ends(tmp_path: Path, holder: list) -> None:
    lock = tmp_path / "lock"
    process = _hold(holder, lock)
    assert owner.held(lock) and owner.claim(lock) is None
    assert process.stdin is not None
    process.stdin.close()  # the holder ends: the kernel lets its lock go
    process.wait()
    assert not owner.held(lock)
    fh = owner.claim(lock)
    assert fh is not None
    with fh:
        assert owner.held(lock)  # another open file of this process asks: held
        assert owner.claim(lock) is None
    assert not owner.held(lock) and not owner.held(tmp_path / "missing")


def test_a_process_id_is_its_owners_only_if_it_started_by_the_owners_time() -> None:
    sleeper = _sleeper()
    try:
        started = psutil.Process(sleeper.pid).create_time()
        assert not owner.gone(sleeper.pid)
        assert not owner.gone(sleeper.pid, since=started)  # the owner wrote its file once it ran
        assert owner.gone(sleeper.pid, since=started - 10)  # the owner's file is older than the process: id reused
    finally:
        sleeper.kill()
        sleeper.wait()
    assert owner.gone(sleeper.pid) and owner.gone(_dead_pid(), since=time.time())
    assert owner.gone(2**31) and owner.gone(10**20)  # no process can have such an id
    assert not owner.gone(os.getpid(), since=time.time())


def _build_folder(parent: Path, name: str, *, locked_ago: float | None) -> Path:
    folder = parent / name
    (folder / "products").mkdir(parents=True)
    if locked_ago is not None:
        (folder / LOCK).touch()
        _aged(folder / LOCK, locked_ago)
    _aged(folder / "products", STALE_SECONDS + 60)
    return _aged(folder, STALE_SECONDS + 60)


def test_a_builds_folder_whose_process_id_a_later_process_has_is_cleared(tmp_path: Path) -> None:
    sleeper = _sleeper()
    try:
        hour_before = time.time() - psutil.Process(sleeper.pid).create_time() + 3600
        # its lock taken an hour before the process that has its id now started
        reused = _build_folder(tmp_path, f".cat.{sleeper.pid}.reused01.tmp", locked_ago=hour_before)
        live = _build_folder(tmp_path, f".cat.{os.getpid()}.liveown1.tmp", locked_ago=0)  # lock free, owner runs
        replacing = _build_folder(tmp_path, f".cat.{sleeper.pid}.old", locked_ago=None)  # no lock: the id decides
        far = _build_folder(tmp_path, f".cat.{10**20}.farpid01.tmp", locked_ago=None)  # no process has such an id
        assert sorted(clear_dead(tmp_path, ".cat.")) == sorted([reused, far])
        assert live.is_dir() and replacing.is_dir()
    finally:
        sleeper.kill()
        sleeper.wait()


def _grounds(tmp_path: Path, *, dry_run: bool = False) -> Grounds:
    return Grounds(store=None, data_dir=tmp_path / "data", retention=Retention(), temp=tmp_path, dry_run=dry_run)


def test_a_dead_nodes_work_folder_is_one_whose_owner_id_is_gone_or_reused(tmp_path: Path) -> None:
    sleeper = _sleeper()
    try:
        started = psutil.Process(sleeper.pid).create_time()

        def work(name: str, pid: int, written: float) -> Path:
            folder = tmp_path / f"{WORK_PREFIX}{name}"
            folder.mkdir()
            (folder / OWNER_FILE).write_text(str(pid))
            os.utime(folder / OWNER_FILE, (written, written))
            return folder

        reused = work("reused", sleeper.pid, started - 3600)  # the node wrote its pid an hour before this process
        live = work("live", sleeper.pid, started)
        dead = work("dead", _dead_pid(), time.time())
        freed = dead_work(_grounds(tmp_path))
        assert sorted(freed.items) == sorted([reused.name, dead.name]) and live.is_dir()
    finally:
        sleeper.kill()
        sleeper.wait()


_NODE = """
import os, sys
from arena import owner
fh = owner.claim(sys.argv[1])
fh.write(str(os.getpid()).encode())
fh.flush()
print("held", flush=True)
sys.stdin.read()
"""


def test_a_running_nodes_work_folder_is_kept_when_the_clock_steps_forward(tmp_path: Path, holder: list) -> None:
    """A node holds its owner file's lock for its life (`validator.races.Arena.start`, as `_NODE` does): after a
    forward clock step its start reads later than the file it wrote (here the file dated before the start instead),
    its pid looks reused, and only the lock keeps its folder; once it ends, the folder goes."""
    folder = tmp_path / f"{WORK_PREFIX}stepped"
    folder.mkdir()
    node = subprocess.Popen(
        [sys.executable, "-c", _NODE, str(folder / OWNER_FILE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    holder.append(node)
    assert node.stdout is not None and node.stdout.readline() == "held\n"
    assert (folder / OWNER_FILE).read_text() == str(node.pid)
    _aged(folder / OWNER_FILE, time.time() - psutil.Process(node.pid).create_time() + 60)
    assert owner.gone(node.pid, since=(folder / OWNER_FILE).stat().st_mtime)  # by its pid alone: reused
    assert dead_work(_grounds(tmp_path)).items == [] and folder.is_dir()
    assert node.stdin is not None
    node.stdin.close()
    node.wait()
    assert dead_work(_grounds(tmp_path)).items == [folder.name] and not folder.exists()


def test_a_corpus_workspace_an_export_holds_is_kept_and_a_dry_run_leaves_its_times(
    tmp_path: Path, holder: list
) -> None:
    data = tmp_path / "data"
    held, left = data / ".train.partial", data / ".eval.partial"
    for workspace in (held, left):
        workspace.mkdir(parents=True)
        (workspace / "work.sqlite").write_bytes(b"x")
        (workspace / "lock").touch()
        for mark in ("work.sqlite", "lock"):
            _aged(workspace / mark, 30 * 86400)
    _hold(holder, held / "lock")
    looked = corpus_workspaces(_grounds(tmp_path, dry_run=True))
    assert looked.items == [left.name] and left.is_dir()
    assert time.time() - (left / "lock").stat().st_mtime > 29 * 86400  # looking took the lock and wrote nothing
    assert corpus_workspaces(_grounds(tmp_path)).items == [left.name]
    assert not left.exists() and held.is_dir()


def test_an_export_whose_workspace_another_holds_is_refused_in_one_line(tmp_path: Path, holder: list) -> None:
    out = tmp_path / "train"
    (tmp_path / ".train.partial").mkdir()
    process = _hold(holder, tmp_path / ".train.partial" / "lock")
    with pytest.raises(CorpusError, match=r"^another export is writing .*; wait for it or choose another --out$"):
        Workspace(out, "digest").open()
    assert process.stdin is not None
    process.stdin.close()
    process.wait()
    workspace = Workspace(out, "digest").open()
    try:
        assert owner.held(workspace.path / "lock")
    finally:
        workspace.close()
    assert not owner.held(workspace.path / "lock")


def test_an_export_whose_workspace_the_janitor_takes_away_as_it_opens_is_refused_in_one_line(tmp_path: Path) -> None:
    """The janitor's sweep runs between the export's mkdir of a stale workspace and its claim of the lock (a hook at
    `owner.claim`'s call): the workspace is gone, and the export says so in one line; run again, it starts afresh."""
    out = tmp_path / "data" / "train"
    stale = tmp_path / "data" / ".train.partial"
    stale.mkdir(parents=True)
    for mark in ("work.sqlite", "lock"):
        (stale / mark).write_bytes(b"")
        _aged(stale / mark, 30 * 86400)
    swept: list[str] = []

    def sweep_at_claim(frame: Any, event: str, _arg: Any) -> None:
        if event == "call" and frame.f_code is owner.claim.__code__ and not swept:
            swept.extend(corpus_workspaces(_grounds(tmp_path)).items)

    sys.setprofile(sweep_at_claim)
    try:
        with pytest.raises(CorpusError, match=r"^the workspace .* was removed as .*'s export opened it .*; run the"):
            Workspace(out, "digest").open()
    finally:
        sys.setprofile(None)
    assert swept == [stale.name] and not stale.exists()
    workspace = Workspace(out, "digest").open()
    workspace.close()
