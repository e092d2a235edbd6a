"""What verifying a results bundle needs and gives: the race it must be of (`RaceFacts`), a verified bundle, and a
refusal (one line naming the validator, and a `kind` the node counts on /metrics)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from validator.pool.bundle import ResultsBundle

RefusalKind = Literal[
    "unreachable",
    "slow",
    "truncated",
    "oversized",
    "bad_hash",
    "malformed",
    "newer_version",
    "bad_signature",
    "wrong_race",
    "forged_verdict",
    "forged_spend",
    "replayed",
    "no_permit",
    "foreign_run",
    "duplicate",
]
REFUSAL_KINDS: tuple[str, ...] = RefusalKind.__args__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Refusal:
    """A results bundle refused as a whole; nothing of it is used or stored."""

    validator: str  # the committing hotkey
    kind: RefusalKind
    reason: str  # one line, naming the validator

    def __str__(self) -> str:
        return self.reason


@dataclass(frozen=True)
class RaceFacts:
    """The race a bundle must be of, as the verifier knows it.

    `problems`: the race's problems (whole: the strict checks re-run on them); `lookup`, `gold_vectors` and
    `ruleset` (a ruleset, or task type -> its ruleset: `Pack.ruleset_for`) score them as the pack says. `miners`
    (hotkey -> the agent's sha256) when the verifier knows who raced; None (an auditor) accepts any miner hotkey.
    `samples`: how many sample indices a (miner, problem) may have, the race's make-up samples (index k and up)
    included (None: no bound). `seen`: sha256 -> race id of bundles already accepted from earlier races (a replay is
    refused)."""

    race_id: str
    pack_id: str
    netuid: int
    problems: Mapping[str, Any]
    lookup: Callable[[str], Any]
    ruleset: Any
    gold_vectors: Callable[[str], Any] = lambda _problem_id: None
    samples: int | None = 1
    miners: Mapping[str, str] | None = None
    seen: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class VerifiedBundle:
    sha256: str
    bundle: ResultsBundle
    size_bytes: int
    strict: tuple[float, ...] = ()  # each run's strict score as re-derived from its trajectory (0 for an error)


__all__ = ["REFUSAL_KINDS", "RaceFacts", "Refusal", "RefusalKind", "VerifiedBundle"]
