"""The raced agents' bundles as `arena-validator audit` gets them (it has no store): fetched from each miner's
commitment as of the race's start (its URL, else its axon), verified by sha256, kept in a folder for the fork rule's
code evidence (`validator.pool.copies`). A miner that does not serve its bundle to this validator (a copier serving it
to one validator only) is no obstacle when a validator that raced it is named (``holders``): the bundle is fetched from
that validator's ``/agents/<sha256>`` (`validator.pool.serve.agents_router`, where its results commitment says it
serves, a signed request) and verified by the same sha256. A bundle that cannot be fetched from anyone is no code
evidence, said in a note."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from validator.chain.commitment import parse_commitment
from validator.chain.port import ChainError, ChainPort
from validator.chain.results import ResultsCommitment, results_commitments
from validator.submissions.bundles import bundle_path, bundles_dir
from validator.submissions.fetch import fetch_bundle
from validator.submissions.models import SubmissionError


def _served_at(commitment: ResultsCommitment) -> str | None:
    """The base URL a validator serves its node's API at: its results commitment's URL, else its axon."""
    if commitment.url:
        return commitment.url.rstrip("/")
    axon = commitment.axon
    if axon is None or axon.port <= 0 or axon.ip in ("0.0.0.0", "::", ""):
        return None
    return axon.url


def fetch_agents(
    chain: ChainPort,
    start: int,
    raced: Iterable[tuple[str, str]],
    into: Path,
    *,
    wallet: Any,
    timeout: float,
    holders: Mapping[str, Sequence[str]] | None = None,
) -> tuple[dict[str, Path], list[str]]:
    """(sha256 -> bundle folder, notes) for the raced (hotkey, sha256) pairs, kept under ``into/bundles`` as a
    node keeps them (an audit given a node's data folder fetches nothing it already holds); ``holders`` names, by
    sha256, the validators that raced it, asked in turn when the miner's source fails."""
    commitments = chain.commitments(start)
    axons = {n.hotkey: n.axon for n in chain.metagraph().neurons}
    folders: dict[str, Path] = {}
    notes: list[str] = []
    served: dict[str, str | None] = {}
    for hotkey, sha256 in sorted(set(raced)):
        folder = bundle_path(into, sha256)
        if folder.is_dir():
            folders[sha256] = folder
            continue
        parsed = parse_commitment(commitments[hotkey].value) if hotkey in commitments else None
        url = parsed[1] if parsed is not None and parsed[0] == sha256 else None
        try:
            source = url or axons.get(hotkey)
            fetched = fetch_bundle(
                source, sha256, wallet=wallet, into=bundles_dir(into), miner_hotkey=hotkey, timeout=timeout
            )
            folders[sha256] = Path(fetched.path)
        except SubmissionError as exc:
            found = _from_validators(chain, sha256, (holders or {}).get(sha256, ()), into, wallet, timeout, served)
            if isinstance(found, Path):
                folders[sha256] = found
                continue
            tried = "".join(f"; {reason}" for reason in found)
            notes.append(f"no code evidence for {hotkey}'s agent {sha256[:16]}...: {exc.reason}{tried}")
    return folders, notes


def _from_validators(
    chain: ChainPort,
    sha256: str,
    validators: Sequence[str],
    into: Path,
    wallet: Any,
    timeout: float,
    served: dict[str, str | None],
) -> Path | list[str]:
    """The bundle fetched from the first of ``validators`` (not this one) that serves it, or why none did;
    ``served`` caches where each validator serves (read from the chain once per call of `fetch_agents`)."""
    me = getattr(getattr(wallet, "hotkey", None), "ss58_address", None)
    asked = [v for v in sorted(set(validators)) if v != me]
    if not asked:
        return []
    if not served:
        try:
            served.update({c.hotkey: _served_at(c) for c in results_commitments(chain)})
        except ChainError as exc:
            return [f"cannot read where the validators that raced it serve: {exc.message}"]
        served.setdefault("", None)  # read once, even when nobody has committed
    reasons = []
    for validator in asked:
        base = served.get(validator)
        if base is None:
            reasons.append(f"validator {validator} serves no API (no URL in its results commitment, no axon)")
            continue
        try:
            fetched = fetch_bundle(
                f"{base}/agents/{sha256}",
                sha256,
                wallet=wallet,
                into=bundles_dir(into),
                miner_hotkey=validator,
                timeout=timeout,
            )
            return Path(fetched.path)
        except SubmissionError as exc:
            reasons.append(f"from validator {validator}: {exc.reason}")
    return reasons
