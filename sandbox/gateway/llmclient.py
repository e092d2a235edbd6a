"""`LLMClient`: the HTTP client of the gateway's upstream LLM calls (the proxied ones and its probes), one per event
loop (`RunRegistry.llm_client`), its connections kept.

It sends through httpcore's connection pool, the layer httpx itself sends through, used directly: httpx's client
around it (its request and response models, cookies, auth and redirect steps, the exception mapping) cost a call
~0.2 ms of the gateway's CPU (bench/gateway_llm.py), and none of it is needed for one POST of JSON. What the call
looks like upstream is httpx's: the same headers, the same JSON, the same TLS context (`httpx.create_ssl_context`),
its errors raised as httpx's (`ReadTimeout`, `ConnectError`, ...). Where the environment names a proxy
(``HTTPS_PROXY`` ...) or a transport is given (tests), httpx's client itself sends, as it reads those."""

from __future__ import annotations

import functools
import json
import urllib.request
import zlib
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx

#: httpcore's errors, raised as httpx's of the same name (httpx maps them so too)
_ERRORS = (
    httpcore.TimeoutException,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
    httpcore.ProxyError,
)
_HEADERS = [
    (b"Accept", b"*/*"),
    (b"Accept-Encoding", b"identity"),  # the answer's bytes as sent (a compressed one is still read, `_plain`)
    (b"Connection", b"keep-alive"),
    (b"User-Agent", f"python-httpx/{httpx.__version__}".encode()),
    (b"Content-Type", b"application/json"),
]


@dataclass(frozen=True)
class Answer:
    """An upstream's answer: its status and its whole body (its headers are never passed on)."""

    status_code: int
    content: bytes

    @property
    def is_success(self) -> bool:
        return 200 <= self.status_code < 300


class LLMClient:
    """POSTs JSON to an upstream with a bearer key, its connections kept (httpx's limits: 100, 20 kept 5 s)."""

    def __init__(self, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self._httpx = httpx.AsyncClient(transport=transport) if transport or urllib.request.getproxies() else None
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5,
        )

    async def post(self, url: str, body: Any, key: str, timeout: float) -> Answer:
        """``body`` as JSON to ``url`` (httpx's encoding), each step (connect, write, each read) within ``timeout``;
        the whole call is the caller's to bound."""
        if self._httpx is not None:
            sent = await self._httpx.post(url, json=body, headers={"Authorization": f"Bearer {key}"}, timeout=timeout)
            return Answer(sent.status_code, sent.content)
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        headers = [(b"Host", _host(url)), *_HEADERS, (b"Content-Length", str(len(content)).encode())]
        headers.append((b"Authorization", f"Bearer {key}".encode()))
        steps = {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}
        try:
            resp = await self._pool.request(
                "POST", url, headers=headers, content=content, extensions={"timeout": steps}
            )
        except _ERRORS as exc:
            raise getattr(httpx, type(exc).__name__, httpx.TransportError)(str(exc)) from exc
        return Answer(resp.status, _plain(resp))


@functools.lru_cache(maxsize=64)
def _host(url: str) -> bytes:
    """The Host header of a call to ``url`` (httpx's: the port only where the URL names one)."""
    return httpx.URL(url).netloc


def _plain(resp: httpcore.Response) -> bytes:
    """The answer's body, decoded where the upstream compressed it anyway (gzip or deflate)."""
    coding = next((v for k, v in resp.headers if k.lower() == b"content-encoding"), b"identity").lower()
    if coding in (b"gzip", b"deflate", b"x-gzip"):
        try:
            return zlib.decompress(resp.content, 47)  # 32 + 15: a gzip or zlib header, whichever it has
        except zlib.error:
            return resp.content  # not JSON then: the upstream's fault (`sandbox.gateway.inference`)
    return resp.content
