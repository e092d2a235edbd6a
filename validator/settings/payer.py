"""Who pays for agents' LLM calls, and where miners may pay (`arena.spend`; docs/validator.md, "Who pays for
inference")."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from arena.spend import load_providers


def _flag(name: str) -> dict[str, Any]:
    return {"flag": name}


class PayerSettings(BaseModel):
    """Mixed into `validator.settings.Settings`: its fields are read like the others (flag, ARENA_<FIELD>, .env)."""

    gateway_payer: Literal["validator", "miner", "either"] = Field(
        "validator",
        description="who pays agents' LLM calls: validator, miner (its own key), either (a pack's rotation wins)",
        json_schema_extra=_flag("--gateway.payer"),
    )
    gateway_providers: str | None = Field(
        None,
        description="providers miners may pay at, a JSON file or text (docs/validator.md, Who pays for inference)",
        json_schema_extra=_flag("--gateway.providers"),
    )
    gateway_provider_failures: int = Field(
        8,
        ge=0,
        le=10_000,
        description="failures of a miner's provider (2011) in one race after which the race goes on without the runs "
        "paid there (2012: left out, never 0); 0 never drops a provider",
        json_schema_extra=_flag("--gateway.provider_failures"),
    )

    @model_validator(mode="after")
    def _providers(self) -> PayerSettings:
        if self.gateway_providers is not None:
            load_providers(self.gateway_providers)  # a ValueError of one line
        elif self.gateway_payer != "validator":
            raise ValueError(f"--gateway.payer {self.gateway_payer} needs --gateway.providers (where miners may pay)")
        return self
