"""The settings of the node's sandbox: its backend, image and runtime, and each run's limits (`sandbox.backends`,
docs/validator.md "The sandboxes' second wall", "gVisor")."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


def flag(name: str) -> dict[str, Any]:
    return {"flag": name}


class SandboxSettings(BaseModel):
    """Mixed into `validator.settings.Settings`: its fields are read like the others (flag, ARENA_<FIELD>, .env)."""

    sandbox_backend: Literal["process", "docker"] = Field(
        "process", description="process (bubblewrap) or docker", json_schema_extra=flag("--sandbox.backend")
    )
    sandbox_image: str | None = Field(
        None,
        description="Docker image for the docker backend (default: the built one)",
        json_schema_extra=flag("--sandbox.image"),
    )
    sandbox_runtime: Literal["runsc"] | None = Field(
        None,
        description="OCI runtime for the docker backend: runsc (gVisor); default: the engine's (runc)",
        json_schema_extra=flag("--sandbox.runtime"),
    )
    sandbox_wall_seconds: float = Field(
        300.0, gt=0, le=3600, description="wall-clock limit per run", json_schema_extra=flag("--sandbox.wall_seconds")
    )
    sandbox_memory_mb: int = Field(
        1024, ge=64, le=65536, description="memory limit per run", json_schema_extra=flag("--sandbox.memory_mb")
    )
    sandbox_pids: int = Field(
        128, ge=8, le=4096, description="process limit per run", json_schema_extra=flag("--sandbox.pids")
    )
