"""LLM paraphrase against a real local OpenAI-compatible server: accepted only when no constraint is lost."""

from __future__ import annotations

import pytest

from arena.tasks.shopping.problem import Problem
from arena.tasks.shoppingbench.paraphrase import acceptable, paraphrase_problems
from tests.support.openai_server import OpenAIServer

PROBLEM = Problem(
    problem_id="p",
    task="product",
    query="Looking for a black tumbler made of stainless steel between 250 and 900 PHP with cash on delivery.",
    reward=[
        {
            "product_id": "1",
            "title": ["Tala Insulated Stainless Steel Tumbler 30oz Double Wall"],
            "sku_options": [{"color_family": "black"}],
            "attributes": [{"material": ["stainless steel"]}],
            "service": ["COD"],
            "price": [{"between": [250, 900]}],
        }
    ],
)


@pytest.mark.slow  # an OpenAI-compatible server on loopback
def test_faithful_paraphrase_is_kept_and_lossy_one_rejected():
    def responder(body):
        text = body["messages"][-1]["content"]
        if "tumbler" in text:
            return "Hi! I need a stainless steel tumbler in black, 250 to 900 pesos, paid by cash on delivery."
        return "Something unrelated."

    other = PROBLEM.model_copy(update={"problem_id": "q", "query": PROBLEM.query.replace("tumbler", "flask")})
    with OpenAIServer(responder) as server:
        report = paraphrase_problems([PROBLEM, other], base_url=server.base_url, model="test-model")
        assert server.requests[0]["temperature"] == 0
        assert server.requests[0]["messages"][0]["role"] == "system"
    assert report.rewritten == 1 and report.kept == 1 and report.failed == 0
    first, second = report.problems
    assert first.query.startswith("Hi! I need") and first.meta["template_query"] == PROBLEM.query
    assert second.query == other.query  # the lossy rewrite was refused; ground truth untouched
    assert first.reward == PROBLEM.reward


def test_unreachable_endpoint_keeps_templates():
    report = paraphrase_problems([PROBLEM], base_url="http://127.0.0.1:9/v1", model="m", timeout=2)
    assert report.failed == 1 and report.problems[0].query == PROBLEM.query


def test_acceptable_rules():
    assert not acceptable(PROBLEM, "A black stainless steel tumbler under 900 PHP")  # lost the 250 bound
    assert not acceptable(PROBLEM, PROBLEM.query + " Tala Insulated Stainless Steel Tumbler 30oz Double Wall")
    assert acceptable(PROBLEM, "black stainless steel tumbler, 250-900 PHP, COD")
