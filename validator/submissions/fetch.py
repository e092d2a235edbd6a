"""Fetching a committed bundle: from the URL in the commitment or the miner's axon, signed with the validator's
hotkey (``btauth/1``), streamed under a size cap and a deadline, then verified and stored."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

import bittensor as bt
import httpx

from sandbox.bundle import MAX_PACKED
from validator.chain.port import Axon
from validator.submissions.bundles import store_bundle
from validator.submissions.models import DEFAULT_TIMEOUT, FetchedBundle, SubmissionError, short


def http_client(timeout: float) -> httpx.Client:
    return httpx.Client(
        timeout=httpx.Timeout(timeout),
        follow_redirects=True,
        max_redirects=3,
        headers={"Accept-Encoding": "identity", "User-Agent": "shoparena-validator"},
    )


def _source_url(source: str | Axon | None, sha256: str) -> str:
    if source is None:
        raise SubmissionError("no_source", "no URL in the commitment and no axon served by the miner", retryable=True)
    if isinstance(source, Axon):
        if source.port <= 0 or source.ip in ("0.0.0.0", "::", ""):
            raise SubmissionError(
                "no_source",
                f"no URL in the commitment and the miner's axon is not served ({source.ip}:{source.port})",
                retryable=True,
            )
        return f"{source.url}/bundle/{sha256}"
    return source


def download(client: httpx.Client, url: str, headers: dict[str, str], *, max_bytes: int, timeout: float) -> bytes:
    """GET `url` with `headers`, streamed: the bytes, or one `SubmissionError` line (`http_error`, `bad_response`,
    `too_large` past `max_bytes`, `timed_out` past the `timeout` deadline, `truncated`, `unreachable`)."""
    deadline = time.monotonic() + timeout
    try:
        with client.stream("GET", url, headers=headers) as response:
            if response.status_code != 200:
                detail = ""
                try:
                    head = bytearray()
                    for chunk in response.iter_raw(1024):  # the first bytes only: an error body may be endless
                        head += chunk
                        if len(head) >= 1024 or time.monotonic() > deadline:
                            break
                    body = bytes(head[:1024]).decode("utf-8", "replace")
                    detail = body
                    if response.headers.get("content-type", "").startswith("application/json"):
                        parsed = json.loads(body)
                        if isinstance(parsed, dict) and isinstance(parsed.get("detail"), str):
                            detail = parsed["detail"]
                except Exception:  # a body we cannot read changes nothing about the status line
                    pass
                raise SubmissionError(
                    "http_error",
                    short(f"HTTP {response.status_code} from {url}" + (f": {detail}" if detail else ""), 300),
                    retryable=True,
                )
            encoding = response.headers.get("content-encoding", "identity").strip().lower()
            if encoding not in ("", "identity"):
                raise SubmissionError(
                    "bad_response",
                    f"{url} sent the bundle with Content-Encoding {encoding}; serve the .tar.gz bytes as they are",
                )
            length = response.headers.get("content-length")
            if length is not None and length.isdigit() and int(length) > max_bytes:
                raise SubmissionError(
                    "too_large", f"{url} announces {int(length):,} bytes; a bundle may have at most {max_bytes:,}"
                )
            data = bytearray()
            for chunk in response.iter_raw(65536):
                data += chunk
                if len(data) > max_bytes:
                    raise SubmissionError(
                        "too_large", f"{url} sent over {max_bytes:,} bytes; a bundle may have at most {max_bytes:,}"
                    )
                if time.monotonic() > deadline:
                    raise SubmissionError(
                        "timed_out", f"{url} did not finish sending within {timeout:g}s", retryable=True
                    )
            return bytes(data)
    except httpx.TimeoutException:
        raise SubmissionError("timed_out", f"{url} did not answer within {timeout:g}s", retryable=True) from None
    except httpx.RemoteProtocolError as exc:  # e.g. the peer closed before sending all it announced
        raise SubmissionError("truncated", short(f"{url} broke off the transfer: {exc}"), retryable=True) from None
    except httpx.TooManyRedirects:
        raise SubmissionError("unreachable", f"{url} redirects too often", retryable=True) from None
    except (httpx.HTTPError, httpx.InvalidURL, OSError) as exc:
        raise SubmissionError(
            "unreachable", short(f"cannot download {url}: {type(exc).__name__}: {exc}"), retryable=True
        ) from None


def fetch_bundle(
    source: str | Axon | None,
    sha256: str,
    *,
    wallet: Any,
    into: str | os.PathLike[str],
    miner_hotkey: str | None = None,
    max_bytes: int = MAX_PACKED,
    timeout: float = DEFAULT_TIMEOUT,
    client: httpx.Client | None = None,
) -> FetchedBundle:
    """Download the bundle `sha256` from a URL or an axon, verify and check it, and store it under `into`.

    The request is signed with `wallet`'s hotkey (``btauth/1``, receiver `miner_hotkey`); an axon requires both.
    The body is streamed and abandoned as soon as it passes `max_bytes` or the `timeout` deadline. The result is
    ``into/<sha256>/`` (unpacked) and ``into/<sha256>.tar.gz``, written atomically; nothing is left on failure.
    Raises `SubmissionError` (one line) on any failure.
    """
    url = _source_url(source, sha256)
    headers: dict[str, str] = {}
    if wallet is not None:
        target = httpx.URL(url).raw_path.decode("ascii")
        headers = bt.http_auth.sign(wallet, method="GET", path=target, receiver_ss58=miner_hotkey)
    elif isinstance(source, Axon):
        raise SubmissionError("no_wallet", "fetching from an axon needs the validator's wallet to sign the request")
    own = client is None
    http = http_client(timeout) if client is None else client
    try:
        data = download(http, url, headers, max_bytes=max_bytes, timeout=timeout)
    finally:
        if own:
            http.close()
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise SubmissionError(
            "hash_mismatch",
            f"{url} sent {len(data):,} bytes with sha256 {got[:16]}..., not the committed {sha256[:16]}...",
        )
    return store_bundle(data, sha256, Path(into), url)
