"""Strict checks, written from ShoppingBench's rules, with their edge cases."""

from __future__ import annotations

import pytest

from arena.scoring import aggregate, mean_pass_at_k, pass_at_k
from arena.tasks.shopping.problem import Problem
from arena.tasks.shopping.similarity import TITLE_THRESHOLD, title_similarity
from arena.tasks.shoppingbench.strict import parse_answer, score_run
from tests.conftest import make_product

GOLD_TITLE = "Arborea Hybrid Ghost Crash Cymbal B20 Cast Bronze 18 inch"
PRODUCTS = {
    "G1": make_product(
        "G1",
        GOLD_TITLE,
        4500,
        shop_id="S1",
        service=["COD", "flashsale"],
        attributes={"material": ["b20 bronze"], "cymbal_type": ["crash"]},
        sku_options={"1": {"size": "16 inch"}, "2": {"size": "18 inch"}},
    ),
    # a substitute: another listing of the same cymbal, meets every constraint
    "SUB": make_product(
        "SUB",
        "Hybrid Ghost Crash Cymbal Arborea B20 Bronze 18in Original",
        4200,
        shop_id="S2",
        service=["COD", "flashsale", "freeShipping"],
        attributes={"material": ["b20 bronze"], "cymbal_type": ["crash"]},
        sku_options={"1": {"size": "18 inch"}},
    ),
    # near misses
    "PRICEY": make_product(
        "PRICEY",
        "Arborea Hybrid Ghost Crash Cymbal B20 Bronze 18 inch",
        5001,
        shop_id="S2",
        service=["COD", "flashsale"],
        attributes={"material": ["b20 bronze"], "cymbal_type": ["crash"]},
        sku_options={"1": {"size": "18 inch"}},
    ),
    "NOFLASH": make_product(
        "NOFLASH",
        "Arborea Hybrid Ghost Crash Cymbal B20 Bronze 18 inch",
        4000,
        shop_id="S2",
        service=["COD"],
        attributes={"material": ["b20 bronze"], "cymbal_type": ["crash"]},
        sku_options={"1": {"size": "18 inch"}},
    ),
    "RIDE": make_product(
        "RIDE",
        "Arborea Hybrid Ghost Ride Cymbal B20 Bronze 18 inch",
        4000,
        shop_id="S2",
        service=["COD", "flashsale"],
        attributes={"material": ["b20 bronze"], "cymbal_type": ["ride"]},
        sku_options={"1": {"size": "18 inch"}},
    ),
    "OTHER": make_product(
        "OTHER", "Stainless Steel Rice Cooker 1.8L", 1500, shop_id="S1", service=["COD", "flashsale"]
    ),
    # shop and voucher baskets
    "A1": make_product("A1", "Kalinaw Rattan Storage Basket Large", 300, shop_id="S7"),
    "A2": make_product("A2", "Kalinaw Abaca Placemat Set of 6", 200, shop_id="S7"),
    "B2": make_product("B2", "Kalinaw Abaca Placemat Set of 6 Natural", 190, shop_id="S8"),
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


def problem(task="product", reward=None, **kw) -> Problem:
    return Problem(problem_id="p1", task=task, query="find it", reward=reward or [CYMBAL], **kw)


def test_answer_parsing():
    # the default ruleset is the paper's: the raw comma split (tests/unit/test_rulesets.py has both)
    assert parse_answer("G1, SUB ,G1,,") == ["G1", " SUB ", "G1", "", ""]
    assert parse_answer(None) == [] == parse_answer("")


def test_gold_is_success_with_rule_one():
    score = score_run(problem(), "G1", lookup)
    assert score.success and score.extras.gt == 1 and score.extras.rule == 1 and score.final == 1


def test_substitute_meeting_every_constraint_succeeds_without_gt():
    score = score_run(problem(), "SUB", lookup)
    assert score.extras.gt == 0 and score.extras.rule == 1 and score.success
    assert score.extras.products[0].title_similarity >= TITLE_THRESHOLD
    assert score.extras.field_rates == {"title": 1.0, "price": 1.0, "service": 1.0, "attributes": 1.0}


@pytest.mark.parametrize(("pid", "failed"), [("PRICEY", "price"), ("NOFLASH", "service"), ("RIDE", "attributes")])
def test_each_near_miss_fails_exactly_its_constraint(pid, failed):
    score = score_run(problem(), pid, lookup)
    assert not score.success
    # title, price, service, and 2 pairs (size from the SKU option, cymbal_type): 5 checks, one failed
    assert score.extras.rule == pytest.approx(4 / 5)
    assert score.extras.field_rates[failed] < 1
    assert all(rate == 1 for name, rate in score.extras.field_rates.items() if name != failed)


def test_unrelated_product_fails_the_title():
    score = score_run(problem(), "OTHER", lookup)
    assert score.extras.field_rates["title"] == 0 and not score.success


def test_product_task_uses_the_first_id_only():
    assert score_run(problem(), "OTHER,G1", lookup).success is False
    assert score_run(problem(), "G1,OTHER", lookup).success is True


@pytest.mark.parametrize("answer", [None, "", "nope", "G1x", ["\x00", "drop table"], "  ,  "])
def test_junk_and_empty_answers_score_zero(answer):
    score = score_run(problem(), answer, lookup)
    assert score.extras.rule == 0 and score.extras.gt == 0 and not score.success and score.final == 0


def test_price_bounds_are_inclusive_and_open_bounds_work():
    at_hi = problem(reward=[CYMBAL | {"product_id": "X", "price": [{"between": [3000, 4500]}]}])
    assert score_run(at_hi, "G1", lookup).extras.field_rates["price"] == 1
    above = problem(reward=[CYMBAL | {"product_id": "X", "price": [{"greater than": [4500, None]}]}])
    assert score_run(above, "G1", lookup).extras.field_rates["price"] == 1
    below = problem(reward=[CYMBAL | {"product_id": "X", "price": [{"less than": [None, 4499.99]}]}])
    assert score_run(below, "G1", lookup).extras.field_rates["price"] == 0


def test_required_pair_may_come_from_attributes_or_one_sku_option_but_not_two():
    reward = CYMBAL | {
        "product_id": "X",
        "sku_options": [{"size": "16 inch"}],
        "attributes": [{"material": ["b20 bronze"]}],
    }
    assert score_run(problem(reward=[reward]), "G1", lookup).extras.field_rates["attributes"] == 1
    # two pairs that live in two different options of G1 cannot both be met by one option
    split = CYMBAL | {"product_id": "X", "sku_options": [{"size": "16 inch"}], "attributes": [{"size": ["18 inch"]}]}
    assert score_run(problem(reward=[split]), "G1", lookup).extras.field_rates["attributes"] == 0.5


SHOP_REWARD = [
    {"product_id": "A1", "title": ["Kalinaw Rattan Storage Basket Large"]},
    {"product_id": "A2", "title": ["Kalinaw Abaca Placemat Set of 6"]},
]


def test_shop_task_needs_every_slot_in_one_shop_in_order():
    p = problem("shop", SHOP_REWARD)
    assert score_run(p, "A1,A2", lookup).success
    mixed = score_run(p, "A1,B2", lookup)  # B2 is a fine placemat, but from another shop
    assert mixed.extras.rule == 1 and mixed.extras.shop == 0 and not mixed.success
    swapped = score_run(p, "A2,A1", lookup)  # position i answers reward i
    assert not swapped.success
    missing = score_run(p, "A1", lookup)
    assert missing.extras.shop == 0 and missing.extras.rule == 0.5 and not missing.success


def voucher_problem(**voucher):
    base = {"voucher_type": "platform", "threshold": 400, "discount_type": "fixed", "face_value": 50, "budget": 460}
    return problem("voucher", SHOP_REWARD, voucher=base | voucher)


def test_voucher_budget_rules():
    assert score_run(voucher_problem(), "A1,A2", lookup).success  # 500 - 50 = 450 <= 460
    assert (
        score_run(voucher_problem(threshold=500), "A1,A2", lookup).extras.budget == 1
    )  # threshold reached at equality
    assert score_run(voucher_problem(threshold=500.01), "A1,A2", lookup).extras.budget == 0
    assert (
        score_run(voucher_problem(budget=500), "A1,A2", lookup).extras.budget == 1
    )  # within budget without the voucher
    assert score_run(voucher_problem(budget=449.99), "A1,A2", lookup).extras.budget == 0
    shop = voucher_problem(voucher_type="shop")
    assert score_run(shop, "A1,A2", lookup).extras.budget == 1
    assert score_run(shop, "A1,B2", lookup).extras.budget == 0  # a shop voucher needs one shop: 490 > 460
    pct = voucher_problem(discount_type="percentage", face_value=None, discount=0.2, cap=60, budget=440)
    assert score_run(pct, "A1,A2", lookup).extras.budget == 1  # max(500 * 0.8, 500 - 60) = 440
    assert score_run(voucher_problem(), "A1", lookup).extras.budget == 0  # not every product recommended


def test_web_task():
    doc = PRODUCTS["G1"]
    p = Problem(
        problem_id="w",
        task="web",
        query="the cymbal metal?",
        knowledge_attribute="Bronze",
        reward=[{"product_id": "G1", "title": [doc["title"]]}],
    )
    assert score_run(p, "G1", lookup).success
    sub = score_run(p, "PRICEY", lookup)  # same title words, has "Bronze": kw and title pass
    assert sub.extras.kw == 1 and sub.extras.rule == 1 and sub.success
    other = score_run(p, "OTHER", lookup)
    assert other.extras.kw == 0 and other.extras.rule == 0 and not other.success


def test_title_similarity_orders_same_and_different_products():
    same = title_similarity(GOLD_TITLE, PRODUCTS["SUB"]["title"])
    other = title_similarity(GOLD_TITLE, PRODUCTS["OTHER"]["title"])
    assert same >= TITLE_THRESHOLD > other


def test_aggregate_counts_errors_as_failures():
    good = score_run(problem(), "G1", lookup)
    bad = score_run(problem(), "OTHER", lookup)
    suite = aggregate(
        [
            ("product", good),
            ("product", bad),
            ("product", None),
            ("shop", score_run(problem("shop", SHOP_REWARD), "A1,A2", lookup)),
        ]
    )
    assert suite.problems == 4 and suite.scored == 3
    assert suite.success_rate == 0.5
    assert suite.by_task["product"].success_rate == pytest.approx(1 / 3)
    assert suite.by_task["shop"].success_rate == 1


def test_pass_at_k():
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_at_k(5, 0, 3) == 0 and pass_at_k(5, 3, 3) == 1
    assert mean_pass_at_k({"a": [True, False], "b": [False, False]}, 1) == pytest.approx(0.25)
    with pytest.raises(ValueError):
        pass_at_k(2, 3, 1)
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


@pytest.mark.parametrize(
    ("task", "reward", "extra", "message"),
    [
        ("product", [CYMBAL, CYMBAL], {}, "exactly one reward"),
        ("shop", [CYMBAL], {}, "2 to 4"),
        ("voucher", SHOP_REWARD, {}, "needs its voucher"),
        ("web", [CYMBAL], {}, "knowledge_attribute"),
        ("product", [CYMBAL | {"price": [{"between": [10, None]}]}], {}, "both bounds"),
        ("product", [CYMBAL | {"price": [{"between": [10, 5]}]}], {}, "empty"),
        ("product", [CYMBAL | {"service": ["teleport"]}], {}, "service"),
    ],
)
def test_problem_model_rejects_impossible_shapes(task, reward, extra, message):
    with pytest.raises(ValueError, match=message):
        Problem(problem_id="x", task=task, query="q", reward=reward, **extra)


def test_reward_round_trips_in_shoppingbench_form():
    p = problem()
    dumped = p.model_dump(mode="json")["reward"][0]
    assert dumped["price"] == [{"between": [3000.0, 5000.0]}]
    assert Problem.model_validate(p.model_dump(mode="json")) == p
    public = p.public()
    assert "reward" not in public and "G1" not in str(public) and public["query"] == "find it"
