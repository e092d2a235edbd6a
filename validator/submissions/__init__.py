"""Submissions with no central server: miners' on-chain commitments -> verified agent bundles in the store.

A miner commits ``sa1:<sha256>`` (or ``sa1:<sha256>:<url>``) on chain with its hotkey (`arena-miner submit`). Each
sync (`sync_submissions`):

1. reads the metagraph (recorded with `Store.upsert_miners`) and every hotkey's latest commitment; commitments that
   are not ours are logged and ignored;
2. stores each new commitment as a `pending` submission, then fetches its bundle: from the URL in the commitment, or
   else from the miner's axon (``GET /bundle/<sha256>``); every request is signed with the validator's hotkey
   (``btauth/1``, bound to the miner's hotkey as receiver), streamed under a size cap and a deadline;
3. verifies the bytes' sha256, unpacks them with `sandbox.bundle`'s limits (size, entry count, compression bombs,
   links, paths) and runs the `arena-miner check` checks; a verified bundle is kept, unpacked, at
   ``data_dir/bundles/<sha256>/`` (agent.py at its root) with its archive at ``data_dir/bundles/<sha256>.tar.gz``,
   both written atomically (temp + rename);
4. decides: `accepted`; `rejected` with a one-line reason; or `copy` (with `copy_of`) when an earlier-committed
   verified submission of another hotkey has the same normalized source (`normalized_source_hash`; an identical
   bundle always has). The earliest commitment block wins, ties by hotkey; a hotkey re-committing its own code is
   not a copy. The decision is recomputed over every verified submission on each sync, so an original whose
   download succeeds only on a retry still wins over a later copy that was fetched first.

Transient failures (unreachable, timeout, HTTP errors, no axon yet) leave the submission `pending` with the reason
and the attempt number, retried on later syncs (at most every `retry_interval` seconds) up to `max_attempts`, then
`rejected`. Content failures (hash mismatch, over the size cap, a bomb, a failed check) reject at once. A sync is
idempotent: run twice, the second changes nothing.

Normalized hashes use `ast.unparse`, whose output can differ between Python versions: they are compared only within
one node's store.

Layout: `sync` runs a sync; `fetch` downloads a bundle, `bundles` stores it; `copies` normalizes sources and judges
copies; `models` holds what a sync reports and `SubmissionError`.
"""

from validator.submissions.bundles import bundle_path, bundles_dir
from validator.submissions.copies import normalize_source, normalized_source_hash
from validator.submissions.fetch import fetch_bundle
from validator.submissions.models import FetchedBundle, SubmissionChange, SubmissionError, SyncSummary
from validator.submissions.sync import sync_submissions

__all__ = [
    "FetchedBundle",
    "SubmissionChange",
    "SubmissionError",
    "SyncSummary",
    "bundle_path",
    "bundles_dir",
    "fetch_bundle",
    "normalize_source",
    "normalized_source_hash",
    "sync_submissions",
]
