"""A generated catalog's forked workers end on SIGTERM whatever the process that builds it does with the signal: a
node or a bench that handles SIGTERM by setting a flag (to drain, or to stop after its race) must not leave the
build's pool unable to end its workers (the pool's terminate sends them SIGTERM and waits)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a build in a process of its own, with forked workers

BUILD = textwrap.dedent(
    """
    import signal, sys, threading
    import psutil
    from arena.catalog.build import build_catalog

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())  # the builder's own handler: a flag, as a draining node's
    seen = {}

    def dispositions(_count):
        for child in psutil.Process().children():
            with open(f"/proc/{child.pid}/status") as f:
                fields = dict(line.split(":\\t", 1) for line in f.read().splitlines() if ":\\t" in line)
            caught, ignored = int(fields["SigCgt"], 16), int(fields["SigIgn"], 16)
            bit = lambda sig: 1 << (sig - 1)
            seen[child.pid] = (bool(caught & bit(signal.SIGTERM)), bool(ignored & bit(signal.SIGINT)))

    build_catalog(3, 5000, sys.argv[1], workers=2, progress=dispositions)
    print(sorted(set(seen.values())), len(seen))
    """
)


def test_a_builds_workers_end_on_sigterm_though_the_builder_catches_it(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", BUILD, str(tmp_path / "catalog")],
        capture_output=True,
        text=True,
        timeout=600,  # a safety bound on a build that would otherwise never end
    )
    assert done.returncode == 0, done.stderr[-2000:]
    dispositions, workers = done.stdout.strip().splitlines()[-1].rsplit(" ", 1)
    assert int(workers) == 2
    # SIGTERM not caught by a Python handler in any worker (the default: it ends), Ctrl-C left to the builder
    assert dispositions == "[(False, True)]", done.stdout
