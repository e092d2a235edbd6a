"""The janitor's sweeps on disk, one function each: what it may remove, never what is still needed. Each takes the
pass's `Grounds` and returns what it freed (or, in a dry run, would free)."""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import owner
from validator.upkeep.removal import discard, finish, size_of

DAY = 86400.0
_SHA = re.compile(r"^([0-9a-f]{64})(\.tar\.gz|\.fingerprint\.json)?$")
#: the node's private work folders (`validator.races.Arena.start`), in the temp folder, each with its owner's pid
WORK_PREFIX = "shoparena-node-"
OWNER_FILE = "node.pid"


@dataclass
class Retention:
    """What the janitor keeps (`validator.settings.upkeep`)."""

    bundle_days: float = 7.0
    results_days: float = 30.0
    images_keep: int = 1
    corpus_days: float = 7.0
    log_file: Path | None = None
    log_bytes: int = 100 * 1024 * 1024
    log_keep: int = 5
    trajectory_days: float | None = None
    archive: Path | None = None

    @classmethod
    def from_settings(cls, settings: Any) -> Retention:
        return cls(
            bundle_days=settings.retention_bundle_days,
            results_days=settings.retention_results_days,
            images_keep=settings.retention_images_keep,
            corpus_days=settings.retention_corpus_days,
            log_file=settings.log_file,
            log_bytes=int(settings.retention_log_mb * 1024 * 1024),
            log_keep=settings.retention_log_keep,
            trajectory_days=settings.retention_trajectory_days,
            archive=settings.retention_archive,
        )


@dataclass
class Freed:
    """What one sweep removed: how many things, how many bytes (0 when not measured: sandboxes), their names."""

    what: str
    items: list[str] = field(default_factory=list)
    bytes: int = 0


@dataclass
class Grounds:
    """What a pass works on: the store, the node's folders, its sandbox and Docker engine (if any), and whether it
    only looks (`dry_run`)."""

    store: Any
    data_dir: Path
    retention: Retention
    dry_run: bool = False
    sandbox: Any = None
    docker: Any = None  # a docker client, when the node's sandboxes are Docker containers
    image_repo: str = "shoparena-sandbox"
    images_in_use: set[str] = field(default_factory=set)  # tags never removed (the node's configured image)
    work: Path | None = None  # this node's own work folder, when the pass runs inside the node
    in_flight: Callable[[], set[str]] = set
    temp: Path = field(default_factory=lambda: Path(tempfile.gettempdir()))
    now: float = field(default_factory=time.time)


def _remove(grounds: Grounds, freed: Freed, path: Path) -> None:
    freed.bytes += size_of(path) if grounds.dry_run else discard(path)
    freed.items.append(path.name)


def bundles(grounds: Grounds) -> Freed:
    """Agent bundles (folder, archive, fingerprints) under <data-dir>/bundles that nothing needs
    (`Store.bundles_in_use`) and untouched for `bundle_days`."""
    freed = Freed("bundles")
    folder = grounds.data_dir / "bundles"
    if not folder.is_dir():
        return freed
    if not grounds.dry_run:
        freed.bytes += finish(folder)
    needed = grounds.store.bundles_in_use()
    cutoff = grounds.now - grounds.retention.bundle_days * DAY
    for entry in sorted(folder.iterdir()):
        match = _SHA.match(entry.name)
        if match is None or match.group(1) in needed:
            continue
        try:
            if entry.lstat().st_mtime > cutoff:
                continue
        except OSError:
            continue
        _remove(grounds, freed, entry)
    return freed


def staged(grounds: Grounds) -> Freed:
    """Agents staged in this node's work folder (<work>/agents/<sha256>) that nothing needs any more; staged again
    from the bundle if a run wants one later."""
    freed = Freed("staged agents")
    if grounds.work is None or not (grounds.work / "agents").is_dir():
        return freed
    folder = grounds.work / "agents"
    if not grounds.dry_run:
        freed.bytes += finish(folder)
    needed = grounds.store.bundles_in_use()
    for entry in sorted(folder.iterdir()):
        if _SHA.match(entry.name) and entry.name not in needed:
            _remove(grounds, freed, entry)
    return freed


