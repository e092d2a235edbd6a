"""Serving results bundles: ``GET /results/<sha256>`` on the node's API, to signed requests only (``btauth/1``,
`bittensor.http_auth`, addressed to this validator's hotkey, fresh, never replayed).

Who may read a bundle is its `Release`: before its public block, only validator-permit holders whose own results
commitment (``sr1``) was made at or after the race's start block, i.e. validators that raced and published too; from
the public block on (after the weights computed from it are revealed), anyone who signs (auditors, miners). Answers:
200 with the envelope (``application/json``), 401 unsigned/stale/replayed/badly signed, 403 not (yet) allowed, 404
not held; each refusal one line in ``{"detail": ...}``.

Serving the agents it raced: ``GET /agents/<sha256>`` (`agents_router`), the agent bundle's bytes as its miner
committed them (``data_dir/bundles/<sha256>.tar.gz``, verified by sha256 when it was fetched), to signed requests from
validator-permit holders only, as a miner serves it. A pooled validator that could not fetch a raced agent from its
miner (a copier serving its bundle to one validator only) fetches it here from a validator that raced it, and
verifies it by its sha256 (`validator.pool.agents.fetch_agents`), so every pooled validator reads the same code.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Any

from bittensor import http_auth
from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from validator.chain.commitment import RESULTS_PREFIX, parse_commitment
from validator.chain.httpauth import nonce_store as new_nonce_store
from validator.chain.httpauth import refuse, signed_caller
from validator.chain.port import ChainError, ChainPort, Commitment
from validator.pool.shelf import ResultsShelf
from validator.submissions.bundles import archive_path, bundle_path

_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class ChainView:
    """The block, the permit holders and the commitments, re-read at most every `refresh_seconds`."""

    def __init__(self, chain: ChainPort, *, refresh_seconds: float = 6.0) -> None:
        self.chain = chain
        self.refresh_seconds = refresh_seconds
        self._lock = threading.Lock()
        self._read_at = float("-inf")
        self.block = 0
        self.permits: frozenset[str] = frozenset()
        self.commitments: dict[str, Commitment] = {}

    def current(self) -> ChainView:
        with self._lock:
            if time.monotonic() - self._read_at >= self.refresh_seconds:
                graph = self.chain.metagraph()
                self.commitments = self.chain.commitments()
                self.permits = frozenset(n.hotkey for n in graph.neurons if n.validator_permit)
                self.block = graph.block
                self._read_at = time.monotonic()
            return self

    def raced(self, hotkey: str, since_block: int) -> bool:
        """Whether `hotkey` holds a permit and published a results bundle at or after `since_block`."""
        found = self.commitments.get(hotkey)
        return (
            hotkey in self.permits
            and found is not None
            and found.block >= since_block
            and parse_commitment(found.value, prefix=RESULTS_PREFIX) is not None
        )


def results_router(
    shelf: ResultsShelf,
    *,
    hotkey_ss58: str,
    view: ChainView,
    max_age: float = http_auth.DEFAULT_MAX_AGE,
    nonce_store: http_auth.NonceStore | None = None,
) -> APIRouter:
    """``GET /results/<sha256>`` over `shelf`, for requests signed to `hotkey_ss58` (this validator)."""
    nonces = nonce_store or new_nonce_store(max_age)
    router = APIRouter(tags=["results"])

    @router.get("/results/{sha256}", include_in_schema=False)
    async def results(sha256: str, request: Request) -> Response:
        caller, reason = await signed_caller(request, hotkey_ss58=hotkey_ss58, max_age=max_age, nonces=nonces)
        if caller is None:
            return refuse(401, reason)
        release = shelf.release(sha256)
        if release is None:
            return refuse(404, f"this validator holds no results bundle {sha256[:64]}")
        if release.public_block > 0:
            try:
                now: Any = await run_in_threadpool(view.current)
            except ChainError as exc:
                return refuse(503, f"cannot read the chain to decide who may read this bundle: {exc.message}")
            if now.block < release.public_block and not now.raced(caller.hotkey_ss58, release.race_start):
                return refuse(
                    403,
                    f"the results of race {release.race_id} are public from block {release.public_block} (now "
                    f"{now.block}); before that only validators that published their own results of it may read them",
                )
        data = await run_in_threadpool(shelf.get, sha256)
        if data is None:
            return refuse(404, f"this validator holds no results bundle {sha256[:64]}")
        return Response(data, media_type="application/json", headers={"Cache-Control": "no-store"})

    return router


def agents_router(
    data_dir: Path,
    *,
    hotkey_ss58: str,
    view: ChainView,
    max_age: float = http_auth.DEFAULT_MAX_AGE,
    nonce_store: http_auth.NonceStore | None = None,
) -> APIRouter:
    """``GET /agents/<sha256>``: a verified agent bundle this validator holds under `data_dir`, for requests signed
    to `hotkey_ss58` by a validator-permit holder (module docstring)."""
    nonces = nonce_store or new_nonce_store(max_age)
    router = APIRouter(tags=["agents"])

    @router.get("/agents/{sha256}", include_in_schema=False)
    async def agents(sha256: str, request: Request) -> Response:
        caller, reason = await signed_caller(request, hotkey_ss58=hotkey_ss58, max_age=max_age, nonces=nonces)
        if caller is None:
            return refuse(401, reason)
        try:
            now: Any = await run_in_threadpool(view.current)
        except ChainError as exc:
            return refuse(503, f"cannot read the chain to decide who may read this agent: {exc.message}")
        if caller.hotkey_ss58 not in now.permits:
            return refuse(403, f"{caller.hotkey_ss58} holds no validator permit; only validators may read agents")
        archive = archive_path(bundle_path(data_dir, sha256)) if _SHA256.match(sha256) else None
        data = await run_in_threadpool(_read, archive) if archive is not None else None
        if data is None:
            return refuse(404, f"this validator holds no agent bundle {sha256[:64]}")
        return Response(data, media_type="application/gzip", headers={"Cache-Control": "no-store"})

    return router


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


__all__ = ["ChainView", "agents_router", "results_router"]
