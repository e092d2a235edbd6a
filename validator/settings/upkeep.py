"""The settings of the node's upkeep: the janitor's retention (what a pass may remove, and when) and the host floors
below which no new race opens (`validator.upkeep`, docs/validator.md "Janitor and retention", "Host floors")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, model_validator


def _flag(name: str) -> dict[str, Any]:
    return {"flag": name}


class UpkeepSettings(BaseModel):
    """Mixed into `validator.settings.Settings`: its fields are read like the others (flag, ARENA_<FIELD>, .env)."""

    janitor_seconds: float = Field(
        3600.0,
        ge=60,
        le=7 * 86400,
        description="seconds between the janitor's passes in the node (arena-validator janitor runs one now)",
        json_schema_extra=_flag("--janitor.seconds"),
    )
    retention_bundle_days: float = Field(
        7.0,
        ge=0,
        description="days a superseded or rejected agent bundle is kept (0: removed at the next pass); a bundle a "
        "miner's latest or pending submission or an unclosed race uses is never removed",
        json_schema_extra=_flag("--retention.bundle_days"),
    )
    retention_results_days: float = Field(
        30.0,
        ge=0,
        description="days the pooled results bundles of a race (<data-dir>/results: this node's and those fetched "
        "from other validators) are kept after it ended, for auditors; a bundle of a race whose weights are not set "
        "yet, of the pooling window's races, or not yet public is never removed",
        json_schema_extra=_flag("--retention.results_days"),
    )
    retention_images_keep: int = Field(
        1,
        ge=0,
        le=100,
        description="older sandbox images kept beside the one in use (images a container uses are always kept)",
        json_schema_extra=_flag("--retention.images_keep"),
    )
    retention_corpus_days: float = Field(
        7.0,
        gt=0,
        description="days an interrupted corpus export's workspace (.<out>.partial under --data-dir) is kept for a "
        "resume; one an export holds is never removed",
        json_schema_extra=_flag("--retention.corpus_days"),
    )
    log_file: Path | None = Field(
        None,
        description="also write the node's log to this file, inside --data-dir (rotated by the janitor)",
        json_schema_extra=_flag("--log.file"),
    )
    retention_log_mb: float = Field(
        100.0,
        gt=0,
        description="size at which the janitor rotates --log.file (MB)",
        json_schema_extra=_flag("--retention.log_mb"),
    )
    retention_log_keep: int = Field(
        5,
        ge=1,
        le=1000,
        description="rotated log files kept (--log.file.1 the newest)",
        json_schema_extra=_flag("--retention.log_keep"),
    )
    retention_trajectory_days: float | None = Field(
        None,
        gt=0,
        description="archive and then drop the trajectories of races closed over this many days ago (off by "
        "default; needs --retention.archive)",
        json_schema_extra=_flag("--retention.trajectory_days"),
    )
    retention_archive: Path | None = Field(
        None,
        description="the file inside --data-dir (JSON Lines, appended) trajectories are archived to before they are "
        "dropped",
        json_schema_extra=_flag("--retention.archive"),
    )
    floor_disk_mb: float = Field(
        1024.0,
        ge=0,
        description="free disk (MB) the store and work folders need for a new race to open (0: no floor)",
        json_schema_extra=_flag("--floor.disk_mb"),
    )
    floor_memory_mb: float = Field(
        512.0,
        ge=0,
        description="available memory (MB) the host needs for a new race to open (0: no floor)",
        json_schema_extra=_flag("--floor.memory_mb"),
    )

    @model_validator(mode="after")
    def _retention_paths(self) -> Any:
        data_dir = getattr(self, "data_dir", Path("var/validator"))
        if self.retention_trajectory_days is not None and self.retention_archive is None:
            raise ValueError(
                "--retention.trajectory_days needs --retention.archive (the file trajectories are archived to "
                "before they are dropped)"
            )
        for name, path in (("--log.file", self.log_file), ("--retention.archive", self.retention_archive)):
            if path is not None and not inside(path, data_dir):
                raise ValueError(
                    f"{name} {path} is outside the node's folder --data-dir {data_dir}; give a file inside it"
                )
        return self


def inside(path: Path, folder: Path) -> bool:
    """Whether `path` (relative to the working folder, `~` expanded, links followed) lies strictly inside `folder`."""
    resolved = path.expanduser().resolve()
    root = folder.expanduser().resolve()
    return resolved != root and resolved.is_relative_to(root)
