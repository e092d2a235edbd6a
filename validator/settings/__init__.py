"""The node's settings: one pydantic-settings object, read as CLI flags > environment > `.env` > defaults.

Flags follow btcli (`--wallet.name`, `--subtensor.network`, `--netuid`, ...); every field is also read from
`ARENA_<FIELD>` in the environment or in `.env` (for example `ARENA_WALLET_NAME`, `ARENA_DATABASE_URL`). Reading
settings never connects anywhere. Every problem is collected and reported at once by `load_settings`.
"""

from validator.settings.example import env_example
from validator.settings.load import (
    GROUPS,
    REQUIREMENTS,
    SettingsError,
    Source,
    env_name,
    field_flag,
    field_group,
    load_settings,
    setting_sources,
)
from validator.settings.model import Settings, flag, mask_url

__all__ = [
    "GROUPS",
    "REQUIREMENTS",
    "Settings",
    "SettingsError",
    "Source",
    "env_example",
    "env_name",
    "field_flag",
    "field_group",
    "flag",
    "load_settings",
    "mask_url",
    "setting_sources",
]
