"""The host under the node, for /healthz and /metrics: disk free on the store and work folders, available memory,
the Docker engine, the age of the chain's last block, the beacon, the age of the last weights against when they were
due, and the janitor's last pass. Each is a check (True, or `degraded` with one line why; the host never makes the
node failing). Below a floor (`--floor.disk_mb`, `--floor.memory_mb`) the node opens no new race (`floor`) and says
why; it opens again by itself once the floor is met. Nothing of it is charged to a miner: no race, no run."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from validator.health import DEGRADED, State

MB = 1024 * 1024
Check = tuple[State, str]


class Host:
    """The host checks of one node (`arena`: its store, chain, pack, folders), with its floors and janitor."""

    def __init__(
        self,
        arena: Any,
        *,
        floor_disk_mb: float = 0.0,
        floor_memory_mb: float = 0.0,
        janitor: Any = None,
        janitor_seconds: float = 3600.0,
        docker: Any = None,
        block_time: float = 12.0,
        chain_stale: float | None = None,
    ) -> None:
        self.arena = arena
        self.floor_disk = floor_disk_mb * MB
        self.floor_memory = floor_memory_mb * MB
        self.janitor = janitor
        self.janitor_seconds = janitor_seconds
        self.docker = docker
        self.block_time = block_time
        #: the age of the chain's last block past which it stalls (default: ten blocks, at least a minute)
        self.chain_stale = chain_stale if chain_stale is not None else max(60.0, 10 * block_time)
        self.started = time.time()

    # --- the floors

    def folders(self) -> dict[str, Path]:
        """The folders whose disk is watched: the store's (--data-dir) and the node's work folder."""
        found = {"store": Path(self.arena.config.data_dir)}
        work = getattr(self.arena.dispatching, "work", None)
        if work is not None:
            found["work"] = Path(work)
        return found

    def disk_free(self) -> dict[str, int]:
        free = {}
        for name, folder in self.folders().items():
            probe = folder
            while not probe.exists() and probe != probe.parent:
                probe = probe.parent  # a folder not made yet: the disk it will be on
            free[name] = shutil.disk_usage(probe).free
        return free

    @staticmethod
    def memory_available() -> int:
        import psutil

        return int(psutil.virtual_memory().available)

    def floor(self) -> str | None:
        """Why no new race may open now (a line), or None when the host is above its floors."""
        low = [
            f"{name} folder has {free / MB:.0f} MB free, below the floor of {self.floor_disk / MB:.0f} MB "
            "(--floor.disk_mb)"
            for name, free in self.disk_free().items()
            if self.floor_disk and free < self.floor_disk
        ]
        memory = self.memory_available()
        if self.floor_memory and memory < self.floor_memory:
            low.append(
                f"memory available {memory / MB:.0f} MB, below the floor of {self.floor_memory / MB:.0f} MB "
                "(--floor.memory_mb)"
            )
        return "no new race opens: " + "; ".join(low) if low else None

    # --- the checks

    def checks(self) -> dict[str, Check]:
        checks: dict[str, Check] = {}
        for name, probe in (
            ("disk", self._disk),
            ("memory", self._memory),
            ("docker", self._docker),
            ("chain_age", self._chain_age),
            ("beacon", self._beacon),
            ("weights_age", self._weights_age),
            ("janitor", self._janitor),
        ):
            try:
                found = probe()
            except Exception as exc:  # noqa: BLE001 - health reports any failure as data
                found = (DEGRADED, f"cannot read: {type(exc).__name__}: {str(exc)[:200]}")
            if found is not None:
                checks[name] = found
        return checks

    def _disk(self) -> Check:
        free = self.disk_free()
        line = ", ".join(f"{name} {free[name] / MB:.0f} MB free" for name in free)
        low = [n for n, f in free.items() if self.floor_disk and f < self.floor_disk]
        if low:
            return DEGRADED, f"{line}: below the floor of {self.floor_disk / MB:.0f} MB, no new race opens"
        return True, line

    def _memory(self) -> Check:
        memory = self.memory_available()
        if self.floor_memory and memory < self.floor_memory:
            return DEGRADED, (
                f"{memory / MB:.0f} MB available: below the floor of {self.floor_memory / MB:.0f} MB, no new race opens"
            )
        return True, f"{memory / MB:.0f} MB available"

    def _docker(self) -> Check | None:
        if self.docker is None:
            return None
        try:
            version = self.docker.version().get("Version", "?")
        except Exception as exc:  # noqa: BLE001 - any failure to reach the engine
            return DEGRADED, f"the Docker engine does not answer: {type(exc).__name__}: {str(exc)[:200]}"
        return True, f"engine {version} answers"

    def chain_age(self) -> tuple[int, float]:
        """The chain's last block and how many seconds ago it was made."""
        chain = self.arena.chain
        block = chain.block()
        return block, max(0.0, time.time() - float(chain.block_timestamp(block)))

    def _chain_age(self) -> Check:
        block, age = self.chain_age()
        limit = self.chain_stale
        if age > limit:
            return DEGRADED, f"the chain's last block {block} is {age:.0f}s old (over {limit:.0f}s: the chain stalls)"
        return True, f"last block {block}, {age:.0f}s ago"

    def _beacon(self) -> Check:
        if not getattr(self.arena.pack, "sealed", False):
            return True, "not used: the pack's problems are in clear"
        waiting = self.arena.batch_waiting()
        stuck = self.arena.batches_stuck(after=max(120.0, 10 * self.block_time))
        if stuck:
            slot, (seconds, why) = min(stuck.items())
            return DEGRADED, f"sealed batch {slot} waits {seconds:.0f}s for its drand round: {why}"
        if waiting:
            slot, why = min(waiting.items())
            return True, f"sealed batch {slot} waits to open: {why}"
        return True, "every sealed batch due has opened"

    def weights_age(self) -> tuple[int, int, int] | None:
        """(block the last weights were set at, blocks since, blocks they are due every), None before any."""
        last = self.arena.store.last_weights_set()
        if last is None or last.block is None:
            return None
        cadence = int(self.arena.pack.rotation.cadence_blocks)
        return int(last.block), self.arena.chain.block() - int(last.block), cadence

    def _weights_age(self) -> Check:
        found = self.weights_age()
        if found is None:
            return True, "no weights set yet"
        block, age, cadence = found
        due = block + cadence
        if age > cadence * 3 // 2:
            return DEGRADED, (
                f"the last weights were set at block {block}, {age} blocks ago: the next were due at block {due} "
                f"(every {cadence} blocks)"
            )
        return True, f"set at block {block}, {age} blocks ago; next due at block {due}"

    def _janitor(self) -> Check | None:
        if self.janitor is None:
            return None
        last = self.janitor.last
        now = time.time()
        if last is None:
            if now - self.started > 2 * self.janitor_seconds:
                return DEGRADED, f"no janitor pass since the node started {now - self.started:.0f}s ago"
            return True, "no pass yet"
        line = f"last pass {now - last.ended:.0f}s ago: {last.summary()}"
        if last.errors:
            return DEGRADED, line
        if now - last.ended > 2 * self.janitor_seconds:
            return DEGRADED, line + f" (due every {self.janitor_seconds:.0f}s)"
        return True, line


