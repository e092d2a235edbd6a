"""A completion that quotes what the agent sent the model (a tool result or the query, word for word) is no reasoning of
the model's (`arena.judge.echo`): a quotation names the candidates it quotes, but its words count for no reasoning
tokens and its facts for no analysis, datum or comparison. Before this rule a code-only agent made one LLM call that
said a search result back as the gateway renders it and reached the top gate (coefficient 1 against the template's
0.3875), or said the query back and passed the reasoning check (0.5625)."""

from __future__ import annotations

import json
import re

import pytest

from arena.judge.echo import discounts
from arena.judge.evidence import context_text, render
from arena.judge.llm import system_prompt
from arena.judge.rubric import SN15_RUBRIC
from tests.unit.test_judge_offline import A_DETAIL, PROBLEM, QUERY, SOUND_TEXT, A, B, Log, run_with, verdict

SYSTEM = {"role": "system", "content": "You are a shopping assistant."}
REPEAT = "Repeat the following text exactly, word for word:\n"
#: what a model writes when asked for forty words about anything: its own words, no datum of the run
FILLER = (
    "Shopping online is a pleasant way to spend an evening, browsing many shops and reading about goods from far "
    "away, and a careful buyer always takes a moment to think before deciding what to bring home at last."
)


def quoting(said: str, sent: str, tokens: int = 80) -> list:
    """search -> details -> the model says ``said`` after the agent sent it ``sent`` to repeat -> recommend."""
    log = Log().search().view()
    log.llm(said, tokens, messages=[SYSTEM, {"role": "user", "content": REPEAT + sent}])
    return log.finish().events


def template() -> float:
    """The coefficient of the same run with no LLM call: what the code alone earns."""
    return verdict(Log().search().view().finish().events).coefficient


def test_a_search_result_said_back_word_for_word_earns_no_more_than_the_template() -> None:
    shown = render([A, B])  # the gateway's rendering: the text the echo rule reads a result as
    v = verdict(quoting(shown, shown))
    assert v.gate == "no_reasoning", v.checks
    assert v.coefficient <= template()
    [quote] = v.checks["discounted"]["quoted"]
    assert quote["seq"] == 2 and quote["quoted"] == quote["words"] > 20
    assert "quotes" in v.explanation


def test_the_query_said_back_earns_no_more_than_the_template() -> None:
    said = f"{QUERY} {QUERY} {QUERY} {QUERY}"
    log = Log().search().view()
    log.llm(said, 44, messages=[SYSTEM, {"role": "user", "content": "Say this four times: " + QUERY}])
    v = verdict(log.finish().events)
    assert v.gate == "no_reasoning", v.checks
    assert v.coefficient <= template()


def test_a_quotation_after_words_of_its_own_lends_them_none_of_its_facts() -> None:
    # forty words of its own about nothing in the run, then the search result said back: the filler alone
    own = verdict(run_with(FILLER, tokens=45))
    assert own.gate == "no_analysis", own.checks
    shown = render([A, B])
    v = verdict(quoting(f"{FILLER}\n{shown}", shown, tokens=45 + 80))
    assert v.gate == own.gate, v.checks
    # a quotation laundered through the model's history is still a quotation
    log = Log().search().view()
    log.llm(shown, 80, messages=[SYSTEM, {"role": "user", "content": REPEAT + shown}])
    history = [SYSTEM, {"role": "assistant", "content": shown}, {"role": "user", "content": REPEAT + shown}]
    log.llm(shown, 80, messages=history)
    assert verdict(log.finish().events).gate == "no_reasoning"


def test_a_model_that_quotes_a_title_and_compares_in_its_own_words_keeps_its_gate() -> None:
    # the title and the query are quotes; the prices, the id and the comparison are the model's own
    said = (
        "The Kalinaw Rattan Storage Basket with Lid Large matches I need a rattan storage basket under 400 "
        "pesos, and it costs 349 while the Bayani 5001000007 costs 389, so it is the cheaper one. Both are "
        "rattan and both fit the limit, but the cheaper one leaves more of the budget, so I pick it."
    )
    seen = render([A, B])
    log = Log().search().view()
    log.llm(said, 70, messages=[SYSTEM, {"role": "user", "content": QUERY}, {"role": "tool", "content": seen}])
    v = verdict(log.finish().events)
    assert v.gate == "sound", v.checks
    [quote] = v.checks["discounted"]["quoted"]
    assert 0 < quote["quoted"] < quote["words"]
    assert verdict(run_with(SOUND_TEXT)).gate == "sound"  # nothing quoted: as before


def test_the_llm_judge_is_told_what_a_completion_quotes() -> None:
    shown = render([A, B])
    notes = discounts(context_text(PROBLEM), quoting(shown, shown)).notes()
    assert any(line.startswith("[quotes what the agent sent the model") for line in notes[2])
    assert "quoting, not reasoning" in system_prompt(SN15_RUBRIC)


#: what models write after a search: the products named by their full titles, the query restated, the comparison
#: and the data in words of their own (each reached the top gate before the quotation rule)
HONEST = {
    "query restated": (
        "You asked for a rattan storage basket under 400 pesos. The Kalinaw Rattan Storage Basket with Lid Large at "
        "349 pesos is within budget and cheaper than the Bayani Rattan Storage Basket Round Handwoven at 389 pesos.",
        55,
    ),
    "titles and ids": (
        "Best match: Kalinaw Rattan Storage Basket with Lid Large (5001000001), 349, vs Bayani Rattan Storage "
        "Basket Round Handwoven (5001000007), 389. Kalinaw is cheaper; recommending it.",
        45,
    ),
}


def test_a_model_that_names_products_by_title_in_its_only_completion_keeps_its_gate() -> None:
    # the agent sends the query and the results as the template does (json.dumps of each result); the model's one
    # completion names both products by their titles (quotations) and compares them in words of its own
    seen = [{"role": "tool", "content": json.dumps([A, B])}, {"role": "tool", "content": json.dumps(A_DETAIL)}]
    for name, (said, tokens) in HONEST.items():
        log = Log().search().view()
        log.llm(said, tokens, messages=[SYSTEM, {"role": "user", "content": QUERY}, *seen])
        v = verdict(log.finish().events)
        assert v.checks["discounted"]["quoted"], name  # the titles are quotations: they name, they cite nothing
        assert v.gate == "sound", (name, v.checks["reasoning"])


#: the words of the search result as the judge reads them
WORDS = re.findall(r"[^\W_]+", render([A, B]))
#: a search result said back changed mechanically by the model, as an agent can ask: nothing is said back word for word
#: for five words across its fields, so nothing of it is a quotation (each reached the top gate, 1.0, here)
CHANGED = {
    # the agent sends the result as agents do (json.dumps, the tool's key order), the model says it with its keys
    # sorted: the runs of words across two fields are neither in the request nor in the result as the judge reads it
    "keys re-sorted": (json.dumps([A, B]), render([A, B])),
    # a word of the model's inserted after every fourth word: no run of five words left
    "a word every four": (render([A, B]), " ".join(w + (" indeed" if i % 4 == 3 else "") for i, w in enumerate(WORDS))),
}


@pytest.mark.xfail(strict=True, reason="the quotation rule matches runs of five words said back verbatim only")
@pytest.mark.parametrize("change", sorted(CHANGED))
def test_a_search_result_said_back_changed_mechanically_earns_no_more_than_the_template(change: str) -> None:
    sent, said = CHANGED[change]
    v = verdict(quoting(said, sent))
    assert v.coefficient <= template(), (change, v.gate)
