"""Reading the settings: flags > environment > `.env` > defaults, every problem reported at once."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import SecretStr, ValidationError
from pydantic_settings import SettingsError as SourceError

from validator.settings.model import Settings, mask_url


class SettingsError(Exception):
    """Settings that cannot be used; `problems` lists every one, each a line a person can act on."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def _shown(name: str, value: Any) -> str:
    """A rejected value as a problem line shows it: a secret field's value is masked like `masked()` does."""
    if name in Settings.model_fields and _is_secret(name):
        return repr(mask_url(value)) if isinstance(value, str) and "://" in value else "'****'"
    return repr(value)


def _is_secret(name: str) -> bool:
    annotation = Settings.model_fields[name].annotation
    return annotation is SecretStr or SecretStr in getattr(annotation, "__args__", ())


REQUIREMENTS: dict[str, tuple[str, ...]] = {"run": ("netuid",)}


def ordered_fields() -> list[str]:
    """The settings' field names in the order help and `.env.example` show them: the node's, then its upkeep's."""
    from validator.settings.upkeep import UpkeepSettings

    upkeep = list(UpkeepSettings.model_fields)
    return [name for name in Settings.model_fields if name not in upkeep] + upkeep


def field_flag(name: str) -> str:
    extra = Settings.model_fields[name].json_schema_extra
    return str(extra["flag"]) if isinstance(extra, dict) else f"--{name}"


#: the headings a command's help lists the settings flags under, each with its fields (every field in one)
GROUPS: dict[str, tuple[str, ...]] = {
    "chain": (
        "wallet_name",
        "wallet_hotkey",
        "wallet_path",
        "chain",
        "subtensor_network",
        "subtensor_chain_endpoint",
        "netuid",
        "localchain_path",
    ),
    "store": ("data_dir", "database_url"),
    "pack": ("catalog", "pack", "pack_signer", "pack_allow_dev_signer"),
    "sandbox": (
        "sandbox_backend",
        "sandbox_runtime",
        "sandbox_image",
        "sandbox_wall_seconds",
        "sandbox_memory_mb",
        "sandbox_pids",
    ),
    "races": ("concurrency", "max_attempts", "copy_similarity", "races_fault_wait", "beacon_relay"),
    "cluster": ("dispatch", "ray_address", "ray_cpus_per_run"),
    "agents' LLM": (
        "gateway_upstream",
        "gateway_api_key",
        "gateway_models",
        "gateway_token_budget",
        "gateway_cost_budget",
        "gateway_max_tokens",
        "gateway_usd_per_1k_prompt",
        "gateway_usd_per_1k_completion",
        "gateway_payer",
        "gateway_providers",
        "gateway_provider_failures",
    ),
    "judge": ("judge", "judge_url", "judge_api_key", "judge_models", "judge_concurrency", "judge_token_budget"),
    "weights": ("weight_policy", "burn_uid", "weight_shadow"),
    "pooling": (
        "pool",
        "pool_cutoff_blocks",
        "pool_early",
        "pool_wait_blocks",
        "pool_max_mb",
        "pool_url",
        "pool_public_blocks",
    ),
    "API and logs": ("api_host", "api_port", "log_json", "log_file"),
    "upkeep": (
        "janitor_seconds",
        "retention_bundle_days",
        "retention_results_days",
        "retention_images_keep",
        "retention_corpus_days",
        "retention_log_mb",
        "retention_log_keep",
        "retention_trajectory_days",
        "retention_archive",
        "floor_disk_mb",
        "floor_memory_mb",
    ),
    "stop and upgrade": ("stop_drain_seconds", "upgrade_channel"),
}


def field_group(name: str) -> str:
    """The heading a setting is listed under in a command's help (`GROUPS`; "other" for one not yet in a group)."""
    return next((group for group, fields in GROUPS.items() if name in fields), "other")


def env_name(name: str) -> str:
    return f"ARENA_{name.upper()}"


#: where a setting's value came from, in the order they win: a flag, ARENA_<FIELD> in the environment, the .env file
Source = Literal["flag", "env", ".env", "default"]


def setting_sources(given: Mapping[str, Any], env_file: str | Path | None = ".env") -> dict[str, Source]:
    """Where each setting's value comes from, as `load_settings` reads it: a flag of `given` (by field name; None
    means not given), else ``ARENA_<FIELD>`` in the environment, else in `env_file`, else the field's default."""
    from dotenv import dotenv_values

    environ = {k.upper() for k in os.environ}
    path = Path(env_file) if env_file is not None else None
    dotenv = {k.upper() for k in dotenv_values(path)} if path is not None and path.is_file() else set()
    found: dict[str, Source] = {}
    for name in Settings.model_fields:
        env = env_name(name).upper()
        flagged = given.get(name) is not None
        found[name] = "flag" if flagged else "env" if env in environ else ".env" if env in dotenv else "default"
    return found


def load_settings(
    overrides: dict[str, Any] | None = None, *, require: tuple[str, ...] = (), env_file: str | Path | None = ".env"
) -> Settings:
    """Settings from flags (`overrides`, by field name; None means not given), the environment, `.env`, defaults.

    Raises `SettingsError` listing every problem: each invalid value and each required setting that is missing.
    """
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    problems: list[str] = []
    settings: Settings | None = None
    try:
        settings = Settings(_env_file=env_file, **given)
    except SourceError as exc:  # a value pydantic-settings could not even read
        problems.append(str(exc))
    except ValidationError as exc:
        bad: set[str] = set()
        for error in exc.errors():
            loc = [str(part) for part in error["loc"] if part not in ("", None)]
            message = str(error["msg"]).removeprefix("Value error, ")
            if loc:
                name = loc[0]
                where = field_flag(name) if name in Settings.model_fields else name
                value = given.get(name, error.get("input"))
                problems.append(f"{where} (or {env_name(name)}): {message} (got {_shown(name, value)})")
                bad.add(name)
            else:
                problems.append(message)
        if require and bad <= set(Settings.model_fields):
            # the invalid values set aside (at their defaults), so a missing required setting is listed too
            defaults = {name: Settings.model_fields[name].get_default(call_default_factory=True) for name in bad}
            try:
                settings_rest = Settings(_env_file=env_file, **{**given, **defaults})
            except (ValidationError, SourceError):
                settings_rest = None
            if settings_rest is not None:
                problems += _missing(settings_rest, tuple(n for n in require if n not in bad))
    if settings is not None:
        problems += _missing(settings, require)
    if problems:
        raise SettingsError(problems)
    assert settings is not None
    return settings


def _missing(settings: Settings, require: tuple[str, ...]) -> list[str]:
    return [
        f"{field_flag(name)} (or {env_name(name)}) is required" for name in require if getattr(settings, name) is None
    ]
