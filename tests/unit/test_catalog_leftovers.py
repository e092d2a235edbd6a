"""A catalog build killed before its clean-up (SIGKILL) leaves its temporary folders; the next build removes those of
a process that is gone and that nothing wrote in for a minute, and nothing else (`arena.catalog.leftovers`)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from arena.catalog.leftovers import STALE_SECONDS, clear_dead, hold, restore_replaced, tagged


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def _folder(parent: Path, name: str, *, age: float, inner: float | None = None) -> Path:
    path = parent / name
    (path / "products").mkdir(parents=True)
    (path / "products" / "seg").write_bytes(b"x")
    then = time.time() - age
    inner_then = time.time() - (age if inner is None else inner)
    os.utime(path / "products", (inner_then, inner_then))
    os.utime(path, (then, then))
    return path


def test_only_a_gone_builds_untouched_folders_of_this_prefix_are_removed(tmp_path: Path) -> None:
    dead, old = _dead_pid(), STALE_SECONDS + 60
    gone = _folder(tmp_path, f".cat.{dead}.a1b2_c3d.tmp", age=old)
    handoff = _folder(tmp_path, f"arena-catalog-{dead}.zz9y8x7w", age=old)
    live = _folder(tmp_path, f".cat.{os.getpid()}.q1w2e3r4.tmp", age=old)  # a running build's
    recent = _folder(tmp_path, f".cat.{dead}.recent01.tmp", age=old, inner=1)  # written in a moment ago
    other = _folder(tmp_path, f".cat.2.{dead}.k9j8h7g6.tmp", age=old)  # catalog "cat.2"'s, not "cat"'s
    untagged = _folder(tmp_path, ".cat.abcdefgh.tmp", age=old)  # no process id: not ours to judge
    users = _folder(tmp_path, f".cat.{dead}.bak", age=old)  # a user's copy named like one: not a build's
    (tmp_path / f".cat.{dead}.file0000.tmp").write_bytes(b"not a folder")
    # a live build seen from another pid namespace (its id dead here), its index files written without touching
    # its folders' times: its lock says it lives
    held = _folder(tmp_path, f".cat.{dead}.locked01.tmp", age=old)
    lock = hold(held)
    os.utime(held, (time.time() - old, time.time() - old))
    replaced = _folder(tmp_path, f".cat.{dead}.old", age=old)  # the catalog a killed build was replacing

    with lock:
        assert sorted(clear_dead(tmp_path, ".cat.")) == sorted([gone, replaced])
        assert not gone.exists() and not replaced.exists()
        assert all(p.exists() for p in (handoff, live, recent, other, untagged, users, held))
    assert clear_dead(tmp_path, ".cat.") == [held]  # its build ended without its clean-up: the lock is free
    assert clear_dead(tmp_path, "arena-catalog-") == [handoff]
    assert (tmp_path / f".cat.{dead}.file0000.tmp").is_file()


def test_a_tagged_name_carries_this_process_and_a_missing_parent_clears_nothing(tmp_path: Path) -> None:
    assert tagged(".cat.") == f".cat.{os.getpid()}."
    assert clear_dead(tmp_path / "missing", ".cat.") == []


def test_a_catalog_a_killed_build_had_moved_aside_goes_back_where_it_was(tmp_path: Path) -> None:
    # killed between its two renames: the catalog it was replacing aside, nothing at its place
    dead, old = _dead_pid(), STALE_SECONDS + 60
    aside = _folder(tmp_path, f".cat.{dead}.old", age=old)
    out = tmp_path / "cat"
    assert restore_replaced(out) == aside
    assert (out / "products" / "seg").read_bytes() == b"x" and not aside.exists()
    again = _folder(tmp_path, f".cat.{dead}.old", age=old)  # with a catalog in place: only a leftover, removed
    assert restore_replaced(out) is None
    assert clear_dead(tmp_path, ".cat.") == [again]
