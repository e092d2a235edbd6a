"""Query rendering: every constraint stated, nothing invented, deterministic, varied, ShoppingBench's voucher block."""

from __future__ import annotations

import re

import pytest

from arena.catalog import generator as gen
from arena.catalog.rng import Rng
from arena.tasks.shopping.render import (
    ORDINALS,
    SERVICE_MARKERS,
    SHOP_CLOSINGS,
    ItemSpec,
    KnowledgeSpec,
    VoucherSpec,
    fmt_number,
    fmt_percent,
    knowledge_question,
    mentions,
    plural,
    render_product_query,
    render_shop_query,
    render_voucher_query,
    render_web_query,
)
from arena.tasks.shopping.templates import TEMPLATE_COUNTS

SEEDS = range(300)

# Built from a product titled "Zorblax Quantum Cymbal 9000": the title's own words are not in the spec.
SENTINEL_TITLE = "Zorblax Quantum Cymbal 9000"
SENTINEL_WORDS = tuple(w.lower() for w in SENTINEL_TITLE.split() if w.lower() != "cymbal")

CYMBAL = ItemSpec(
    noun="crash cymbal",
    category="Musical Instruments > Drums & Percussion > Cymbals",
    brand="Sabian",
    attributes=(("material", "b20 bronze"), ("color_family", "black")),
    sku=(("cymbal_diameter", "18 inches"),),
    services=("official", "freeShipping", "COD", "flashsale"),
    price=("between", 101.0, 430.0),
)
SHIRT = ItemSpec(
    noun="t-shirt",
    category="Fashion > Men's Clothing > T-Shirts",
    attributes=(("recommended_age", "kids"), ("pattern", "striped"), ("fit_type", "slim fit")),
    sku=(("size", "xl"),),
    services=("freeShipping",),
    price=("less than", None, 500),
)
DRUMS = ItemSpec(
    noun="electronic drums",
    category="Musical Instruments > Drums & Percussion > Electronic Drum Kits",
    price=("greater than", 2000.5, None),
)
TOY = ItemSpec(
    noun="plush toy",
    category="Toys & Games > Stuffed Toys > Plush Toys",
    sku=(("color_family", "4"),),
    attributes=(("animal_type", "small animals"), ("country_of_origin", "south korea")),
    services=("COD",),
    price=("greater than", 1, None),
)
BARE = ItemSpec(noun="ceramic vase", category="Home & Living > Decor > Vases")
SPECS = (CYMBAL, SHIRT, DRUMS, TOY, BARE)


def _values(item: ItemSpec) -> list[str]:
    values = [v for _, v in item.attributes] + [v for _, v in item.sku]
    return values + ([item.brand] if item.brand else [])


def _number_in(text: str, value: float) -> bool:
    return re.search(r"(?<![\d.])" + re.escape(fmt_number(value)) + r"(?![\d])", text) is not None


def assert_states(text: str, item: ItemSpec, skip_values: tuple[str, ...] = ()) -> None:
    low = text.lower()
    for value in _values(item):
        if value not in skip_values:
            assert value.lower() in low, (value, text)
    for service in item.services:
        assert any(m in low for m in SERVICE_MARKERS[service]), (service, text)
    if item.price is not None:
        _, lo, hi = item.price
        for bound in (lo, hi):
            if bound is not None:
                assert _number_in(text, bound), (bound, text)
                assert not re.search(re.escape(fmt_number(bound)) + r"\.0(?!\d)", text), (bound, text)


def assert_no_sentinel(text: str) -> None:
    low = text.lower()
    for word in SENTINEL_WORDS:
        assert word not in low, (word, text)


# ------------------------------------------------------------------------------------------------------- product


def test_product_query_states_every_constraint_and_no_title() -> None:
    for i in SEEDS:
        for spec in SPECS:
            q = render_product_query(spec, Rng("t", i))
            assert_states(q, spec)
            assert_no_sentinel(q)
            assert q[0].isupper() and q[-1] in ".?", q
            assert "  " not in q and " ," not in q, q


def test_product_query_over_the_whole_taxonomy() -> None:
    services = tuple(SERVICE_MARKERS)
    for i, leaf in enumerate(gen.leaves()):
        keys = sorted(leaf.schema)
        attrs = tuple((k, leaf.schema[k][i % len(leaf.schema[k])]) for k in keys if k not in leaf.sku_keys)[:4]
        sku = tuple((k, leaf.schema[k][0]) for k in leaf.sku_keys if k in leaf.schema)[:1]
        spec = ItemSpec(
            noun=leaf.nouns[i % len(leaf.nouns)],
            category=leaf.path,
            attributes=attrs,
            sku=sku,
            services=services[: i % 5],
            price=("between", 10 + i, 10 * i + 20),
        )
        q = render_product_query(spec, Rng("leaf", i))
        assert_states(q, spec)


