"""The offline judge remembers tool results' facts by their JSON (and what they add per query): the same facts and
verdicts as reading every result afresh."""

from __future__ import annotations

from arena.judge.offline import OfflineJudge, remembered_facts, result_facts
from tests.unit.test_judge_offline import A_DETAIL, B_DETAIL, PROBLEM, SOUND_TEXT, A, B, Log, run_with

RESULTS = [
    ("find_product", {"q": "rattan basket"}, [A, B]),
    ("view_product_information", {"product_ids": "5001000001,5001000007"}, [A_DETAIL, B_DETAIL]),
    (
        "find_products_in_same_shop",
        {"q": ["basket"]},
        [{"shop_id": "880001", "matches": [{"query": "basket", "products": [A]}]}],
    ),
    (
        "calculate_voucher",
        {"product_ids": "5001000001"},
        {"prices": [349.0], "total_before": 349.0, "discount": 20.0, "total_after": 329.0},
    ),
    ("web_search", {"q": "rattan"}, [{"title": "Rattan care", "content": "Wipe with a damp cloth."}]),
    ("price_history", {"product_id": "5001000001"}, {"product_id": "5001000001", "lowest": 299.5}),
    ("recommend_product", {"product_ids": "5001000001"}, "Having recommended the products: 5001000001."),
]


def test_remembered_facts_are_the_facts_of_the_result() -> None:
    for name, arguments, result in RESULTS:
        assert remembered_facts(name, arguments, result) == result_facts(name, arguments, result), name
        assert (
            remembered_facts(name, arguments, result) is remembered_facts(name, arguments, result)
            or name == "recommend_product"
        )


def test_an_unknown_tool_s_facts_still_leave_out_what_its_arguments_echo() -> None:
    result = {"product_id": "5001000001", "lowest": 299.5}
    echoed = remembered_facts("price_history", {"product_id": "5001000001"}, result)
    other = remembered_facts("price_history", {"product_id": "7"}, result)
    assert "5001000001" not in echoed.ids and "5001000001" in other.ids
    assert echoed == result_facts("price_history", {"product_id": "5001000001"}, result)


def test_a_result_that_is_not_json_is_read_as_it_is() -> None:
    result = [{**A, "service": {"COD"}}]  # a set: no JSON, so no key to remember it by
    assert remembered_facts("find_product", {}, result) == result_facts("find_product", {}, result)


def test_verdicts_are_the_same_when_results_repeat_across_runs_and_queries() -> None:
    fresh = [OfflineJudge().judge(PROBLEM, run_with(SOUND_TEXT)).model_dump() for _ in range(3)]
    assert fresh[0] == fresh[1] == fresh[2] and fresh[0]["gate"] == "sound"
    # the same results under a query that names the cheaper basket: its id no longer counts as a cited datum
    other = {**PROBLEM, "query": "Is the Kalinaw basket 5001000001 at 349 a good buy?"}
    events = Log().llm("x " * 40).search().view().llm("5001000001 costs 349.").finish().events
    assert OfflineJudge().judge(other, events).gate != OfflineJudge().judge(PROBLEM, events).gate
