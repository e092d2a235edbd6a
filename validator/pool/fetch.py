"""Fetching a validator's committed results bundle: from ``<url>/results/<sha256>`` when its commitment names a base
URL (its node's API, or any bucket holding the envelope at that path: an S3-compatible one works unchanged), else
from its axon; signed with our hotkey (``btauth/1``, receiver the committer), streamed under a size cap and a
deadline. Any failure is a `Refusal` (unreachable, slow, truncated, oversized) naming the validator."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import bittensor as bt
import httpx
import orjson

from validator.chain.results import ResultsCommitment
from validator.pool.bundle import MAX_BUNDLE_BYTES
from validator.pool.models import Refusal, RefusalKind
from validator.submissions.fetch import download, http_client
from validator.submissions.models import SubmissionError

DEFAULT_TIMEOUT = 20.0
_KINDS: dict[str, RefusalKind] = {"timed_out": "slow", "too_large": "oversized", "truncated": "truncated"}


def results_url(commitment: ResultsCommitment) -> str | None:
    """Where the committed bundle is served; None when the commitment has no URL and the committer no axon."""
    if commitment.url:
        return f"{commitment.url.rstrip('/')}/results/{commitment.sha256}"
    axon = commitment.axon
    if axon is None or axon.port <= 0 or axon.ip in ("0.0.0.0", "::", ""):
        return None
    return f"{axon.url}/results/{commitment.sha256}"


def fetch_results(
    commitment: ResultsCommitment,
    *,
    wallet: Any,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = MAX_BUNDLE_BYTES,
    client: httpx.Client | None = None,
) -> bytes | Refusal:
    """The envelope bytes `commitment` names (not yet verified: `verify_bundle`), or why they could not be had."""
    who = commitment.hotkey
    url = results_url(commitment)
    if url is None:
        reason = "its commitment names no URL and it serves no axon"
        return Refusal(validator=who, kind="unreachable", reason=f"results of validator {who} unreachable: {reason}")
    target = httpx.URL(url).raw_path.decode("ascii")
    headers = dict(bt.http_auth.sign(wallet, method="GET", path=target, receiver_ss58=who)) if wallet else {}
    own = client is None
    http = http_client(timeout) if client is None else client
    try:
        return download(http, url, headers, max_bytes=max_bytes, timeout=timeout)
    except SubmissionError as exc:
        kind = _KINDS.get(exc.code, "unreachable")
        return Refusal(validator=who, kind=kind, reason=f"results of validator {who} {kind}: {exc.reason}")
    finally:
        if own:
            http.close()


def fetch_each(
    commitments: Sequence[ResultsCommitment],
    *,
    wallet: Any,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = MAX_BUNDLE_BYTES,
    ahead: int = 1,
) -> Iterator[tuple[ResultsCommitment, bytes | Refusal]]:
    """`fetch_results` of each commitment in order, the next `ahead` fetched in a thread while the caller verifies
    the current one (a download waits on the network, a verification on the CPU)."""
    with ThreadPoolExecutor(max_workers=max(1, ahead), thread_name_prefix="results-fetch") as pool:
        futures: deque[Future[bytes | Refusal]] = deque()
        pending = iter(commitments)

        def submit() -> None:
            for commitment in itertools.islice(pending, 1):
                futures.append(
                    pool.submit(fetch_results, commitment, wallet=wallet, timeout=timeout, max_bytes=max_bytes)
                )

        for _ in range(ahead + 1):
            submit()
        for commitment in commitments:
            result = futures.popleft().result()
            submit()
            yield commitment, result


def walk_back(
    commitment: ResultsCommitment,
    race_id: str,
    *,
    wallet: Any,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = MAX_BUNDLE_BYTES,
    steps: int = 64,
) -> tuple[ResultsCommitment, bytes] | Refusal | None:
    """The committer's bundle of race `race_id`, found by following `prev` back from its latest commitment (the
    commitment as of an old block needs an archive node): the commitment rewritten to name it and its bytes; None
    when the chain of bundles ends (or `steps` run out) before that race; a `Refusal` when one cannot be had. The
    bytes are not verified here, and the walked bundle's own commitment block is not known."""
    for _ in range(steps):
        raw = fetch_results(commitment, wallet=wallet, timeout=timeout, max_bytes=max_bytes)
        if isinstance(raw, Refusal):
            return raw
        try:
            body = orjson.loads(raw)["body"]
            found, prev = str(body["race_id"]), str(body.get("prev") or "")
        except (orjson.JSONDecodeError, KeyError, TypeError):
            reason = f"results of validator {commitment.hotkey} malformed: bundle {commitment.sha256} is no envelope"
            return Refusal(validator=commitment.hotkey, kind="malformed", reason=reason)
        if found == race_id:
            return commitment, raw
        if not prev:
            return None
        commitment = commitment.model_copy(update={"sha256": prev})
    return None


__all__ = ["DEFAULT_TIMEOUT", "fetch_each", "fetch_results", "results_url", "walk_back"]
