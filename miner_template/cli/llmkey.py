"""The LLM key `arena-miner serve` hands to validators, sealed (`validator.chain.sealedkey`): read from an environment
variable (`--llm-key-env`, by default ``ARENA_MINER_LLM_KEY``) or a file (`--llm-key-file`), never from the bundle
folder; checked (not empty, not oversized, one line) before the server starts. Nothing here prints the key."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import SecretStr

from arena.cliutil import fail

if TYPE_CHECKING:
    from validator.chain.sealedkey import MinerKeyConfig

DEFAULT_KEY_ENV = "ARENA_MINER_LLM_KEY"
_PANEL = "Paying for your own inference"

LlmProvider = Annotated[
    str | None,
    typer.Option(
        "--llm-provider",
        help="The provider your key is for, by the name validators allow (docs/miner.md): with it, validators "
        "that let miners pay send your runs' LLM calls there with your key.",
        rich_help_panel=_PANEL,
    ),
]
LlmModel = Annotated[
    str | None,
    typer.Option(
        "--llm-model",
        help="The model your agent is told to use (default: the provider's first).",
        rich_help_panel=_PANEL,
    ),
]
LlmKeyEnv = Annotated[
    str, typer.Option("--llm-key-env", help="The environment variable holding your key.", rich_help_panel=_PANEL)
]
LlmKeyFile = Annotated[
    Path | None,
    typer.Option(
        "--llm-key-file", help="A file holding your key (one line), instead of the environment.", rich_help_panel=_PANEL
    ),
]


def read_llm_key(
    provider: str | None, model: str | None, key_env: str, key_file: Path | None, bundle: Path
) -> MinerKeyConfig | None:
    """The key config to serve (None without --llm-provider); one line and exit 2 for a key missing or unusable."""
    from validator.chain.sealedkey import MinerKeyConfig, SealedKeyError

    if provider is None:
        if key_file is not None:
            fail("--llm-key-file needs --llm-provider (the provider the key is for)")
        return None
    if key_file is not None:
        if key_file.resolve().is_relative_to(bundle.resolve()):
            fail(f"{key_file} is inside the bundle folder {bundle}; keep your key out of what validators download")
        try:
            key = key_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"cannot read the key file {key_file}: {getattr(exc, 'strerror', None) or exc}")
    else:
        key = os.environ.get(key_env, "").strip()
        if not key:
            fail(f"--llm-provider {provider} needs your key in ${key_env} (or --llm-key-file FILE)")
    try:
        return MinerKeyConfig(provider=provider, key=SecretStr(key), model=model)
    except SealedKeyError as exc:
        fail(str(exc))
