"""Copies by behaviour: the same answers and the same tool calls on the race's problems as an earlier agent.

A run's behaviour is the sequence of its tool calls as the gateway logged them, each a token in a canonical form
(`arena.copies.calls`: `behaviour_of`, `canonical`), the answer tool's call among them. Every validator reads the same
trajectory from a results bundle, so every validator finds the same tokens.

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

Calls of one problem that asked the same, or differ only in their words and found the same (a search reworded
without changing its results), are read as one (`_unify`).

Answers are evidence too (`BehaviourMatch.by_answers`): a copy whose reworded searches find other results still gives
the earlier agent's answers, its wrong ones included, which an honest agent rarely does; given the earlier's runs'
strict scores, a later agent that gives the earlier's answer on ``BEHAVIOUR_SHARE`` of the shared problems (at least
``ANSWER_PROBLEMS``), its wrong answer on at least ``SAME_WRONG``, and repeats at least half its calls on the whole
(``ANSWER_CAP``) is a copy.

A problem where either agent made no tool call never matches (two agents that both crash are not copies). The
behaviour similarity is the share of shared problems that match; at ``BEHAVIOUR_SHARE`` or above, over at least
``MIN_PROBLEMS`` shared problems, the later agent behaves as a copy (`docs/validator.md`, "Copies"). Runs are read
in a sorted order, so the verdict does not depend on the order they arrive in.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache

from pydantic import BaseModel, ConfigDict
from rapidfuzz.distance import LCSseq

from arena.copies.calls import Calls, answer_names, behaviour_of, canonical
from arena.copies.fork import Similar

#: The share of shared problems that must match for a behaviour copy.
BEHAVIOUR_SHARE = 0.9
#: The fewest shared problems a behaviour verdict rests on.
MIN_PROBLEMS = 2
#: How far past the earlier agent's own spread a copy of a sampled agent may land on a problem.
SPREAD_SLACK = 1.25
#: The largest distance that still matches, whatever the earlier agent's spread.
SPREAD_CAP = 0.5
#: The fewest problems a later agent must answer wrongly as the earlier did for its answers to be evidence.
SAME_WRONG = 2
#: The fewest shared problems answers are evidence over (a race's default draw): on a handful, two agents that fail
#: alike (the top hits of one search) agree on every answer by chance.
ANSWER_PROBLEMS = 8
#: The largest mean distance a copy by answers may be from the earlier's calls.
ANSWER_CAP = 0.5


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
    """How alike two agents behaved: the share of shared problems that match and which, over all of them the mean
    distance from the earlier agent's runs and the limit it is held to, and the problems the later answered as the
    earlier did (``answered``), those where that answer was wrong (``same_wrong``)."""

    model_config = ConfigDict(frozen=True)

    share: float
    shared: int
    matching: tuple[str, ...] = ()
    distance: float = 1.0
    limit: float = 0.0
    answered: tuple[str, ...] = ()
    same_wrong: tuple[str, ...] = ()

    @property
    def by_answers(self) -> bool:
        """A copy by its answers: over at least ``ANSWER_PROBLEMS`` shared problems, the earlier's answer on at least
        ``BEHAVIOUR_SHARE`` of them, its wrong answer on at least ``SAME_WRONG``, and its calls repeated in part
        (``distance <= ANSWER_CAP``)."""
        return (
            self.shared >= ANSWER_PROBLEMS
            and len(self.answered) >= BEHAVIOUR_SHARE * self.shared
            and len(self.same_wrong) >= SAME_WRONG
            and self.distance <= ANSWER_CAP
        )

    @property
    def copy_(self) -> bool:
        calls = self.share >= BEHAVIOUR_SHARE or self.distance <= self.limit
        return self.shared >= MIN_PROBLEMS and calls or self.by_answers

    @property
    def kind(self) -> str:
        """``behaviour`` (the calls match) or ``answers`` (the answers, wrong ones among them, do)."""
        calls = self.shared >= MIN_PROBLEMS and (self.share >= BEHAVIOUR_SHARE or self.distance <= self.limit)
        return "answers" if self.by_answers and not calls else "behaviour"

    @property
    def similarity(self) -> float:
        """The evidence's figure: the share of matching problems, or (a copy on the whole) the share of the
        earlier agent's calls repeated on average, or (a copy by answers) the share of problems answered alike."""
        if self.kind == "answers":
            return round(len(self.answered) / self.shared, 4)
        if self.share >= BEHAVIOUR_SHARE or not self.copy_:
            return self.share
        return round(1.0 - self.distance, 4)

    @property
    def problems(self) -> tuple[str, ...]:
        """The problems the evidence rests on: matching ones, or for a copy by answers those answered alike."""
        return self.answered if self.kind == "answers" else self.matching


def limit(earlier: Sequence[Calls]) -> float:
    """How far a later agent's runs may be from ``earlier``'s on a problem and still match (module docstring)."""
    return min(SPREAD_CAP, SPREAD_SLACK * _spread(tuple(sorted(earlier))))


def _cross(earlier: Sequence[Calls], later: Sequence[Calls]) -> float:
    """The mean distance from each earlier run to each later one (1 when either agent made no tool call)."""
    if not earlier or not later or not all(earlier) or not all(later):
        return 1.0
    return _mean(distance(x, y) for x in sorted(earlier) for y in sorted(later))


@lru_cache(maxsize=65536)
def _got(run: Calls) -> bool:
    """Whether a call of the run has a ``got`` part (what the tool returned)."""
    return any(t.count(":") > 1 for t in run)


