"""The two rulesets against cases taken from their references' rules.

``shoppingbench``: yjwjy/ShoppingBench ``src/agent/run_evaluate.py`` and ``src/agent/rewards/orm.py``; ``sn15``:
ORO-AI/oro ``src/agent/problem_scorer.py`` and ``src/agent/rewards/orm.py``. Each difference listed in
``docs/scoring.md`` ("Where the two rulesets differ") has a case here; where the two references differ, the case asserts
both verdicts, so it fails under the other ruleset.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arena.tasks.answer import final_recommendation, raw_answer
from arena.tasks.shopping.problem import Problem
from arena.tasks.shopping.rulesets import RULESETS, UnknownRuleset, get_ruleset
from arena.tasks.shopping.similarity import SN15_TITLE_THRESHOLD, TITLE_THRESHOLD, title_similarity
from arena.tasks.shoppingbench.strict import parse_answer, score_run
from arena.trajectory import TrajectoryEvent
from tests.conftest import make_product

GOLD_TITLE = "Arborea Hybrid Ghost Crash Cymbal B20 Cast Bronze 18 inch"
PRODUCTS = {
    "G1": make_product(
        "G1",
        GOLD_TITLE,
        4500,
        shop_id="S1",
        service=["flashsale"],
        attributes={"cymbal_type": ["crash"]},
        sku_options={"1": {"size": "18 inch"}},
    ),
    # meets every constraint; its title is close to the gold's by the paper's threshold, not by subnet 15's
    "LOOSE": make_product(
        "LOOSE",
        "Arborea Ghost Cymbal",
        4200,
        shop_id="S2",
        service=["flashsale"],
        attributes={"cymbal_type": ["crash"]},
        sku_options={"1": {"size": "18 inch"}},
    ),
    # the same values as the reward's in other case / spacing
    "CASED": make_product(
        "CASED",
        "Arborea Hybrid Ghost Crash Cymbal B20 Bronze 18 inch",
        4200,
        shop_id="S2",
        service=["flashsale"],
        attributes={"cymbal_type": ["Crash"]},
        sku_options={"1": {"size": "18  inch"}},
    ),
    # a junk product whose id contains the gold id of the web problem
    "XG1X": make_product("XG1X", "Stainless Steel Rice Cooker 1.8L", 900, shop_id="S3"),
    "A1": make_product("A1", "Kalinaw Rattan Storage Basket Large", 300, shop_id="S7"),
    "A2": make_product("A2", "Kalinaw Abaca Placemat Set of 6", 200, shop_id="S7"),
    "A3": make_product("A3", "Kalinaw Bamboo Serving Tray", 100, shop_id="S7"),
    "C1": make_product("C1", "Kalinaw Rattan Storage Basket Large", 300, shop_id="S9"),
    "P1": make_product("P1", "Kalinaw Rattan Storage Basket Large", 0.1, shop_id="S7"),
    "P2": make_product("P2", "Kalinaw Abaca Placemat Set of 6", 0.2, shop_id="S7"),
    "WEB": make_product(
        "WEB", "Travel Leisure Magazine Asia August", 240, shop_id="S4", description="2020 issue, printed in Singapore."
    ),
    "WEB2": make_product(
        "WEB2", "Travel Leisure Magazine Asia August 2020", 240, shop_id="S4", description="Monthly travel magazine."
    ),
}
lookup = PRODUCTS.get
CYMBAL = {
    "product_id": "G1",
    "title": [GOLD_TITLE],
    "sku_options": [{"size": "18 inch"}],
    "attributes": [{"cymbal_type": ["crash"]}],
    "service": ["flashsale"],
    "price": [{"between": [3000, 5000]}],
}
BASKET = [
    {"product_id": "A1", "title": ["Kalinaw Rattan Storage Basket Large"]},
    {"product_id": "A2", "title": ["Kalinaw Abaca Placemat Set of 6"]},
]
BOTH = ("shoppingbench", "sn15")


def product_problem(reward=None) -> Problem:
    return Problem(problem_id="p", task="product", query="q", reward=[reward or CYMBAL])


def shop_problem(reward=None) -> Problem:
    return Problem(problem_id="s", task="shop", query="q", reward=reward or BASKET)


def voucher_problem(reward=None, **voucher) -> Problem:
    base = {"voucher_type": "platform", "threshold": 400, "discount_type": "fixed", "face_value": 50, "budget": 460}
    return Problem(problem_id="v", task="voucher", query="q", reward=reward or BASKET, voucher=base | voucher)


def web_problem(keyword="August 2020", title="Travel + Leisure Southeast Asia August 2020 issue") -> Problem:
    return Problem(
        problem_id="w",
        task="web",
        query="q",
        knowledge_attribute=keyword,
        reward=[{"product_id": "G1", "title": [title]}],
    )


def run(problem: Problem, answer, ruleset: str):
    return score_run(problem, answer, lookup, ruleset=ruleset)


# ------------------------------------------------------------------------------------------------ the answer
def test_answer_parsing_per_ruleset():
    # the paper: the raw comma split, nothing stripped or removed
    assert parse_answer("G1, SUB ,G1,,", "shoppingbench") == ["G1", " SUB ", "G1", "", ""]
    # subnet 15: stripped, empties dropped, duplicates removed, order kept
    assert parse_answer("G1, SUB ,G1,,", "sn15") == ["G1", "SUB"]
    for name in BOTH:
        # a non-string product_ids is no answer in both references
        assert parse_answer(["G1"], name) == ["G1"]  # a list of ids from our own callers is taken as split
        assert parse_answer(None, name) == parse_answer(123, name) == parse_answer({"a": 1}, name) == []
        assert parse_answer([1, 2], name) == [] == parse_answer("", name)


def test_a_space_after_the_comma_loses_the_slot_only_under_the_paper():
    assert not run(shop_problem(), "A1, A2", "shoppingbench").success  # " A2" is not a product id
    assert run(shop_problem(), "A1, A2", "sn15").success
    assert not run(product_problem(), " G1", "shoppingbench").success
    assert run(product_problem(), " G1", "sn15").success


def test_one_product_for_two_slots_counts_twice_only_under_the_paper():
    twice = [BASKET[0], BASKET[0] | {"product_id": "A9"}]  # two requests that one product meets
    assert run(shop_problem(twice), "A1,A1", "shoppingbench").success
    deduplicated = run(shop_problem(twice), "A1,A1", "sn15")
    assert not deduplicated.success and deduplicated.extras.products[1].answer_id is None


def event(seq: int, name: str, arguments, *, status: int = 200, error: str | None = None) -> TrajectoryEvent:
    return TrajectoryEvent(
        run_id="r",
        seq=seq,
        kind="tool_call",
        name=name,
        arguments=arguments,
        status=status,
        error=error,
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
    )


def test_the_last_recommend_call_counts_even_when_the_tool_rejected_it():
    events = [
        event(1, "recommend_product", {"product_ids": "G1"}),
        event(2, "recommend_product", {"product_ids": ""}, error="product_ids is empty"),
        event(3, "terminate", {"status": "success"}),
    ]
    assert raw_answer(events) == ""
    for name in BOTH:
        assert not run(product_problem(), raw_answer(events), name).success
    # a malformed argument (a list) is no answer either
    events[1] = event(2, "recommend_product", {"product_ids": ["G1"]}, error="product_ids: not a string")
    assert raw_answer(events) == ""
    assert all(not run(product_problem(), raw_answer(events), name).success for name in BOTH)


def test_a_call_the_gateway_refused_never_reached_the_tool_and_does_not_count():
    events = [
        event(1, "recommend_product", {"product_ids": "G1"}),
        event(2, "recommend_product", {"product_ids": "XG1X"}, status=429, error="tool call budget spent"),
    ]
    assert final_recommendation(events).seq == 1 and raw_answer(events) == "G1"
    assert raw_answer([event(1, "find_product", {"q": "x"})]) is None
    # arguments an LLM sent as a JSON string
    assert raw_answer([event(1, "recommend_product", '{"product_ids": "A1,A2"}')]) == "A1,A2"


# ------------------------------------------------------------------------------------------------ per product
def test_attribute_and_sku_values_match_exactly_in_both():
    for name in BOTH:
        score = run(product_problem(), "CASED", name)
        assert score.extras.field_rates["attributes"] == 0 and not score.success


def test_title_threshold_differs():
    similarity = title_similarity(GOLD_TITLE, PRODUCTS["LOOSE"]["title"])
    assert TITLE_THRESHOLD <= similarity < SN15_TITLE_THRESHOLD
    assert run(product_problem(), "LOOSE", "shoppingbench").success
    assert not run(product_problem(), "LOOSE", "sn15").success


def test_price_modes_check_only_the_bound_they_name():
    # "less than" with a lower bound written in: the references test only price <= hi
    reward = CYMBAL | {"product_id": "X", "price": [{"less than": [4600, 5000]}]}
    for name in BOTH:
        assert run(product_problem(reward), "G1", name).extras.field_rates["price"] == 1
    reward = CYMBAL | {"product_id": "X", "price": [{"greater than": [1000, 2000]}]}
    for name in BOTH:
        assert run(product_problem(reward), "G1", name).extras.field_rates["price"] == 1


def test_gold_id_field_rates_differ():
    # the paper returns at an exact id before counting fields (every rate 1); subnet 15 counts them anyway
    off = CYMBAL | {"price": [{"less than": [None, 100]}], "service": []}
    paper = run(product_problem(off), "G1", "shoppingbench")
    oro = run(product_problem(off), "G1", "sn15")
    assert paper.success and oro.success and paper.extras.rule == oro.extras.rule == 1
    assert paper.extras.field_rates == {"title": 1, "price": 1, "service": 1, "attributes": 1}
    assert (
        oro.extras.field_rates["price"] == 0 and oro.extras.field_rates["service"] == 0
    )  # no service constraint: 0 in ORO


def test_a_reward_with_nothing_to_check_scores_zero_without_raising():
    bare = {"product_id": "X"}
    for name in BOTH:
        score = run(product_problem(bare), "G1", name)
        assert score.extras.rule == 0 and not score.success


# ------------------------------------------------------------------------------------------------ baskets
def test_a_zero_rule_slot_joins_the_shop_check_only_under_the_paper():
    unrelated = [BASKET[0], {"product_id": "Z", "title": ["Stainless Steel Rice Cooker 1.8L"]}]
    paper = run(shop_problem(unrelated), "A1,A3", "shoppingbench")
    oro = run(shop_problem(unrelated), "A1,A3", "sn15")
    assert paper.extras.products[1].rule == 0 and paper.extras.shop == 1 and oro.extras.shop == 0
    assert not paper.success and not oro.success


def test_a_zero_rule_slot_joins_the_budget_only_under_the_paper():
    unrelated = [BASKET[0], {"product_id": "Z", "title": ["Stainless Steel Rice Cooker 1.8L"]}]
    assert run(voucher_problem(unrelated), "A1,A3", "shoppingbench").extras.budget == 1
    assert run(voucher_problem(unrelated), "A1,A3", "sn15").extras.budget == 0


def test_budget_uses_raw_floats():
    cheap = [BASKET[0] | {"product_id": "P1"}, BASKET[1] | {"product_id": "P2"}]
    # 0.1 + 0.2 is 0.30000000000000004 > 0.3: over budget by float noise, as in both references
    for name in BOTH:
        assert run(voucher_problem(cheap, budget=0.3, threshold=1), "P1,P2", name).extras.budget == 0
        assert run(voucher_problem(cheap, budget=0.31, threshold=1), "P1,P2", name).extras.budget == 1


def test_voucher_rules_in_both():
    for name in BOTH:
        assert run(voucher_problem(), "A1,A2", name).success  # 500 - 50 = 450 <= 460
        assert run(voucher_problem(threshold=500), "A1,A2", name).extras.budget == 1  # threshold met at equality
        assert run(voucher_problem(threshold=500.01), "A1,A2", name).extras.budget == 0
        assert run(voucher_problem(voucher_type="shop"), "A1,C1", name).extras.budget == 0  # two shops: 600 > 460
        pct = voucher_problem(discount_type="percentage", face_value=None, discount=0.2, cap=60, budget=440)
        assert run(pct, "A1,A2", name).extras.budget == 1  # max(500 * 0.8, 500 - 60) = 440
        uncapped = voucher_problem(discount_type="percentage", face_value=None, discount=0.2, cap=None, budget=400)
        assert run(uncapped, "A1,A2", name).extras.budget == 1  # the references raise on a null cap; uncapped here
        big = voucher_problem(face_value=900, threshold=1, budget=0)
        score = run(big, "A1,A2", name)
        assert score.extras.budget == 1 and "-400.0" in score.checks[0].evidence  # a fixed voucher may go below 0


# ------------------------------------------------------------------------------------------------ web
def test_a_web_answer_whose_id_contains_the_gold_id_is_not_a_success():
    for name in BOTH:
        score = run(web_problem(), "XG1X", name)
        assert not score.success and score.extras.rule == 0
    # the paper reports gt as a substring test; subnet 15 takes the exact id
    assert run(web_problem(), "XG1X", "shoppingbench").extras.gt == 1
    assert run(web_problem(), "XG1X", "sn15").extras.gt == 0


def test_web_keyword_is_searched_in_title_and_description_apart_unstripped():
    for name in BOTH:
        # "August" ends the title and "2020" opens the description: found only in the two joined
        split = run(web_problem(), "WEB", name)
        assert split.extras.kw == 0
        # the keyword as given, with its padding space, is not in the title
        padded = run(web_problem(keyword="August 2020 "), "WEB2", name)
        assert padded.extras.kw == 0
        assert run(web_problem(), "WEB2", name).extras.kw == 1


def test_web_without_a_reward_title_uses_the_keyword_in_the_title():
    problem = Problem(
        problem_id="w", task="web", query="q", knowledge_attribute="August 2020", reward=[{"product_id": "G1"}]
    )
    for name in BOTH:
        assert run(problem, "WEB2", name).success
        assert not run(problem, "WEB", name).success


# ------------------------------------------------------------------------------------------------ any answer
@pytest.mark.parametrize(
    "answer",
    [None, "", " ", ",,,", "G1,G1,G1,G1,G1", 17, 1.5, True, [], [None], {"x": 1}, "\x00", "A1" * 1000, ["A1", 3]],
)
@pytest.mark.parametrize("task", ["product", "shop", "voucher", "web"])
@pytest.mark.parametrize("name", BOTH)
def test_any_answer_is_scored_without_an_exception(answer, task, name):
    problem = {
        "product": product_problem(),
        "shop": shop_problem(),
        "voucher": voucher_problem(),
        "web": web_problem(),
    }[task]
    score = run(problem, answer, name)
    assert score.ruleset == name and 0 <= score.extras.rule <= 1 and score.final in (0.0, 1.0)


def test_unknown_ruleset_is_one_clear_error():
    with pytest.raises(UnknownRuleset, match="unknown ruleset 'oro'; use one of: shoppingbench, sn15"):
        get_ruleset("oro")
    assert set(RULESETS) == set(BOTH)
    assert run(product_problem(), "G1", "sn15").ruleset_version == RULESETS["sn15"].version


def test_calls_refused_for_their_body_do_not_count():
    events = [
        event(1, "recommend_product", {"product_ids": "G1"}),
        event(2, "recommend_product", None, status=413, error="request body over 65536 bytes"),
        event(3, "recommend_product", None, status=400, error="body is not JSON"),
    ]
    assert raw_answer(events) == "G1"
