"""A generated catalog's forked workers end on SIGTERM whatever the process that builds it does with the signal: a
node or a bench that handles SIGTERM by setting a flag (to drain, or to stop after its race) must not leave the
build's pool unable to end its workers (the pool's terminate sends them SIGTERM and waits)."""

from __future__ import annotations

import signal
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


STOPPED = textwrap.dedent(
    """
    import sys
    from arena.catalog.build import build_catalog
    from arena.cliutil import terminate_cleanly

    with terminate_cleanly("the catalog"):
        build_catalog(3, 300_000, sys.argv[1], workers=1, progress=lambda _: print("chunk", flush=True))
    """
)


def test_sigterm_while_the_builder_makes_products_ends_the_build_through_its_clean_up(tmp_path: Path) -> None:
    """The generator's compiled code (mypyc) reads a failed integer operation as out of memory and aborts the process;
    CPython runs a signal's Python handler inside a long integer division, so a handler that raises there (SIGTERM's
    in a command, Ctrl-C's KeyboardInterrupt) aborted the build (SIGABRT, 'fatal: out of memory'), its temporary
    folder left behind: in 5 of 6 builds with one worker, stopped at a random moment. Three builds, each stopped as it
    makes its second chunk."""
    for attempt in range(3):
        out = tmp_path / str(attempt) / "catalog"
        out.parent.mkdir()
        build = subprocess.Popen(
            [sys.executable, "-c", STOPPED, str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert build.stdout is not None and build.stdout.readline() == "chunk\n"
        build.send_signal(signal.SIGTERM)
        _, stderr = build.communicate(timeout=600)  # a safety bound on a build that would otherwise never end
        assert build.returncode == 143, stderr[-2000:]
        assert list(out.parent.iterdir()) == [], "nothing of a stopped build is left"