def test_integer_bounds_print_without_decimals() -> None:
    assert fmt_number(430.0) == "430" and fmt_number(2000.5) == "2000.5" and fmt_number(225.15) == "225.15"
    assert fmt_percent(0.21) == "21%" and fmt_percent(0.29) == "29%" and fmt_percent(0.215) == "21.5%"
    spec = ItemSpec(
        noun="desk lamp", category="Home & Living > Lighting > Desk Lamps", price=("less than", None, 500.0)
    )
    for i in range(50):
        q = render_product_query(spec, Rng("t", i))
        assert "500" in q and "500.0" not in q


def test_plural_forms() -> None:
    assert plural("crash cymbal") == "crash cymbals"
    assert plural("kitchen knife") == "kitchen knives"
    assert plural("jeans") == "jeans"
    assert plural("glass") == "glasses"
    assert plural("case for iphone") == "cases for iphone"
    assert plural("battery") == "batteries"


def test_unknown_service_or_price_mode_is_refused() -> None:
    with pytest.raises(ValueError):
        render_product_query(ItemSpec(noun="lamp", category="A > B > C", services=("teleport",)), Rng("x"))
    with pytest.raises(ValueError):
        render_product_query(ItemSpec(noun="lamp", category="A > B > C", price=("around", 1, 2)), Rng("x"))
    with pytest.raises(ValueError):
        render_product_query(ItemSpec(noun="lamp", category="A > B > C", price=("between", 9, 2)), Rng("x"))


# ---------------------------------------------------------------------------------------------------------- shop

_MARKER = re.compile(r"\((\d)\) |\b(First|Second|second|Third|third|Fourth|fourth), ")


def test_shop_query_numbers_items_and_closes() -> None:
    for i in SEEDS:
        rng = Rng("t", i)
        items = rng.sample(list(SPECS), 2 + i % 3)
        q = render_shop_query(items, rng)
        assert any(q.endswith(" " + c) for c in SHOP_CLOSINGS), q
        closing = next(c for c in SHOP_CLOSINGS if q.endswith(c))
        marks = list(_MARKER.finditer(q))
        assert len(marks) == len(items), q
        labels = [m.group(1) or m.group(2) for m in marks]
        assert labels in (
            [str(k + 1) for k in range(len(items))],
            list(ORDINALS[: len(items)]),
            [ORDINALS[0]] + [o.lower() for o in ORDINALS[1 : len(items)]],
        ), q
        for k, item in enumerate(items):  # each numbered segment states its own item
            end = marks[k + 1].start() if k + 1 < len(marks) else len(q) - len(closing)
            assert_states(q[marks[k].end() : end], item)
        assert_no_sentinel(q)


def test_shop_query_needs_two_to_four_items() -> None:
    with pytest.raises(ValueError):
        render_shop_query([CYMBAL], Rng("x"))
    with pytest.raises(ValueError):
        render_shop_query([CYMBAL] * 5, Rng("x"))


# ------------------------------------------------------------------------------------------------------- voucher

_NUM = r"(\d+(?:\.\d+)?)"
_BLOCK = re.compile(
    r"\n\nMy budget is only `" + _NUM + r"`, but I have a voucher with the following rules:\n"
    r"1\. (The voucher applies to all products\.|The voucher only applies to the products from the same shop\.)\n"
    r"2\. It is valid only when the total price of the products exceeds `" + _NUM + r"`\.\n"
    r"3\. It provides (?:a fixed discount of `" + _NUM + r"`|a percentage discount of `" + _NUM + r"%`"
    r"(?: with a cap of `" + _NUM + r"`)?)\.\Z"
)

VOUCHERS = (
    (
        VoucherSpec("platform", 170.0, "fixed", 34.0, None, None, 425.0),
        ("425", "The voucher applies to all products.", "170", "34", None, None),
    ),
    (
        VoucherSpec("shop", 154, "percentage", None, 0.21, 94, 232),
        ("232", "The voucher only applies to the products from the same shop.", "154", None, "21", "94"),
    ),
    (
        VoucherSpec("platform", 291, "percentage", None, 0.32, None, 528.5),
        ("528.5", "The voucher applies to all products.", "291", None, "32", None),
    ),
)


