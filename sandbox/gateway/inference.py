"""The inference proxy: ``GET /v1/models`` and ``POST /v1/chat/completions`` (and subnet 15's ``POST
/inference/chat/completions``, the same proxy), forwarded to the node's upstream OpenAI-compatible endpoint with the
node's key, or, where the miner pays (`MinerRoute`), to the miner's provider with the miner's key; no key ever
reaches a sandbox (an answer has the key it was sent with cut out: `arena.keymask`). Models outside the allowlist are
refused; no streaming; LLM calls, tokens and cost budgeted per run, each call's tokens the provider's ``usage`` (or
counted by the gateway, `arena.spend.call_tokens`) and its cost at the operator's price. The upstream failing
(unreachable, timing out, answering 5xx, or a body that is not JSON; the node's own upstream also 402 or 429) is
recorded in the run's `upstream_errors`: not the agent's fault. The miner's key refused (401, 403), out of credit
(402) or over its quota (429) is recorded in `payer_errors`: the miner's fault."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NoReturn

import httpx
import orjson
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from arena.keymask import FRAGMENT, KeyMask
from arena.spend import MINER_KEY_STATUSES, call_tokens
from sandbox.gateway.access import authorize, authorized_json
from sandbox.gateway.llmclient import Answer
from sandbox.gateway.registry import KeyRefused, RunRegistry
from sandbox.gateway.runs import Pending, RunHandle, now, upstream_fault

# httpcore's DEBUG trace writes every answer's headers to the log, and a provider's headers may reflect the key the
# call was sent with: that trace is never written, whatever level the node logs at
logging.getLogger("httpcore").setLevel(logging.INFO)


@functools.lru_cache(maxsize=2)
def _node_mask(key: str) -> KeyMask:
    """The mask of the node's own key (made once: the node has one key)."""
    return KeyMask(key, "[node key]")


def _cancel(loop: asyncio.AbstractEventLoop, request: asyncio.Future[Any]) -> None:
    """Cancel an upstream request from any thread (a run closes on the node's loop; the gateway serves on its own)."""
    try:
        loop.call_soon_threadsafe(request.cancel)
    except RuntimeError:  # the gateway's loop is gone, and the request with it
        pass


