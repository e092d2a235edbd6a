"""The raced agents' bundles as `arena-validator audit` gets them (it has no store): fetched from each miner's
commitment as of the race's start (its URL, else its axon), verified by sha256, kept in a folder for the fork rule's
code evidence (`validator.pool.copies`). A bundle that cannot be fetched is no code evidence, said in a note."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from validator.chain.commitment import parse_commitment
from validator.chain.port import ChainPort
from validator.submissions.bundles import bundle_path, bundles_dir
from validator.submissions.fetch import fetch_bundle
from validator.submissions.models import SubmissionError


def fetch_agents(
    chain: ChainPort, start: int, raced: Iterable[tuple[str, str]], into: Path, *, wallet: Any, timeout: float
) -> tuple[dict[str, Path], list[str]]:
    """(sha256 -> bundle folder, notes) for the raced (hotkey, sha256) pairs, kept under ``into/bundles`` as a
    node keeps them (an audit given a node's data folder fetches nothing it already holds)."""
    commitments = chain.commitments(start)
    axons = {n.hotkey: n.axon for n in chain.metagraph().neurons}
    folders: dict[str, Path] = {}
    notes: list[str] = []
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
            notes.append(f"no code evidence for {hotkey}'s agent {sha256[:16]}...: {exc.reason}")
    return folders, notes