def _unify(earlier: Sequence[Calls], later: Sequence[Calls]) -> tuple[list[Calls], list[Calls]]:
    """The runs with every call that asked what another asked, or got what another got (its token's ``asked`` or
    ``got`` part), read as one call: a search reworded without changing what it found is the same search."""
    if not any(map(_got, earlier)) and not any(map(_got, later)):
        return list(earlier), list(later)
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for run in (*earlier, *later):
        for token in run:
            name, asked, *got = token.split(":")
            if got:
                a, b = find(f"{name}:{asked}"), find(f"{name}:={got[0]}")
                parent[max(a, b)] = min(a, b)

    def label(token: str) -> str:
        name, asked, *_ = token.split(":")
        return find(f"{name}:{asked}")

    return [tuple(label(t) for t in run) for run in earlier], [tuple(label(t) for t in run) for run in later]


@lru_cache(maxsize=65536)
def answer_of(calls: Calls) -> str | None:
    """The run's answer: what its last call of an answer tool asked (``name:asked``), or None."""
    names = answer_names()
    for token in reversed(calls):
        name, asked, *_ = token.split(":")
        if name in names:
            return f"{name}:{asked}"
    return None


def _same_answer(earlier: Sequence[Calls], later: Sequence[Calls], success: Sequence[float | None] | None) -> int:
    """0: the later agent does not give the earlier's answer (the most given of its runs', the smallest of equals)
    in at least half its runs; 1: it does; 2: it does and that answer was wrong (at least half the earlier's runs
    answered without error and scored below 1: an errored run, None, is no wrong answer, whatever it scored)."""
    answers = Counter(a for a in map(answer_of, earlier) if a is not None)
    if not answers or not later:
        return 0
    answer = min(answers, key=lambda a: (-answers[a], a))
    if 2 * sum(answer_of(run) == answer for run in later) < len(later):
        return 0
    failed = [s is not None and s < 1.0 for s in success or ()]
    wrong = bool(failed) and 2 * sum(failed) >= len(failed)
    return 2 if wrong else 1


def compare_behaviour(
    earlier: Mapping[str, Sequence[Calls]],
    later: Mapping[str, Sequence[Calls]],
    success: Mapping[str, Sequence[float | None]] | None = None,
) -> BehaviourMatch:
    """Two agents' runs by problem id (each a list of runs' calls) compared on the problems both ran: problem by
    problem (a share of them within the earlier's spread) and on the whole (the mean distance within the mean
    spread: one draw is noisy, a race's problems together much less); and their answers, ``success`` being the
    earlier's runs' strict scores by problem, None for a run that ended in error (which of its answers were wrong;
    none given: no answer evidence)."""
    shared = sorted(set(earlier) & set(later))
    allowed = len(shared) - math.ceil(BEHAVIOUR_SHARE * len(shared))  # problems that may fail to match
    answered: list[str] = []
    same_wrong: list[str] = []
    if success is not None and len(shared) >= ANSWER_PROBLEMS:
        for i, p in enumerate(shared):
            same = _same_answer(earlier[p], later[p], success.get(p))
            answered += [p] * (same > 0)
            same_wrong += [p] * (same > 1)
            if i + 1 - len(answered) > allowed:
                break  # the share of answers alike cannot be reached
    by_answers = len(answered) >= BEHAVIOUR_SHARE * len(shared) and len(same_wrong) >= SAME_WRONG
    cap = ANSWER_CAP if by_answers else SPREAD_CAP
    matching: list[str] = []
    crosses: list[float] = []
    spreads: list[float] = []
    for p in shared:
        mine, theirs = _unify(earlier[p], later[p])
        cross, spread = _cross(mine, theirs), _spread(tuple(sorted(mine)))
        crosses.append(cross)
        spreads.append(spread)
        if cross <= min(SPREAD_CAP, SPREAD_SLACK * spread):
            matching.append(p)
        if len(crosses) - len(matching) > allowed and math.fsum(crosses) > cap * len(shared):
            break  # neither the share nor the mean can be reached: the figures count what was found until here
    n = len(shared)
    return BehaviourMatch(
        share=round(len(matching) / n, 4) if n else 0.0,
        shared=n,
        matching=tuple(matching),
        distance=round(_mean(crosses), 6) if len(crosses) == n and n else 1.0,
        limit=round(min(SPREAD_CAP, SPREAD_SLACK * _mean(spreads)), 6) if n else 0.0,
        answered=tuple(answered),
        same_wrong=tuple(same_wrong),
    )


def behaviour_evidence(
    agents: Sequence[tuple[str, Mapping[str, Sequence[Calls]]]],
    success: Mapping[str, Mapping[str, Sequence[float | None]]] | None = None,
    first: Callable[[str, str], tuple[str, str]] | None = None,
) -> list[Similar]:
    """Every pair of agents (hotkey, runs' calls by problem) that behave as copies, the earlier of each pair first
    (``first``: (earlier, later) of two hotkeys; default the order given); ``success`` each agent's runs' strict
    scores by problem, None for an errored run (the answer evidence)."""
    out = []
    calls = dict(agents)
    for (a, _), (b, _) in itertools.combinations(agents, 2):
        a, b = first(a, b) if first is not None else (a, b)
        match = compare_behaviour(calls[a], calls[b], None if success is None else success.get(a, {}))
        if match.copy_:
            kind = "answers" if match.kind == "answers" else "behaviour"
            out.append(Similar(a=a, b=b, kind=kind, similarity=match.similarity, problems=match.problems))
    return out


__all__ = [
    "ANSWER_CAP",
    "ANSWER_PROBLEMS",
    "BEHAVIOUR_SHARE",
    "MIN_PROBLEMS",
    "SAME_WRONG",
    "SPREAD_CAP",
    "SPREAD_SLACK",
    "BehaviourMatch",
    "Calls",
    "answer_of",
    "behaviour_evidence",
    "behaviour_of",
    "canonical",
    "compare_behaviour",
    "distance",
    "limit",
]
