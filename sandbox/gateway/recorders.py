"""Where the gateway's events go: every call, refused ones included, becomes a `TrajectoryEvent` handed to a
`Recorder`, in order."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Protocol

from arena.trajectory import TrajectoryEvent


class Recorder(Protocol):
    def record(self, event: TrajectoryEvent) -> None: ...


class MemoryRecorder:
    """Keeps every event in memory, per run."""

    def __init__(self) -> None:
        self.events: dict[str, list[TrajectoryEvent]] = {}
        self._lock = threading.Lock()

    def record(self, event: TrajectoryEvent) -> None:
        with self._lock:
            self.events.setdefault(event.run_id, []).append(event)


class JsonlRecorder:
    """Appends every event as a JSON line to ``path`` (one file for the node, or one per run)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def record(self, event: TrajectoryEvent) -> None:
        line = event.model_dump_json() + "\n"
        with self._lock, open(self.path, "a") as fh:
            fh.write(line)
