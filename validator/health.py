"""The node's own infrastructure, probed for `/healthz`: its sandbox backend (the Docker engine answers, bubblewrap is
still installed) and its upstream LLM (it answers, and the last call a run made through the gateway was not a
failure). Either one down is `degraded`, not failing: the node lives on, its runs are retried (2001, 2005, never a
miner's fault) and a race waits for the fault to clear (`validator.races.closing`)."""

from __future__ import annotations

from typing import Any, Literal

#: A check's state: True (ok), False (failing: /healthz answers 503), or degraded (200, the reason on its line).
State = bool | Literal["degraded"]
DEGRADED: Literal["degraded"] = "degraded"


def sandbox_check(sandbox: Any) -> tuple[State, str]:
    """The sandbox backend's `health()` (a line), degraded with the reason when it raises."""
    probe = getattr(sandbox, "health", None)
    if probe is None:
        return True, f"{getattr(sandbox, 'name', 'sandbox')}: not probed"
    try:
        return True, str(probe())
    except Exception as exc:  # noqa: BLE001 - health reports any failure as data
        return DEGRADED, f"sandbox backend down: {str(exc)[:300]}"


def upstream_check(gateway: Any, timeout: float = 3.0) -> tuple[State, str] | None:
    """The upstream LLM, if the node has one: ``GET <base>/models`` answers (within `timeout`), and the last call a
    run made through the gateway did not fail. None without an upstream."""
    import httpx

    upstream = getattr(gateway, "upstream", None)
    if upstream is None or not upstream.base_url:
        return None
    base = upstream.base_url.rstrip("/")
    key = upstream.api_key.get_secret_value() if upstream.api_key else "none"
    try:
        resp = httpx.get(f"{base}/models", headers={"Authorization": f"Bearer {key}"}, timeout=timeout)
    except httpx.HTTPError as exc:
        return DEGRADED, f"upstream LLM {base} unreachable: {type(exc).__name__}: {str(exc)[:200]}"
    if resp.status_code >= 500 or resp.status_code in (401, 402, 403, 429):
        return DEGRADED, f"upstream LLM {base} answered {resp.status_code} to GET /models"
    last = getattr(gateway, "upstream_last", None)
    if last is not None and not last[0]:
        return DEGRADED, f"upstream LLM {base} failed the last call a run made: {last[1][:200]}"
    return True, f"upstream LLM {base} answers" + (f" (last call: {last[1]})" if last else "")


def upstream_answers(gateway: Any, timeout: float = 15.0) -> tuple[bool, str]:
    """Whether the upstream LLM is down, by one chat completion of one token to the first allowed model (asked only
    when a race would be voided for it: a fault the node's own call does not meet is not the node's). Returns (down,
    what it saw)."""
    import httpx

    upstream = getattr(gateway, "upstream", None)
    if upstream is None or not upstream.base_url or not upstream.models:
        return True, "no upstream LLM to probe"
    base = upstream.base_url.rstrip("/")
    key = upstream.api_key.get_secret_value() if upstream.api_key else "none"
    body = {"model": upstream.models[0], "messages": [{"role": "user", "content": "ping"}], "max_tokens": 1}
    try:
        resp = httpx.post(
            f"{base}/chat/completions", json=body, headers={"Authorization": f"Bearer {key}"}, timeout=timeout
        )
    except httpx.HTTPError as exc:
        return True, f"upstream LLM {base} unreachable: {type(exc).__name__}"
    if resp.is_success:
        return False, f"upstream LLM {base} answering ({resp.status_code})"
    return True, f"upstream LLM {base} answered {resp.status_code}"
