"""Copies by behaviour: the same answers and the same tool calls on the race's problems as an earlier agent.

A run's behaviour is the sequence of its tool calls as the gateway logged them (`behaviour_of`): each call a token of
its tool's name and a digest of its arguments (canonical JSON, blake2b), the answer tool's call among them. LLM calls
are left out (their prompts carry the agent's own wording; what the agent does with the tools is its behaviour).
Every validator reads the same trajectory from a results bundle, so every validator finds the same tokens.

Two agents are compared problem by problem (`compare_behaviour`) with a distance between two runs: 0 for the same
tokens in the same order, else 1 - `difflib.SequenceMatcher`'s ratio over the tokens (the share of calls the two
sequences do not have in common, in order); on a problem, the cross distance is the mean over every pair of the two
agents' runs (samples, validators). A problem matches when the cross distance is no larger than the agents' own
spread on it (the mean distance between two runs of one agent; the smaller of the two agents'), times
``SPREAD_SLACK``:

- a deterministic agent's spread is 0, so it matches only an exact copy of its calls and answer;
- an agent sampled from an LLM differs from itself between samples; a copy of it differs from it by as much as it
  differs from itself, an honestly different agent by clearly more (other searches, other answers), so the
  agent's own spread is the noise a copy hides in. The smaller spread is taken, so an agent that answers at random
  (a wide spread of its own) is never close to everyone.

A problem where either agent made no tool call never matches (two agents that both crash are not copies). The
behaviour similarity is the share of shared problems that match; at ``BEHAVIOUR_SHARE`` or above, over at least
``MIN_PROBLEMS`` shared problems, the later agent behaves as a copy (`docs/validator.md`, "Copies").
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict

from arena.copies.fork import Similar

#: The share of shared problems that must match for a behaviour copy.
BEHAVIOUR_SHARE = 0.9
#: The fewest shared problems a behaviour verdict rests on.
MIN_PROBLEMS = 2
#: How far past its own spread a copy of a sampled agent may land on a problem.
SPREAD_SLACK = 1.25

Calls = tuple[str, ...]


def _token(name: str, arguments: Any) -> str:
    try:
        raw = orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except TypeError:
        raw = repr(arguments).encode("utf-8", "replace")
    return f"{name}:{hashlib.blake2b(raw, digest_size=6).hexdigest()}"


def behaviour_of(events: Iterable[Mapping[str, Any] | Any]) -> Calls:
    """A run's tool calls in order, as tokens (``name:argsdigest``), from its trajectory (events as dicts or
    `arena.trajectory.TrajectoryEvent`)."""
    out = []
    for event in events:
        get = event.get if isinstance(event, Mapping) else lambda key, e=event: getattr(e, key, None)
        if get("kind") == "tool_call":
            out.append(_token(str(get("name")), get("arguments")))
    return tuple(out)


def distance(a: Calls, b: Calls) -> float:
    if a == b:
        return 0.0
    return 1.0 - SequenceMatcher(None, a, b, autojunk=False).ratio()


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


@lru_cache(maxsize=65536)
def _spread(runs: tuple[Calls, ...]) -> float:
    """The mean distance between two runs of one agent on one problem (made once per agent and problem)."""
    return _mean([distance(a, b) for a, b in itertools.combinations(runs, 2)])


def _floor(a: Calls, b: Calls) -> float:
    """A lower bound of `distance` from the calls alone, in any order (as `SequenceMatcher.quick_ratio`)."""
    common = sum((Counter(a) & Counter(b)).values())
    return 1.0 - 2.0 * common / (len(a) + len(b)) if a or b else 0.0


class BehaviourMatch(BaseModel):
    """How alike two agents behaved: the share of shared problems that match, and which."""

    model_config = ConfigDict(frozen=True)

    similarity: float
    shared: int
    matching: tuple[str, ...] = ()

    @property
    def copy_(self) -> bool:
        return self.shared >= MIN_PROBLEMS and self.similarity >= BEHAVIOUR_SHARE


def _matches(a: Sequence[Calls], b: Sequence[Calls]) -> bool:
    if not all(a) or not all(b):
        return False
    limit = SPREAD_SLACK * min(_spread(tuple(a)), _spread(tuple(b)))
    if limit == 0:  # a deterministic agent: only the same calls match
        return all(x == y for x in a for y in b)
    if _mean([_floor(x, y) for x in a for y in b]) > limit:  # too far whatever the order: no need to align
        return False
    return _mean([distance(x, y) for x in a for y in b]) <= limit


def compare_behaviour(earlier: Mapping[str, Sequence[Calls]], later: Mapping[str, Sequence[Calls]]) -> BehaviourMatch:
    """Two agents' runs by problem id (each a list of runs' calls) compared on the problems both ran."""
    shared = sorted(set(earlier) & set(later))
    allowed = len(shared) - math.ceil(BEHAVIOUR_SHARE * len(shared))  # problems that may fail to match
    matching: list[str] = []
    failed = 0
    for p in shared:
        if _matches(earlier[p], later[p]):
            matching.append(p)
            continue
        failed += 1
        if failed > allowed:
            break  # it can no longer reach the share: the figure counts the matches found until here
    figure = round(len(matching) / len(shared), 4) if shared else 0.0
    return BehaviourMatch(similarity=figure, shared=len(shared), matching=tuple(matching))


def behaviour_evidence(agents: Sequence[tuple[str, Mapping[str, Sequence[Calls]]]]) -> list[Similar]:
    """Every pair of agents (given in commitment order: hotkey, runs' calls by problem) that behave as copies."""
    out = []
    for (a, early), (b, late) in itertools.combinations(agents, 2):
        match = compare_behaviour(early, late)
        if match.copy_:
            out.append(Similar(a=a, b=b, kind="behaviour", similarity=match.similarity, problems=match.matching))
    return out


__all__ = [
    "BEHAVIOUR_SHARE",
    "MIN_PROBLEMS",
    "BehaviourMatch",
    "Calls",
    "behaviour_evidence",
    "behaviour_of",
    "compare_behaviour",
]
