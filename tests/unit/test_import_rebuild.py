"""The whole import as an operator runs it on ShoppingBench's real test files: shared gold ids, voucher baskets built
around them, integer knowledge attributes, ORO's suite format, web knowledge that must be read, and the blind
baseline. Fixtures are our own records in the real formats (tests/fixtures/shoppingbench_shared, tests/fixtures/oro).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.catalog import Catalog
from arena.catalog import generator as gen
from arena.catalog.models import search_contents
from arena.catalog.rng import Rng
from arena.catalog.writer import CatalogWriter
from arena.tasks.shopping import render
from arena.tasks.shopping.consistency import contradictions, mentions, values_of
from arena.tasks.shopping.rebuild import (
    NEAR_MISSES_BASKET,
    NEAR_MISSES_PRODUCT,
    WEB_NEAR_MISSES,
    fits_budget,
    rebuild_catalog,
)
from arena.tasks.shopping.webknowledge import knowledge_question, near_miss_values, statement
from arena.tasks.shoppingbench.generate import constraints_for
from arena.tasks.shoppingbench.importer import import_files, parse_record
from arena.tasks.shoppingbench.selfcheck import blind_baseline, selfcheck
from arena.tasks.shoppingbench.strict import score_run

FIXTURES = Path(__file__).parent.parent / "fixtures"
SHARED = sorted((FIXTURES / "shoppingbench_shared").glob("synthesize_*.jsonl"))
SUITE = FIXTURES / "oro" / "problem_suite.json"
TRAY = "7500000001"


@pytest.fixture(scope="module")
def imported():
    return import_files([*SHARED, SUITE])


@pytest.fixture(scope="module")
def rebuilt(imported, tmp_path_factory):
    out = tmp_path_factory.mktemp("rebuild-shared") / "cat"
    report = rebuild_catalog(imported.problems, out, background_size=2500, background_seed=5)
    return report, Catalog.open(out)


def _by_query(problems, start: str):
    return next(p for p in problems if p.query.startswith(start))


# ---------------------------------------------------------------------------------------------------------- import


def test_integer_knowledge_attribute_is_taken_as_its_string(imported):
    web = {p.gold_ids[0]: p for p in imported.problems if p.task == "web"}
    assert web["7500000080"].knowledge_attribute == "2019"
    assert web["7500000082"].knowledge_attribute == "1998"
    assert web["7500000083"].knowledge_attribute == "August 2020"
    record = {"query": "q?", "reward": web["7500000080"].gold_document.model_dump()}
    for bad, reason in [(True, "a bool"), (None, "missing"), (["x"], "a list"), ("  ", "empty")]:
        with pytest.raises(ValueError, match=reason):
            parse_record({**record, "Knowledge_Attribute": bad}, "t")


def test_every_record_of_the_test_files_imports(imported):
    from_files = [p for p in imported.problems if p.source.startswith("shoppingbench:")]
    assert {t: sum(p.task == t for p in from_files) for t in ("product", "shop", "voucher", "web")} == {
        "product": 4,
        "shop": 2,
        "voucher": 5,
        "web": 5,
    }
    assert not [b for b in imported.bad if "problem_suite" not in b]


def test_oro_suite_imports_with_its_task_detected_and_difficulty_kept(imported):
    suite = {p.meta["suite_title"]: p for p in imported.problems if p.source.startswith("suite:")}
    assert {title: (p.task, p.difficulty) for title, p in suite.items()} == {
        "Product 1": ("product", "easy"),
        "Shop 1": ("shop", "medium"),
        "Voucher 1": ("voucher", "hard"),
    }
    assert suite["Voucher 1"].voucher.discount == 0.25 and len(suite["Voucher 1"].reward) == 1
    assert all("embedding" not in p.model_dump_json() for p in suite.values())
    bad = [b for b in imported.bad if "problem_suite" in b]
    assert bad == [
        "problem_suite.json: record 4: category 'Voucher' but the record is a product task by its shape "
        "(one reward object); fix the category or the reward",
        "problem_suite.json: record 5: difficulty 'extreme' is not one of easy, medium, hard",
    ]


def test_a_broken_suite_file_is_one_line(tmp_path):
    broken = tmp_path / "suite.json"
    broken.write_text('[{"query": "x", "reward": ')
    report = import_files([broken])
    assert not report.problems and len(report.bad) == 1 and report.bad[0].startswith("suite.json: not a valid JSON")


# --------------------------------------------------------------------------------------------------------- rebuild


def test_import_rebuild_selfcheck_gold_passes_and_distractors_fail(imported, rebuilt):
    report, catalog = rebuilt
    assert len(report.problems) == len(imported.problems) - 2
    check = selfcheck(report.problems, catalog.get)
    assert check.ok, check.failures
    assert set(check.by_task) == {"product", "shop", "voucher", "web"}
    for task in check.by_task.values():
        assert task.gold_rate == 1.0 and task.distractors > 0 and task.distractor_pass_rate == 0.0
    # under ORO's ruleset too, but for the basket that names one product twice: ORO de-duplicates the answer's ids
    twice = _by_query(report.problems, "Two of the same tumbler")
    sn15 = selfcheck(report.problems, catalog.get, ruleset="sn15")
    assert [f.split(":")[0] for f in sn15.failures] == [twice.problem_id]


def test_sets_that_cannot_be_satisfied_are_reported_with_the_clash(imported, rebuilt):
    report, _ = rebuilt
    cheap = _by_query(imported.problems, "I want that bamboo tray but for less than 150")
    tight = _by_query(imported.problems, "Just the bamboo tray, on a tight budget")
    assert {p.problem_id for p in imported.problems} - {p.problem_id for p in report.problems} == {
        cheap.problem_id,
        tight.problem_id,
    }
    assert len(report.skipped) == 2
    price, budget = report.skipped
    first = _by_query(imported.problems, "Looking for a bamboo serving tray")
    assert price.startswith(
        f"{cheap.problem_id} (shoppingbench:synthesize_product_test.jsonl:3): gold product "
        f"{TRAY} is shared with {first.problem_id}"
    )
    assert "needs <= 150" in price and "needs between 200 and 600" in price
    assert price.endswith("left out (edit one of the records named to keep it)")
    assert budget.startswith(f"{tight.problem_id} (shoppingbench:synthesize_voucher_test.jsonl:4): gold product {TRAY}")
    assert "budget of 150" in budget and "\n" not in price + budget


def test_a_shared_gold_is_one_product_meeting_every_problem_that_names_it(rebuilt):
    report, catalog = rebuilt
    naming = [(p, r) for p in report.problems for r in p.reward if r.product_id == TRAY]
    assert len({p.problem_id for p, _ in naming}) == 4  # a product, a shop and two voucher problems
    for problem, reward in naming:
        # the product must pass each problem's constraints on its own, as a substitute would
        substitute = problem.model_copy(
            update={"reward": [reward.model_copy(update={"product_id": "none"})], "task": "product", "voucher": None}
        )
        score = score_run(substitute, TRAY, catalog.get)
        assert score.extras.rule == 1, (problem.problem_id, score.extras.products[0].checks)


def test_baskets_are_solved_around_shared_products(rebuilt):
    report, catalog = rebuilt
    docs = {pid: catalog.get(pid) for p in report.problems for pid in p.gold_ids}
    # one shop for both shop tasks (linked by the coasters) and for the tray's shop-voucher basket (kettle)
    assert len({docs[pid]["shop_id"] for pid in [TRAY, "7500000003", "7500000004", "7500000005", "7500000007"]}) == 1
    assert docs["7500000002"]["shop_id"] == docs["7500000009"]["shop_id"]  # the lamp's shop voucher
    assert 200 <= docs[TRAY]["price"] <= 600 and docs["7500000002"]["price"] <= 900
    vouchers = [p for p in report.problems if p.task == "voucher"]
    assert len(vouchers) == 5
    for problem in vouchers:
        total = 0.0
        for pid in problem.gold_ids:
            total += docs[pid]["price"]
        assert fits_budget(total, problem.voucher), problem.problem_id
    twice = _by_query(report.problems, "Two of the same tumbler")
    assert twice.gold_ids == ["7500000008", "7500000008"]
    assert score_run(twice, "7500000008,7500000008", catalog.get).success


def test_a_web_gold_shared_with_a_product_problem_keeps_its_document(rebuilt):
    report, catalog = rebuilt
    doc = catalog.get("7500000090")
    assert doc["title"] == "Home Cooking of Japan: 120 Recipes (Paperback)"
    assert doc["attributes"]["language"] == ["english"] and doc["price"] >= 100


# --------------------------------------------------------------------------------------------------------- the web


def test_web_facts_are_stated_in_prose_among_near_misses(rebuilt):
    report, catalog = rebuilt
    web = [p for p in report.problems if p.task == "web"]
    assert report.web_pages == len(web) * (1 + WEB_NEAR_MISSES)
    for problem in web:
        answer = problem.knowledge_attribute
        values = [
            d["breaks"].removeprefix("knowledge value ")
            for d in problem.meta["distractors"]
            if d["breaks"].startswith("knowledge value ")
        ]
        assert len(values) >= 3 and answer not in values
        pages = catalog.web_search(knowledge_question(problem.query), 20)
        stating = [pg for pg in pages if re.search(rf"\b{re.escape(answer)}\b", pg["content"])]
        near = [pg for pg in pages if any(re.search(rf"\b{re.escape(v)}\b", pg["content"]) for v in values)]
        assert len(stating) == 1, (answer, [pg["content"] for pg in pages[:6]])
        assert len(near) >= 3
        assert not any("answer is" in pg["content"].lower() for pg in pages)
        # a product carrying a near-miss value is in the catalog, and fails
        wrong = next(d for d in problem.meta["distractors"] if d["breaks"].startswith("knowledge value "))
        assert catalog.get(wrong["answer"][0]) is not None
        assert not score_run(problem, wrong["answer"][0], catalog.get).success


def test_blind_baseline_stays_low_on_the_rebuilt_set(rebuilt):
    report, catalog = rebuilt
    baseline = blind_baseline(report.problems, catalog)
    assert {t: b.problems for t, b in baseline.items()} == {"product": 4, "shop": 3, "voucher": 5, "web": 5}
    assert baseline["web"].web_passed is not None and baseline["product"].web_passed is None
    assert baseline["web"].web_rate <= 0.4 and baseline["web"].query_rate <= 0.4
    assert baseline["shop"].query_rate == 0 and baseline["voucher"].query_rate <= 0.4
    summary = selfcheck(report.problems, catalog.get, catalog=catalog).summary()
    assert summary["blind_baseline"]["web"]["web_success_rate"] == baseline["web"].web_rate


def test_a_query_finds_each_near_miss_exactly_as_well_as_the_gold(rebuilt):
    """Near misses are other listings of the gold's line with the query's words as often as the gold has them: the
    search engine ties them, so only reading the listings tells the gold apart (searching alone does not)."""
    report, catalog = rebuilt
    checked = 0
    for problem in report.problems:
        if problem.task == "web" or len(problem.reward) > 1:
            continue
        reward = problem.reward[0]
        misses = {d["answer"][0] for d in problem.meta["distractors"] if d["breaks"].startswith("slot 1 ")}
        if not (reward.price or reward.service or reward.required_pairs()):
            assert not misses
            continue
        assert len(misses) == (NEAR_MISSES_PRODUCT if problem.task == "product" else NEAR_MISSES_BASKET)
        hits = catalog.search(problem.query, limit=50)
        scores = {
            doc["product_id"]: hit.score
            for hit, doc in zip(hits, catalog.documents(h.address for h in hits), strict=True)
        }
        assert reward.product_id in scores, problem.query
        assert {pid: scores.get(pid) for pid in misses} == dict.fromkeys(misses, scores[reward.product_id]), (
            problem.query
        )
        # another listing: its own shop (for a product task), the same title but for the value it swaps where the
        # gold's title names it, a real other value where it swaps one
        gold = catalog.get(reward.product_id)
        for pid in misses:
            doc = catalog.get(pid)
            lost = {v for k, vs in values_of(gold).items() for v in vs - values_of(doc).get(k, set())}
            assert doc["title"] == gold["title"] or any(mentions(gold["title"], v) for v in lost)
            assert not contradictions(doc, gold, ignore=["tags"]), (doc["title"], gold["title"])
            assert doc["shop_id"] != gold["shop_id"] or problem.task != "product"
            assert not any(v.startswith("non-") for vs in doc["attributes"].values() for v in vs)
        checked += 1
    assert checked >= 3


def _product_records(n: int, seed: int) -> list[dict]:
    """``n`` product records in ShoppingBench's format from generated products, the query rendered from the
    constraints as ShoppingBench's are (as bench/scoring.py makes them); each with a constraint besides the title
    (a title alone is met by any product of the kind: nothing to break)."""
    rng = Rng("test-blind", seed)
    records = []
    for i, product in enumerate(gen.iter_products(seed + 1000, 2 * n)):
        reward, spec = constraints_for(dict(product, product_id=str(7_000_000_000 + i)), rng)
        if reward.constraint_count() > 1 and len(records) < n:
            records.append(
                {
                    "query": render.render_product_query(spec, rng),
                    "reward": reward.model_dump(mode="json", exclude_defaults=True),
                }
            )
    return records


def test_searching_alone_rarely_finds_the_answer_of_a_product_problem(tmp_path):
    """The blind baseline (the top hit for the query) on 80 product problems whose constraints the query names
    word for word. When the gold was the one product with those words, it was found first for most of them (57%
    here, 36% on bench/scoring.py's set); tied with its near misses, rarely."""
    records = _product_records(80, seed=4)
    path = tmp_path / "synthesize_product_test.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    problems = import_files([path]).problems
    report = rebuild_catalog(problems, tmp_path / "cat", background_size=2000, background_seed=9)
    catalog = Catalog.open(tmp_path / "cat")
    baseline = blind_baseline(report.problems, catalog)["product"]
    assert baseline.problems == 80 and baseline.query_rate <= 0.15, baseline
    for ruleset in ("shoppingbench", "sn15"):
        check = selfcheck(report.problems, catalog.get, ruleset=ruleset)
        assert check.ok, (ruleset, check.failures[:5])
        assert check.by_task["product"].distractors >= 60 * NEAR_MISSES_PRODUCT
    # nor do ids tell the gold apart: its near misses' ids are drawn like its own, and its shop's number is not
    # the first one made (the old rebuild numbered the golds' shops before their near misses')
    ranks = []
    for problem in report.problems:
        gold = problem.gold_ids[0]
        misses = [d["answer"][0] for d in problem.meta["distractors"]]
        assert all(len(m) == len(gold) and m[0] == gold[0] for m in misses)
        shops = sorted(catalog.get(pid)["shop_id"] for pid in [gold, *misses])
        ranks.append(shops.index(catalog.get(gold)["shop_id"]) / len(misses))
    assert 0.3 <= sum(ranks) / len(ranks) <= 0.7


def test_near_miss_words_never_meet_a_constraint_even_one_named_tags(tmp_path):
    """The swapped-out values a near miss keeps for search sit under a key no problem asks for: a problem that asks
    for an attribute called ``tags`` moves them elsewhere, and every near miss still fails under both rulesets."""
    product = parse_record(
        {
            "query": "A red tagged mug with cash on delivery.",
            "reward": {
                "product_id": "7700000010",
                "title": ["Kape Ceramic Mug 350ml"],
                "service": ["COD"],
                "attributes": [{"tags": ["gift"]}, {"color_family": ["red"]}],
            },
        },
        "t:1",
    )
    report = rebuild_catalog([product], tmp_path / "cat", background_size=0)
    catalog = Catalog.open(tmp_path / "cat")
    gold = catalog.get("7700000010")
    assert gold["attributes"]["tags"] == ["gift"] and gold["attributes"]["color_family"] == ["red"]
    kept = gold["attributes"]["listing_tags"]
    assert len(kept) >= 5 and "red" not in kept and "gift" not in kept
    misses = [catalog.get(d["answer"][0]) for d in report.problems[0].meta["distractors"]]
    assert len(misses) == NEAR_MISSES_PRODUCT
    colour = [m for m in misses if m["attributes"]["color_family"] != ["red"]]
    assert colour and all("red" in m["attributes"]["listing_tags"] for m in colour)
    for ruleset in ("shoppingbench", "sn15"):
        check = selfcheck(report.problems, catalog.get, ruleset=ruleset)
        assert check.ok and check.by_task["product"].distractors == NEAR_MISSES_PRODUCT, check.failures


def test_the_rebuild_is_deterministic(imported, tmp_path):
    first = rebuild_catalog(imported.problems, tmp_path / "a", background_size=300, background_seed=2)
    again = rebuild_catalog(imported.problems, tmp_path / "b", background_size=300, background_seed=2)
    assert first.digest == again.digest
    assert [p.meta["distractors"] for p in first.problems] == [p.meta["distractors"] for p in again.problems]
    other = rebuild_catalog(imported.problems, tmp_path / "c", background_size=300, background_seed=3)
    assert other.digest != first.digest


def test_blind_baseline_catches_a_catalog_that_gives_the_answer_away(imported, tmp_path):
    """The old rebuild's planted page: the top web result states the answer, and the gold is found by its words."""
    problem = next(p for p in imported.problems if p.task == "web" and p.knowledge_attribute == "Viola")
    gold = problem.gold_document.model_dump()
    with CatalogWriter(tmp_path / "cat") as writer:
        for doc in [gold, *gen.iter_products(1, 300)]:
            writer.add_product(
                doc,
                contents=search_contents(doc["title"], doc["sku_options"], doc["attributes"]),
                doc_json=gen.canonical_json(doc),
            )
        writer.add_web_page(
            {
                "url": "https://wiki.example/q",
                "title": knowledge_question(problem.query),
                "content": f"{knowledge_question(problem.query)} The answer is Viola.",
                "fact": None,
            }
        )
        writer.commit({"digest": "sha256:test"})
    baseline = blind_baseline([problem], Catalog.open(tmp_path / "cat"))
    assert baseline["web"].web_passed == 1


@pytest.mark.parametrize("basket_first", [False, True])
def test_a_basket_that_cannot_fit_around_a_shared_product_names_its_price_rule(tmp_path, basket_first):
    product = parse_record(
        {
            "query": "A premium kettle above 1000 PHP.",
            "reward": {
                "product_id": "7700000001",
                "title": ["Premium Kettle"],
                "price": [{"greater than": [1000, None]}],
            },
        },
        "t:1",
    )
    basket = parse_record(
        {
            "query": "The premium kettle on a budget.",
            "reward": [{"product_id": "7700000001", "title": ["Premium Kettle"]}],
            "voucher": {
                "voucher_type": "platform",
                "threshold": 200,
                "discount_type": "fixed",
                "face_value": 50,
                "discount": None,
                "cap": None,
                "price_after_voucher": 250.0,
                "budget": 300,
            },
        },
        "t:2",
    )
    order = [basket, product] if basket_first else [product, basket]
    report = rebuild_catalog(order, tmp_path / "cat", background_size=0)
    assert [p.problem_id for p in report.problems] == [product.problem_id]
    assert report.skipped == [
        f"{basket.problem_id} (t:2): no basket total fits the budget of 300 with the voucher "
        "(from 200): 7700000001 must cost >= 1000 for other problems; left out (edit one of the "
        "records named to keep it)"
    ]
    assert selfcheck(report.problems, Catalog.open(tmp_path / "cat").get).ok


# ------------------------------------------------------------------------------------------- web knowledge pieces


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "In which month and year did scientists report that bacteria survived in orbit?",
            "August 2020",
            "August 2020: Scientists reported that bacteria survived in orbit.",
        ),
        ("On what day, month, and year did the ferry sink?", "15 April 1912", "15 April 1912: The ferry sank."),
        ("Which country has won the cup five times?", "India", "India has won the cup five times."),
        ("What is the capital of Velmont?", "Port Caldera", "The capital of Velmont is Port Caldera."),
        ("Who composed the opera Carmen?", "Georges Bizet", "Georges Bizet composed the opera Carmen."),
        ("How many moons does Mars have?", "2", "The number of moons that Mars have: 2."),
        (
            "In what city was the fictional painter Ilsa Marrow born?",
            "Velmont",
            "The fictional painter Ilsa Marrow was born in Velmont.",
        ),
        ("What year was the Harbor Lights Quartet founded?", "1988", "The Harbor Lights Quartet was founded in 1988."),
        ("Which city is the capital of Velmont?", "Port Caldera", "Port Caldera is the capital of Velmont."),
    ],
)
def test_a_question_becomes_a_statement_of_its_answer(question, answer, expected):
    assert statement(question, answer) == expected


@pytest.mark.parametrize(
    ("answer", "shape"),
    [
        ("2019", r"\d{4}"),
        ("August 2020", r"[A-Z][a-z]+ \d{4}"),
        ("India", r"[A-Z][\w ]+"),
        ("12", r"\d+"),
        ("Violin", r"[A-Z][a-z]+"),
        ("Georges Bizet", r"[A-Z]\w+ [A-Z]\w+"),
    ],
)
def test_near_miss_values_are_of_the_answers_kind_and_never_contain_it(answer, shape):
    values = near_miss_values(answer, ["Cello", "1998", "Japan"], Rng("t", answer), 5)
    assert len(values) == 5 and len(set(values)) == 5
    for value in values:
        assert re.fullmatch(shape, value), value
        assert answer.lower() not in value.lower() and value.lower() not in answer.lower()
