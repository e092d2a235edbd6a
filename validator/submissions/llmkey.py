"""Asking a miner for its LLM key, sealed (`validator.chain.sealedkey`): a ``btauth/1``-signed ``POST /llm-key`` to
its axon (or the host of its commitment's URL) with a fresh X25519 public key; the answer opened, bound to this
request, its provider one the operator allows. Every failure is one `SealedKeyError` line that never holds a key."""

from __future__ import annotations

from collections.abc import Container
from typing import Any

import bittensor as bt
import httpx

from validator.chain.port import Axon
from validator.chain.sealedkey import KEY_ROUTE, KeyRequest, MinerUnreachable, OpenedKey, SealedKeyError

#: the largest answer read: a sealed key is a few hundred bytes
MAX_ANSWER_BYTES = 16 * 1024


def key_url(source: str | Axon | None) -> str:
    """Where a miner answers key requests: its axon, or the scheme and host of its commitment's bundle URL."""
    if isinstance(source, Axon):
        if source.port <= 0 or source.ip in ("0.0.0.0", "::", ""):
            raise SealedKeyError(f"the miner's axon is not served ({source.ip}:{source.port}); it cannot hand a key")
        return f"{source.url}{KEY_ROUTE}"
    if not source:
        raise SealedKeyError("the miner serves no axon and its commitment names no URL; it cannot hand a key")
    url = httpx.URL(source)
    return str(url.copy_with(path=KEY_ROUTE, query=None, fragment=None))


def request_key(
    source: str | Axon | None,
    *,
    wallet: Any,
    miner_hotkey: str,
    allowed: Container[str],
    timeout: float = 10.0,
    client: httpx.Client | None = None,
) -> OpenedKey:
    """The miner's key, opened: its provider must be one of `allowed`. `SealedKeyError` (one line) when the miner
    refuses, answers with something that does not open or answers another request; `MinerUnreachable` (one
    of them) when it does not answer at all."""
    url = key_url(source)
    request = KeyRequest(miner=miner_hotkey, validator=wallet.hotkey.ss58_address)
    body = request.body()
    target = httpx.URL(url).raw_path.decode("ascii")
    headers = bt.http_auth.sign(wallet, method="POST", path=target, body=body, receiver_ss58=miner_hotkey)
    headers["Content-Type"] = "application/json"
    http = client or httpx.Client(timeout=httpx.Timeout(timeout))
    try:
        response = http.post(url, content=body, headers=headers)
    except httpx.TimeoutException:
        raise MinerUnreachable(f"the miner at {url} did not answer the key request within {timeout:g}s") from None
    except (httpx.HTTPError, OSError) as exc:
        raise MinerUnreachable(f"cannot reach the miner at {url} for its key ({type(exc).__name__})") from None
    finally:
        if client is None:
            http.close()
    if len(response.content) > MAX_ANSWER_BYTES:
        raise SealedKeyError(f"the miner at {url} answered the key request with over {MAX_ANSWER_BYTES} bytes")
    if response.status_code != 200:
        detail = str(response.json().get("detail", ""))[:200] if _is_json(response) else ""
        raise SealedKeyError(f"the miner at {url} answered the key request {response.status_code} {detail}".rstrip())
    if not _is_json(response):
        raise SealedKeyError(f"the miner at {url} answered the key request with no sealed key")
    opened = request.open(response.json(), nonce=headers[bt.http_auth.HEADER_NONCE])
    if opened.provider not in allowed:
        raise SealedKeyError(
            f"the miner's key is for provider {opened.provider!r}, which this validator does not allow"
        )
    return opened


def _is_json(response: httpx.Response) -> bool:
    try:
        return isinstance(response.json(), dict)
    except ValueError:
        return False


__all__ = ["MAX_ANSWER_BYTES", "key_url", "request_key"]
