"""`arena score`: answers from any harness scored against a pack, by its ruleset or another."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.problems.pack import load_pack
from tests.unit.test_cli import arena, one_error_line

pytestmark = pytest.mark.slow  # runs arena as a subprocess

SB = Path(__file__).parent.parent / "fixtures" / "shoppingbench"


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("score")
    arena(
        "problems",
        "import",
        *map(str, sorted(SB.glob("*.jsonl"))),
        "--out",
        str(root / "pack.json"),
        "--rebuild-catalog",
        str(root / "cat"),
        "--background-size",
        "2000",
        check=True,
    )
    return root


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_gold_answers_succeed_and_a_missing_answer_counts_as_failure(work, tmp_path):
    pack = load_pack(work / "pack.json", require_signature=False)
    rows = [{"problem_id": p.problem_id, "product_ids": ",".join(p.gold_ids)} for p in pack.problems]
    answers = write(tmp_path / "gold.jsonl", rows[1:])
    proc = arena(
        "score",
        str(work / "pack.json"),
        "--catalog",
        str(work / "cat"),
        "--answers",
        str(answers),
        "--json",
        str(tmp_path / "card.json"),
        check=True,
    )
    assert f"{len(rows) - 1} of {len(rows)} problems answered, ruleset shoppingbench" in proc.stdout
    card = json.loads((tmp_path / "card.json").read_text())
    assert card["ruleset"]["name"] == "shoppingbench"
    assert card["suite"]["success_rate"] == pytest.approx((len(rows) - 1) / len(rows))
    verdicts = {p["problem_id"]: p for p in card["problems"]}
    assert verdicts[rows[0]["problem_id"]]["answered"] is False and verdicts[rows[0]["problem_id"]]["score"] is None
    assert all(verdicts[r["problem_id"]]["score"]["success"] for r in rows[1:])


def test_the_ruleset_can_be_chosen(work, tmp_path):
    pack = load_pack(work / "pack.json", require_signature=False)
    # a space after each comma: the paper's evaluator loses those slots, subnet 15's strips them
    rows = [{"problem_id": p.problem_id, "product_ids": " " + ", ".join(p.gold_ids)} for p in pack.problems]
    answers = write(tmp_path / "spaced.jsonl", rows)
    rates = {}
    for ruleset in ("shoppingbench", "sn15"):
        arena(
            "score",
            str(work / "pack.json"),
            "--catalog",
            str(work / "cat"),
            "--answers",
            str(answers),
            "--ruleset",
            ruleset,
            "--json",
            str(tmp_path / f"{ruleset}.json"),
            check=True,
        )
        rates[ruleset] = json.loads((tmp_path / f"{ruleset}.json").read_text())["suite"]["success_rate"]
    assert rates == {"shoppingbench": 0.0, "sn15": 1.0}


@pytest.mark.parametrize(
    ("lines", "fragments"),
    [
        (['{"problem_id": "nope", "product_ids": "1"}'], ("'nope'", "not in pack")),
        (["{not json"], (":1 is not JSON",)),
        (['{"product_ids": "1"}'], (":1 has no problem_id",)),
    ],
)
def test_bad_answers_get_one_line(work, tmp_path, lines, fragments):
    answers = tmp_path / "bad.jsonl"
    answers.write_text("\n".join(lines) + "\n")
    one_error_line(
        arena("score", str(work / "pack.json"), "--catalog", str(work / "cat"), "--answers", str(answers)), *fragments
    )


def test_duplicate_answers_unknown_ruleset_and_missing_file(work, tmp_path):
    pid = load_pack(work / "pack.json", require_signature=False).problems[0].problem_id
    twice = write(tmp_path / "twice.jsonl", [{"problem_id": pid, "product_ids": "1"}] * 2)
    base = ("score", str(work / "pack.json"), "--catalog", str(work / "cat"), "--answers")
    one_error_line(arena(*base, str(twice)), ":2 answers problem", "again (first at line 1)")
    one_error_line(arena(*base, str(twice), "--ruleset", "oro"), "unknown ruleset 'oro'")
    one_error_line(arena(*base, str(tmp_path / "none.jsonl")), "does not exist")
    one_error_line(arena(*base, str(twice), "--json", str(tmp_path / "no" / "card.json")), "does not exist")


def test_a_list_of_ids_is_no_answer_as_in_both_references(work, tmp_path):
    pack = load_pack(work / "pack.json", require_signature=False)
    rows = [{"problem_id": p.problem_id, "product_ids": p.gold_ids} for p in pack.problems]
    answers = write(tmp_path / "lists.jsonl", rows)
    arena(
        "score",
        str(work / "pack.json"),
        "--catalog",
        str(work / "cat"),
        "--answers",
        str(answers),
        "--json",
        str(tmp_path / "card.json"),
        check=True,
    )
    assert json.loads((tmp_path / "card.json").read_text())["suite"]["success_rate"] == 0.0
