"""What a run's LLM calls cost and who pays for them (`docs/validator.md`, "Who pays for inference").

A `Provider` is an OpenAI-compatible endpoint the operator allows by name: its base URL, the models agents may call
on it and the operator's price of each (USD per 1000 prompt and completion tokens). A call's tokens are the
provider's own ``usage``; where an answer has none the gateway counts them (`counted_tokens`: about four characters a
token), and the call says so (``tokens["counted"] = 1``). A run's spend (`RunSpend`) adds its calls up: tokens in and
out, cost, per model, and who paid (`Payer`: the validator's key or the miner's own).

The payer setting (`PayerPolicy`): ``validator`` (the node's key, as before), ``miner`` (the miner's own key only: a
miner without one, or naming a provider the operator does not allow, is refused at qualifying) or ``either`` (the
miner's key where it has one, else the node's)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

Payer = Literal["validator", "miner"]
PayerPolicy = Literal["validator", "miner", "either"]
PAYER_POLICIES: tuple[str, ...] = ("validator", "miner", "either")

#: the miner's key refused (401, 403), out of credit (402), over its own quota (429): the miner's fault
MINER_KEY_STATUSES = (401, 402, 403, 429)


class Price(BaseModel):
    """The operator's price of one model: USD per 1000 prompt and completion tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt: float = Field(0.0, ge=0)
    completion: float = Field(0.0, ge=0)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.prompt + completion_tokens * self.completion) / 1000


class Provider(BaseModel):
    """An OpenAI-compatible endpoint the operator allows: its base URL and each allowed model's price."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str = Field(min_length=1)
    models: dict[str, Price] = Field(min_length=1)  # the allowlist, with prices
    #: the most completion tokens one call to it may ask for; None: the node's --gateway.max_tokens
    max_tokens: int | None = Field(None, ge=1)

    def price(self, model: str) -> Price:
        return self.models.get(model) or Price()


def load_providers(source: str | Path) -> dict[str, Provider]:
    """The providers of a JSON file (or JSON text): ``{"name": {"base_url": "...", "models": {"model": {"prompt":
    0.15, "completion": 0.6}}}}``. `ValueError` in one line for anything else."""
    text = str(source)
    if not text.lstrip().startswith("{"):
        path = Path(text).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"cannot read the providers file {path}: {exc.strerror or exc}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"providers are not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(raw, dict) or not raw:
        raise ValueError('providers must be a JSON object {"name": {"base_url": ..., "models": {...}}}')
    out: dict[str, Provider] = {}
    for name, spec in raw.items():
        try:
            out[str(name)] = Provider.model_validate(spec)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ValueError(f"provider {name!r}: {where}: {first['msg']}") from None
    return out


def counted_tokens(value: Any) -> int:
    """The gateway's count of a text's tokens where the provider reports no usage: about four characters a token."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return (len(text) + 3) // 4 if text else 0


def call_tokens(request: Mapping[str, Any], answer: Any) -> dict[str, int]:
    """A call's tokens: the provider's ``usage`` when it has one, else counted by the gateway (``counted: 1``)."""
    usage = answer.get("usage") if isinstance(answer, dict) else None
    if isinstance(usage, dict) and ("prompt_tokens" in usage or "completion_tokens" in usage):
        prompt = _int(usage.get("prompt_tokens"))
        completion = _int(usage.get("completion_tokens"))
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    prompt = counted_tokens(request.get("messages") or [])
    completion = 0
    for choice in (answer.get("choices") or []) if isinstance(answer, dict) else []:
        message = choice.get("message") if isinstance(choice, dict) else None
        if isinstance(message, dict):
            completion += counted_tokens(message.get("content") or "") + counted_tokens(message.get("tool_calls") or "")
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion, "counted": 1}


def _int(value: Any) -> int:
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        return 0


class ModelSpend(BaseModel):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


class RunSpend(BaseModel):
    """What one run's LLM calls spent, and who paid: the provider, tokens in and out, cost (USD at the operator's
    prices), per model."""

    payer: Payer = "validator"
    provider: str = ""
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    counted_calls: int = 0  # calls whose tokens the gateway counted (the provider reported no usage)
    cost: float = 0.0
    models: dict[str, ModelSpend] = Field(default_factory=dict)

    def line(self) -> str:
        """One line for a page or a scorecard."""
        counted = f", {self.counted_calls} counted by the gateway" if self.counted_calls else ""
        return (
            f"{self.calls} LLM call(s), {self.prompt_tokens:,} tokens in, {self.completion_tokens:,} out, "
            f"${self.cost:.6f} paid by the {self.payer}" + (f" ({self.provider})" if self.provider else "") + counted
        )


def run_spend(events: Iterable[Any], *, payer: Payer = "validator", provider: str = "") -> RunSpend:
    """A run's spend from its trajectory: every answered ``llm_call`` (an event, or its JSON) with its tokens and
    cost, per model."""
    spend = RunSpend(payer=payer, provider=provider)
    for event in events:
        get = event.get if isinstance(event, Mapping) else lambda k, e=event: getattr(e, k, None)
        tokens = get("tokens") or {}
        if get("kind") != "llm_call" or not tokens:
            continue
        model = spend.models.setdefault(str(get("name")), ModelSpend())
        prompt, completion = _int(tokens.get("prompt_tokens")), _int(tokens.get("completion_tokens"))
        cost = float(get("cost") or 0.0)
        for part in (spend, model):
            part.calls += 1
            part.prompt_tokens += prompt
            part.completion_tokens += completion
            part.cost += cost
        spend.counted_calls += 1 if tokens.get("counted") else 0
    return spend


def cost_per_solved(cost: float, solved: float) -> float | None:
    """USD per solved problem (None when nothing was solved)."""
    return cost / solved if solved > 0 else None
