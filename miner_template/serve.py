"""Serve a miner's agent bundle to validators, and to no one else: ``GET /bundle/<sha256>`` on the miner's axon.

Every request must be signed with ``btauth/1`` (`bittensor.http_auth`): bound to this miner's hotkey as receiver,
fresh (within `max_age` seconds), never replayed (a nonce store), and signed by a hotkey that holds a validator
permit on the subnet's metagraph. The metagraph is re-read every `refresh_seconds`, and at once (at most every
`min_refresh_seconds`) when an unknown hotkey asks, so a newly permitted validator is not kept waiting.

Answers: 200 with the packed bundle (``application/gzip``); 401 for an unsigned, malformed, stale, replayed, wrongly
addressed or badly signed request; 403 for a hotkey without a validator permit; 404 for a bundle this server does not
hold. Every refusal is one short reason in ``{"detail": ...}``.

A miner that pays for its own inference also answers ``POST /llm-key`` (`validator.chain.sealedkey`): to the same
signed requests from the same permit holders, its provider, model and key sealed to the fresh X25519 public key the
request's body holds; 400 for a body without one, 404 when this server holds no key. The key is never logged.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import orjson
from bittensor import http_auth
from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from arena.log import get_logger
from sandbox.bundle import Bundle
from sandbox.serving import ThreadedServer
from validator.chain.httpauth import nonce_store as new_nonce_store
from validator.chain.httpauth import refuse, signed_caller
from validator.chain.port import ChainError, ChainPort
from validator.chain.sealedkey import KEY_ROUTE, MinerKeyConfig, SealedKeyError, read_request, seal_answer

DEFAULT_REFRESH_SECONDS = 120.0
DEFAULT_MIN_REFRESH_SECONDS = 5.0


class ValidatorPermits:
    """The hotkeys holding a validator permit on the subnet, re-read from the chain periodically."""

    def __init__(
        self,
        chain: ChainPort,
        *,
        refresh_seconds: float = DEFAULT_REFRESH_SECONDS,
        min_refresh_seconds: float = DEFAULT_MIN_REFRESH_SECONDS,
        log: Any = None,
    ) -> None:
        self.chain = chain
        self.refresh_seconds = refresh_seconds
        self.min_refresh_seconds = min_refresh_seconds
        self.log = log or get_logger("miner.serve")
        self._hotkeys: frozenset[str] = frozenset()
        self._read_at = float("-inf")
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def hotkeys(self) -> frozenset[str]:
        return self._hotkeys

    def refresh(self) -> frozenset[str]:
        """Re-read the metagraph now; raises `ChainError` when the chain cannot be read."""
        with self._lock:
            graph = self.chain.metagraph()
            self._hotkeys = frozenset(n.hotkey for n in graph.neurons if n.validator_permit)
            self._read_at = time.monotonic()
            return self._hotkeys

    def _refresh_quietly(self) -> None:
        try:
            self.refresh()
        except ChainError as exc:  # keep serving with the last list we read
            self.log.warning("permits.refresh_failed", error=exc.message)

    def holds_permit(self, hotkey: str) -> bool:
        age = time.monotonic() - self._read_at
        if age >= self.refresh_seconds or (hotkey not in self._hotkeys and age >= self.min_refresh_seconds):
            self._refresh_quietly()
        return hotkey in self._hotkeys

    def start(self) -> None:
        """Refresh in the background every `refresh_seconds` until `stop`."""
        if self._thread is not None:
            return

        def loop() -> None:
            while not self._stop.wait(self.refresh_seconds):
                self._refresh_quietly()

        self._thread = threading.Thread(target=loop, name="permit-refresh", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None


def create_app(
    bundles: Bundle | list[Bundle],
    *,
    hotkey_ss58: str,
    permits: ValidatorPermits,
    max_age: float = http_auth.DEFAULT_MAX_AGE,
    nonce_store: http_auth.NonceStore | None = None,
    log: Any = None,
    llm_key: MinerKeyConfig | None = None,
) -> FastAPI:
    """The bundle server: `bundles` by sha256, for requests signed to `hotkey_ss58` by a validator-permit holder;
    with `llm_key`, that key sealed to each validator that asks (``POST /llm-key``)."""
    held = {b.sha256: b for b in (bundles if isinstance(bundles, list) else [bundles])}
    store = nonce_store or new_nonce_store(max_age)
    log = log or get_logger("miner.serve")
    app = FastAPI(title="ShopArena miner bundle server", docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        return {"ok": True, "hotkey": hotkey_ss58, "bundles": sorted(held)}

    async def validator_caller(request: Request, what: str) -> Any:
        """The permit holder that signed `request`, or the refusal (401, 403) to answer with."""
        client = request.client.host if request.client else "?"
        caller, reason = await signed_caller(request, hotkey_ss58=hotkey_ss58, max_age=max_age, nonces=store)
        if caller is None:
            log.warning(f"{what}.refused", status=401, client=client, reason=reason)
            return refuse(401, reason)
        allowed = await run_in_threadpool(permits.holds_permit, caller.hotkey_ss58)
        if not allowed:
            reason = (
                f"hotkey {caller.hotkey_ss58} holds no validator permit on netuid "
                f"{permits.chain.netuid}; bundles are served to validators only"
            )
            log.warning(f"{what}.refused", status=403, client=client, hotkey=caller.hotkey_ss58, reason=reason)
            return refuse(403, reason)
        return caller

    @app.post(KEY_ROUTE)
    async def llm_key_route(request: Request) -> Response:
        caller = await validator_caller(request, "llm_key")
        if isinstance(caller, Response):
            return caller
        if llm_key is None:
            return refuse(404, "this miner holds no LLM key: the validator's key pays for its runs")
        try:
            pubkey = read_request(await request.body())
        except SealedKeyError as exc:
            return refuse(400, str(exc))
        nonce = request.headers.get(http_auth.HEADER_NONCE, "")
        answer = seal_answer(llm_key, pubkey, nonce=nonce, miner=hotkey_ss58, validator=caller.hotkey_ss58)
        log.info("llm_key.sealed", hotkey=caller.hotkey_ss58, provider=llm_key.provider)
        return Response(orjson.dumps(answer), media_type="application/json", headers={"Cache-Control": "no-store"})

    @app.get("/bundle/{sha256}")
    async def bundle(sha256: str, request: Request) -> Response:
        client = request.client.host if request.client else "?"
        caller = await validator_caller(request, "bundle")
        if isinstance(caller, Response):
            return caller
        found = held.get(sha256)
        if found is None:
            log.warning("bundle.unknown", client=client, hotkey=caller.hotkey_ss58, sha256=sha256)
            return refuse(404, f"this miner serves no bundle {sha256[:64]}")
        log.info("bundle.served", client=client, hotkey=caller.hotkey_ss58, sha256=sha256, bytes=len(found.data))
        return Response(
            found.data,
            media_type="application/gzip",
            headers={"X-Bundle-Sha256": found.sha256, "Cache-Control": "no-store"},
        )

    return app


#: the miner's bundle server is the shared threaded uvicorn server (validators serve their API with it too)
BundleServer = ThreadedServer


__all__ = ["BundleServer", "ValidatorPermits", "create_app"]
