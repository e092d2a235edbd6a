"""The EComAgentBench importer (docs/sessions.md): records mapped to session problems by their rubrics' sources, the
targets rebuilt as golds, the imported sessions self-checked, and a malformed record reported in one line.
Fixtures are our own records in the dataset's shape (tests/fixtures/ecomagentbench)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.catalog import Catalog
from arena.tasks.session.importer import import_files, parse_record
from arena.tasks.session.rebuild import as_shoppingbench, rebuild_sessions, selfcheck_imported
from arena.tasks.session.selfcheck import CHECKS

FIXTURE = Path(__file__).parent.parent / "fixtures" / "ecomagentbench" / "benchmark_sample.jsonl"


@pytest.fixture(scope="module")
def imported():
    return import_files([FIXTURE])


@pytest.fixture(scope="module")
def rebuilt(imported, tmp_path_factory):
    out = tmp_path_factory.mktemp("eab") / "cat"
    report = rebuild_sessions(imported.problems, out, background_size=2000, background_seed=4)
    return report, Catalog.open(out)


def _records() -> list[dict]:
    out = []
    for line in FIXTURE.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out


def _by_record(problems, record_id: str):
    return next(p for p in problems if p.meta["record_id"] == record_id)


def test_good_records_import_and_each_bad_one_is_one_line(imported):
    assert len(imported.problems) == 4
    assert len(imported.bad) == 2
    for line in imported.bad:
        assert "\n" not in line and line.startswith("benchmark_sample.jsonl:")
    assert imported.bad[0] == (
        "benchmark_sample.jsonl:5 (fx_0005): clarification rubric(s) r4 have no clarification slot"
    )
    assert "not valid JSON" in imported.bad[1]


def test_sources_map_to_constraint_sources(imported):
    pack = _by_record(imported.problems, "fx_0003")
    assert [(c.cid, c.src) for c in pack.constraints] == [
        ("r1", "query"),
        ("r2", "query"),
        ("r3", "query"),
        ("r4", "profile"),
        ("r7", "query"),
        ("cl_1", "slot"),
    ]
    slot = pack.constraint("cl_1")
    assert slot.rule.attributes == [{"water_resistance_level": ["waterproof"]}, {"color": ["green"]}]
    assert "rain" in slot.topics and slot.say.startswith("It must be waterproof")
    assert pack.constraint("r3").rule.price[0].model_dump() == {"less than": [None, 60.0]}
    assert pack.constraint("r7").rule.title == ["Trailbow 30L Hiking Backpack Nylon Waterproof Daypack for Men Women"]
    assert "Trailbow" not in pack.constraint("r7").say  # a title rejection never reads the target's title out
    assert pack.profile.requirements == {"brand_preference": "Trailbow"}
    assert set(pack.profile.visible) == {"demographics", "lifestyle", "shopping_habits"}
    assert pack.gold_ids == ["B0FXPACK03"] and pack.events == []
    assert pack.style.max_questions == 10


def test_unsupported_rubrics_are_dropped_and_counted(imported):
    assert dict(imported.dropped) == {"numeric_range:rating_number": 1, "negative_attribute": 1, "review_opinion": 1}
    kettle = _by_record(imported.problems, "fx_0002")
    assert kettle.meta["dropped_rubrics"] == ["negative_attribute"]
    budget = kettle.constraint("cl_2")
    assert budget.src == "slot" and budget.rule.price[0].model_dump() == {"less than": [None, 40.0]}


@pytest.mark.parametrize(
    ("expected", "shape"),
    [
        ({"min": 10}, {"greater than": [10.0, None]}),
        ({"max": 25.5}, {"less than": [None, 25.5]}),
        ([5, 9], {"between": [5.0, 9.0]}),
        ({"min": 1, "max": 3}, {"between": [1.0, 3.0]}),
        ({"value": 30, "op": "<="}, {"less than": [None, 30.0]}),
        (12, {"between": [12.0, 12.0]}),
    ],
)
def test_price_ranges_in_every_form(expected, shape):
    record = _records()[2]
    record["rubrics"][2]["expected_value"] = expected
    problem = parse_record(record, "test")
    assert problem.constraint("r3").rule.price[0].model_dump() == shape


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda r: r.pop("user_query"), 'no "user_query" text'),
        (lambda r: r["target_product"].pop("title"), "target_product needs a product_id and a title"),
        (lambda r: r["rubrics"][0].update(info_source="web"), "rubric r1 has info_source 'web'"),
        (lambda r: r["rubrics"][0].update(expected_value={"a": 1}), "rubric r1 (attribute_match) has no text"),
        (lambda r: r["rubrics"][2].update(expected_value="cheap"), "is 'cheap', not a number"),
        (lambda r: r["clarification_script"]["clarification_slots"][0].update(linked_rubric_ids=["r99"]), "r99"),
    ],
)
def test_malformed_records_give_one_line(edit, reason):
    record = _records()[2]
    edit(record)
    with pytest.raises(ValueError) as exc:
        parse_record(record, "test")
    assert reason in str(exc.value) and "\n" not in str(exc.value)


def test_targets_are_rebuilt_as_golds_meeting_the_truth(imported, rebuilt):
    report, catalog = rebuilt
    assert len(report.problems) == 4 and not report.skipped
    for problem in report.problems:
        gold = catalog.get(problem.gold_ids[0])
        assert gold is not None and gold["title"] == as_shoppingbench(problem).reward[0].title[0]
        assert problem.meta["catalog_digest"] == report.digest == catalog.digest
        for c in problem.constraints:
            for attr in c.rule.attributes:
                for key, values in attr.items():
                    assert set(values) <= set(gold["attributes"][key])


def test_imported_sessions_self_check(rebuilt):
    report, catalog = rebuilt
    check = selfcheck_imported(report.problems, catalog)
    assert check.summary()["passed"] == {c: 4 for c in CHECKS}, check.failures
    assert len(check.kept) == 4 and sum(check.by_difficulty.values()) == 4
    assert all(p.difficulty in ("easy", "medium", "hard") and "reference_turns" in p.meta for p in check.kept)