def test_voucher_block_is_exact_and_last() -> None:
    exact = (
        "\n\nMy budget is only `425`, but I have a voucher with the following rules:\n"
        "1. The voucher applies to all products.\n"
        "2. It is valid only when the total price of the products exceeds `170`.\n"
        "3. It provides a fixed discount of `34`."
    )
    for i in SEEDS:
        voucher, expected = VOUCHERS[i % len(VOUCHERS)]
        rng = Rng("t", i)
        items = rng.sample(list(SPECS), 1 + i % 4)
        q = render_voucher_query(items, voucher, rng)
        match = _BLOCK.search(q)
        assert match is not None, q
        assert match.groups() == expected, (match.groups(), q)
        assert q.count("\n") == 5 and q.index("\n\n") == match.start()
        if i % len(VOUCHERS) == 0:
            assert q.endswith(exact)
        request = q[: match.start()]
        for item in items:
            assert_states(request, item)
        assert_no_sentinel(q)


def test_voucher_query_refuses_bad_specs() -> None:
    with pytest.raises(ValueError):
        render_voucher_query([], VOUCHERS[0][0], Rng("x"))
    with pytest.raises(ValueError):
        render_voucher_query([CYMBAL] * 5, VOUCHERS[0][0], Rng("x"))
    with pytest.raises(ValueError):
        render_voucher_query([CYMBAL], VoucherSpec("store", 1, "fixed", 1, None, None, 9), Rng("x"))
    with pytest.raises(ValueError):
        render_voucher_query([CYMBAL], VoucherSpec("shop", 1, "percentage", None, None, None, 9), Rng("x"))


# ----------------------------------------------------------------------------------------------------------- web


def _knowledge(entity: str, entity_type: str, relation: str, key: str, i: int) -> KnowledgeSpec:
    question = knowledge_question(entity, entity_type, relation, key, Rng("q", i))
    return KnowledgeSpec(question=question, entity=entity, relation=relation, attribute_key=key)


VIOLIN = ItemSpec(
    noun="violin",
    category="Musical Instruments > Guitars & Strings > Violins",
    sku=(("violin_size", "3/4"),),
    services=("COD",),
    price=("less than", None, 8000),
)
JERSEY = ItemSpec(
    noun="basketball jersey",
    category="Sports & Outdoors > Team Sports > Jerseys",
    attributes=(("color_family", "navy blue"), ("material", "polyester")),
    sku=(("size", "xl"),),
)
HALAYA = ItemSpec(
    noun="ube halaya",
    category="Groceries > Snacks > Jams & Spreads",
    attributes=(("flavor", "ube"),),
    services=("freeShipping",),
)
BALL = ItemSpec(noun="basketball ball", category="Sports & Outdoors > Team Sports > Basketball Equipment")

WEB_CASES = (
    # (item, entity, entity type, relation, key, answer passed explicitly, the answer)
    (VIOLIN, "Ilsa Marrow", "musician", "plays", "instrument", None, "violin"),
    (JERSEY, "Tanaw Bay Rovers", "team", "wears the home color", "color_family", None, "navy blue"),
    (HALAYA, "Kalinaw", "place", "is famous for the flavor", "flavor", None, "ube"),
    (BALL, "Ana Cruz", "athlete", "competes in", "sport", None, "basketball"),
    (
        ItemSpec(noun="gold necklace", category="Fashion > Jewelry > Gold Jewellery", services=("official",)),
        "Harrowgate Falcons",
        "team",
        "wears the home color",
        "color_family",
        "gold",
        "gold",
    ),
    (
        ItemSpec(noun="abaca bag", category="Fashion > Bags > Woven Bags"),
        "Marisca",
        "place",
        "is known for crafts made of",
        "material",
        "abaca",
        "abaca",
    ),
)


def test_web_query_never_names_the_answer() -> None:
    for i in SEEDS:
        item, entity, etype, relation, key, given, answer = WEB_CASES[i % len(WEB_CASES)]
        knowledge = _knowledge(entity, etype, relation, key, i)
        q = render_web_query(item, knowledge, Rng("t", i), answer=given)
        assert q.startswith(knowledge.question) or q.startswith("Quick question first: " + knowledge.question), q
        assert not mentions(q, answer), (answer, q)
        assert_states(q, item, skip_values=(answer,))
        assert_no_sentinel(q)


