"""The seven tools against the tiny hand-built catalog: ShoppingBench's semantics, field by field."""

from __future__ import annotations

import json

import pytest

from arena.tasks.shopping.tools import default_registry
from arena.tools import RunState, ToolContext, ToolError

REGISTRY = default_registry()


@pytest.fixture
def ctx(tiny_catalog):
    return ToolContext(tiny_catalog, RunState())


def call(ctx, name, **arguments):
    return REGISTRY.call(name, arguments, ctx)


def ids(results):
    return [r["product_id"] for r in results]


# ---------------------------------------------------------------------------------------------------- find_product


def test_find_product_returns_the_summary_fields_only(ctx):
    results = call(ctx, "find_product", q="desk lamp", page=1)
    assert len(results) == 10
    assert set(results[0]) == {"product_id", "shop_id", "title", "price", "service", "sold_count"}
    assert all(r["product_id"].startswith("D") for r in results)


def test_find_product_keeps_50_then_sorts(ctx):
    # The 10 cheapest lamps are only weakly relevant: they fall outside the 50 kept, so sorting never sees them.
    cheapest = call(ctx, "find_product", q="desk lamp", page=1, sort="priceasc")
    assert [r["price"] for r in cheapest] == [100.0 + i for i in range(10)]
    pages = [call(ctx, "find_product", q="desk lamp", page=p, sort="priceasc") for p in range(1, 6)]
    flat = [r for page in pages for r in page]
    assert len(flat) == 50 and len(set(ids(flat))) == 50
    assert [r["price"] for r in flat] == sorted(r["price"] for r in flat)
    assert not any(i.startswith("W") for i in ids(flat))


def test_find_product_filters_before_keeping_50(ctx):
    # With the price filter applied first, the weak but cheap lamps are what is left, and they are found.
    results = call(ctx, "find_product", q="desk lamp", page=1, price="1-10")
    assert sorted(ids(results)) == [f"W{i:02d}" for i in range(10)]


def test_find_product_sorts(ctx):
    desc = call(ctx, "find_product", q="desk lamp", page=1, sort="pricedesc")
    assert [r["price"] for r in desc] == [149.0 - i for i in range(10)]
    order = [r for p in range(1, 6) for r in call(ctx, "find_product", q="desk lamp", page=p, sort="order")]
    sold = [r["sold_count"] for r in order]
    assert sold == sorted(sold, reverse=True) and len(sold) == 50


def test_equal_relevance_keeps_catalog_order(ctx):
    # D001..D049 score the same: they come in the order they were added, whatever the index layout; D000's SKU
    # values make its text longer, so it scores a little lower and comes last
    flat = [r for p in range(1, 6) for r in call(ctx, "find_product", q="desk lamp", page=p)]
    assert ids(flat) == [f"D{i:03d}" for i in range(1, 50)] + ["D000"]


def test_find_product_default_sort_is_relevance(ctx):
    results = call(ctx, "find_product", q="floor lamp cable", page=1)
    assert all(r["product_id"].startswith("W") for r in results)


def test_price_bounds_are_inclusive(ctx):
    assert sorted(ids(call(ctx, "find_product", q="desk lamp", price="100-101"))) == ["D000", "D001"]
    assert ids(call(ctx, "find_product", q="desk lamp", price="90-100")) == ["D000"]
    low = call(ctx, "find_product", q="desk lamp", price="148-")
    assert sorted(ids(low)) == ["D048", "D049"]
    assert ids(call(ctx, "find_product", q="desk lamp", price="-1")) == ["W00"]
    assert sorted(ids(call(ctx, "find_product", q="desk lamp", price="100.5-101.5"))) == ["D001"]