class HostCollector:
    """The host's gauges at scrape time (registered by `validator.metrics.Metrics.watch_host`); a figure that cannot
    be read now is left out, never a failed scrape."""

    def __init__(self, host: Host) -> None:
        self.host = host

    def collect(self) -> Any:
        from prometheus_client.core import GaugeMetricFamily

        host = self.host
        yield from _safe(lambda: _disk_family(host))
        yield from _safe(
            lambda: [GaugeMetricFamily("shoparena_memory_available_bytes", "memory available", host.memory_available())]
        )
        yield from _safe(
            lambda: [
                GaugeMetricFamily(
                    "shoparena_race_opening_blocked",
                    "1 while the host is below a floor: no new race opens",
                    value=1 if host.floor() else 0,
                )
            ]
        )
        yield from _safe(
            lambda: [
                GaugeMetricFamily(
                    "shoparena_chain_block_age_seconds", "seconds since the chain's last block", host.chain_age()[1]
                )
            ]
        )
        yield from _safe(lambda: _weights_family(host))
        yield from _safe(lambda: _janitor_families(host))
        checks = GaugeMetricFamily("shoparena_host_check", "1 ok, 0 degraded, per host check", labels=["check"])
        for name, (state, _detail) in host.checks().items():
            checks.add_metric([name], 1 if state is True else 0)
        yield checks


def _safe(make: Any) -> Any:
    try:
        return list(make())
    except Exception:  # noqa: BLE001 - a figure not read now is left out of this scrape
        return []


def _disk_family(host: Host) -> Any:
    from prometheus_client.core import GaugeMetricFamily

    disk = GaugeMetricFamily("shoparena_disk_free_bytes", "free disk under the node's folders", labels=["folder"])
    for name, free in host.disk_free().items():
        disk.add_metric([name], free)
    return [disk]


def _weights_family(host: Host) -> Any:
    from prometheus_client.core import GaugeMetricFamily

    found = host.weights_age()
    if found is None:
        return []
    _block, age, cadence = found
    return [
        GaugeMetricFamily("shoparena_weights_age_blocks", "blocks since the last weights were set", age),
        GaugeMetricFamily("shoparena_weights_due_blocks", "blocks between weights (the pack's cadence)", cadence),
    ]


def _janitor_families(host: Host) -> Any:
    from prometheus_client.core import GaugeMetricFamily

    last = host.janitor.last if host.janitor is not None else None
    if last is None:
        return []
    return [
        GaugeMetricFamily("shoparena_janitor_last_pass_timestamp", "when the janitor's last pass ended", last.ended),
        GaugeMetricFamily("shoparena_janitor_freed_bytes", "bytes the janitor's last pass freed", last.bytes),
        GaugeMetricFamily("shoparena_janitor_sweeps_failed", "sweeps that failed in the last pass", len(last.errors)),
    ]
