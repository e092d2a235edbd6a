"""Race drawing and race scores: deterministic, held-out never drawn, the task mix kept, agent errors count 0."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tasks.shopping.problem import Problem
from validator.races import draw_problems, race_scores, race_start_block

TASKS = ("product", "shop", "voucher", "web")


def problem(i: int, task: str, split: str) -> Problem:
    return Problem.model_construct(problem_id=f"p{i:03d}", task=task, query=f"q{i}", split=split, cluster_id=f"c{i}")


def pool(n: int = 80) -> list[Problem]:
    splits = ("race", "race", "race", "held_out", "public")
    return [problem(i, TASKS[i % 4], splits[i % 5]) for i in range(n)]


def test_race_start_block_is_the_cadence_boundary() -> None:
    assert race_start_block(1234, 100) == 1200
    assert race_start_block(1200, 100) == 1200
    assert race_start_block(7, 1) == 7


def test_the_same_seed_draws_the_same_problems_whatever_the_pool_order() -> None:
    problems = pool()
    mix = {"product": 1.0, "shop": 1.0, "voucher": 1.0, "web": 1.0}
    first = draw_problems(problems, pack_id="pk", seed_hash="0xab", n=12, task_mix=mix)
    again = draw_problems(list(reversed(problems)), pack_id="pk", seed_hash="0xab", n=12, task_mix=mix)
    assert first == again and len(first) == 12 and len(set(first)) == 12
    other = draw_problems(problems, pack_id="pk", seed_hash="0xac", n=12, task_mix=mix)
    assert other != first  # another block hash, another draw


@settings(max_examples=60, deadline=None)
@given(
    seed=st.text(min_size=1, max_size=20),
    n=st.integers(1, 60),
    weights=st.lists(st.floats(0.0, 5.0), min_size=4, max_size=4).filter(lambda w: sum(w) > 0),
)
def test_only_race_problems_are_drawn_and_the_mix_is_kept(seed: str, n: int, weights: list[float]) -> None:
    problems = pool()
    by_id = {p.problem_id: p for p in problems}
    mix = dict(zip(TASKS, weights, strict=True))
    drawn = draw_problems(problems, pack_id="pk", seed_hash=seed, n=n, task_mix=mix)
    race_pool = [p for p in problems if p.split == "race"]
    assert len(drawn) == min(n, len(race_pool)) and len(set(drawn)) == len(drawn)
    assert all(by_id[pid].split == "race" for pid in drawn)  # held-out and public never drawn
    counts = Counter(by_id[pid].task for pid in drawn)
    available = Counter(p.task for p in race_pool)
    total = sum(w for w in weights if w > 0)
    for task, weight in mix.items():
        share = len(drawn) * weight / total
        if available[task] >= share + 1:  # a task with enough problems gets its share (rounded)
            assert counts[task] >= int(share), (task, counts, mix)


def test_race_scores_count_agent_errors_as_zero_and_leave_out_validator_failures() -> None:
    rows = [
        {
            "hotkey": "a",
            "submission_id": 1,
            "task": "product",
            "status": "finished",
            "blame": None,
            "attempt": 1,
            "final": 1.0,
            "success": True,
        },
        {
            "hotkey": "a",
            "submission_id": 1,
            "task": "shop",
            "status": "errored",
            "blame": "agent",
            "attempt": 1,
            "final": 0.0,
            "success": False,
        },
        {
            "hotkey": "a",
            "submission_id": 1,
            "task": "shop",
            "status": "errored",
            "blame": "validator",
            "attempt": 3,
            "final": 0.0,
            "success": False,
        },
        {
            "hotkey": "b",
            "submission_id": 2,
            "task": "product",
            "status": "errored",
            "blame": "validator",
            "attempt": 3,
            "final": 0.0,
            "success": False,
        },
    ]
    scores = race_scores(rows)
    assert scores["a"]["score"] == 0.5 and scores["a"]["success_rate"] == 0.5
    assert scores["a"]["runs"] == 3 and scores["a"]["errored"] == 2
    assert scores["a"]["per_task"] == {"product": 1.0, "shop": 0.0}
    assert "b" not in scores  # never a zero for the validator's own failures
