"""Verifying a fetched results bundle: its bytes, hash, signature and committer's permit, its race, that it holds
only runs of the race's problems and miners without duplicates, that every claimed strict verdict re-derives
from its trajectory (`validator.pool.rederive`), and that every run's claimed spend is what its trajectory's LLM calls
add up to. The first failure refuses the whole bundle with one line naming the
validator (`Refusal`); a bundle passes whole (`VerifiedBundle`) or not at all."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Collection
from typing import Any

import orjson
from pydantic import ValidationError

from arena.blame import blame_of
from arena.gcpause import paused_gc
from arena.spend import RunSpend, run_spend
from arena.trajectory import TrajectoryEvent
from validator.pool.bundle import MAX_BUNDLE_BYTES, VERSION, BundleRun, ResultsBundle, canonical, signature_valid
from validator.pool.models import RaceFacts, Refusal, RefusalKind, VerifiedBundle
from validator.pool.rederive import strict_verdict

_START = re.compile(r"-(\d+)$")


class _Refused(Exception):
    def __init__(self, kind: RefusalKind, reason: str) -> None:
        super().__init__(reason)
        self.kind: RefusalKind = kind
        self.reason = reason


def verify_bundle(
    raw: bytes,
    expected_sha256: str,
    *,
    validator: str,
    race: RaceFacts,
    permit_holders: Collection[str],
    max_bytes: int = MAX_BUNDLE_BYTES,
) -> VerifiedBundle | Refusal:
    """The bundle `validator` committed as `expected_sha256`, verified against `race`; or why it is refused.

    Python's cyclic garbage collector is paused meanwhile: a bundle parses into a few million objects, none in a
    cycle, and collecting while they are made (it walks every live object, again and again) took 5x the parse."""
    with paused_gc():
        return _verify(raw, expected_sha256, validator, race, permit_holders, max_bytes)


def _verify(
    raw: bytes, expected_sha256: str, validator: str, race: RaceFacts, permit_holders: Collection[str], max_bytes: int
) -> VerifiedBundle | Refusal:
    try:
        if validator not in permit_holders:
            raise _Refused("no_permit", "its hotkey holds no validator permit on the subnet")
        if len(raw) > max_bytes:
            raise _Refused("oversized", f"it is {len(raw):,} bytes, over the {max_bytes:,} a bundle may have")
        body, signature = _envelope(raw)
        sha256 = hashlib.sha256(canonical(body)).hexdigest()
        if sha256 != expected_sha256:
            raise _Refused(
                "bad_hash", f"its body hashes to {sha256[:16]}..., not the committed {expected_sha256[:16]}..."
            )
        if body.get("validator") != validator or not signature_valid(validator, sha256, signature):
            raise _Refused("bad_signature", "it is not signed by the committing hotkey")
        _check_version(body.get("version"))
        try:
            bundle = ResultsBundle.model_validate(body)
        except ValidationError as exc:
            raise _Refused("malformed", f"it is not a results bundle ({exc.error_count()} bad fields)") from None
        if (bundle.version == 1 and bundle.dates) or (bundle.version > 1 and bundle.since is not None):
            raise _Refused(
                "malformed", f"a version {bundle.version} results bundle carries {'dates' if bundle.dates else 'since'}"
            )
        _check_race(bundle, sha256, race)
        _check_runs(bundle, race)
        strict = tuple(_check_verdict(run, race) for run in bundle.runs)
        for run in bundle.runs:
            _check_spend(run)
    except _Refused as refused:
        return Refusal(
            validator=validator, kind=refused.kind, reason=f"results of validator {validator} refused: {refused.reason}"
        )
    return VerifiedBundle(sha256=sha256, bundle=bundle, size_bytes=len(raw), strict=strict)


def _check_version(version: object) -> None:
    """A format this node reads: 1 (before ``dates``) up to `VERSION`; a newer one is refused saying so."""
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _Refused("malformed", f"its format version {str(version)[:20]!r} is not a version number")
    if version > VERSION:
        raise _Refused(
            "newer_version",
            f"it is in results bundle format version {version}, newer than this node reads (1 to {VERSION}): "
            "upgrade shoparena to pool its runs",
        )


def _envelope(raw: bytes) -> tuple[dict[str, Any], str]:
    try:
        envelope = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise _Refused("truncated", f"its {len(raw):,} bytes are not whole JSON (cut off or corrupted)") from None
    if not isinstance(envelope, dict) or not isinstance(envelope.get("body"), dict):
        raise _Refused("malformed", 'it is not an envelope {"body": ..., "signature": ...}')
    signature = envelope.get("signature")
    if not isinstance(signature, str) or not re.fullmatch(r"0x[0-9a-f]{128}", signature):
        raise _Refused("bad_signature", "its signature is missing or not 64 bytes of 0x hex")
    return envelope["body"], signature


def _check_race(bundle: ResultsBundle, sha256: str, race: RaceFacts) -> None:
    if sha256 in race.seen and race.seen[sha256] != race.race_id:
        raise _Refused("replayed", f"it is the bundle it published for race {race.seen[sha256]}")
    if bundle.race_id != race.race_id:
        ours, theirs = _START.search(race.race_id), _START.search(bundle.race_id)
        if ours and theirs and bundle.pack_id == race.pack_id and int(theirs[1]) < int(ours[1]):
            raise _Refused("replayed", f"it is of the earlier race {bundle.race_id}, not {race.race_id}")
        raise _Refused("wrong_race", f"it is of race {bundle.race_id[:80]}, not {race.race_id}")
    if bundle.pack_id != race.pack_id or bundle.netuid != race.netuid:
        raise _Refused("wrong_race", f"it names pack {bundle.pack_id[:80]} on netuid {bundle.netuid}, not this race's")


def _check_runs(bundle: ResultsBundle, race: RaceFacts) -> None:
    seen: set[tuple[str, str, int]] = set()
    for run in bundle.runs:
        where = f"run of miner {run.miner} on {run.problem_id[:80]} (sample {run.attempt})"
        if run.problem_id not in race.problems:
            raise _Refused("foreign_run", f"a run is of problem {run.problem_id[:80]}, not one of this race's")
        if race.miners is not None and race.miners.get(run.miner) != run.submission:
            raise _Refused("foreign_run", f"a {where} is of agent {run.submission[:16]}..., not one in this race")
        if race.samples is not None and run.attempt >= race.samples:
            raise _Refused("foreign_run", f"a {where} is past the race's {race.samples} sample(s)")
        key = (run.miner, run.problem_id, run.attempt)
        if key in seen:
            raise _Refused("duplicate", f"it holds the {where} twice")
        seen.add(key)


def _check_verdict(run: BundleRun, race: RaceFacts) -> float:
    """The run's claimed verdict against the one its trajectory re-derives; its blame and final score against its
    error code and judgment. Returns the re-derived strict score (0 for an errored run)."""
    where = f"the run of miner {run.miner} on {run.problem_id} (sample {run.attempt})"
    try:
        expected_blame = blame_of(run.error_code)
    except (KeyError, ValueError):
        raise _Refused("forged_verdict", f"{where} claims the unknown error code {run.error_code}") from None
    if run.blame != expected_blame:
        raise _Refused("forged_verdict", f"{where} blames {run.blame} for error {run.error_code}")
    if run.error_code is not None:
        if run.final != 0.0:
            raise _Refused("forged_verdict", f"{where} ended in error {run.error_code} yet claims {run.final}")
        return 0.0
    if run.strict is None:
        raise _Refused("forged_verdict", f"{where} finished without a strict verdict")
    try:
        events = [TrajectoryEvent(run_id="", **event) for event in run.trajectory]
    except (TypeError, ValidationError):
        raise _Refused("malformed", f"{where} has a trajectory that is not the gateway's events") from None
    problem = race.problems[run.problem_id]
    ruleset = race.ruleset(problem.task) if callable(race.ruleset) else race.ruleset
    try:
        derived = strict_verdict(
            problem, events, race.lookup, gold_vectors=race.gold_vectors(run.problem_id), ruleset=ruleset
        )
    except Exception as exc:  # whatever a published log makes the checks raise refuses its bundle, not the node
        raise _Refused("malformed", f"{where} has a trajectory the strict checks cannot read ({exc!r:.120})") from None
    claimed = run.strict
    score = float(derived.final)
    if bool(claimed.get("success")) != bool(derived.success) or claimed.get("answer") != derived.answer:
        raise _Refused(
            "forged_verdict",
            f"{where} claims success {bool(claimed.get('success'))} with answer {claimed.get('answer')!r:.80}; its "
            f"trajectory re-derives {bool(derived.success)} with {derived.answer!r:.80}",
        )
    coefficient = 1.0 if run.judgment is None else run.judgment.get("coefficient")
    if not isinstance(coefficient, int | float) or not 0.0 <= coefficient <= 1.0:
        raise _Refused("forged_verdict", f"{where} has a judge coefficient {coefficient!r} outside 0..1")
    if not math.isclose(run.final, score * float(coefficient), abs_tol=1e-9):
        raise _Refused(
            "forged_verdict",
            f"{where} claims final {run.final:g}, not its re-derived strict score {score:g} x the judge's "
            f"coefficient {coefficient:g}",
        )
    return score


def _check_spend(run: BundleRun) -> None:
    """The run's claimed spend (the publisher's figures) against what its trajectory's LLM calls add up to (each
    call's tokens and cost, `arena.spend.run_spend`): calls, tokens in and out, counted calls and cost, per model."""
    if run.spend is None:
        return
    where = f"the run of miner {run.miner} on {run.problem_id} (sample {run.attempt})"
    try:
        claimed = RunSpend.model_validate(run.spend)
    except ValidationError:
        raise _Refused("malformed", f"{where} has a spend that is not a run's spend") from None
    derived = run_spend(run.trajectory, payer=claimed.payer, provider=claimed.provider)
    if _figures(claimed) != _figures(derived) or set(claimed.models) != set(derived.models):
        wrong = sorted(k for k, v in _figures(claimed).items() if _figures(derived).get(k) != v)
        raise _Refused(
            "forged_spend",
            f"{where} claims {claimed.line()}; its trajectory's calls add up to {derived.line()} "
            f"({', '.join(wrong) or 'models'} differ)",
        )


def _figures(spend: RunSpend) -> dict[str, Any]:
    """A spend's figures as compared: counts exact, costs to 1e-9 USD."""
    figures: dict[str, Any] = {
        "calls": spend.calls,
        "prompt_tokens": spend.prompt_tokens,
        "completion_tokens": spend.completion_tokens,
        "counted_calls": spend.counted_calls,
        "cost": round(spend.cost, 9),
    }
    for name, model in spend.models.items():
        figures[f"models[{name}]"] = (model.calls, model.prompt_tokens, model.completion_tokens, round(model.cost, 9))
    return figures


__all__ = ["verify_bundle"]