def dead_work(grounds: Grounds) -> Freed:
    """Work folders of nodes that are gone (their owner file's lock is free and its pid no longer runs, or runs a
    later process): the gateway socket, staged agents and runtime files a killed node left in the temp folder. A
    running node holds the lock for its life, so its folder is kept whatever the clock did (a forward step moves
    every process's start as psutil reads it); this node's own is never one."""
    freed = Freed("dead nodes' work folders")
    for entry in sorted(grounds.temp.glob(f"{WORK_PREFIX}*")):
        if entry == grounds.work or not entry.is_dir():
            continue
        try:
            pid = int((entry / OWNER_FILE).read_text().strip())
            made = (entry / OWNER_FILE).stat().st_mtime
        except (OSError, ValueError):
            continue  # no owner recorded: not a folder this code made, left alone
        if not owner.held(entry / OWNER_FILE) and owner.gone(pid, since=made):
            _remove(grounds, freed, entry)
    return freed


def sandboxes(grounds: Grounds) -> Freed:
    """Sandboxes (containers, or bubblewrap cgroups and the processes left in them) of runs this store holds as final
    and no run of this node is in: a run that ended but whose sandbox stayed (the node killed mid-cleanup)."""
    from validator.store.moves import FINAL_STATUSES

    freed = Freed("sandbox leftovers")
    leftovers = getattr(grounds.sandbox, "leftovers", None)
    if leftovers is None:
        return freed
    found = set(leftovers())
    statuses = grounds.store.run_statuses(found)
    done = {r for r, status in statuses.items() if status in FINAL_STATUSES} - grounds.in_flight()
    if done and not grounds.dry_run:
        grounds.sandbox.reap(done)
    freed.items = sorted(done)
    return freed


def images(grounds: Grounds) -> Freed:
    """Tags of older sandbox builds (`image_repo`) beyond the `images_keep` newest: never the tag the node runs, nor
    an image any container (running or stopped) uses."""
    freed = Freed("sandbox images")
    if grounds.docker is None:
        return freed
    from sandbox.image.build import image_tag

    client = grounds.docker
    keep = {image_tag(), getattr(grounds.sandbox, "image", None), *grounds.images_in_use}
    used = {c.attrs.get("Image") for c in client.containers.list(all=True)}
    tagged = []
    for image in client.images.list(name=grounds.image_repo):
        tags = [t for t in image.tags if t.split(":", 1)[0] == grounds.image_repo]
        if image.id in used or any(t in keep for t in tags):
            continue
        tagged.append((str(image.attrs.get("Created", "")), image, tags))
    tagged.sort(key=lambda row: row[0], reverse=True)
    for _created, image, tags in tagged[grounds.retention.images_keep :]:
        for tag in tags:
            if not grounds.dry_run:
                client.images.remove(tag)
            freed.items.append(tag)
        freed.bytes += int(image.attrs.get("Size") or 0)
    return freed


def corpus_workspaces(grounds: Grounds) -> Freed:
    """Workspaces of corpus exports under <data-dir> (`.<out>.partial`, one level down at most) untouched for
    `corpus_days` and held by no export (its lock is free): an export interrupted and never resumed."""
    freed = Freed("corpus workspaces")
    roots = (
        [grounds.data_dir, *(p for p in grounds.data_dir.iterdir() if p.is_dir())] if grounds.data_dir.is_dir() else []
    )
    cutoff = grounds.now - grounds.retention.corpus_days * DAY
    for root in roots:
        for entry in sorted(root.glob(".*.partial")):
            marks = [entry / "work.sqlite", entry / "lock"]
            if not entry.is_dir() or not any(m.exists() for m in marks):
                continue
            if max(m.stat().st_mtime for m in marks if m.exists()) > cutoff:
                continue
            lock = owner.claim(entry / "lock")
            if lock is None:
                continue  # an export holds it
            with lock:
                _remove(grounds, freed, entry)
    return freed


def logs(grounds: Grounds) -> Freed:
    """The node's log file rotated once it passes `log_bytes` (renamed to <file>.1, the older ones shifted; the node
    reopens its file), and rotated files beyond `log_keep` removed."""
    freed = Freed("logs")
    current = grounds.retention.log_file
    if current is None:
        return freed
    keep = grounds.retention.log_keep

    def rotated(n: int) -> Path:
        return current.with_name(f"{current.name}.{n}")

    for old in sorted(current.parent.glob(f"{current.name}.*")):
        suffix = old.name.rsplit(".", 1)[1]
        if suffix.isdigit() and int(suffix) > keep:
            _remove(grounds, freed, old)
    if grounds.dry_run or not current.is_file() or current.stat().st_size < grounds.retention.log_bytes:
        return freed
    if rotated(keep).exists():
        _remove(grounds, freed, rotated(keep))
    for n in range(keep - 1, 0, -1):
        if rotated(n).exists():
            os.replace(rotated(n), rotated(n + 1))
    os.replace(current, rotated(1))
    freed.items.append(f"{current.name} rotated")
    return freed
