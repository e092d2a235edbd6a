"""Importing ShoppingBench records, the gold rebuild, self-check and leak-free splits."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.catalog import Catalog
from arena.problems.splits import assign_splits, cluster, leaks, split_report
from arena.tasks.shopping.problem import Problem
from arena.tasks.shopping.rebuild import basket_total, rebuild_catalog
from arena.tasks.shoppingbench.importer import import_files, parse_record
from arena.tasks.shoppingbench.selfcheck import selfcheck
from arena.tasks.shoppingbench.strict import score_run

SB = Path(__file__).parent.parent / "fixtures" / "shoppingbench"
FILES = sorted(SB.glob("*.jsonl"))


@pytest.fixture(scope="module")
def imported():
    return import_files(FILES)


@pytest.fixture(scope="module")
def rebuilt(imported, tmp_path_factory):
    out = tmp_path_factory.mktemp("rebuild") / "cat"
    report = rebuild_catalog(imported.problems, out, background_size=2500, background_seed=3)
    return report, Catalog.open(out)


def test_import_detects_every_task_and_reports_bad_records(imported):
    assert imported.by_task == {"product": 3, "shop": 2, "voucher": 2, "web": 1}
    bad = {line.split(": ", 1)[0]: line for line in imported.bad}
    assert set(bad) == {
        "product_test.jsonl:4",
        "product_test.jsonl:5",
        "product_test.jsonl:6",
        "shop_test.jsonl:3",
        "voucher_test.jsonl:3",
        "web_test.jsonl:2",
    }
    assert "not valid JSON" in bad["product_test.jsonl:4"]
    assert "empty" in bad["product_test.jsonl:6"]
    assert "face_value" in bad["voucher_test.jsonl:3"]
    web = next(p for p in imported.problems if p.task == "web")
    assert web.knowledge_attribute == "Cello" and web.gold_document is not None
    assert web.reward[0].title == [web.gold_document.title]
    voucher = next(p for p in imported.problems if p.task == "voucher")
    assert voucher.voucher.voucher_type in ("platform", "shop") and len(voucher.reward) == 2


def test_import_ids_are_stable_and_duplicates_are_reported(tmp_path):
    twice = tmp_path / "twice.jsonl"
    twice.write_text(
        (SB / "product_test.jsonl").read_text().splitlines()[0]
        + "\n"
        + (SB / "product_test.jsonl").read_text().splitlines()[0]
        + "\n"
    )
    report = import_files([twice])
    assert len(report.problems) == 1 and "duplicate of twice.jsonl:1" in report.bad[0]
    assert report.problems[0].problem_id == import_files(FILES).problems[0].problem_id


def test_parse_record_rejects_non_shoppingbench_shapes():
    for record, reason in [
        ([1, 2], "not a JSON object"),
        ({"query": "x"}, "reward"),
        ({"query": "x", "Knowledge_Attribute": "y", "reward": []}, "not a product document"),
    ]:
        with pytest.raises(ValueError, match=reason):
            parse_record(record, "t")


def test_rebuild_makes_every_gold_pass_and_every_distractor_fail(rebuilt):
    report, catalog = rebuilt
    assert not report.skipped and report.distractors >= 20
    check = selfcheck(report.problems, catalog.get)
    assert check.ok, check.failures
    assert set(check.by_task) == {"product", "shop", "voucher", "web"}
    for task in check.by_task.values():
        assert task.gold_rate == 1.0 and task.distractors > 0 and task.distractor_pass_rate == 0.0
    kinds = {d["breaks"] for p in report.problems for d in p.meta["distractors"]}
    for expected in (
        "price between",
        "service COD",
        "attribute material",
        "sku color_family",
        "another shop",
        "over budget",
        "knowledge attribute",
    ):
        assert any(expected in k for k in kinds), (expected, kinds)


def test_rebuilt_golds_meet_their_constraints_field_by_field(rebuilt):
    report, catalog = rebuilt
    for problem in report.problems:
        if problem.task == "web":
            continue
        for reward in problem.reward:
            # a copy of the problem whose gold id is unknown: the product must pass on its constraints alone
            substitute = problem.model_copy(
                update={
                    "reward": [reward.model_copy(update={"product_id": "none"})],
                    "task": "product",
                    "voucher": None,
                }
            )
            score = score_run(substitute, [reward.product_id], catalog.get)
            assert score.extras.rule == 1, (problem.problem_id, score.checks, score.extras.products[0].checks)


def test_rebuilt_shop_and_voucher_baskets(rebuilt):
    report, catalog = rebuilt
    for problem in report.problems:
        docs = [catalog.get(pid) for pid in problem.gold_ids]
        if problem.task == "shop" or (problem.voucher and problem.voucher.voucher_type == "shop"):
            assert len({d["shop_id"] for d in docs}) == 1
        if problem.task == "voucher":
            total = sum(d["price"] for d in docs)
            assert abs(total - basket_total(problem.voucher)) < 0.011


def test_rebuilt_web_task_has_its_fact_in_prose(rebuilt):
    report, catalog = rebuilt
    web = next(p for p in report.problems if p.task == "web")
    pages = catalog.web_search("Ilsa Marrow instrument", 10)
    stating = [page for page in pages if "Cello" in page["content"]]
    assert len(stating) == 1 and "answer is" not in stating[0]["content"].lower()
    assert "Ilsa Marrow" in stating[0]["content"]
    assert catalog.get(web.gold_ids[0])["title"] == web.gold_document.title


def test_a_gold_named_by_two_problems_serves_both(imported, tmp_path):
    first = imported.problems[0]
    again = first.model_copy(update={"problem_id": "again", "query": "another query for the same gold"})
    report = rebuild_catalog([first, again], tmp_path / "cat", background_size=0)
    assert [p.problem_id for p in report.problems] == [first.problem_id, "again"] and not report.skipped
    assert report.golds == 1
    assert selfcheck(report.problems, Catalog.open(tmp_path / "cat").get).ok


# ------------------------------------------------------------------------------------------------- splits


def _problem(i: int, golds: list[str], query: str) -> Problem:
    task = "product" if len(golds) == 1 else "shop"
    return Problem(
        problem_id=f"p{i:04d}",
        task=task,
        query=query,
        reward=[{"product_id": g, "title": [f"title {g}"]} for g in golds],
    )


def test_clusters_join_paraphrases_same_specs_and_shared_golds():
    problems = [
        _problem(0, ["A"], "Looking for a rattan laundry hamper with lid"),
        _problem(1, ["B"], "Looking for a rattan laundry hamper with a lid"),  # paraphrase of 0
        _problem(2, ["C", "D"], "Find a shop with a mug and a tray"),
        _problem(3, ["D", "E"], "A shop with a kettle and a tray"),  # shares gold D with 2
        _problem(4, ["F"], "Bluetooth earbuds with noise cancelling"),
    ]
    clustered = {p.problem_id: p.cluster_id for p in cluster(problems)}
    assert clustered["p0000"] == clustered["p0001"]
    assert clustered["p0002"] == clustered["p0003"]
    assert len(set(clustered.values())) == 3


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 40), min_size=1, max_size=4, unique=True), min_size=1, max_size=60),
    st.integers(0, 10),
    st.sampled_from([(0.2, 0.6, 0.2), (1, 1, 1), (0, 1, 0), (0.5, 0.5, 0)]),
)
def test_split_never_leaks_an_answer_product(gold_sets, seed, fractions):
    problems = [
        _problem(i, [f"g{g}" for g in golds], f"query number {i} " + " ".join(f"w{g}" for g in golds))
        for i, golds in enumerate(gold_sets)
    ]
    split = assign_splits(problems, dict(zip(("public", "race", "held_out"), fractions, strict=True)), seed)
    assert leaks(split) == []
    by_cluster: dict[str, set[str]] = {}
    for p in split:
        by_cluster.setdefault(p.cluster_id, set()).add(p.split)
    assert all(len(s) == 1 for s in by_cluster.values())
    assert sum(r["problems"] for r in split_report(split).values()) == len(problems)
    for name, share in zip(("public", "race", "held_out"), fractions, strict=True):
        if share == 0:
            assert all(p.split != name for p in split)


def test_split_shares_follow_the_fractions():
    problems = [_problem(i, [f"g{i}"], f"unique query {i} about item{i}") for i in range(100)]
    counts = split_report(assign_splits(problems, {"public": 0.2, "race": 0.6, "held_out": 0.2}))
    assert {k: v["problems"] for k, v in counts.items()} == {"public": 20, "race": 60, "held_out": 20}
    with pytest.raises(ValueError, match="unknown split"):
        assign_splits(problems, {"public": 1, "test": 1})
    with pytest.raises(ValueError, match="not all zero"):
        assign_splits(problems, {"public": 0})
