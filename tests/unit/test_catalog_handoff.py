"""Where a generated build's workers leave their chunks for the builder (docs/operator.md, section 1): in memory
(/dev/shm) only where it holds the read-ahead twice over, so a container's small /dev/shm (64 MiB by default) or a
host with many cores never fails a build for want of space: the temporary folder (``TMPDIR``) takes them then."""

from __future__ import annotations

import os

from arena.catalog.workers import CHUNK_FILE_BYTES, handoff_dir


def _room() -> int:
    free = os.statvfs("/dev/shm")
    return free.f_bavail * free.f_frsize


def test_the_chunks_wait_in_memory_where_dev_shm_holds_them() -> None:
    workers = max(1, _room() // (2 * 3 * CHUNK_FILE_BYTES) - 1)  # the most workers whose read-ahead it holds twice
    assert handoff_dir(workers) == "/dev/shm"


def test_a_dev_shm_too_small_for_the_read_ahead_leaves_the_chunks_to_the_temporary_folder() -> None:
    workers = _room() // (2 * 3 * CHUNK_FILE_BYTES) + 1  # one worker more than it holds twice over
    assert handoff_dir(workers) is None
