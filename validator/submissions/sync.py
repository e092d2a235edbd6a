"""`sync_submissions`: the metagraph and every hotkey's latest commitment into the store, each new submission's
bundle fetched and verified, then judged (accepted, rejected, or a copy); see the package's docstring for the rules."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from arena.log import get_logger
from sandbox.bundle import MAX_PACKED
from validator.chain.commitment import RESULTS_PREFIX, parse_commitment
from validator.chain.port import Axon, ChainPort, Commitment, Metagraph, Neuron
from validator.store.repository import Store
from validator.submissions.bundles import archive_path, bundles_dir, clean_tmp, stored
from validator.submissions.copies import judge_copies, normalized_source_hash
from validator.submissions.fetch import fetch_bundle, http_client
from validator.submissions.models import (
    DEFAULT_TIMEOUT,
    VERIFIED,
    SubmissionChange,
    SubmissionError,
    SyncSummary,
    short,
)
from validator.submissions.similarity import cached_fingerprint

DEFAULT_MAX_ATTEMPTS = 3
DEFAULT_RETRY_INTERVAL = 60.0
DEFAULT_CONCURRENCY = 8
_ATTEMPT = re.compile(r"^attempt (\d+) of (\d+): ")


@dataclass
class _Work:
    submission_id: int
    hotkey: str
    block: int
    sha256: str
    source: str | Axon | None
    attempts: int  # failed attempts so far


@dataclass
class _Result:
    ok: bool
    error: SubmissionError | None = None
    fetched: bool = False


def _attempts(reason: str | None) -> int:
    match = _ATTEMPT.match(reason or "")
    return int(match.group(1)) if match else 0


def _describe(url: str | None, neuron: Neuron | None) -> str:
    if url:
        return url
    if neuron is not None and neuron.axon is not None:
        return f"axon {neuron.axon.url}"
    return "axon"


def _obtain(
    sha256: str, works: list[_Work], *, wallet: Any, into: Path, client: httpx.Client, max_bytes: int, timeout: float
) -> dict[int, _Result]:
    """Get one bundle for every submission committing it: from the first source that delivers a valid copy."""
    if stored(into / sha256, sha256):
        return {w.submission_id: _Result(ok=True) for w in works}
    results: dict[int, _Result] = {}
    for index, work in enumerate(works):
        try:
            try:
                fetch_bundle(
                    work.source,
                    sha256,
                    wallet=wallet,
                    into=into,
                    miner_hotkey=work.hotkey,
                    max_bytes=max_bytes,
                    timeout=timeout,
                    client=client,
                )
            except SubmissionError:
                raise
            except Exception as exc:  # our fault, not the miner's: retried like a transient failure
                raise SubmissionError(
                    "validator_error",
                    short(f"validator error while fetching: {type(exc).__name__}: {exc}"),
                    retryable=True,
                ) from exc
        except SubmissionError as exc:
            results[work.submission_id] = _Result(ok=False, error=exc)
            if exc.code == "bad_bundle":  # the committed bytes themselves are bad: the same for every source
                for rest in works[index + 1 :]:
                    results[rest.submission_id] = _Result(ok=False, error=exc)
                return results
            continue
        for rest in works[index:]:
            results[rest.submission_id] = _Result(ok=True, fetched=rest is work)
        return results
    return results


def sync_submissions(
    store: Store,
    chain: ChainPort,
    *,
    wallet: Any,
    data_dir: str | os.PathLike[str],
    log: Any = None,
    max_bytes: int = MAX_PACKED,
    timeout: float = DEFAULT_TIMEOUT,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    retry_interval: float = DEFAULT_RETRY_INTERVAL,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> SyncSummary:
    """Sync the metagraph and commitments into the store, and fetch, verify and judge every new submission.

    Raises `ChainError` when the chain cannot be read (nothing is changed then); everything a miner can get wrong
    ends as a stored reason, never an exception. See the package's docstring for the rules.
    """
    log = log or get_logger("validator.submissions")
    graph = chain.metagraph()
    store.upsert_miners(graph.neurons, block=graph.block)
    commitments = chain.commitments()
    summary = SyncSummary(block=graph.block, neurons=len(graph.neurons), commitments=len(commitments))
    into = bundles_dir(data_dir)
    clean_tmp(into)
    current, work = _discover(store, graph, commitments, summary, log, retry_interval)
    results = _fetch_all(work, wallet=wallet, into=into, max_bytes=max_bytes, timeout=timeout, concurrency=concurrency)
    _record(store, work, results, into, summary, log, max_attempts)
    summary.changes += judge_copies(store, log)
    summary.changes += _supersede(store, current, log)
    if summary.new or summary.fetched or summary.changes or summary.unregistered:  # else not news (every few blocks)
        log.info(
            "submissions.synced",
            block=summary.block,
            neurons=summary.neurons,
            commitments=summary.commitments,
            new=summary.new,
            fetched=summary.fetched,
            accepted=summary.accepted,
            copies=summary.copies,
            rejected=summary.rejected,
            retrying=summary.retrying,
            ignored=summary.ignored,
        )
    return summary


def _discover(
    store: Store,
    graph: Metagraph,
    commitments: Mapping[str, Commitment],
    summary: SyncSummary,
    log: Any,
    retry_interval: float,
) -> tuple[dict[str, int], list[_Work]]:
    """Store each of our commitments as a submission; (hotkey -> block of its current commitment, the pending
    submissions due for a fetch)."""
    now = datetime.now(UTC)
    current: dict[str, int] = {}  # hotkey -> block of its current (our) commitment
    work: list[_Work] = []
    for commitment in sorted(commitments.values(), key=lambda c: (c.block, c.hotkey)):
        parsed = parse_commitment(commitment.value)
        if parsed is None and parse_commitment(commitment.value, prefix=RESULTS_PREFIX) is not None:
            continue  # a validator's results bundle (`validator.races.pooling`), not an agent
        if parsed is None:
            summary.ignored += 1
            log.info(
                "submission.ignored",
                hotkey=commitment.hotkey,
                block=commitment.block,
                reason="not a ShopArena commitment (sa1:<sha256>[:<url>])",
                value=short(commitment.value, 80),
            )
            continue
        neuron = graph.by_hotkey(commitment.hotkey)
        if neuron is None:
            summary.unregistered += 1
            log.info("submission.unregistered", hotkey=commitment.hotkey, block=commitment.block)
            continue
        sha256, url = parsed
        current[commitment.hotkey] = commitment.block
        sub, created = store.add_submission(
            hotkey=commitment.hotkey,
            sha256=sha256,
            commitment_block=commitment.block,
            source=_describe(url, neuron),
            coldkey=neuron.coldkey,
        )
        if created:
            summary.new += 1
            log.info("submission.new", hotkey=sub.hotkey, sha256=sha256, block=sub.commitment_block, source=sub.source)
        if sub.status != "pending":
            continue
        attempts = _attempts(sub.reason)
        if attempts and sub.checked_at is not None and (now - sub.checked_at).total_seconds() < retry_interval:
            summary.waiting += 1
            continue
        source: str | Axon | None = url if url else neuron.axon
        work.append(_Work(sub.id, sub.hotkey, sub.commitment_block, sha256, source, attempts))
    return current, work


def _fetch_all(
    work: list[_Work], *, wallet: Any, into: Path, max_bytes: int, timeout: float, concurrency: int
) -> dict[int, _Result]:
    """Every pending submission's bundle, one fetch per distinct sha256, `concurrency` at a time."""
    by_sha: dict[str, list[_Work]] = {}
    for item in work:
        by_sha.setdefault(item.sha256, []).append(item)
    results: dict[int, _Result] = {}
    if by_sha:
        workers = max(1, min(concurrency, len(by_sha)))
        with (
            http_client(timeout) as client,
            ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bundle-fetch") as pool,
        ):
            futures = {
                sha: pool.submit(
                    _obtain, sha, items, wallet=wallet, into=into, client=client, max_bytes=max_bytes, timeout=timeout
                )
                for sha, items in by_sha.items()
            }
            for future in futures.values():
                results.update(future.result())
    return results