def test_web_query_without_a_known_answer_avoids_every_possible_value() -> None:
    sports = {v for leaf in gen.leaves() for v in leaf.schema.get("sport", ())}
    instruments = {
        n for leaf in gen.leaves() if leaf.top == "Musical Instruments" for n in leaf.nouns if len(n.split()) <= 2
    }
    cases = [(leaf, "sport", sports) for leaf in gen.leaves() if leaf.top == "Sports & Outdoors"]
    cases += [(leaf, "instrument", instruments) for leaf in gen.leaves() if leaf.top == "Musical Instruments"]
    for i, (leaf, key, values) in enumerate(cases):
        for noun in leaf.nouns:
            knowledge = KnowledgeSpec(question="Which one is it?", entity="X", relation="r", attribute_key=key)
            q = render_web_query(ItemSpec(noun=noun, category=leaf.path), knowledge, Rng("t", i, noun))
            ask = q.removeprefix("Quick question first: ")[len("Which one is it?") :]
            assert not any(mentions(ask, v) for v in values), (noun, q)


def test_web_query_refuses_to_leak() -> None:
    knowledge = _knowledge("Tanaw Bay Rovers", "team", "wears the home color", "color_family", 0)
    leaky = ItemSpec(
        noun="jersey",
        category="Sports & Outdoors > Team Sports > Jerseys",
        attributes=(("color_family", "navy blue"), ("pattern", "navy blue stripes")),
    )
    with pytest.raises(ValueError):
        render_web_query(leaky, knowledge, Rng("x"))
    telling = KnowledgeSpec(
        question="Is the home color of the Rovers navy blue?",
        entity="Rovers",
        relation="wears the home color",
        attribute_key="color_family",
    )
    with pytest.raises(ValueError):
        render_web_query(JERSEY, telling, Rng("x"))


def test_knowledge_questions() -> None:
    cases = [
        ("Ilsa Marrow", "musician", "plays", "instrument"),
        ("Ana Cruz", "athlete", "competes in", "sport"),
        ("Kalinaw", "place", "is famous for the flavor", "flavor"),
        ("Marisca", "place", "is known for crafts made of", "material"),
        ("Tanaw Bay Rovers", "team", "wears the home color", "color_family"),
        ("Velmont", "place", "is famous for", "dish"),
    ]
    for entity, etype, relation, key in cases:
        seen = {knowledge_question(entity, etype, relation, key, Rng("q", i)) for i in range(60)}
        assert len(seen) >= 2
        for question in seen:
            assert entity in question and question.endswith("?") and question[0].isupper()
            if etype == "team":
                assert "the " + entity in question
    assert knowledge_question("Ilsa Marrow", "musician", "plays", "instrument", Rng("q", 1)) == knowledge_question(
        "Ilsa Marrow", "musician", "plays", "instrument", Rng("q", 1)
    )


# ------------------------------------------------------------------------------------- determinism and variety


def _all_tasks(rng_parts: tuple[object, ...]) -> list[str]:
    knowledge = _knowledge("Tanaw Bay Rovers", "team", "wears the home color", "color_family", 3)
    return [
        render_product_query(CYMBAL, Rng(*rng_parts)),
        render_shop_query([CYMBAL, SHIRT, TOY], Rng(*rng_parts)),
        render_voucher_query([SHIRT, DRUMS], VOUCHERS[1][0], Rng(*rng_parts)),
        render_web_query(JERSEY, knowledge, Rng(*rng_parts)),
    ]


def test_deterministic() -> None:
    for i in range(30):
        assert _all_tasks(("d", i)) == _all_tasks(("d", i))
    assert _all_tasks(("d", 1)) != _all_tasks(("d", 2))


def test_template_counts_and_variety() -> None:
    assert set(TEMPLATE_COUNTS) == {"product", "shop", "voucher", "web"}
    assert all(n >= 20 for n in TEMPLATE_COUNTS.values()), TEMPLATE_COUNTS
    outputs: list[set[str]] = [set(), set(), set(), set()]
    openings: list[set[str]] = [set(), set(), set(), set()]
    for i in SEEDS:
        for k, q in enumerate(_all_tasks(("v", i))):
            outputs[k].add(q)
            openings[k].add(" ".join(q.split()[:3]) if k != 3 else q.split("?", 1)[1].split()[0])
    assert all(len(o) >= 20 for o in outputs), [len(o) for o in outputs]
    assert all(len(o) >= 10 for o in openings), [len(o) for o in openings]
