"""The node's settings model: every field with its flag, environment variable, default and checks.

See `validator.settings` for how they are read."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from arena.copies import COPY_THRESHOLD
from arena.weights import POLICIES
from validator.settings.payer import PayerSettings
from validator.settings.sandbox import SandboxSettings
from validator.settings.upkeep import UpkeepSettings


def flag(name: str) -> dict[str, Any]:
    return {"flag": name}


class Settings(BaseSettings, SandboxSettings, UpkeepSettings, PayerSettings):
    """Everything a validator node is configured by (the sandbox: `validator.settings.sandbox`; the janitor's
    retention and the host floors: `validator.settings.upkeep`; who pays for agents' LLM calls:
    `validator.settings.payer`)."""

    model_config = SettingsConfigDict(
        env_prefix="ARENA_", env_file=".env", env_file_encoding="utf-8", extra="ignore", validate_default=True
    )

    # -- chain and wallet (btcli names) -------------------------------------------------------------------------
    wallet_name: str = Field("default", description="wallet (coldkey) name", json_schema_extra=flag("--wallet.name"))
    wallet_hotkey: str = Field("default", description="hotkey name", json_schema_extra=flag("--wallet.hotkey"))
    wallet_path: Path = Field(
        Path("~/.bittensor/wallets"),
        description="folder holding the wallets (with --chain localchain and none given: the chain's dev wallets, "
        "wallets/ beside its file, when they hold --wallet.name)",
        json_schema_extra=flag("--wallet.path"),
    )
    chain: Literal["subtensor", "localchain"] = Field(
        "subtensor",
        description="subtensor (bittensor SDK) or localchain (the dev chain in a file)",
        json_schema_extra=flag("--chain"),
    )
    subtensor_network: str = Field(
        "finney", description="finney, test, local or archive", json_schema_extra=flag("--subtensor.network")
    )
    subtensor_chain_endpoint: str | None = Field(
        None,
        description="ws(s):// endpoint; overrides --subtensor.network",
        json_schema_extra=flag("--subtensor.chain_endpoint"),
    )
    netuid: int | None = Field(None, ge=0, le=65535, description="the subnet's uid", json_schema_extra=flag("--netuid"))
    localchain_path: Path = Field(
        Path("var/localchain.sqlite"),
        description="the LocalChain file (with --chain localchain)",
        json_schema_extra=flag("--localchain.path"),
    )

    # -- the node -------------------------------------------------------------------------------------------------
    data_dir: Path = Field(
        Path("var/validator"),
        description="where the node keeps bundles, runs and its SQLite store",
        json_schema_extra=flag("--data-dir"),
    )
    database_url: SecretStr | None = Field(
        None,
        description="SQLAlchemy URL (postgresql+psycopg://... or sqlite:///...); default: SQLite in --data-dir",
        json_schema_extra=flag("--database-url"),
    )
    concurrency: int = Field(2, ge=1, le=256, description="runs at once", json_schema_extra=flag("--concurrency"))
    max_attempts: int = Field(
        3,
        ge=1,
        le=20,
        description="attempts per run when the validator is to blame",
        json_schema_extra=flag("--max-attempts"),
    )
    copy_similarity: float = Field(
        COPY_THRESHOLD,
        gt=0,
        le=1,
        description="code similarity at which a later submission is a copy of an earlier one (or a template) and "
        "earns only by beating it beyond noise (docs/validator.md, Copies)",
        json_schema_extra=flag("--copies.similarity"),
    )
    races_fault_wait: float | None = Field(
        None,
        ge=0,
        description="seconds a race waits for a validator fault (LLM, Docker) that outlasted --max-attempts to "
        "clear; then the race is voided, the last weights stand (default: half the cadence)",
        json_schema_extra=flag("--races.fault_wait"),
    )
    stop_drain_seconds: float = Field(
        45.0,
        ge=0,
        le=3600,
        description="on SIGTERM, seconds the runs in flight may take to finish; the rest are put back for the next "
        "start (0: at once; keep it below systemd's TimeoutStopSec and compose's stop_grace_period)",
        json_schema_extra=flag("--stop.drain_seconds"),
    )
    upgrade_channel: str | None = Field(
        None,
        description="the pinned release channel upgrade-check reads: a file or an http(s) URL naming a version",
        json_schema_extra=flag("--upgrade.channel"),
    )
    dispatch: Literal["local", "ray"] = Field(
        "local",
        description="where runs' sandboxes run: local (this host) or ray (the workers of a Ray cluster, "
        "pip install 'shoparena[ray]')",
        json_schema_extra=flag("--dispatch"),
    )
    ray_address: str | None = Field(
        None,
        description="the Ray cluster's head (host:port, as ray start --head prints it) with --dispatch ray",
        json_schema_extra=flag("--ray.address"),
    )
    ray_cpus_per_run: float = Field(
        1.0,
        gt=0,
        le=64,
        description="CPUs one run takes on a Ray worker; with --sandbox.memory_mb this sets how many "
        "runs a worker takes at once",
        json_schema_extra=flag("--ray.cpus_per_run"),
    )
    gateway_upstream: str | None = Field(
        None,
        description="OpenAI-compatible base URL agents' LLM calls go to (none: agents get no LLM)",
        json_schema_extra=flag("--gateway.upstream"),
    )
    gateway_api_key: SecretStr | None = Field(
        None, description="API key for --gateway.upstream", json_schema_extra=flag("--gateway.api_key")
    )
    # NoDecode: read from the environment or `.env` as a comma list (as a flag is), not as JSON
    gateway_models: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="models agents may call (comma-separated)",
        json_schema_extra=flag("--gateway.models"),
    )
    gateway_token_budget: int = Field(
        200_000,
        ge=0,
        description="LLM tokens one run may spend (0: no LLM calls)",
        json_schema_extra=flag("--gateway.token_budget"),
    )
    gateway_cost_budget: float = Field(
        1.0,
        ge=0,
        description="USD one run may spend on LLM calls at the prices below (0: no cost budget)",
        json_schema_extra=flag("--gateway.cost_budget"),
    )
    gateway_max_tokens: int = Field(
        4096,
        ge=1,
        description="the most completion tokens one LLM call may ask for (max_tokens); a call over it is refused "
        "(400). A provider's own max_tokens in --gateway.providers wins for it",
        json_schema_extra=flag("--gateway.max_tokens"),
    )
    gateway_usd_per_1k_prompt: float = Field(
        0.0,
        ge=0,
        description="USD per 1000 prompt tokens, for the cost budget (0: prompts are free)",
        json_schema_extra=flag("--gateway.usd_per_1k_prompt"),
    )
    gateway_usd_per_1k_completion: float = Field(
        0.0,
        ge=0,
        description="USD per 1000 completion tokens, for the cost budget (0: completions are free)",
        json_schema_extra=flag("--gateway.usd_per_1k_completion"),
    )
    catalog: Path | None = Field(
        None, description="the catalog folder the pack was made for", json_schema_extra=flag("--catalog")
    )
    pack: str | None = Field(
        None, description="the problem pack file (signed by its operator)", json_schema_extra=flag("--pack")
    )
    pack_signer: str | None = Field(
        None,
        description="the arena operator's ss58 address the pack must be signed by (required: ask the operator)",
        json_schema_extra=flag("--pack.signer"),
    )
    pack_allow_dev_signer: bool = Field(
        False,
        description="accept a pack signed by a public development key (//Alice, //Bob, ...): a local demo or "
        "test only, never a real subnet",
        json_schema_extra=flag("--pack.allow_dev_signer"),
    )
    weight_policy: str = Field(
        "top_heavy", description=f"one of {', '.join(sorted(POLICIES))}", json_schema_extra=flag("--weights.policy")
    )
    burn_uid: int = Field(
        0, ge=0, le=65535, description="uid that receives the burn share", json_schema_extra=flag("--weights.burn_uid")
    )
    beacon_relay: str | None = Field(
        None,
        description="a drand HTTP relay (e.g. https://api.drand.sh) asked for a sealed batch's round when the "
        "chain does not hold it yet",
        json_schema_extra=flag("--beacon.relay"),
    )
    weight_shadow: str | None = Field(
        None,
        description="a second weight policy computed and stored beside the live one for every race, never "
        f"sent: try a policy before switching ({', '.join(sorted(POLICIES))})",
        json_schema_extra=flag("--weights.shadow"),
    )
    pool: bool = Field(
        True,
        description="pool race results with the other validators: publish this node's results bundle of each race "
        "and weigh the verified runs of every validator that published one; --no-pool races alone",
        json_schema_extra=flag("--pool"),
    )
    pool_cutoff_blocks: int | None = Field(
        None,
        ge=1,
        description="blocks after a race's start block by which validators commit its results bundle (the same "
        "on every validator; default: 3/4 of the pack's cadence)",
        json_schema_extra=flag("--pool.cutoff_blocks"),
    )
    pool_early: bool = Field(
        False,
        description="pool a race as soon as every permit holder has committed its results, before the cut-off (a "
        "validator that commits twice can then split the others: for validators that trust one another)",
        json_schema_extra=flag("--pool.early"),
    )
    pool_wait_blocks: int | None = Field(
        None,
        ge=0,
        description="blocks after the cut-off during which a committed bundle that could not be fetched is tried "
        "again; then the race is weighed with the bundles verified (default: 1/8 of the pack's cadence)",
        json_schema_extra=flag("--pool.wait_blocks"),
    )
    pool_max_mb: float = Field(
        128.0,
        gt=0,
        le=4096,
        description="the largest results bundle fetched from another validator (MB); a larger one is refused",
        json_schema_extra=flag("--pool.max_mb"),
    )
    pool_url: str | None = Field(
        None,
        description="the base URL other validators fetch this node's results bundles from (<url>/results/<sha256>, "
        "at most 59 bytes, committed on chain beside the hash): the node's API as the world reaches it, or a "
        "bucket the folder <data-dir>/results is copied to; default: the hotkey's axon",
        json_schema_extra=flag("--pool.url"),
    )
    pool_public_blocks: int = Field(
        360,
        ge=0,
        description="blocks after a race's weights are due from which this node serves its results bundle to anyone "
        "(auditors, miners); before, only to validators that published their own bundle of the race",
        json_schema_extra=flag("--pool.public_blocks"),
    )
    judge: Literal["offline", "llm"] = Field(
        "offline",
        description="reasoning judge: offline (no LLM, the gates from the gateway log) or llm",
        json_schema_extra=flag("--judge"),
    )
    judge_url: str | None = Field(
        None, description="OpenAI-compatible base URL of the LLM judge", json_schema_extra=flag("--judge.url")
    )
    judge_api_key: SecretStr | None = Field(
        None, description="API key for --judge.url", json_schema_extra=flag("--judge.api_key")
    )
    judge_models: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="the judge's pinned models, tried in order (comma-separated)",
        json_schema_extra=flag("--judge.models"),
    )
    judge_concurrency: int = Field(
        2, ge=1, le=64, description="judge calls at once", json_schema_extra=flag("--judge.concurrency")
    )
    judge_token_budget: int = Field(
        2_000_000,
        ge=0,
        description="LLM judge tokens per race (0: no limit); past it, runs get the offline judge",
        json_schema_extra=flag("--judge.token_budget"),
    )
    api_host: str = Field(
        "127.0.0.1",
        description="address the node's API, dashboard and /metrics listen on",
        json_schema_extra=flag("--api.host"),
    )
    api_port: int = Field(
        8090,
        ge=0,
        le=65535,
        description="port of the API, dashboard and /metrics (0: off)",
        json_schema_extra=flag("--api.port"),
    )
    log_json: bool = Field(
        False, description="log JSON lines instead of console output", json_schema_extra=flag("--log.json")
    )

    @field_validator("gateway_models", "judge_models", mode="before")
    @classmethod
    def _split_models(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [m.strip() for m in value.split(",") if m.strip()]
        return value

    @field_validator("weight_policy", "weight_shadow")
    @classmethod
    def _known_policy(cls, value: str | None) -> str | None:
        if value is not None and value not in POLICIES:
            raise ValueError(f"unknown weight policy {value!r}; choose one of {', '.join(sorted(POLICIES))}")
        return value

    @field_validator("subtensor_chain_endpoint")
    @classmethod
    def _endpoint(cls, value: str | None) -> str | None:
        if value and not re.match(r"^wss?://[^\s/]+", value):
            raise ValueError(f"{value!r} is not a ws:// or wss:// URL")
        return value

    @field_validator("gateway_upstream", "judge_url", "pool_url")
    @classmethod
    def _upstream(cls, value: str | None) -> str | None:
        if value and not re.match(r"^https?://[^\s/]+", value):
            raise ValueError(f"{value!r} is not an http:// or https:// URL")
        return value.rstrip("/") if value else value

    @field_validator("pack_signer")
    @classmethod
    def _ss58(cls, value: str | None) -> str | None:
        from arena.problems.pack import is_ss58

        if value is not None and not is_ss58(value):
            raise ValueError("is not an ss58 address; give the arena operator's hotkey address (5...)")
        return value.strip() if value else value

    @field_validator("database_url")
    @classmethod
    def _database(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not re.match(r"^(postgresql(\+psycopg)?|sqlite)://", value.get_secret_value()):
            raise ValueError("must start with postgresql+psycopg:// or sqlite:///")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        if self.gateway_models and not self.gateway_upstream:
            raise ValueError("--gateway.models needs --gateway.upstream (the endpoint those models are served by)")
        if self.dispatch == "ray" and not self.ray_address:
            raise ValueError(
                "--dispatch ray needs --ray.address (the Ray head's host:port, as ray start --head prints it)"
            )
        if self.judge == "llm" and not (self.judge_url and self.judge_models):
            raise ValueError("--judge llm needs --judge.url and --judge.models (the judge's endpoint and models)")
        return self

    # -- derived ----------------------------------------------------------------------------------------------------
    @property
    def db_url(self) -> str:
        if self.database_url is not None:
            url = self.database_url.get_secret_value()
            return "postgresql+psycopg://" + url.split("://", 1)[1] if url.startswith("postgresql://") else url
        return f"sqlite:///{(self.data_dir / 'validator.sqlite').as_posix()}"

    @property
    def wallet_dir(self) -> Path:
        """The wallets folder: --wallet.path when given; with --chain localchain and no path, the chain's dev wallets
        (`arena.wallet.localchain_wallet_path`), so `localchain register --create` never writes into ~/.bittensor."""
        if self.chain == "localchain" and "wallet_path" not in self.model_fields_set:
            from arena.wallet import localchain_wallet_path

            return localchain_wallet_path(self.localchain_path, self.wallet_name).expanduser()
        return self.wallet_path.expanduser()

    def masked(self) -> dict[str, Any]:
        """The effective settings for display: secrets as `****`, a database password hidden in its URL."""
        shown: dict[str, Any] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if name == "database_url":
                value = mask_url(self.db_url)
            elif isinstance(value, SecretStr):
                value = "****"
            elif isinstance(value, Path):
                value = str(value)
            elif isinstance(value, str) and "://" in value:
                value = mask_url(value)
            shown[name] = value
        return shown


def mask_url(url: str) -> str:
    """`scheme://user:secret@host/db` -> `scheme://user:****@host/db`; also `?password=...` (libpq's parameter)."""
    url = re.sub(r"(://[^:/@]*):[^@]*@", r"\1:****@", url)
    return re.sub(r"([?&]password=)[^&#]*", r"\1****", url, flags=re.IGNORECASE)
