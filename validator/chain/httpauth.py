"""The server side of ``btauth/1`` (`bittensor.http_auth`) as our HTTP servers use it: who signed a request, or the
one-line reason it is refused; and the JSON refusal they answer with. The miner's bundle server and the validator's
results route share it."""

from __future__ import annotations

from typing import Any

from bittensor import http_auth
from fastapi import Request
from fastapi.responses import JSONResponse


def nonce_store(max_age: float) -> http_auth.NonceStore:
    """A nonce store that remembers a request as long as it could be replayed."""
    return http_auth.InMemoryNonceStore(retention=max(60.0, 2 * (max_age + http_auth.DEFAULT_ALLOWED_SKEW)))


async def signed_caller(
    request: Request, *, hotkey_ss58: str, max_age: float, nonces: http_auth.NonceStore
) -> tuple[Any, str]:
    """``(caller, "")`` for a fresh, unreplayed request signed to `hotkey_ss58`; ``(None, reason)`` otherwise."""
    target = (request.scope.get("raw_path") or request.url.path.encode()).decode("latin-1")
    if request.scope.get("query_string"):
        target += "?" + request.scope["query_string"].decode("latin-1")
    try:
        caller = http_auth.verify(
            dict(request.headers),
            await request.body(),
            method=request.method,
            path=target,
            self_hotkey_ss58=hotkey_ss58,
            max_age=max_age,
            nonce_store=nonces,
        )
    except http_auth.AuthError as exc:
        if isinstance(exc, http_auth.MalformedAuth):
            return None, f"unsigned or malformed request ({exc}); sign it with bittensor.http_auth (btauth/1)"
        return None, f"{type(exc).__name__}: {exc}"
    return caller, ""


def refuse(status: int, reason: str) -> JSONResponse:
    """The answer to a refused request: ``{"detail": reason}`` (with the scheme to use on a 401)."""
    headers = {"WWW-Authenticate": http_auth.PROTOCOL} if status == 401 else None
    return JSONResponse({"detail": reason}, status_code=status, headers=headers)


__all__ = ["nonce_store", "refuse", "signed_caller"]