def test_every_listed_service_is_required(ctx):
    both = [r for p in range(1, 6) for r in call(ctx, "find_product", q="desk lamp", page=p, service="COD,flashsale")]
    assert sorted(ids(both)) == [f"D{i:03d}" for i in range(0, 50, 6)]
    assert all({"COD", "flashsale"} <= set(r["service"]) for r in both)
    three = call(ctx, "find_product", q="desk lamp", service="official, freeShipping,COD")
    assert sorted(ids(three)) == ["D000"]  # multiples of 70 below 50
    assert call(ctx, "find_product", q="desk lamp", service="default") == call(ctx, "find_product", q="desk lamp")


def test_shop_filter(ctx):
    results = [r for p in range(1, 6) for r in call(ctx, "find_product", q="desk lamp", page=p, shop_id="S2")]
    assert len(results) == 25 and {r["shop_id"] for r in results} == {"S2"}


def test_pages_outside_one_to_five_are_empty(ctx):
    assert call(ctx, "find_product", q="desk lamp", page=0) == []
    assert call(ctx, "find_product", q="desk lamp", page=6) == []
    assert call(ctx, "find_product", q="desk lamp", page=-3) == []
    assert len(call(ctx, "find_product", q="desk lamp", page=5)) == 10
    assert len(call(ctx, "find_product", q="desk lamp", page="2")) == 10  # LLMs send numbers as strings


def test_query_syntax_never_breaks_the_search(ctx):
    for q in [
        "desk AND lamp",
        'title:desk "lamp',
        "lamp* ~2 ^3",
        "(desk) [lamp] {}",
        "desk-lamp!!",
        "NOT lamp",
        "lamp\\",
        "desk' OR 1=1 --",
    ]:
        results = call(ctx, "find_product", q=q)
        assert results, q
    assert call(ctx, "find_product", q="the of and") == []  # only stop words: nothing to match
    assert call(ctx, "find_product", q="zzzunknownzzz") == []


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"q": ""}, "q is empty"),
        ({"q": "   "}, "q is empty"),
        ({"q": "lamp", "price": "cheap"}, "not a range"),
        ({"q": "lamp", "price": "100"}, "single number"),
        ({"q": "lamp", "price": "500-100"}, "lower bound above"),
        ({"q": "lamp", "price": "-"}, "no bounds"),
        ({"q": "lamp", "sort": "newest"}, "sort"),
        ({"q": "lamp", "service": "COD,express"}, "unknown service 'express'"),
        ({"q": "lamp", "page": "two"}, "page"),
        ({"q": "lamp", "query": "x"}, "unknown argument 'query'"),
        ({"page": 1}, "missing required argument 'q'"),
    ],
)
def test_find_product_bad_arguments_are_tool_errors(ctx, arguments, message):
    with pytest.raises(ToolError, match=message):
        REGISTRY.call("find_product", arguments, ctx)


def test_arguments_may_be_a_json_string(ctx):
    assert len(REGISTRY.call("find_product", json.dumps({"q": "desk lamp"}), ctx)) == 10
    with pytest.raises(ToolError, match="not valid JSON"):
        REGISTRY.call("find_product", "{q: lamp", ctx)
    with pytest.raises(ToolError, match="must be a JSON object"):
        REGISTRY.call("find_product", "[1, 2]", ctx)
    with pytest.raises(ToolError, match="unknown tool 'buy_now'"):
        REGISTRY.call("buy_now", {}, ctx)


# ------------------------------------------------------------------------------------------ view_product_information


def test_detail_view_hides_title_price_and_shop(ctx):
    [detail] = call(ctx, "view_product_information", product_ids="D000")
    assert set(detail) == {"product_id", "short_description", "description", "sku_options", "attributes"}
    assert detail["sku_options"] == {"1": {"color_family": "white"}, "2": {"color_family": "black"}}
    assert detail["attributes"]["material"] == ["aluminium"]


