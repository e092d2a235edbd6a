"""Copies by behaviour: the same answers and the same tool calls on the race's problems as an earlier agent.

A run's behaviour is the sequence of its tool calls as the gateway logged them (`behaviour_of`): each call a token of
its tool's name and a digest of its arguments in a canonical form (`canonical`), the answer tool's call among them.
The form leaves out what a copy can change without changing what it does: string values are read as their words
(Unicode NFKC, case folded, punctuation and spacing dropped, in sorted order), numbers by value (``2``, ``2.0`` and
``"2"`` alike, to 6 significant digits), objects with their keys sorted and lists of plain values as sorted bags.
LLM calls are left out (their prompts carry the agent's own wording; what the agent does with the tools is its
behaviour). Every validator reads the same trajectory from a results bundle, so every validator finds the same
tokens.

Two agents are compared problem by problem (`compare_behaviour`), the earlier agent's runs against the later's. How
far a later run is from an earlier one is the share of the earlier run's calls the later does not repeat in order
(``1 - LCS / len(earlier)``, the longest common subsequence of tokens, by `rapidfuzz`): a copy that adds calls of
its own (no-op searches at random) still repeats every call of the original. On a problem the cross distance is the
mean over every pair of an earlier and a later run (samples, validators); the problem matches when it is no larger
than the earlier agent's own run-to-run spread on it (the same distance between two of its runs, over every ordered
pair) times ``SPREAD_SLACK``, capped at ``SPREAD_CAP``:

- a deterministic agent's spread is 0, so a later agent matches it only by repeating all its calls and its answer;
- an agent sampled from an LLM differs from itself between samples; a copy of it differs from it by as much as it
  differs from itself (a copy made less random, one fixed draw of it, as much), an honestly different agent by
  clearly more (other searches, other answers). Only the earlier agent's spread is the noise: the later one's own
  randomness buys it nothing. The cap keeps an agent that calls at random (a wide spread of its own) from being
  close to everyone: a match repeats at least half the earlier run's calls.

A problem where either agent made no tool call never matches (two agents that both crash are not copies). The
behaviour similarity is the share of shared problems that match; at ``BEHAVIOUR_SHARE`` or above, over at least
``MIN_PROBLEMS`` shared problems, the later agent behaves as a copy (`docs/validator.md`, "Copies"). Runs are read
in a sorted order, so the verdict does not depend on the order they arrive in.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict
from rapidfuzz.distance import LCSseq

from arena.copies.fork import Similar

#: The share of shared problems that must match for a behaviour copy.
BEHAVIOUR_SHARE = 0.9
#: The fewest shared problems a behaviour verdict rests on.
MIN_PROBLEMS = 2
#: How far past the earlier agent's own spread a copy of a sampled agent may land on a problem.
SPREAD_SLACK = 1.25
#: The largest distance that still matches, whatever the earlier agent's spread.
SPREAD_CAP = 0.5

Calls = tuple[str, ...]

_WORD = re.compile(r"\w+")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def _number(value: float) -> Any:
    if not math.isfinite(value):
        return str(value)
    rounded = float(f"{value:.6g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 2**53 else rounded


def canonical(value: Any) -> Any:
    """An argument value with what a copy can change without changing the call left out (module docstring)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return _number(float(value))
    if isinstance(value, str):
        text = unicodedata.normalize("NFKC", value).casefold().strip()
        if _NUMBER.fullmatch(text):
            return _number(float(text))
        return " ".join(sorted(_WORD.findall(text)))
    if isinstance(value, Mapping):
        return {str(canonical(str(k))): canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        items = [canonical(v) for v in value]
        if all(not isinstance(v, dict | list) for v in items):
            return sorted(items, key=lambda v: (type(v).__name__, str(v)))
        return items
    return repr(value)


def _token(name: str, arguments: Any) -> str:
    try:
        raw = orjson.dumps(canonical(arguments), option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except (TypeError, RecursionError):
        raw = repr(arguments).encode("utf-8", "replace")
    return f"{str(canonical(name))}:{hashlib.blake2b(raw, digest_size=6).hexdigest()}"


def behaviour_of(events: Iterable[Mapping[str, Any] | Any]) -> Calls:
    """A run's tool calls in order, as tokens (``name:argsdigest``), from its trajectory (events as dicts or
    `arena.trajectory.TrajectoryEvent`)."""
    out = []
    for event in events:
        get = event.get if isinstance(event, Mapping) else lambda key, e=event: getattr(e, key, None)
        if get("kind") == "tool_call":
            out.append(_token(str(get("name")), get("arguments")))
    return tuple(out)


def distance(earlier: Calls, later: Calls) -> float:
    """The share of ``earlier``'s calls that ``later`` does not repeat in order (0: all of them)."""
    if not earlier:
        return 0.0
    if earlier == later:
        return 0.0
    return 1.0 - LCSseq.similarity(earlier, later) / len(earlier)


def _mean(values: Iterable[float]) -> float:
    ordered = sorted(values)
    return math.fsum(ordered) / len(ordered) if ordered else 0.0


@lru_cache(maxsize=65536)
def _spread(runs: tuple[Calls, ...]) -> float:
    """The mean distance between two runs of one agent on one problem, over every ordered pair (made once per agent
    and problem; ``runs`` sorted)."""
    return _mean(distance(a, b) for a, b in itertools.permutations(runs, 2))


class BehaviourMatch(BaseModel):
    """How alike two agents behaved: the share of shared problems that match and which, and over all of them the
    mean distance from the earlier agent's runs and the limit it is held to."""

    model_config = ConfigDict(frozen=True)

    share: float
    shared: int
    matching: tuple[str, ...] = ()
    distance: float = 1.0
    limit: float = 0.0

    @property
    def copy_(self) -> bool:
        return self.shared >= MIN_PROBLEMS and (self.share >= BEHAVIOUR_SHARE or self.distance <= self.limit)

    @property
    def similarity(self) -> float:
        """The evidence's figure: the share of matching problems, or (a copy on the whole) the share of the
        earlier agent's calls repeated on average."""
        if self.share >= BEHAVIOUR_SHARE or not self.copy_:
            return self.share
        return round(1.0 - self.distance, 4)


def limit(earlier: Sequence[Calls]) -> float:
    """How far a later agent's runs may be from ``earlier``'s on a problem and still match (module docstring)."""
    return min(SPREAD_CAP, SPREAD_SLACK * _spread(tuple(sorted(earlier))))


def _cross(earlier: Sequence[Calls], later: Sequence[Calls]) -> float:
    """The mean distance from each earlier run to each later one (1 when either agent made no tool call)."""
    if not earlier or not later or not all(earlier) or not all(later):
        return 1.0
    return _mean(distance(x, y) for x in sorted(earlier) for y in sorted(later))


def compare_behaviour(earlier: Mapping[str, Sequence[Calls]], later: Mapping[str, Sequence[Calls]]) -> BehaviourMatch:
    """Two agents' runs by problem id (each a list of runs' calls) compared on the problems both ran: problem by
    problem (a share of them within the earlier's spread) and on the whole (the mean distance within the mean
    spread: one draw is noisy, a race's problems together much less)."""
    shared = sorted(set(earlier) & set(later))
    allowed = len(shared) - math.ceil(BEHAVIOUR_SHARE * len(shared))  # problems that may fail to match
    matching: list[str] = []
    crosses: list[float] = []
    spreads: list[float] = []
    for p in shared:
        cross, spread = _cross(earlier[p], later[p]), _spread(tuple(sorted(earlier[p])))
        crosses.append(cross)
        spreads.append(spread)
        if cross <= min(SPREAD_CAP, SPREAD_SLACK * spread):
            matching.append(p)
        if len(crosses) - len(matching) > allowed and math.fsum(crosses) > SPREAD_CAP * len(shared):
            break  # neither the share nor the mean can be reached: the figures count what was found until here
    n = len(shared)
    return BehaviourMatch(
        share=round(len(matching) / n, 4) if n else 0.0,
        shared=n,
        matching=tuple(matching),
        distance=round(_mean(crosses), 6) if len(crosses) == n and n else 1.0,
        limit=round(min(SPREAD_CAP, SPREAD_SLACK * _mean(spreads)), 6) if n else 0.0,
    )


def behaviour_evidence(agents: Sequence[tuple[str, Mapping[str, Sequence[Calls]]]]) -> list[Similar]:
    """Every pair of agents (given in commitment order: hotkey, runs' calls by problem) that behave as copies, the
    earlier of each pair first."""
    out = []
    for (a, early), (b, late) in itertools.combinations(agents, 2):
        match = compare_behaviour(early, late)
        if match.copy_:
            out.append(Similar(a=a, b=b, kind="behaviour", similarity=match.similarity, problems=match.matching))
    return out


__all__ = [
    "BEHAVIOUR_SHARE",
    "MIN_PROBLEMS",
    "SPREAD_CAP",
    "SPREAD_SLACK",
    "BehaviourMatch",
    "Calls",
    "behaviour_evidence",
    "behaviour_of",
    "canonical",
    "compare_behaviour",
    "distance",
    "limit",
]
