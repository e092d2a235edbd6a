"""The offline template reads what the tools show as a careful agent does: a web fact from the rebuild's pages (the
true page among near misses about related entities), and a listing's tags as no statement about the product."""

from __future__ import annotations

import pytest

from arena.catalog.rng import Rng
from arena.tasks.shopping.webknowledge import fact_pages, knowledge_question
from tests.support.template import load_sdk, load_template

load_sdk()
load_template("shoparena_offline_agent_reading")
from baseline import web  # noqa: E402 - the bundle's package, on the path once agent.py is loaded
from baseline.query import parse_item  # noqa: E402
from baseline.rank import Ranker  # noqa: E402

POOL = ["1998", "Japan", "Canada", "Pasig River", "March 2010", "Ramon Magsaysay", "Cebu", "52", "red", "Davao"]


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("In which year did the Philippine Azkals win their first Suzuki Cup semifinal? I want a jersey.", "2010"),
        ("Which country hosted the 1974 FIFA World Cup? I want a scarf made in that country.", "West Germany"),
        ("What is the name of the river that flows through Baguio? I want a poster of it.", "Bued River"),
        (
            "In which month and year did scientists report that tardigrades survived in outer space? I would like "
            "to buy a travel magazine issue from that month.",
            "September 2008",
        ),
        ("Who was the first president of the Philippine Olympic Committee? I want a book about him.", "Jorge Vargas"),
        ("Which city hosted the 2019 Southeast Asian Games opening ceremony? I want a mug from there.", "Manila"),
        ("How many gold medals did the Philippines win at the 2019 Southeast Asian Games? I want a shirt.", "149"),
    ],
)
def test_the_true_page_is_read_among_near_misses(query: str, answer: str) -> None:
    pages, near = fact_pages("p", query, answer, POOL, ["Luzon", "Visayas", "Mindanao", "Iloilo"], Rng("t", 1))
    assert len(pages) > 1 and near  # near-miss pages share the question's words, each states another value
    question = knowledge_question(query)
    assert web.statement_value(pages, question) == answer
    assert web.statement_value(pages[::-1], question) == answer  # not the first page: the one that matches


def test_tags_never_meet_a_constraint() -> None:
    """A near miss tagged with the value it lacks ("navy blue" among its tags, peach as its colour) ranks below
    the listing whose colour is navy blue."""
    summaries = {
        pid: {"product_id": pid, "title": "Linen Sofa 2 Seater", "price": 100.0, "service": []} for pid in ("a", "b")
    }
    details = {
        "a": {"attributes": {"tags": ["navy blue", "maroon"]}, "sku_options": {"1": {"color_family": "peach"}}},
        "b": {"attributes": {"tags": ["peach", "maroon"]}, "sku_options": {"1": {"color_family": "navy blue"}}},
    }
    ranked = Ranker(summaries, details, web=False).rank_item(parse_item("a sofa in the color navy blue"), ["a", "b"])
    assert [pid for _, _, pid in ranked] == ["b", "a"]
    assert ranked[0][1] == 0 and ranked[1][1] > 0  # the near miss leaves "navy blue" unexplained