def test_detail_view_reports_unknown_ids_per_id(ctx):
    result = call(ctx, "view_product_information", product_ids="D001, nope ,M1")
    assert ids(result) == ["D001", "nope", "M1"]
    assert result[1] == {"product_id": "nope", "error": "unknown product id"}
    assert "error" not in result[0] and "error" not in result[2]
    with pytest.raises(ToolError, match="empty"):
        call(ctx, "view_product_information", product_ids=" , ")
    with pytest.raises(ToolError, match="at most 20"):
        call(ctx, "view_product_information", product_ids=",".join(f"D{i:03d}" for i in range(21)))


# ----------------------------------------------------------------------------------------- find_products_in_same_shop


def test_same_shop_ranks_full_coverage_first(ctx):
    shops = call(ctx, "find_products_in_same_shop", queries=["ceramic mug", "bamboo tray"])
    assert shops[0]["queries_covered"] == 2
    full = [s["shop_id"] for s in shops if s["queries_covered"] == 2]
    assert sorted(full) == ["S4", "S6"]
    assert "S5" not in [s["shop_id"] for s in shops]  # sells mugs but no trays
    s4 = next(s for s in shops if s["shop_id"] == "S4")
    assert [m["query"] for m in s4["matches"]] == ["ceramic mug", "bamboo tray"]
    assert ids(s4["matches"][0]["products"]) == ["M1"] and ids(s4["matches"][1]["products"]) == ["T1"]


def test_same_shop_arguments(ctx):
    with pytest.raises(ToolError, match="queries"):
        call(ctx, "find_products_in_same_shop", queries=["ceramic mug"])
    with pytest.raises(ToolError, match="queries"):
        call(ctx, "find_products_in_same_shop", queries=["a", "b", "c", "d", "e"])
    with pytest.raises(ToolError, match="needs words"):
        call(ctx, "find_products_in_same_shop", queries=["ceramic mug", " "])
    cheap = call(ctx, "find_products_in_same_shop", queries=["ceramic mug", "bamboo tray"], price="-50")
    assert cheap == []  # no shop has both a mug and a tray at 50 or less


# ---------------------------------------------------------------------------------------------- calculate_voucher


def voucher(**kw):
    base = {"voucher_type": "platform", "threshold": 100, "discount_type": "fixed", "face_value": 20}
    return base | kw


def test_voucher_threshold_is_reached_at_equality(ctx):
    at = call(ctx, "calculate_voucher", product_ids="M1,T1", voucher=voucher())  # 60 + 40 = 100
    assert at["total_before"] == 100 and at["voucher_applied"] and at["total_after"] == 80
    below = call(ctx, "calculate_voucher", product_ids="M1,T1", voucher=voucher(threshold=100.01))
    assert not below["voucher_applied"] and below["total_after"] == 100 and "below the threshold" in below["reason"]


def test_shop_voucher_needs_a_single_shop_basket(ctx):
    same = call(ctx, "calculate_voucher", product_ids="M1,T1", voucher=voucher(voucher_type="shop"))
    assert same["voucher_applied"] and same["total_after"] == 80
    mixed = call(ctx, "calculate_voucher", product_ids="M1,M2", voucher=voucher(voucher_type="shop"))
    assert not mixed["voucher_applied"] and mixed["total_after"] == 160
    platform = call(ctx, "calculate_voucher", product_ids="M1,M2", voucher=voucher())
    assert platform["voucher_applied"] and platform["total_after"] == 140


def test_percentage_voucher_with_and_around_the_cap(ctx):
    # total 160: 25% off is 40; a cap of 30 limits it: max(160*0.75, 160-30) = 130
    capped = call(
        ctx,
        "calculate_voucher",
        product_ids="M1,M2",
        voucher=voucher(discount_type="percentage", face_value=None, discount=0.25, cap=30),
    )
    assert capped["discount"] == 30 and capped["total_after"] == 130
    at_cap = call(
        ctx,
        "calculate_voucher",
        product_ids="M1,M2",
        voucher=voucher(discount_type="percentage", face_value=None, discount=0.25, cap=40),
    )
    assert at_cap["discount"] == 40 and at_cap["total_after"] == 120
    uncapped = call(
        ctx,
        "calculate_voucher",
        product_ids="M1,M2",
        voucher=voucher(discount_type="percentage", face_value=None, discount=0.25, cap=41),
    )
    assert uncapped["discount"] == 40 and uncapped["total_after"] == 120
    no_cap = call(
        ctx,
        "calculate_voucher",
        product_ids="M1,M2,M3",
        voucher=voucher(discount_type="percentage", face_value=None, discount=0.21),
    )
    assert no_cap["total_before"] == 235 and no_cap["total_after"] == 185.65