def _record(
    store: Store,
    work: list[_Work],
    results: dict[int, _Result],
    into: Path,
    summary: SyncSummary,
    log: Any,
    max_attempts: int,
) -> None:
    """Store each fetch's outcome: verified (with its normalized hash, judged next), retried later, or rejected."""
    normalized: dict[str, str | SubmissionError] = {}
    for item in work:
        result = results[item.submission_id]
        bound = log.bind(hotkey=item.hotkey, sha256=item.sha256, submission_id=item.submission_id)
        if result.ok:
            summary.fetched += result.fetched
            if item.sha256 not in normalized:
                try:
                    normalized[item.sha256] = normalized_source_hash(into / item.sha256)
                except SubmissionError as exc:
                    normalized[item.sha256] = exc
            norm = normalized[item.sha256]
            if isinstance(norm, SubmissionError):
                result = _Result(ok=False, error=norm)
            else:
                size = archive_path(into / item.sha256).stat().st_size
                # verified; `judge_copies` below decides accepted or copy
                store.set_submission(
                    item.submission_id, status="pending", reason=VERIFIED, normalized_sha256=norm, size_bytes=size
                )
                # its code fingerprints made now (cached beside the bundle for the fork rule), and what of it the
                # similarity check could not read kept for the submissions page
                store.set_code_notes(item.submission_id, cached_fingerprint(into / item.sha256).notes)
                continue
        error = result.error
        assert error is not None
        attempt = item.attempts + 1
        if error.retryable and attempt < max_attempts:
            reason = f"attempt {attempt} of {max_attempts}: {error.reason}"
            status = "pending"
            bound.warning("submission.retry", reason=reason)
        else:
            reason = f"gave up after {attempt} attempts: {error.reason}" if error.retryable else error.reason
            status = "rejected"
            bound.warning("submission.rejected", code=error.code, reason=reason)
        store.set_submission(item.submission_id, status=status, reason=reason)
        summary.changes.append(
            SubmissionChange(
                submission_id=item.submission_id, hotkey=item.hotkey, sha256=item.sha256, status=status, reason=reason
            )
        )


def _supersede(store: Store, current: dict[str, int], log: Any) -> list[SubmissionChange]:
    """A pending submission whose hotkey has since committed something newer will never be fetched: reject it."""
    if not current:
        return []
    rows = store.pending_submissions(current)
    changes = []
    for row in rows:
        block = current[row.hotkey]
        if row.commitment_block < block:
            reason = f"superseded by the hotkey's commitment at block {block} before it could be verified"
            store.set_submission(row.id, status="rejected", reason=reason)
            log.info("submission.superseded", hotkey=row.hotkey, sha256=row.sha256, submission_id=row.id)
            changes.append(
                SubmissionChange(
                    submission_id=row.id, hotkey=row.hotkey, sha256=row.sha256, status="rejected", reason=reason
                )
            )
    return changes
