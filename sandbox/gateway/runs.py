"""One run at the gateway: what it may spend (`Budgets`), the node's LLM endpoint (`Upstream`), the miner's own
provider and key where the miner pays (`MinerRoute`) and the run's record (`RunHandle`: its token, events, answer
state, spend, refusals, upstream failures and the miner's key refused)."""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field, SecretStr

from arena.keymask import KeyMask
from arena.spend import Payer, Price, Provider
from arena.tools import RunState, ToolRegistry
from arena.trajectory import TrajectoryEvent


class Budgets(BaseModel):
    """What one run may spend at the gateway."""

    tool_calls: int = Field(200, ge=0)
    llm_calls: int = Field(40, ge=0)
    tokens: int = Field(200_000, ge=0)
    cost: float = Field(1.0, ge=0)
    requests_per_second: float = Field(50.0, gt=0)
    burst: int = Field(100, ge=1)
    max_request_bytes: int = Field(256 * 1024, ge=1024)
    max_response_bytes: int = Field(2 * 1024 * 1024, ge=1024)
    #: LLM calls of one run in flight to the upstream at once (more wait their turn): an agent cannot burst the
    #: node's upstream into refusing (429) and so turn its own run into the node's fault (2005)
    llm_concurrency: int = Field(2, ge=1)


class Upstream(BaseModel):
    """The node's LLM endpoint (any OpenAI-compatible server) and what agents may use of it."""

    base_url: str | None = None
    api_key: SecretStr | None = None
    models: list[str] = Field(default_factory=list)  # the allowlist
    #: seconds the gateway waits on an upstream call (the node's or a miner's provider); past it the call fails as
    #: the upstream's (a 502 to the agent, 2005 or 2011) unless the upstream is well (then too long, the agent's).
    #: It bounds the whole call, not each read (a trickling upstream is cut off at it too)
    timeout: float = 120.0
    #: the most completion tokens one call may ask for (``max_tokens`` or ``max_completion_tokens``): a call over it
    #: is refused to the agent (400, the cap named); where the miner pays, its provider's own cap where the operator
    #: set one (`arena.spend.Provider.max_tokens`), else this one (docs/scoring.md, "An LLM call that takes too long")
    max_tokens: int = Field(4096, ge=1)
    #: seconds the gateway waits on its probe of an upstream (a one-token completion) after a call timed out there:
    #: answered, the upstream is well and the timeout is the call's own (the agent's); not, it is the upstream's
    probe_timeout: float = Field(15.0, gt=0)
    usd_per_1k_prompt: float = 0.0
    usd_per_1k_completion: float = 0.0
    #: a model's own price where it differs from the two above (`arena.spend.Price`)
    prices: dict[str, Price] = Field(default_factory=dict)

    def price(self, model: str) -> Price:
        return self.prices.get(model) or Price(prompt=self.usd_per_1k_prompt, completion=self.usd_per_1k_completion)


@dataclass(frozen=True)
class MinerRoute:
    """A run whose miner pays: its calls go to the operator-allowed `provider` (by `name`) with the miner's own
    `key`, which lives in the node's memory for the race only and is added by the gateway to the upstream request
    (never shown to the agent: an answer that echoes it has it cut out). `model`: the one the agent is told."""

    name: str
    provider: Provider
    key: SecretStr
    model: str | None = None

    def __repr__(self) -> str:  # never the key, whatever prints a route
        return f"MinerRoute({self.name!r})"

    @functools.cached_property
    def mask(self) -> KeyMask:
        """What cuts the key out of the provider's answers (`arena.keymask`), made once per route."""
        return KeyMask(self.key.get_secret_value())


@dataclass(frozen=True)
class Pending:
    """An LLM call of a run in flight upstream: since when (monotonic), when it started, its model, and how to give it
    up (cancel its upstream request, from any thread) when the run closes before the answer."""

    since: float
    started: datetime
    model: str
    cancel: Callable[[], None] = lambda: None


@dataclass
class RunHandle:
    run_id: str
    token: str
    budgets: Budgets
    state: RunState = field(default_factory=RunState)
    #: the tools this run may call: its problem's family's (`arena.tasks`), given when the gateway opens the run
    tools: ToolRegistry = field(default_factory=ToolRegistry)
    events: list[TrajectoryEvent] = field(default_factory=list)
    seq: int = 0
    tool_calls: int = 0
    llm_calls: int = 0
    tokens: int = 0
    cost: float = 0.0
    #: the upstream LLM failing during the run (unreachable, timeout, 5xx, 402, 429, a body that is not JSON): the
    #: node's fault, whatever the agent made of it (`arena.blame.UPSTREAM_LLM_DOWN`)
    upstream_errors: list[dict[str, Any]] = field(default_factory=list)
    budget_refusals: int = 0  # calls refused because a budget of the run was spent
    #: where the run's LLM calls go: None for the node's upstream (the validator pays), else the miner's provider
    route: MinerRoute | None = None
    #: the miner's key refused by its provider (401, 403), out of credit (402), over its quota (429): the miner's
    #: fault (`arena.blame.MINER_KEY_REFUSED`)
    payer_errors: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: routes the agent asked for that the gateway does not serve ("GET /search/get_product_raw"), in order
    unserved: list[str] = field(default_factory=list)
    wall_seconds: float | None = None  # the run's wall-clock limit, for the remaining-seconds header
    opened: float = field(default_factory=time.monotonic)
    llm_gate: asyncio.Semaphore | None = None  # made on first use, on the gateway's event loop
    upstream_pending: dict[int, Pending] = field(default_factory=dict)  # in flight upstream
    #: the run ended (`RunRegistry.close_run`): what its calls do after that is no longer recorded in it
    closed: bool = False
    _allowance: float = 0.0
    _last: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def payer(self) -> Payer:
        return "validator" if self.route is None else "miner"

    def remaining(self) -> dict[str, Any]:
        """What the run may still spend: tool calls, LLM calls, tokens, cost (None: no cost budget) and seconds
        (None: no known wall-clock limit)."""
        b = self.budgets
        with self.lock:
            left: dict[str, Any] = {
                "tool_calls": max(0, b.tool_calls - self.tool_calls),
                "llm_calls": max(0, b.llm_calls - self.llm_calls),
                "tokens": max(0, b.tokens - self.tokens),
                "cost": round(max(0.0, b.cost - self.cost), 6) if b.cost > 0 else None,
            }
        left["seconds"] = (
            round(max(0.0, self.wall_seconds - (time.monotonic() - self.opened)), 1)
            if self.wall_seconds is not None
            else None
        )
        return left

    def rate_ok(self) -> bool:
        now = time.monotonic()
        self._allowance = min(
            float(self.budgets.burst), self._allowance + (now - self._last) * self.budgets.requests_per_second
        )
        self._last = now
        if self._allowance < 1:
            return False
        self._allowance -= 1
        return True


def upstream_fault(status: int) -> bool:
    """An upstream answer that is the upstream's (so the node's) failure, not a bad request of the agent's: any 5xx,
    402 (the node's account has no credit) and 429 (the node's rate limit or quota)."""
    return status >= 500 or status in (402, 429)


def now() -> datetime:
    return datetime.now(UTC)