def test_budget_check(ctx):
    fits = call(ctx, "calculate_voucher", product_ids="M1,T1", voucher=voucher(budget=80))
    assert fits["within_budget"] is True
    over = call(ctx, "calculate_voucher", product_ids="M1,T1", voucher=voucher(budget=79.99))
    assert over["within_budget"] is False
    none = call(ctx, "calculate_voucher", product_ids="M1,T1", voucher=voucher())
    assert none["within_budget"] is None


def test_voucher_bad_arguments(ctx):
    with pytest.raises(ToolError, match="unknown product id"):
        call(ctx, "calculate_voucher", product_ids="M1,ghost", voucher=voucher())
    with pytest.raises(ToolError, match="face_value"):
        call(ctx, "calculate_voucher", product_ids="M1,T1", voucher=voucher(face_value=None))
    with pytest.raises(ToolError, match="discount"):
        call(ctx, "calculate_voucher", product_ids="M1,T1", voucher=voucher(discount_type="percentage", discount=None))
    with pytest.raises(ToolError, match="discount"):
        call(ctx, "calculate_voucher", product_ids="M1,T1", voucher=voucher(discount_type="percentage", discount=21))
    with pytest.raises(ToolError, match="voucher_type"):
        call(ctx, "calculate_voucher", product_ids="M1,T1", voucher=voucher(voucher_type="store"))


# ------------------------------------------------------------------------------------- web, recommend and terminate


def test_web_search(ctx):
    results = call(ctx, "web_search", q="who plays the cello", max_results=2)
    assert results[0]["url"] == "https://wiki.example/ilsa"
    assert set(results[0]) == {"url", "title", "content"}
    assert len(results) <= 2
    with pytest.raises(ToolError, match="max_results"):
        call(ctx, "web_search", q="cello", max_results=21)
    with pytest.raises(ToolError, match="q is empty"):
        call(ctx, "web_search", q="")


def test_recommend_and_terminate_are_recorded(ctx):
    assert call(ctx, "recommend_product", product_ids="D001") == "Having recommended the products to the user: D001."
    call(ctx, "recommend_product", product_ids="M1, T1")
    assert ctx.state.answer == ["M1", "T1"]
    assert call(ctx, "terminate", status="success").endswith("success")
    assert ctx.state.terminated == "success"
    with pytest.raises(ToolError, match="status"):
        call(ctx, "terminate", status="done")


# ---------------------------------------------------------------------------------------------------------- schemas


def test_schemas_are_openai_function_schemas():
    schemas = REGISTRY.schemas()
    assert [s["function"]["name"] for s in schemas] == [
        "find_product",
        "view_product_information",
        "find_products_in_same_shop",
        "calculate_voucher",
        "web_search",
        "recommend_product",
        "terminate",
    ]
    for schema in schemas:
        assert schema["type"] == "function"
        fn = schema["function"]
        assert fn["description"] and fn["parameters"]["type"] == "object"
        for name, prop in fn["parameters"]["properties"].items():
            assert prop.get("description"), (fn["name"], name)
    find = schemas[0]["function"]["parameters"]
    assert find["required"] == ["q"]
    assert find["properties"]["sort"]["enum"] == ["default", "priceasc", "pricedesc", "order"]
    voucher_schema = schemas[3]["function"]["parameters"]
    assert "voucher" in voucher_schema["required"]
    json.dumps(schemas)  # serialisable as sent to an LLM
