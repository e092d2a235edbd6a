"""`arena-validator audit`: anyone re-derives a past race from the chain, the pack and the published results bundles,
with no store: every bundle committed by the race's cut-off (or before it, once every permit holder has committed,
as nodes with --pool.early pool then) is fetched and verified (each strict verdict re-derived from its trajectory),
the verified runs are pooled (`arena.pooling.pool`, with those of the rotation's window of earlier races, each audited
the same way, as `validator.pool.inputs` says), the weight vector they imply is computed with the subnet's
policy, and each permit holder's weights on chain are compared with it, u16 for u16 (the chain keeps weights as u16,
max-upscaled: `bittensor.intents.weights.normalize`).

The race's problems come from the pack: drawn with the slot's block hash, or opened from its sealed batch with the
batch's drand round (a race whose batch does not open yet is `AuditError`: its pack is still sealed, nothing to do).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bittensor.intents.weights import normalize

from arena.copies import COPY_THRESHOLD, pinned_threshold
from arena.copies.fork import CopyVerdict
from arena.pooling import Standing
from arena.problems.draw import draw_problems
from arena.weights import AnyPolicy, MinerResult, compute_weights
from validator.chain.port import ChainError, ChainPort
from validator.chain.results import ResultsCommitment, results_commitments
from validator.pool import MAX_BUNDLE_BYTES, RaceFacts, Refusal, VerifiedBundle, verify_bundle
from validator.pool.copies import audit_copies
from validator.pool.fetch import fetch_each, walk_back
from validator.pool.inputs import NEVER, RaceRuns, holders_at, pin_block, pooled_standings, window_starts
from validator.pool.pooled import to_pooled

U16_MAX = 65535
_RACE = re.compile(r"^(?P<prefix>.{1,16})-(?P<start>\d+)$")


class AuditError(Exception):
    """The audit cannot be made; the message is one line saying why and what to do."""


@dataclass
class ValidatorVerdict:
    hotkey: str
    uid: int | None
    matches: bool
    reason: str
    bundle: str = ""  # verified | refused: <kind> | none
    runs: int = 0


@dataclass
class AuditReport:
    race_id: str
    start_block: int
    cutoff_block: int
    weights_block: int
    problems: list[str]
    standings: list[Standing]
    expected: dict[int, float]  # the weight vector the pooled evidence implies
    validators: list[ValidatorVerdict] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    miner_runs: list[dict[str, Any]] = field(default_factory=list)  # --miner: that miner's runs, per validator
    note: str = ""
    copies: list[CopyVerdict] = field(default_factory=list)  # the fork rule's verdicts (a copy earns nothing)


def race_problems(chain: ChainPort, pack: Any, race_id: str) -> tuple[int, str, list[Any]]:
    """(start block, seed hash, the race's problems) of a race of `pack`, as every validator drew them."""
    match = _RACE.match(race_id)
    if match is None or match["prefix"] != pack.pack_id[:16]:
        raise AuditError(
            f"race {race_id!r} is not a race of pack {pack.pack_id[:16]} (ids are <pack id>-<start block>)"
        )
    start = int(match["start"])
    if pack.sealed:
        return (start, *_sealed_problems(chain, pack, race_id, start))
    seed_hash = chain.block_hash(start)
    ids = draw_problems(
        pack.problems,
        pack_id=pack.pack_id,
        seed_hash=seed_hash,
        n=pack.rotation.problems_per_race,
        task_mix=pack.rotation.task_mix,
    )
    return start, seed_hash, [pack.problem(pid) for pid in ids]


def _sealed_problems(chain: ChainPort, pack: Any, race_id: str, start: int) -> tuple[str, list[Any]]:
    from arena.beacon import BeaconError, round_signature
    from arena.problems.seal import SealError, open_batch

    batch = next((b for b in pack.sealed if b.open_block == start), None)
    if batch is None:
        raise AuditError(f"pack {pack.pack_id[:16]} has no sealed batch opening at block {start} (race {race_id})")
    try:
        signature = round_signature(batch.reveal_round, chain=chain)
    except BeaconError as exc:
        raise AuditError(f"race {race_id}: cannot read drand round {batch.reveal_round}: {exc}") from None
    if signature is None:
        raise AuditError(
            f"race {race_id}: its pack is still sealed (drand round {batch.reveal_round} is not out yet); its problems "
            "are public once the round is, audit it then"
        )
    try:
        opened = open_batch(batch, signature)
    except SealError as exc:
        raise AuditError(f"race {race_id}: its sealed batch does not open: {exc}") from None
    return f"drand:{batch.reveal_round}", list(opened.problems)


def u16_row(weights: dict[int, float]) -> dict[int, int]:
    """A weight row as the chain keeps it: max-upscaled to u16, zeros dropped."""
    pairs = sorted((int(uid), float(w)) for uid, w in weights.items() if w > 0)
    if not pairs:
        return {}
    uids, values = normalize([u for u, _ in pairs], [w for _, w in pairs])
    return dict(zip(uids, values, strict=True))


def audit_race(
    chain: ChainPort,
    pack: Any,
    lookup: Callable[[str], Any],
    race_id: str,
    *,
    wallet: Any,
    policy: AnyPolicy,
    cutoff_blocks: int | None = None,
    weights_block: int | None = None,
    miner: str | None = None,
    timeout: float = 20.0,
    max_bytes: int = MAX_BUNDLE_BYTES,
    agents: Path | None = None,
    threshold: float = COPY_THRESHOLD,
) -> AuditReport:
    """The audit of race `race_id` (see the module's docstring). With ``agents`` (a folder the raced agents' bundles
    are fetched into) the fork rule is applied before the weights, as every node applies it; without, it is not."""
    fetching, threshold = (wallet, timeout, max_bytes), pinned_threshold(pack, threshold)  # the pack's wins
    start, seed_hash, problems = race_problems(chain, pack, race_id)
    cadence = pack.rotation.cadence_blocks
    cutoff = start + (cutoff_blocks if cutoff_blocks is not None else max(1, cadence * 3 // 4))
    now = chain.block()
    graph = chain.metagraph()
    holders = {n.hotkey: n for n in graph.neurons if n.validator_permit}
    complete = _all_committed(chain, holders, start, cutoff) if now <= cutoff else None
    pinned: int | None = pin_block(cutoff, now, (c.block for c in complete or []))
    try:  # the permit holders and their stakes as of the pinned block, as every node weighs them
        holders = holders_at(chain, pinned)
    except ChainError:  # a node that no longer holds that block's state: as now (said in the report's note)
        pinned = None
    if now <= cutoff and complete is None:
        raise AuditError(
            f"race {race_id}'s cut-off is block {cutoff} (now {now}) and not every permit holder has committed its "
            "results: audit it once the cut-off passed"
        )
    verified, refusals = _evidence(chain, pack, lookup, race_id, start, problems, holders, complete, cutoff, fetching)
    runs = {v.bundle.validator: to_pooled(v) for v in verified}
    standings, blocks = (
        pooled_standings(
            chain,
            runs,
            holders,
            pack.rotation,
            start=start,
            seed_hash=seed_hash,
            problem_ids=[p.problem_id for p in problems],
            earlier=_window(chain, pack, lookup, start, cutoff - start, holders, fetching),
        )
        if runs
        else ([], {})
    )
    results = _results(graph, standings, blocks)
    copies: list[CopyVerdict] = []
    copy_notes: list[str] = []
    if agents is not None and results:
        said = {v.bundle.validator: v.bundle.dates for v in verified}
        results, copies, copy_notes = audit_copies(
            chain, start, pinned, runs, said, holders, results, agents, threshold, wallet=wallet, timeout=timeout
        )
    expected = compute_weights(results, {n.hotkey: n.uid for n in graph.neurons}, policy)
    at = min(now, weights_block) if weights_block is not None else now
    report = AuditReport(race_id, start, cutoff, at, [p.problem_id for p in problems], standings, expected)
    report.refusals = refusals
    report.copies = copies
    if pinned is None:
        report.note = f"stakes and permits read as now: this node does not hold block {cutoff}'s state. "
    if len(verified) < 2:
        report.note += (
            f"{len(verified)} bundle(s) verified: with fewer than two a node weighs its own results alone (its "
            "window included), which the audit reads here from its bundle of this race only"
        )
    report.note += "".join(f" {n}." for n in copy_notes)
    report.validators = _judge_weights(chain, holders, expected, at, verified, refusals)
    if miner is not None:
        report.miner_runs = _miner_runs(verified, miner)
    return report


def _results(graph: Any, standings: list[Standing], blocks: dict[str, int]) -> list[MinerResult]:
    """The pooled standings as the weights read them, over the miners the metagraph has a uid for (as every node
    weighs them)."""
    uids = {n.hotkey: n.uid for n in graph.neurons}
    return [
        MinerResult(
            hotkey=s.miner,
            score=_unit(s.score),
            commitment_block=blocks.get(s.miner, NEVER),
            low=_unit(s.low),
            high=_unit(s.high),
        )
        for s in standings
        if s.miner in uids
    ]


def _miner_runs(verified: list[VerifiedBundle], miner: str) -> list[dict[str, Any]]:
    """One miner's runs in every verified bundle (`--miner`): which validator ran what, and its verdict."""
    return [
        {"validator": v.bundle.validator, **run.model_dump(include={"problem_id", "attempt", "final", "error_code"})}
        | {"success": bool(run.strict and run.strict.get("success"))}
        for v in verified
        for run in v.bundle.runs
        if run.miner == miner
    ]


def _evidence(
    chain: ChainPort,
    pack: Any,
    lookup: Callable[[str], Any],
    race_id: str,
    start: int,
    problems: list[Any],
    holders: dict[str, Any],
    complete: list[ResultsCommitment] | None,
    cutoff: int,
    fetching: tuple[Any, float, int],
) -> tuple[list[VerifiedBundle], list[Refusal]]:
    """The race's committed bundles (as of its cut-off, or `complete` before it), fetched and verified."""
    wallet, timeout, max_bytes = fetching
    facts = RaceFacts(
        race_id=race_id,
        pack_id=pack.pack_id,
        netuid=chain.netuid,
        problems={p.problem_id: p for p in problems},
        lookup=lookup,
        ruleset=pack.ruleset_for,
        gold_vectors=pack.gold_vectors,
        # unsharded, a race has no make-up samples: k bounds the sample index as on every node (a bundle the nodes
        # refuse as past the race's samples is refused here too, else the audit would pool what they did not);
        # sharded, make-up samples (index k and up) depend on the race before: not bounded here
        samples=int(pack.rotation.samples) if int(pack.rotation.shard_r) < 2 else None,
    )
    try:  # before the cut-off, every permit holder's commitment of the race (the set the nodes pooled)
        seen, walked = complete if complete is not None else results_commitments(chain, block=cutoff), False
    except ChainError:  # a node that no longer holds the cut-off block's state: walk back from the latest
        seen, walked = results_commitments(chain), True
    committed = [c for c in seen if c.hotkey in holders and (walked or start <= c.block)]
    if walked:
        committed, early = _walked(committed, race_id, wallet, timeout, max_bytes)
    verified, refusals = _fetch_all(committed, facts, set(holders), wallet, timeout, max_bytes)
    return verified, (early + refusals if walked else refusals)


def _window(
    chain: ChainPort,
    pack: Any,
    lookup: Callable[[str], Any],
    start: int,
    cutoff_blocks: int,
    holders: dict[str, Any],
    fetching: tuple[Any, float, int],
) -> list[RaceRuns]:
    """The verified runs of the W - 1 race slots before the race (`validator.pool.inputs.window_starts`), each
    audited as that race is; a slot that was not raced (no race of the pack there) adds nothing."""
    out = []
    for earlier in window_starts(start, pack.rotation):
        race_id = f"{pack.pack_id[:16]}-{earlier}"
        try:
            _, seed_hash, problems = race_problems(chain, pack, race_id)
        except AuditError:
            continue
        cutoff = earlier + cutoff_blocks
        try:  # that race's permit holders as of its cut-off, as the nodes pooled it
            then = holders_at(chain, cutoff)
        except ChainError:
            then = holders
        verified, _ = _evidence(chain, pack, lookup, race_id, earlier, problems, then, None, cutoff, fetching)
        runs = {v.bundle.validator: to_pooled(v) for v in verified}
        if runs:
            out.append(RaceRuns(race_id, earlier, seed_hash, [p.problem_id for p in problems], runs))
    return out


def _unit(value: float) -> float:
    return min(1.0, max(0.0, float(value)))


def _all_committed(
    chain: ChainPort, holders: dict[str, Any], start: int, cutoff: int
) -> list[ResultsCommitment] | None:
    """Before the cut-off: the results commitments of the race if every permit holder has made one (nobody else can
    commit, so this is the set the nodes pooled, `validator.races.pooling`), else None."""
    current = [c for c in results_commitments(chain) if c.hotkey in holders and start <= c.block <= cutoff]
    return current if holders and {c.hotkey for c in current} == set(holders) else None


def _walked(
    latest: list[ResultsCommitment], race_id: str, wallet: Any, timeout: float, max_bytes: int
) -> tuple[list[ResultsCommitment], list[Refusal]]:
    """Each committer's bundle of the race, followed back through `prev` from its latest commitment."""
    found: list[ResultsCommitment] = []
    refusals: list[Refusal] = []
    for commitment in latest:
        walked = walk_back(commitment, race_id, wallet=wallet, timeout=timeout, max_bytes=max_bytes)
        if isinstance(walked, Refusal):
            refusals.append(walked)
        elif walked is not None:
            found.append(walked[0])
    return found, refusals


def _fetch_all(
    committed: list[ResultsCommitment], facts: RaceFacts, holders: set[str], wallet: Any, timeout: float, max_bytes: int
) -> tuple[list[VerifiedBundle], list[Refusal]]:
    verified: list[VerifiedBundle] = []
    refusals: list[Refusal] = []
    for commitment, raw in fetch_each(committed, wallet=wallet, timeout=timeout, max_bytes=max_bytes):
        if isinstance(raw, Refusal):
            refusals.append(raw)
            continue
        result = verify_bundle(
            raw, commitment.sha256, validator=commitment.hotkey, race=facts, permit_holders=holders, max_bytes=max_bytes
        )
        if isinstance(result, Refusal):
            refusals.append(result)
        else:
            verified.append(result)
    return verified, refusals


def _judge_weights(
    chain: ChainPort,
    holders: dict[str, Any],
    expected: dict[int, float],
    block: int,
    verified: list[VerifiedBundle],
    refusals: list[Refusal],
) -> list[ValidatorVerdict]:
    on_chain = chain.weights(block)
    want = u16_row(expected)
    published = {v.bundle.validator: v for v in verified}
    refused = {r.validator: r for r in refusals}
    out = []
    for hotkey, neuron in sorted(holders.items(), key=lambda item: item[1].uid):
        row = on_chain.get(neuron.uid)
        if row is None:
            matches, reason = False, f"set no weights by block {block}"
        else:
            got = u16_row(row)
            differ = sorted(uid for uid in set(got) | set(want) if got.get(uid) != want.get(uid))
            matches = not differ
            reason = (
                "its weights match the pooled evidence, u16 for u16"
                if matches
                else f"its weights differ from the pooled evidence at {len(differ)} uid(s): "
                + ", ".join(f"uid {u} {got.get(u, 0)} on chain, {want.get(u, 0)} implied" for u in differ[:4])
            )
        if hotkey in refused:
            bundle, reason = f"refused: {refused[hotkey].kind}", f"{reason}; {refused[hotkey].reason}"
        elif hotkey in published:
            bundle = "verified"
        else:
            bundle = "none"
            reason += "; it committed no results bundle of this race by the cut-off"
        runs = len(published[hotkey].bundle.runs) if hotkey in published else 0
        out.append(ValidatorVerdict(hotkey, neuron.uid, matches, reason, bundle, runs))
    return out


__all__ = ["AuditError", "AuditReport", "ValidatorVerdict", "audit_race", "race_problems", "u16_row"]
