"""The janitor: one pass of every sweep (`validator.upkeep.sweeps`, `validator.upkeep.results`,
`validator.upkeep.archive`), safe to run any time, in the node (a scheduled job, every `--janitor.seconds`) or beside
it (`arena-validator janitor [--dry-run]`). Each pass logs what each sweep freed; a sweep that fails is logged and the
others still run; the pass is kept for /healthz and /metrics (`last`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from validator.upkeep import sweeps
from validator.upkeep.archive import trajectories
from validator.upkeep.results import results
from validator.upkeep.sweeps import Freed, Grounds

#: the sweeps in the order a pass runs them
SWEEPS: tuple[Callable[[Grounds], Freed], ...] = (
    sweeps.sandboxes,
    sweeps.staged,
    sweeps.bundles,
    results,
    sweeps.dead_work,
    sweeps.images,
    sweeps.corpus_workspaces,
    sweeps.logs,
    trajectories,
)


@dataclass
class Pass:
    """One janitor pass: when, whether it only looked, what each sweep freed, what failed (one line each)."""

    started: float
    ended: float = 0.0
    dry_run: bool = False
    freed: list[Freed] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def bytes(self) -> int:
        return sum(f.bytes for f in self.freed)

    @property
    def items(self) -> int:
        return sum(len(f.items) for f in self.freed)

    def summary(self) -> str:
        verb = "would free" if self.dry_run else "freed"
        done = f"{verb} {self.items} item(s), {self.bytes / 1e6:.1f} MB in {self.ended - self.started:.1f}s"
        return done + (f"; {len(self.errors)} sweep(s) failed: {'; '.join(self.errors)}" if self.errors else "")


class Janitor:
    """Runs passes over `grounds` (fresh `now` each pass); `last` is the latest pass, None before the first."""

    def __init__(
        self, grounds: Grounds, *, log: Any = None, metrics: Any = None, work: Callable[[], Path | None] | None = None
    ) -> None:
        self.grounds = grounds
        self.work = work  # the node's work folder now (made when the node starts), for the sweeps that read it
        self.log = log
        self.metrics = metrics
        self.last: Pass | None = None

    def run(self, *, dry_run: bool = False, progress: Callable[[Freed], None] | None = None) -> Pass:
        work = self.work() if self.work is not None else self.grounds.work
        grounds = replace(self.grounds, dry_run=dry_run, now=time.time(), work=work)
        done = Pass(started=grounds.now, dry_run=dry_run)
        for sweep in SWEEPS:
            try:
                freed = sweep(grounds)
            except Exception as exc:  # noqa: BLE001 - one sweep failing never stops the others
                done.errors.append(f"{sweep.__name__}: {type(exc).__name__}: {str(exc)[:200]}")
                self._log("warning", "janitor.sweep_failed", sweep=sweep.__name__, error=done.errors[-1])
                continue
            done.freed.append(freed)
            if progress is not None:
                progress(freed)
            if freed.items:
                self._log(
                    "info",
                    "janitor.would_free" if dry_run else "janitor.freed",
                    what=freed.what,
                    items=len(freed.items),
                    bytes=freed.bytes,
                    names=freed.items[:20],
                )
        done.ended = time.time()
        self._log("info", "janitor.pass", dry_run=dry_run, summary=done.summary())
        if not dry_run:
            self.last = done
            if self.metrics is not None and hasattr(self.metrics, "janitor_pass"):
                self.metrics.janitor_pass(done)
        return done

    def _log(self, level: str, event: str, **kw: Any) -> None:
        if self.log is not None:
            getattr(self.log, level)(event, **kw)
