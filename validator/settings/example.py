"""`deploy/.env.example`, generated from the settings model."""

from __future__ import annotations

from validator.settings.load import env_name, field_flag, ordered_fields
from validator.settings.model import Settings


def env_example() -> str:
    """`deploy/.env.example`: every setting as its environment variable, commented, with its flag and default."""
    lines = [
        "# ShopArena validator settings. Copy to .env (next to docker-compose.yml, or the node's working folder)",
        "# and uncomment what you change. Flags (--wallet.name ...) override these; these override defaults.",
        "# Generated from validator/settings/model.py (a test keeps them in step).",
        "",
        "# --- docker compose only (deploy/docker-compose.yml) ---",
        "# the store's password (the node's ARENA_DATABASE_URL is built from it in the compose file)",
        "POSTGRES_PASSWORD=change-me",
        "# a host folder mounted at the same path in the node: sandbox containers started through the host's",
        "# Docker mount the gateway socket and bundles from it, so its path must be the same on both sides",
        "SHOPARENA_HOME=/var/lib/shoparena",
        "# the host's bittensor wallets (mounted read-only)",
        "WALLETS_DIR=~/.bittensor/wallets",
        "# the node image (bash deploy/build-node-image prints its tag)",
        "SHOPARENA_IMAGE=shoparena-node:0.1.0",
        "",
        "# --- deploy/ray/compose.yml only (a Ray cluster's head and workers beside the node) ---",
        "# the cluster's image (bash deploy/ray/build-image prints its tag), the workers' catalog copy (a host",
        "# folder), each worker's CPUs and memory in bytes (with --ray.cpus_per_run and --sandbox.memory_mb, how",
        "# many runs it takes at once)",
        "# SHOPARENA_RAY_IMAGE=shoparena-ray:0.1.0",
        "# SHOPARENA_CATALOG=/var/lib/shoparena/catalog",
        "# RAY_WORKER_CPUS=2",
        "# RAY_WORKER_MEMORY=4294967296",
        "",
        "# --- the node's settings ---",
        "",
    ]
    for name in ordered_fields():
        info = Settings.model_fields[name]
        default = info.get_default(call_default_factory=True)
        if isinstance(default, list):
            default = ",".join(default)
        shown = "" if default is None else str(default)
        lines.append(f"# {info.description} ({field_flag(name)})")
        lines.append(f"# {env_name(name)}={shown}")
        lines.append("")
    return "\n".join(lines)
