"""Validators' results commitments (``sr1``, `validator.chain.commitment`) as one list with what pooling needs of
each committer from the metagraph: its uid, validator permit, stake and axon."""

from __future__ import annotations

from pydantic import BaseModel

from validator.chain.commitment import RESULTS_PREFIX, encode_commitment, parse_commitment
from validator.chain.port import Axon, ChainOutcome, ChainPort


class ResultsCommitment(BaseModel):
    hotkey: str
    uid: int | None
    sha256: str
    url: str | None  # a base URL: the bundle is at <url>/results/<sha256>; None: the committer's axon
    block: int  # the block the commitment was included in
    validator_permit: bool
    stake: float
    axon: Axon | None


def results_commitments(chain: ChainPort, *, block: int | None = None) -> list[ResultsCommitment]:
    """Every hotkey's results commitment (as of `block`, else now), ordered by hotkey; permit and stake as the
    metagraph shows them as of that block too (a hotkey not registered then: no permit, no stake), uid and axon as it
    shows them now (where the bundle is served today)."""
    graph = chain.metagraph()
    then = chain.metagraph(block) if block is not None else graph
    out = []
    for hotkey, commitment in sorted(chain.commitments(block).items()):
        parsed = parse_commitment(commitment.value, prefix=RESULTS_PREFIX)
        if parsed is None:
            continue
        neuron, held = graph.by_hotkey(hotkey), then.by_hotkey(hotkey)
        out.append(
            ResultsCommitment(
                hotkey=hotkey,
                uid=neuron.uid if neuron is not None else commitment.uid,
                sha256=parsed[0],
                url=parsed[1],
                block=commitment.block,
                validator_permit=bool(held and held.validator_permit),
                stake=float(held.stake) if held is not None else 0.0,
                axon=neuron.axon if neuron is not None else None,
            )
        )
    return out


def commit_results(chain: ChainPort, wallet: object, sha256: str, url: str | None = None) -> ChainOutcome:
    """Publish the wallet hotkey's results bundle `sha256` (fetched at `url`/results/<sha256>, else its axon)."""
    return chain.set_commitment(wallet, encode_commitment(sha256, url, prefix=RESULTS_PREFIX))


__all__ = ["ResultsCommitment", "commit_results", "results_commitments"]