class _Refused(Exception):
    """A chat completion refused: its status, message, whether the upstream failed (not the agent's fault), and for
    such a failure the agent's request could cause, why the upstream was seen well meanwhile (`upstream_well`)."""

    def __init__(self, status: int, message: str, *, upstream: bool = False, well: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.upstream, self.well = status, message, upstream, well


@dataclass
class _Completion:
    """One chat completion of a run: admitted against the allowlist and budgets, forwarded upstream, answered."""

    gateway: RunRegistry
    handle: RunHandle
    body: Any
    started: datetime = field(default_factory=now)
    t0: float = field(default_factory=time.perf_counter)

    def refuse(self, refused: _Refused) -> JSONResponse:
        name = str(self.body.get("model", "")) if isinstance(self.body, dict) else ""
        event = self.gateway._record(
            self.handle,
            {
                "kind": "llm_call",
                "name": name,
                "arguments": self.body,
                "started_at": self.started,
                "status": refused.status,
                "error": refused.message,
            },
        )
        if refused.upstream:
            self.gateway._upstream_failed(self.handle, event, well=refused.well)
        return JSONResponse({"error": {"message": refused.message}}, status_code=refused.status)

    def admit(self) -> None:
        """Refuse a body that is not an object, streaming, a node without an endpoint, a model outside the
        allowlist, a run whose LLM budget is spent; else count the call."""
        gateway, handle, body = self.gateway, self.handle, self.body
        if not isinstance(body, dict):
            raise _Refused(400, "body must be a JSON object")
        if body.get("stream"):
            raise _Refused(400, "streaming is not supported by the gateway; send stream=false")
        model = body.get("model")
        if handle.route is None and not gateway.upstream.base_url:  # no model is allowed without an endpoint
            raise _Refused(503, "this node has no LLM endpoint configured")
        allowed = gateway.models_for(handle)
        if model not in allowed:
            raise _Refused(403, f"model {model!r} is not allowed; allowed: {', '.join(allowed)}")
        cap = gateway.max_tokens_for(handle)
        for name in ("max_tokens", "max_completion_tokens"):
            asked = body.get(name)
            if asked is None:
                continue
            if isinstance(asked, bool) or not isinstance(asked, int) or asked < 1:
                raise _Refused(400, f"{name} must be a whole number of tokens, 1 or more")
            if asked > cap:
                raise _Refused(
                    400,
                    f"{name} {asked} is over this node's cap of {cap} completion tokens a call; ask for {cap} or less",
                )
        with handle.lock:
            over = (
                handle.llm_calls >= handle.budgets.llm_calls
                or handle.tokens >= handle.budgets.tokens
                or handle.cost >= handle.budgets.cost > 0
            )
            if not over:
                handle.llm_calls += 1
        if over:
            with handle.lock:
                handle.budget_refusals += 1
            raise _Refused(429, "LLM budget (calls, tokens or cost) spent")

    async def forward(self) -> Answer:
        """The upstream's answer, at most `Budgets.llm_concurrency` of the run's calls in flight at once. A call still
        pending when its run closes is given up there (`RunRegistry.close_run` decides whose it was and cancels it)."""
        gateway, handle = self.gateway, self.handle
        upstream = gateway.upstream
        base_url, key = self.target()
        with handle.lock:
            if handle.llm_gate is None:
                handle.llm_gate = asyncio.Semaphore(handle.budgets.llm_concurrency)
            gate = handle.llm_gate
        pending = id(self.body)
        timed_out: float | None = None  # the call's wait, when the upstream did not answer within its timeout
        dropped: str | None = None  # the upstream closed the connection on the request (it may be what crashed it)
        async with gate:
            since = time.monotonic()
            post = asyncio.ensure_future(self._post(base_url, key, upstream.timeout))
            cancel = functools.partial(_cancel, asyncio.get_running_loop(), post)
            with handle.lock:
                closed = handle.closed
                if not closed:
                    handle.upstream_pending[pending] = Pending(
                        time.monotonic(), self.started, str(self.body.get("model")), cancel
                    )
            if closed:  # its turn came after the run ended
                post.cancel()
            try:
                resp = await post
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if post.cancelled() and handle.closed and not (task is not None and task.cancelling()):
                    raise _Refused(499, "the run ended before the upstream answered") from None
                raise
            except (httpx.ReadTimeout, TimeoutError):  # no whole answer in time: the upstream's, or the call's
                timed_out = time.monotonic() - since
            except (httpx.RemoteProtocolError, httpx.ReadError) as exc:  # connected, then dropped without an answer
                dropped = type(exc).__name__
            except httpx.HTTPError as exc:
                kind = "timed out" if isinstance(exc, httpx.TimeoutException) else "unreachable"
                raise _Refused(502, f"{self.who} {kind} ({type(exc).__name__})", upstream=True) from None
            finally:
                with handle.lock:
                    handle.upstream_pending.pop(pending, None)
        if dropped is not None:  # the request may be what the upstream failed on: kept with whether it was well
            raise _Refused(
                502, f"{self.who} dropped the connection ({dropped})", upstream=True, well=await self.upstream_well()
            )
        if timed_out is None:
            return resp
        await self._timed_out(timed_out)

    async def _post(self, base_url: str, key: str, timeout: float) -> Answer:
        """The call sent upstream. The client's timeout bounds each read, not the call: an upstream trickling a byte now
        and then would never time out. The whole call is bounded by the same timeout (TimeoutError, handled as a
        ReadTimeout), within this one task (``asyncio.wait_for`` would make another)."""
        async with asyncio.timeout(timeout):
            return await self.gateway.llm_client().post(
                base_url.rstrip("/") + "/chat/completions", self.body, key, timeout
            )

    async def _timed_out(self, timed_out: float) -> NoReturn:
        """A call the upstream did not answer whole within the timeout (`timed_out` seconds of waiting): the
        upstream's when the call named a limit within the cap or the upstream does not answer a probe either; the
        agent's (too long) when the upstream is well; the miner's key's when the probe is refused for it."""
        gateway, handle, upstream = self.gateway, self.handle, self.gateway.upstream
        limit = next(
            (self.body[n] for n in ("max_tokens", "max_completion_tokens") if self.body.get(n) is not None), None
        )
        if limit is not None:  # within the cap (admit): the operator's cap says the upstream writes it in time
            raise _Refused(
                502,
                f"{self.who} timed out after {timed_out:.0f}s on a call of at most {limit} completion tokens, within "
                f"this node's cap of {gateway.max_tokens_for(handle)}",
                upstream=True,
            )
        well = await self.upstream_well()
        if isinstance(well, KeyRefused):  # the miner's key failed the probe: the call's failure is the miner's
            raise _Refused(well.status, f"{self.who} timed out after {timed_out:.0f}s and {well}")
        if well:  # the upstream answers: this call asked for more than it could write within the timeout
            raise _Refused(
                504,
                f"too long: {self.who} had not finished this call after {timed_out:.0f}s (the gateway's timeout, "
                f"{upstream.timeout:g}s) while it {well}; the call asked for too much: ask for fewer tokens "
                f"(max_tokens) or less text",
            )
        raise _Refused(
            502, f"{self.who} timed out after {timed_out:.0f}s and did not answer a probe either", upstream=True
        )

    def target(self) -> tuple[str, str]:
        """The base URL and key of the run's upstream: its miner's provider with its key, or the node's."""
        return self.gateway.target(self.handle)

    async def upstream_well(self) -> str | None:
        """Whether the run's upstream is well for this call's model, and why (`RunRegistry.upstream_well`)."""
        return await self.gateway.upstream_well(self.handle, str(self.body.get("model")))

    @property
    def who(self) -> str:
        route = self.handle.route
        return "upstream LLM" if route is None else f"the miner's provider {route.name!r}"

    def read(self, resp: Answer, *, well: str | None = None) -> tuple[Any, bytes]:
        """The upstream's answer as JSON and as the bytes passed on: parsed, the key the call was sent with cut out
        of every string of it (`arena.keymask.KeyMask`: whole or in pieces, JSON-escaped, URL-encoded, across
        fields, in any case), and written anew from what was parsed, so nothing the parse did not keep (a repeated
        field) passes. The provider's headers never pass."""
        if len(resp.content) > self.handle.budgets.max_response_bytes:
            raise _Refused(502, f"upstream answer over {self.handle.budgets.max_response_bytes} bytes; ask for less")
        try:
            data = orjson.loads(resp.content)
        except ValueError:
            raise _Refused(
                502,
                f"{self.who} answered {resp.status_code} with a body that is not JSON",
                upstream=True,
                well=well if resp.status_code >= 500 else None,  # a 5xx is a 5xx whatever its body (a proxy's HTML)
            ) from None
        mask = self.mask()
        if mask is None:
            return data, resp.content
        data, _ = mask.mask(data)
        return data, orjson.dumps(data)

    def mask(self) -> KeyMask | None:
        """The mask of the key this call went upstream with: the miner's, or the node's own (any of 8 characters or
        more: the node's key is the operator's, never checked against the miners' token rules; a shorter one is a
        placeholder such as ``none`` or ``EMPTY``)."""
        route, upstream = self.handle.route, self.gateway.upstream
        if route is not None:
            return route.mask
        key = upstream.api_key.get_secret_value() if upstream.api_key else ""
        return _node_mask(key) if len(key) >= FRAGMENT else None

    def answer(self, resp: Answer, *, well: str | None = None) -> Response:
        """The upstream's answer passed on, its tokens and cost spent from the run's budget and recorded. ``well``:
        on a 5xx, why the upstream was seen well meanwhile (`upstream_well`), kept with the run's upstream failure."""
        gateway, handle = self.gateway, self.handle
        if handle.route is not None and resp.status_code in MINER_KEY_STATUSES:
            return self.key_refused(resp.status_code)
        data, content = self.read(resp, well=well)
        model = str(self.body.get("model"))
        tokens = call_tokens(self.body, data) if resp.is_success else {}
        price = handle.route.provider.price(model) if handle.route is not None else gateway.upstream.price(model)
        cost = price.cost(tokens.get("prompt_tokens", 0), tokens.get("completion_tokens", 0))
        with handle.lock:
            handle.tokens += tokens.get("total_tokens", 0)
            handle.prompt_tokens += tokens.get("prompt_tokens", 0)
            handle.completion_tokens += tokens.get("completion_tokens", 0)
            handle.cost += cost
        event = gateway._record(
            handle,
            {
                "kind": "llm_call",
                "name": model,
                "arguments": self.body,
                "result": data,
                "started_at": self.started,
                "duration_ms": (time.perf_counter() - self.t0) * 1000,
                "tokens": tokens,
                "cost": cost,
                "status": resp.status_code,
                "error": None if resp.is_success else f"{self.who} answered {resp.status_code}",
            },
        )
        if resp.status_code >= 500 or (handle.route is None and upstream_fault(resp.status_code)):
            gateway._upstream_failed(handle, event, well=well if resp.status_code >= 500 else None)
        elif handle.route is None:
            gateway.upstream_last = (True, f"answered {resp.status_code}")
        if resp.is_success:
            gateway.note_answered(*self.target(), model)
        return Response(content, status_code=resp.status_code, media_type="application/json")

    def key_refused(self, status: int) -> JSONResponse:
        """The miner's provider refused its key, its credit or its quota: the miner's fault, recorded in the run's
        `payer_errors`; the agent is told so in the gateway's own words (never the provider's body)."""
        why = {
            401: "refused the miner's key",
            403: "refused the miner's key",
            402: "says the miner's account has no credit",
        }
        message = f"{self.who} {why.get(status, 'says the miner is over its own quota')} ({status})"
        event = self.gateway._record(
            self.handle,
            {
                "kind": "llm_call",
                "name": str(self.body.get("model")),
                "arguments": self.body,
                "started_at": self.started,
                "duration_ms": (time.perf_counter() - self.t0) * 1000,
                "status": status,
                "error": message,
            },
        )
        with self.handle.lock:
            self.handle.payer_errors.append({"seq": event.seq, "status": status, "error": message})
        return JSONResponse({"error": {"message": message}}, status_code=status)


#: the chat completion routes (subnet 15's is the second), answered ahead of the web app's routing
#: (`sandbox.gateway.app.HotRoutes`) and by it alike
CHAT_PATHS = ("/v1/chat/completions", "/inference/chat/completions")


async def chat_completion(gateway: RunRegistry, request: Request) -> Response:
    """One chat completion through the proxy: authorized, read, admitted, forwarded, answered (every refusal and
    answer recorded as an ``llm_call``)."""
    admitted = await authorized_json(gateway, request, "llm_call", "chat.completions")
    if isinstance(admitted, JSONResponse):
        return admitted
    call = _Completion(gateway, *admitted)
    try:
        call.admit()
        resp = await call.forward()
        if resp.status_code >= 500:
            # an upstream 5xx: the identical request is sent once more, so a flaky upstream (one call in a few
            # failing) is not read as choking on this request; the second answer is the call's, the first forgotten
            resp = await call.forward()
        # a 5xx again: was the upstream well meanwhile (then this request is what it choked on, twice)? Kept with the
        # failure; it decides only a run's last try (`arena.verdict.choked`, docs/scoring.md, "An LLM call the
        # upstream chokes on")
        well = await call.upstream_well() if resp.status_code >= 500 else None
        return call.answer(resp, well=well)
    except _Refused as refused:
        return call.refuse(refused)


def add_inference_routes(app: FastAPI, gateway: RunRegistry) -> None:
    """``GET /v1/models``, ``POST /v1/chat/completions`` and ``POST /inference/chat/completions``."""

    @app.get("/v1/models")
    def models(request: Request) -> Any:
        handle = authorize(gateway, request, "llm_call", "models")
        if isinstance(handle, JSONResponse):
            return handle
        gateway._record(handle, {"kind": "llm_call", "name": "models", "started_at": now()})
        return {
            "object": "list",
            "data": [{"id": m, "object": "model", "owned_by": "node"} for m in gateway.models_for(handle)],
        }

    async def chat(request: Request) -> Any:
        return await chat_completion(gateway, request)

    # plain Starlette routes: every answer is already a Response, so FastAPI's parameter and answer handling is skipped
    # (the server answers them ahead of the app: `sandbox.gateway.app.HotRoutes`)
    for path in CHAT_PATHS:
        app.router.add_route(path, chat, methods=["POST"])
