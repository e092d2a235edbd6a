"""A Ray worker host whose runners' replies are corrupted on their way back to the node: put this folder first on a
worker node's PYTHONPATH (the environment of its `ray start`, the worker host's side; nothing the node runs is
changed) with ``SHOPARENA_TEST_CUT_REPLIES`` naming a folder. Each file named ``run`` or ``collect`` put there cuts
the next reply of that kind (``run.ID`` or ``collect.ID``: only the reply of run ID, whatever else a worker still runs
from an earlier test) (`validator.dispatch.worker.Runner.run`: a run's; ``collect``: a run an earlier node
started, re-attached to) to its first half, the bytes the runner hands Ray, so the node receives a reply that does not
unpack. The file is removed as it is used: one reply each, whichever worker process takes it first. A ``collect``
reply cut waits until its runner runs another run as well (a bound of 2 minutes), and names those runs in
``collect.beside``: a node that kills the runner for the bad reply would end them.

Python imports ``sitecustomize`` at every start; without the variable this does nothing."""

from __future__ import annotations

import os
from typing import Any

FOLDER = os.environ.get("SHOPARENA_TEST_CUT_REPLIES")


def _claim(kind: str, run_id: str) -> bool:
    for name in (f"{kind}.{run_id}", kind):
        try:
            os.unlink(os.path.join(FOLDER or "", name))
        except FileNotFoundError:
            continue
        return True
    return False


def _cutting(kind: str, real: Any) -> Any:
    import functools

    @functools.wraps(real)
    def reply(self: Any, *args: Any, **kwargs: Any) -> Any:
        packed = real(self, *args, **kwargs)
        run_id = args[0] if kind == "collect" else args[0].run_id
        if not isinstance(packed, bytes) or not _claim(kind, run_id):
            return packed
        if kind == "collect":
            _beside(self, args[0])
        return packed[: len(packed) // 2]

    return reply


def _beside(runner: Any, run_id: str, bound: float = 120.0) -> None:
    """A collected reply cut is handed over only once its runner runs another run too (as a restarted node sends a
    runner whose held reply waits a new run), or after `bound` seconds; the runs it ran beside are written to
    ``collect.beside`` (one id a line) for the test to check that they lived on."""
    import time

    deadline = time.monotonic() + bound
    while True:
        with runner.lock:
            others = sorted(r for r, held in runner.runs.items() if r != run_id and not held.done.is_set())
        if others or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    with open(os.path.join(FOLDER or "", "collect.beside"), "w") as out:
        out.write("".join(f"{r}\n" for r in others))


def _install() -> None:
    import importlib.abc
    import importlib.machinery
    import sys

    class Finder(importlib.abc.MetaPathFinder):
        """The runner's module loaded as ever, its reply methods wrapped once it is."""

        def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
            if name != "validator.dispatch.worker":
                return None
            spec = importlib.machinery.PathFinder.find_spec(name, path, target)
            if spec is None or spec.loader is None:
                return spec
            loader, load = spec.loader, spec.loader.exec_module

            def exec_module(module: Any) -> None:
                load(module)
                for kind in ("run", "collect"):
                    setattr(module.Runner, kind, _cutting(kind, getattr(module.Runner, kind)))

            loader.exec_module = exec_module  # type: ignore[method-assign]  # this spec's loader only
            return spec

    sys.meta_path.insert(0, Finder())


if FOLDER:
    _install()
