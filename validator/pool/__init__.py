"""Pooled race results: each validator's signed results bundle of a closed race (`bundle`, `build`), kept on disk
(`shelf`), committed on chain as ``sr1:<sha256>`` (`validator.chain.results`), served at ``GET /results/<sha256>``
(`serve`), fetched (`fetch`) and verified, every strict verdict re-derived from its trajectory (`verify`,
`rederive`); `pooled` turns verified bundles into `arena.pooling` runs; `audit` re-derives a past race from chain,
pack and bundles. It never imports `validator.races` (which imports it)."""

from validator.pool.build import BuiltBundle, PoolError, build_bundle
from validator.pool.bundle import MAX_BUNDLE_BYTES, BundleRun, ResultsBundle, bundle_id
from validator.pool.fetch import fetch_results, results_url
from validator.pool.models import REFUSAL_KINDS, RaceFacts, Refusal, VerifiedBundle
from validator.pool.shelf import Release, ResultsShelf
from validator.pool.verify import verify_bundle

__all__ = [
    "MAX_BUNDLE_BYTES",
    "REFUSAL_KINDS",
    "BuiltBundle",
    "BundleRun",
    "PoolError",
    "RaceFacts",
    "Refusal",
    "Release",
    "ResultsBundle",
    "ResultsShelf",
    "VerifiedBundle",
    "build_bundle",
    "bundle_id",
    "fetch_results",
    "results_url",
    "verify_bundle",
]
