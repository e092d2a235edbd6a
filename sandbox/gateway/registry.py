"""The run registry: the runs open at the gateway (by id and by token), what it serves them (the catalog, the tool
registry, the upstream) and the recording of their events."""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections import deque
from typing import Any

import httpx

from arena import tasks
from arena.spend import MINER_KEY_STATUSES
from arena.tasks import ProblemBase
from arena.tools import RunState, ToolRegistry
from arena.trajectory import TrajectoryEvent
from arena.verdict import EndedBy, stalled
from sandbox.gateway.llmclient import LLMClient
from sandbox.gateway.recorders import Recorder
from sandbox.gateway.runs import Budgets, MinerRoute, Pending, RunHandle, Upstream, now


class KeyRefused(str):
    """`RunRegistry.upstream_well`'s answer when the probe, sent with the miner's own key, was answered with a status of
    the miner's key (refused, out of credit, over its quota: `arena.spend.MINER_KEY_STATUSES`): the upstream answers,
    and what failed is the miner's key, recorded in the run's `payer_errors` (1009). ``status``: the probe's answer."""

    status: int

    def __new__(cls, why: str, status: int) -> KeyRefused:
        made = super().__new__(cls, why)
        made.status = status
        return made


#: The latest requests no open run's token carried, kept for a look (numbered on past it): a node answers such
#: requests for as long as it runs, so keeping them all would grow its memory without end.
REJECTED_KEPT = 256


