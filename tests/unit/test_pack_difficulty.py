"""`arena problems pack --difficulty FILE` warns about a task whose problems the offline template solves above the
threshold (too easy to rank agents), from the figures bench/difficulty.py writes; and those figures' intervals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.problems.difficulty import TOO_EASY, summarize, too_easy
from arena.problems.pack import new_pack, write_pack
from tests.unit.test_pack import DIGEST, make_problems


def rows(task: str, solved: int, n: int, difficulty: str = "medium") -> list[dict[str, object]]:
    return [
        {"problem_id": f"{task}-{i}", "task": task, "difficulty": difficulty, "blind": False, "template": i < solved}
        for i in range(n)
    ]


def test_figures_per_task_and_level_carry_wilson_intervals() -> None:
    figures = summarize(rows("product", 19, 20) + rows("shop", 5, 10, "hard") + rows("shop", 0, 10, "easy"))
    product = figures["by_task"]["product"]["agents"]["template"]
    assert (product["k"], figures["by_task"]["product"]["n"]) == (19, 20)
    lo, hi = product["ci95"]
    assert 0.75 < lo < 0.95 < hi <= 1.0  # 19/20: Wilson [0.764, 0.991]
    shop = figures["by_task_difficulty"]["shop"]
    assert shop["hard"]["agents"]["template"]["k"] == 5 and shop["easy"]["agents"]["template"]["k"] == 0
    assert shop["easy"]["agents"]["template"]["ci95"][0] == 0.0 < shop["easy"]["agents"]["template"]["ci95"][1]
    assert "oracle" not in figures["all"]["agents"]  # not measured: no figure, not a zero
    assert too_easy(figures) == {"product": 0.95} and TOO_EASY == 0.9


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
    )


def figures_file(path: Path, outcomes: list[dict[str, object]]) -> Path:
    path.write_text(json.dumps({**summarize(outcomes), "problems": outcomes}))
    return path


@pytest.mark.slow  # runs arena as a subprocess
def test_pack_warns_about_a_task_the_template_solves_too_often(tmp_path: Path) -> None:
    problems = make_problems()
    src = write_pack(
        new_pack(problems, catalog_digest=DIGEST, generator_version="t", embed=False), tmp_path / "in.json"
    )
    by_task = {p.task: p for p in problems}
    assert {"shop", "voucher"} <= set(by_task)
    # the shop problem solved by the template, the voucher problem not; the others measured as not solved
    outcomes = [
        {"problem_id": p.problem_id, "task": p.task, "difficulty": p.difficulty, "template": p.task == "shop"}
        for p in problems
    ]
    figures = figures_file(tmp_path / "difficulty.json", outcomes)

    def pack(*extra: str) -> subprocess.CompletedProcess[str]:
        out = tmp_path / "out.json"
        return arena("problems", "pack", str(src), "--out", str(out), "--key-uri", "//Alice", "--force", *extra)

    done = pack("--difficulty", str(figures))
    assert done.returncode == 0, done.stderr
    warned = [line for line in done.stderr.splitlines() if "too easy to rank" in line]
    assert len(warned) == 1 and "100% of the shop problems" in warned[0], done.stderr
    assert "above 90%" in warned[0]
    # a stricter threshold than any task reaches: no warning
    assert "too easy" not in pack("--difficulty", str(figures), "--too-easy", "1").stderr
    # figures of other problems: the pack's problems are named as unmeasured, nothing is judged on them
    other = figures_file(tmp_path / "other.json", [dict(o, problem_id=f"x-{o['problem_id']}") for o in outcomes])
    unmeasured = pack("--difficulty", str(other))
    assert unmeasured.returncode == 0 and "too easy" not in unmeasured.stderr
    raced = sum(p.split != "public" for p in problems)  # the problems ranked on (race, held out) are judged
    assert f"{raced} of {raced} problems have no difficulty figures" in unmeasured.stderr


@pytest.mark.slow  # runs arena as a subprocess
def test_bad_difficulty_input_is_one_line(tmp_path: Path) -> None:
    src = write_pack(
        new_pack(make_problems(), catalog_digest=DIGEST, generator_version="t", embed=False), tmp_path / "in.json"
    )
    (tmp_path / "bad.json").write_text('{"by_task": {}}')
    for extra, said in (
        (["--difficulty", str(tmp_path / "bad.json")], "no difficulty figures file of bench/difficulty.py --json"),
        (["--difficulty", str(tmp_path / "missing.json")], "no difficulty figures file"),
        (["--difficulty", str(tmp_path / "bad.json"), "--too-easy", "1.5"], "--too-easy must be a share"),
    ):
        done = arena("problems", "pack", str(src), "--out", str(tmp_path / "o.json"), "--key-uri", "//Alice", *extra)
        assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert not (tmp_path / "o.json").exists()
