"""The standings' window (`validator.races.sampling.in_window`): a miner's last W races, whichever of its submissions
ran them. Attacker: a miner that commits a new version (the same agent, one byte changed) after every race that
left its standing below its true rate, hoping to keep only its lucky races, must stand no higher than an honest
miner of the same skill. Under the other rule (a new submission starts a new window) it would: the test measures
that too, so it can tell the two apart."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from validator.races.sampling import in_window

Rule = Callable[[Sequence[dict[str, Any]], Sequence[tuple[str, Sequence[dict[str, Any]]]], int], list[dict[str, Any]]]


def new_window(rows: Sequence[dict[str, Any]], earlier: Sequence[tuple[str, Sequence[dict[str, Any]]]], window: int):
    """The rule not taken: of earlier races only the runs of the submission each miner races now."""
    current = {r["hotkey"]: r["submission_id"] for r in rows}
    kept = [(race_id, [r for r in race if current[r["hotkey"]] == r["submission_id"]]) for race_id, race in earlier]
    return in_window(rows, kept, window)


def _race(rng: random.Random, race_id: str, subs: dict[str, int], rate: float, problems: int) -> list[dict[str, Any]]:
    return [
        {
            "race_id": race_id,
            "hotkey": h,
            "submission_id": s,
            "problem_id": f"{race_id}/{j}",
            "final": float(rng.random() < rate),
        }
        for h, s in subs.items()
        for j in range(problems)
    ]


def _mean_standings(
    rule: Rule, *, races: int = 3000, window: int = 4, rate: float = 0.5, seed: int = 7
) -> dict[str, float]:
    """Each miner's standing averaged over the races: an honest miner and a resetter of the same true rate."""
    rng = random.Random(seed)
    subs = {"honest": 1, "resetter": 2}
    earlier: list[tuple[str, list[dict[str, Any]]]] = []
    totals = {h: 0.0 for h in subs}
    for t in range(races):
        rows = _race(rng, f"r{t}", subs, rate, problems=8)
        pooled = rule(rows, earlier[-window:], window)
        for hotkey in subs:
            mine = [r["final"] for r in pooled if r["hotkey"] == hotkey]
            standing = sum(mine) / len(mine)
            totals[hotkey] += standing
            if hotkey == "resetter" and standing < rate:
                subs["resetter"] += 1  # a new version before the next race
        earlier.append((f"r{t}", rows))
    return {h: total / races for h, total in totals.items()}


def test_a_miner_that_recommits_after_unlucky_races_stands_no_higher_than_an_honest_one() -> None:
    ours = _mean_standings(in_window)
    assert abs(ours["resetter"] - ours["honest"]) < 0.01
    other = _mean_standings(new_window)  # the rule not taken pays the resetter for its luck
    assert other["resetter"] - other["honest"] > 0.03


def test_the_window_is_the_last_w_races_of_the_miners_racing_now() -> None:
    rows = [{"hotkey": "a", "submission_id": 2, "final": 1.0}]
    earlier = [
        (
            f"r{i}",
            [{"hotkey": "a", "submission_id": 1, "final": 0.0}, {"hotkey": "gone", "submission_id": 9, "final": 1.0}],
        )
        for i in range(5)
    ]
    got = in_window(rows, earlier, 3)
    assert [r.get("race_id") for r in got] == [None, "r3", "r4"]  # this race, then the two latest before it
    assert in_window(rows, earlier, 1) == rows
