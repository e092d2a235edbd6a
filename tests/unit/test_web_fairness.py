"""Web problems are fair to an agent that reads: every near-miss page differs from the true page in a detail its
text shows, and the tool-visible oracle reads the answer from the pages ``web_search`` returns (never from the
answer key), so a problem whose true page reads like a near miss fails it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.catalog import Catalog
from arena.catalog import generator as gen
from arena.catalog.models import search_contents
from arena.catalog.rng import Rng
from arena.catalog.writer import CatalogWriter
from arena.tasks.shopping.problem import Problem
from arena.tasks.shopping.webknowledge import fact_pages, knowledge_question, statement
from arena.tasks.shoppingbench.selfcheck import selfcheck
from arena.tasks.shoppingbench.webreading import read_values

#: the "second color" shape: "Which X is ..." becomes "<value> is ...", dropping X from the statement
SECOND_COLOR = (
    "Which unofficial color is the second color of the flag of the Bangsamoro region? "
    "I would like to buy a cotton shirt in that color."
)
QUESTIONS = [
    SECOND_COLOR,
    "What color, besides green, is the second color of the flag of the Bangsamoro region? I want a mug of it.",
    "In which month and year did scientists report that Deinococcus radiodurans bacteria survived for three years "
    "in outer space? I would like a travel magazine issue from that month.",
]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("query", QUESTIONS)
def test_every_near_miss_page_shows_the_detail_it_changed(query, seed):
    pages, values = fact_pages("sb-web-0123456789ab", query, "beige", ["red", "navy"], [], Rng("t", seed, query), 5)
    assert len(values) == len(pages) - 1 >= 3
    question = knowledge_question(query)
    true = statement(question, "beige")
    assert sum(true in p["content"] for p in pages) == 1
    for value in values:  # a near miss's statement with the true value is not the true page's
        page = next(p for p in pages if re.search(rf"\b{re.escape(value)}\b", p["content"].split("See also")[0]))
        assert true not in page["content"].replace(value, "beige"), page["content"]
    assert read_values(query, pages) == ["beige"]


def _shirt(pid: str, color: str) -> dict:
    doc = next(gen.iter_products(3, 1))
    title = f"Kape Cotton Shirt {color}"
    return {
        **doc,
        "product_id": pid,
        "shop_id": f"5{pid[-4:]}",
        "title": title,
        "short_description": f"{title};",
        "description": f"A cotton shirt in {color}.",
        "sku_options": {},
        "attributes": {"color_family": [color]},
        "service": [],
        "price": 199.0,
    }


def _page(i: int, sentence: str) -> dict:
    return {
        "url": f"https://wiki.shoparena.example/sb/flag-{i}/bangsamoro",
        "title": "Bangsamoro - ShopArena Encyclopedia",
        "content": f"What the sources say about Bangsamoro. {sentence} Later sources repeat this account.",
        "fact": None,
    }


def _catalog(out: Path, pages: list[dict]) -> Catalog:
    with CatalogWriter(out) as writer:
        for doc in (_shirt("8100000001", "beige"), _shirt("8100000002", "navy")):
            writer.add_product(
                doc,
                contents=search_contents(doc["title"], doc["sku_options"], doc["attributes"]),
                doc_json=gen.canonical_json(doc),
            )
        for page in pages:
            writer.add_web_page(page)
        writer.commit({"digest": "sha256:test"})
    return Catalog.open(out)


PROBLEM = Problem.model_validate(
    {
        "problem_id": "sb-web-flag",
        "task": "web",
        "query": SECOND_COLOR,
        "knowledge_attribute": "beige",
        "reward": [{"product_id": "8100000001", "title": ["Kape Cotton Shirt beige"]}],
        "meta": {"distractors": [{"breaks": "knowledge (navy)", "answer": ["8100000002"]}]},
    }
)


def test_the_oracle_reads_the_answer_from_the_pages_and_no_near_miss_passes(tmp_path):
    pages = [
        _page(0, "navy is the fourth color of the flag of the Bangsamoro region."),
        _page(1, "beige is the second color of the flag of the Bangsamoro region."),
    ]
    catalog = _catalog(tmp_path / "cat", pages)
    check = selfcheck([PROBLEM], catalog.get, catalog=catalog)
    assert check.ok, check.failures
    assert (check.oracle["web"].solved, check.oracle["web"].distractors_passed) == (1, 0)


def test_selfcheck_refuses_a_web_problem_whose_near_miss_page_reads_as_the_true_one(tmp_path):
    """The near miss changed "unofficial color" to "color"; the statement drops that word, so both pages say
    "<value> is the second color of the flag of the Bangsamoro region": only an agent that knew could choose."""
    pages = [
        _page(0, "navy is the second color of the flag of the Bangsamoro region."),
        _page(1, "beige is the second color of the flag of the Bangsamoro region."),
    ]
    catalog = _catalog(tmp_path / "cat", pages)
    check = selfcheck([PROBLEM], catalog.get, catalog=catalog)
    assert check.by_task["web"].gold_rate == 1.0
    assert not check.ok and check.oracle["web"].solved == 0
    assert any(line.startswith("sb-web-flag: the tool-visible oracle finds no answer") for line in check.failures)


def _wiki(name: str, content: str) -> dict[str, str]:
    return {"url": f"https://wiki.example/{name}", "title": f"{name} - ShopArena Encyclopedia", "content": content}


def test_a_question_about_a_team_is_answered_by_the_teams_page_not_its_towns():
    """A generated corpus holds a town's page and its team's page: "Bukid Hills" is named inside "the Bukid Hills
    Typhoons". The reader used to take both values (the jersey color and the town's craft), so the oracle failed
    9 of 50 web problems of a generated pack; the town's page now answers only a question about the town."""
    from arena.catalog.webcorpus import FACT_KINDS

    kinds = {k.kind: k for k in FACT_KINDS}
    fields = {"year": 1970, "year2": 2003, "event": "Founders' Day", "team": "Typhoons", "place": "Bukid Hills"}
    sharks = {"team": "Sharks"}
    pages = [
        _wiki("Bukid Hills Typhoons", kinds["color_family"].templates[0].format(value="midnight", **fields)),
        _wiki("Bukid Hills", kinds["material"].templates[0].format(value="foam", **fields)),
        _wiki("Bukid Hills Sharks", kinds["color_family"].templates[1].format(value="rainbow", **fields | sharks)),
    ]
    team = "What color do the Bukid Hills Typhoons play in at home? I want an ipad in that color."
    assert read_values(team, pages) == ["midnight"]
    town = "What material are the crafts of Bukid Hills made of? I want a bag of it."
    assert read_values(town, pages) == ["foam"]


@pytest.mark.parametrize("value", ["1.65", "6.", "0.64"])
def test_a_value_with_a_point_is_read_whole(value):
    """A statement ends where a sentence does: "... was 1.65." used to be read as "1", which "1977" holds, so the
    near misses of three real test records passed the tool-visible oracle (selfcheck refused the rebuilt set)."""
    query = "What was the height, in meters, of Damian Lillard as a freshman? I want a ruler that long."
    question = knowledge_question(query)
    pages = [
        _wiki("Damian Lillard", f"Notes on Damian Lillard. {statement(question, value)} Figures differ; compare."),
        _wiki("Damian Off-White", f"On record. {statement(question.replace('Lillard', 'Off-White'), '1977')}"),
    ]
    assert read_values(query, pages) == [value]