class RunRegistry:
    """The runs of a gateway. ``open_run`` before a sandbox starts, ``close_run`` after it ends."""

    def __init__(
        self,
        catalog: Any,
        *,
        registry: ToolRegistry | None = None,
        upstream: Upstream | None = None,
        recorder: Recorder | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.catalog = catalog
        #: a registry that replaces every family's tools (tests and tools of one's own); None: each run's family's
        self.registry = registry
        self._family_tools: dict[str, ToolRegistry] = {}
        self.upstream = upstream or Upstream()
        self.recorder = recorder
        self._runs: dict[str, RunHandle] = {}
        self._by_token: dict[str, RunHandle] = {}
        self._lock = threading.Lock()
        self._transport = transport
        self.rejected: deque[TrajectoryEvent] = deque(maxlen=REJECTED_KEPT)
        self.rejected_total = 0  # every one refused so far
        #: the upstream LLM's last answer to a run's call: (answered, what), None before any (the node's health)
        self.upstream_last: tuple[bool, str] | None = None
        #: one HTTP client for every proxied LLM call, made on the gateway's event loop (a client per call spent
        #: ~200 ms making its TLS context: bench/gateway_llm.py)
        self._llm_client: tuple[Any, LLMClient] | None = None
        #: when (monotonic) each upstream (base URL, model) last answered a call 2xx, any run's: the evidence that
        #: an upstream is well when one call timed out on it (`sandbox.gateway.inference`, `upstream_well`)
        self._answered_at: dict[tuple[str, bytes, str], float] = {}  # (base URL, key's digest, model)

    def llm_client(self) -> LLMClient:
        """The HTTP client of the proxied LLM calls, for the running event loop (a gateway served again after a
        fault runs on a new loop, and gets a new client)."""
        import asyncio

        loop = asyncio.get_running_loop()
        if self._llm_client is None or self._llm_client[0] is not loop:
            self._llm_client = (loop, LLMClient(self._transport))
        return self._llm_client[1]

    @property
    def agent_model(self) -> str | None:
        """The model agents are told to use (``ARENA_LLM_MODEL``): the first of the allowlist, when there is an
        upstream to serve it."""
        return self.upstream.models[0] if self.upstream.base_url and self.upstream.models else None

    def model_for(self, handle: RunHandle) -> str | None:
        """The model a run's agent is told: its miner's where the miner pays (the one it named, else its provider's
        first), else the node's (`agent_model`)."""
        if handle.route is None:
            return self.agent_model
        return handle.route.model or next(iter(handle.route.provider.models))

    def models_for(self, handle: RunHandle) -> list[str]:
        """The models a run may call: its miner's provider's allowlist, or the node's."""
        return list(handle.route.provider.models) if handle.route is not None else list(self.upstream.models)

    def max_tokens_for(self, handle: RunHandle) -> int:
        """The most completion tokens one of the run's calls may ask for: its miner's provider's cap where the miner
        pays and the operator set one, else the node's (`Upstream.max_tokens`)."""
        if handle.route is not None and handle.route.provider.max_tokens is not None:
            return handle.route.provider.max_tokens
        return self.upstream.max_tokens

    def note_answered(self, base_url: str, key: str, model: str) -> None:
        """An upstream answered a call 2xx just now, sent with ``key``."""
        with self._lock:
            self._answered_at[(base_url, _key_id(key), model)] = time.monotonic()

    def answered_since(self, base_url: str, key: str, model: str, since: float) -> bool:
        """Whether the upstream answered a call of ``model`` sent with ``key`` 2xx at or after ``since`` (monotonic):
        by key, so a provider that answers other miners' keys while failing one miner's own account is not seen well
        for that miner's runs."""
        with self._lock:
            return self._answered_at.get((base_url, _key_id(key), model), float("-inf")) >= since

    def target(self, handle: RunHandle) -> tuple[str, str]:
        """The base URL and key of a run's upstream: its miner's provider with its key, or the node's."""
        route = handle.route
        if route is not None:
            return route.provider.base_url, route.key.get_secret_value()
        upstream = self.upstream
        return upstream.base_url or "", upstream.api_key.get_secret_value() if upstream.api_key else "none"

    async def upstream_well(self, handle: RunHandle, model: str) -> str | None:
        """Whether a run's upstream is well for ``model``, and why (None: not shown well): any call of that model with
        the run's key (the node's, or the miner's own) answered there within the last `Upstream.probe_timeout`
        seconds (any run's), or it answers a probe with that key, a one-token completion, within that time, the whole
        probe bounded (docs/scoring.md, "An LLM call that takes too long"). Where the miner pays, a probe answered
        with a status of the miner's key is `KeyRefused`: recorded in the run's ``payer_errors`` (the miner's fault,
        1009), and the upstream taken as answering."""
        import asyncio

        base_url, key = self.target(handle)
        limit = self.upstream.probe_timeout
        if self.answered_since(base_url, key, model, time.monotonic() - limit):
            return "answered other calls"
        try:
            resp = await asyncio.wait_for(  # the whole probe bounded, not each read (a trickle is no answer)
                self.llm_client().post(
                    base_url.rstrip("/") + "/chat/completions",
                    {"model": model, "messages": [{"role": "user", "content": "ping"}], "max_tokens": 1},
                    key,
                    limit,
                ),
                limit,
            )
        except (httpx.HTTPError, TimeoutError):
            return None
        if handle.route is not None and resp.status_code in MINER_KEY_STATUSES:
            # the miner's own key failed the probe (revoked, out of credit, its rate limit burnt): the miner's, not a
            # sick provider, else a miner could fail the probe on purpose to have its run retried (2011)
            why = KeyRefused(f"answered a probe {resp.status_code}, refusing the miner's key", resp.status_code)
            event = self._record(
                handle,
                {
                    "kind": "llm_call",
                    "name": model,
                    "started_at": now(),
                    "status": resp.status_code,
                    "error": f"the miner's provider {handle.route.name!r} {why} (the gateway's probe)",
                },
            )
            with handle.lock:
                if not handle.closed:
                    handle.payer_errors.append({"seq": event.seq, "status": resp.status_code, "error": event.error})
            return why
        if not resp.is_success:
            return None
        self.note_answered(base_url, key, model)
        return "answered a probe"

    async def pending_well(self, run_id: str) -> str | None:
        """Whether the upstream of every LLM call the run has pending is well (`upstream_well`), and why; None when
        one is not shown well, or nothing is pending. Called before `close_run` when the node ended the run: the
        probe goes on the gateway's own loop (its client) where the gateway serves on another."""
        import asyncio

        handle = self._runs.get(run_id)
        if handle is None:
            return None
        with handle.lock:
            models = sorted({call.model for call in handle.upstream_pending.values()})
        why: str | None = None
        for model in models:
            served = self._llm_client[0] if self._llm_client is not None else None
            if served is not None and served is not asyncio.get_running_loop() and served.is_running():
                why = await asyncio.wrap_future(
                    asyncio.run_coroutine_threadsafe(self.upstream_well(handle, model), served)
                )
            else:
                why = await self.upstream_well(handle, model)
            if why is None:
                return None
        return why

    def tools_for(self, task: str) -> ToolRegistry:
        """The tools runs of task type ``task`` may call: the family's registry (made once per family)."""
        if self.registry is not None:
            return self.registry
        family = tasks.family_for(task)
        if family.name not in self._family_tools:
            self._family_tools[family.name] = family.tools()
        return self._family_tools[family.name]

    def open_run(
        self,
        run_id: str,
        budgets: Budgets | None = None,
        *,
        wall_seconds: float | None = None,
        problem: ProblemBase | dict[str, Any] | None = None,
        route: MinerRoute | None = None,
    ) -> RunHandle:
        """Open a run of ``problem``: the whole problem (the family's tools may need it: a simulated shopper), or
        its public view (tools that need the whole problem then answer with an error), or None (a product task).
        ``route``: the miner's own provider and key, where the miner pays for the run's LLM calls."""
        task = problem.task if isinstance(problem, ProblemBase) else str((problem or {}).get("task") or "product")
        tools = self.tools_for(task)
        state = tasks.family_for(task).run_state(problem) if isinstance(problem, ProblemBase) else RunState()
        with self._lock:
            if run_id in self._runs:
                raise ValueError(f"run {run_id!r} is already open")
            handle = RunHandle(
                run_id,
                secrets.token_urlsafe(32),
                budgets or Budgets(),
                wall_seconds=wall_seconds,
                state=state,
                tools=tools,
                route=route,
            )
            handle._allowance = float(handle.budgets.burst)
            self._runs[run_id] = handle
            self._by_token[handle.token] = handle
            return handle

    def close_run(self, run_id: str, *, ended_by: EndedBy = "node", well: str | None = None) -> RunHandle:
        """Revoke the run's token and return its record (events, answer state, spend). ``ended_by``: who ended the run
        (`arena.verdict.ended_by` of its sandbox's code); ``well``: why the upstream of its pending calls was seen
        well just before (`pending_well`; None: not shown well). An LLM call still unanswered is given up (its
        upstream request cancelled) and recorded: as the upstream's stall (an upstream failure) when the node ended
        the run and the upstream was not shown well, else as abandoned, the agent's (`arena.verdict.stalled`).
        Nothing the run's calls do after this is recorded in it."""
        with self._lock:
            handle = self._runs.pop(run_id)
            self._by_token.pop(handle.token, None)
        with handle.lock:
            pending = list(handle.upstream_pending.values())
            handle.upstream_pending.clear()
        for call in pending:
            self._unanswered(handle, call, ended_by, well)
        with handle.lock:
            handle.closed = True
        for call in pending:
            call.cancel()
        return handle

    def by_token(self, token: str) -> RunHandle | None:
        """The open run a bearer token belongs to, if any."""
        return self._by_token.get(token) if token else None

    def _unanswered(self, handle: RunHandle, call: Pending, ended_by: EndedBy, well: str | None) -> None:
        """An LLM call its run ended before: the upstream's stall, or abandoned (`arena.verdict.stalled`)."""
        waited = time.monotonic() - call.since
        who = "upstream LLM" if handle.route is None else f"the miner's provider {handle.route.name!r}"
        stall = stalled(ended=ended_by, upstream_well=well is not None)
        if stall:
            status, error = (
                504,
                f"{who} had not answered after {waited:.0f}s when the node ended the run, and did not answer a probe",
            )
        elif ended_by == "agent":
            status, error = 499, f"abandoned: the agent ended its run with this call unanswered after {waited:.1f}s"
        else:
            status = 499
            error = f"abandoned: the wall clock ended the run {waited:.1f}s into this call while {who} {well}"
        event = self._record(
            handle,
            {
                "kind": "llm_call",
                "name": call.model,
                "started_at": call.started,
                "status": status,
                "duration_ms": waited * 1000,
                "error": error,
            },
        )
        if stall:
            self._upstream_failed(handle, event)

    def _record(self, handle: RunHandle | None, event: dict[str, Any]) -> TrajectoryEvent:
        if handle is None:
            with self._lock:
                ev = TrajectoryEvent(run_id="-", seq=self.rejected_total, **event)
                self.rejected.append(ev)
                self.rejected_total += 1
        else:
            with handle.lock:
                ev = TrajectoryEvent(run_id=handle.run_id, seq=handle.seq, **event)
                if handle.closed:  # a call that outlived its run: the run's record is made
                    return ev
                handle.seq += 1
                handle.events.append(ev)
        if self.recorder is not None:
            self.recorder.record(ev)
        return ev

    def _upstream_failed(self, handle: RunHandle, event: TrajectoryEvent, *, well: str | None = None) -> None:
        """The run's upstream failed: the node's (its health says so), or the miner's provider (nobody's fault).
        ``well``: it answered 5xx while it was seen well (why: another call answered, a probe), kept as the
        failure's ``well`` (`arena.verdict.choked`)."""
        if handle.route is None:
            self.upstream_last = (False, f"{event.status}: {event.error}")
        with handle.lock:
            if handle.closed:
                return
            handle.upstream_errors.append(
                {"seq": event.seq, "status": event.status, "error": event.error, "at": event.started_at.isoformat()}
                | ({"well": well} if well else {})
            )


def _key_id(key: str) -> bytes:
    """What the gateway keeps of a key to tell keys apart (a digest: the key itself is never kept past its run)."""
    return hashlib.blake2b(key.encode(), digest_size=16).digest()
