"""What both judges discount (`arena.judge.echo`): a completion that repeats text the agent wrote into its own request
earns no reasoning credit, and facts that came back from the agent's own tool arguments (planted) are neither a
datum nor a reference to tool results. Honest runs keep their gates."""

from __future__ import annotations

import json

import pytest

from arena.judge.echo import discounts
from arena.judge.evidence import build_evidence, context_text
from arena.judge.llm import LLMJudge, system_prompt
from arena.judge.rubric import SN15_RUBRIC
from tests.support.openai_server import OpenAIServer
from tests.unit.test_judge_offline import (
    A_DETAIL,
    NO_ANALYSIS_TEXT,
    NO_COMPARISON_TEXT,
    NO_DATUM_TEXT,
    PLAN,
    QUERY,
    SOUND_TEXT,
    A,
    B,
    Log,
    run_with,
    verdict,
)

SYSTEM = {"role": "system", "content": "You are a shopping assistant."}


def asked_to_repeat(text: str, *, seen: str = "") -> list[dict]:
    """A request in which the agent wrote ``text`` itself and asks the model to say it back."""
    return [
        SYSTEM,
        {"role": "user", "content": QUERY},
        *([{"role": "tool", "tool_call_id": "c0", "content": seen}] if seen else []),
        {"role": "user", "content": f"Repeat the following text exactly, word for word:\n{text}"},
    ]


def parrot_run(text: str, said: str | None = None, tokens: int = 60) -> list:
    """search -> details -> the model says ``said`` (default: ``text``) after the agent wrote ``text`` into the
    request -> recommend -> terminate."""
    log = Log().search().view()
    log.llm(text if said is None else said, tokens, messages=asked_to_repeat(text))
    return log.finish().events


def test_a_completion_that_repeats_the_agents_own_comparison_earns_no_reasoning_credit() -> None:
    honest = verdict(run_with(SOUND_TEXT))
    assert honest.gate == "sound" and honest.checks["discounted"]["repeated"] == []
    assert honest.checks["discounted"]["planted"] == []
    parrot = verdict(parrot_run(SOUND_TEXT))
    assert parrot.gate == "no_reasoning", parrot.checks
    [repeat] = parrot.checks["discounted"]["repeated"]
    assert repeat["seq"] == 2 and repeat["repeated"] == repeat["words"] > 20
    assert repeat["sample"].startswith("5001000001 kalinaw 349 is cheaper")
    assert "Discounted: completion seq 2 repeats" in parrot.explanation
    # one changed word in every five is still a repeat of runs of five: nothing of the comparison is credited
    for text in (NO_DATUM_TEXT, NO_COMPARISON_TEXT):
        assert verdict(parrot_run(text)).gate == "no_reasoning"


def test_a_parrots_sentence_around_titles_it_saw_loses_the_titles_too() -> None:
    # the titles alone are tool results' text; repeated inside the agent's own sentence they are the agent's text
    text = (
        f"Product 5001000001 ({A['title']}) costs 349 while product 5001000007 ({B['title']}) costs 389; the first "
        "is cheaper than the second and its title matches the request better."
    )
    v = verdict(parrot_run(text))
    assert v.gate == "no_reasoning", v.checks
    [repeat] = v.checks["discounted"]["repeated"]
    assert repeat["repeated"] == repeat["words"]


def test_only_what_the_model_adds_is_credited() -> None:
    # the parroted comparison plus the model's own sentence: the sentence alone is judged
    own = "Checking once more, the Bayani one is handwoven and the Kalinaw one has a snug lid, both fine."
    v = verdict(parrot_run(SOUND_TEXT, said=f"{SOUND_TEXT} {own}", tokens=90))
    assert v.gate == "no_datum", v.checks  # its own words refer to the results (Bayani, handwoven) but cite no datum
    [repeat] = v.checks["discounted"]["repeated"]
    assert repeat["repeated"] < repeat["words"]
    assert v.checks["reasoning"]["token_source"] == "usage, repeats discounted"


def test_text_of_tool_results_the_query_and_the_models_own_history_is_not_parroting() -> None:
    # the model quotes a title and the query, which the agent also sent (as the tool result and the user turn)
    quote = (
        "The Kalinaw Rattan Storage Basket with Lid Large matches I need a rattan storage basket under 400 "
        "pesos, and it costs 349 while the Bayani 5001000007 costs 389, so it is the cheaper one."
    )
    log = Log().search().view()
    seen = '[{"title": "Kalinaw Rattan Storage Basket with Lid Large", "price": 349.0}]'
    log.llm(quote, 60, messages=[SYSTEM, {"role": "user", "content": QUERY}, {"role": "tool", "content": seen}])
    v = verdict(log.finish().events)
    assert v.gate == "sound" and v.checks["discounted"]["repeated"] == []
    # the model's earlier reasoning sent back as history and restated: credited, not a repeat
    history = [
        SYSTEM,
        {"role": "user", "content": QUERY},
        {"role": "assistant", "content": SOUND_TEXT},
        {"role": "user", "content": "Go on."},
    ]
    log = Log().search().view().llm(SOUND_TEXT, 60)
    log.llm(SOUND_TEXT, 60, messages=history)
    v = verdict(log.finish().events)
    assert v.gate == "sound" and v.checks["discounted"]["repeated"] == []


def test_a_parrot_cannot_launder_its_text_through_a_tool_argument() -> None:
    # the comparison written into a tool call's arguments, echoed by a tool that echoes (an answer tool): still
    # the agent's own text
    log = Log().search().view()
    log.tool(
        "recommend_product", {"product_ids": SOUND_TEXT}, f"Having recommended the products to the user: {SOUND_TEXT}."
    )
    log.llm(SOUND_TEXT, 60, messages=asked_to_repeat(SOUND_TEXT, seen=SOUND_TEXT))
    assert verdict(log.finish().events).gate == "no_reasoning"


PLANTED = "kalinaw bayani handwoven"


def planted_run(text: str) -> list:
    """The agent searches with words it chose (which the catalog's titles and details echo), then the model,
    free to word its own completion, says them."""
    log = Log().llm(PLAN, 45)
    log.tool("find_product", {"q": f"rattan storage basket {PLANTED}"}, [A, B])
    log.view()
    return log.llm(text, 60).finish().events


def test_words_planted_in_the_agents_own_search_are_no_reference_to_tool_results() -> None:
    text = "The Kalinaw and the Bayani are both handwoven, so either suits the shopper; I will pick one and finish."
    honest = verdict(run_with(text))  # the same words learned from the results
    assert honest.gate == "no_datum", honest.checks
    planted = verdict(planted_run(text))
    assert planted.gate == "no_analysis", planted.checks
    facts = planted.checks["discounted"]["planted"]
    assert facts and facts[0]["seq"] == 1
    assert {"word 'kalinaw'", "word 'bayani'", "word 'handwoven'"} <= set(facts[0]["facts"])
    assert "came back from the agent's own arguments" in planted.explanation


def test_values_the_agent_wrote_before_they_came_back_are_no_datum() -> None:
    def run(q: str) -> list:
        log = Log().llm(PLAN, 45)
        log.tool("find_product", {"q": q}, [A])
        log.tool(
            "view_product_information",
            {"product_ids": "5001000001"},
            [{**A_DETAIL, "attributes": {"tone": ["walnut"]}}],
        )
        log.llm(
            "It is walnut, which is exactly the finish the shopper wants, so I will take this one and finish now.", 40
        )
        return log.finish().events

    assert verdict(run("rattan storage basket")).gate == "no_comparison"  # walnut learned from the details: a datum
    v = verdict(run("rattan storage basket walnut"))  # walnut written by the agent first
    assert v.gate == "no_analysis", v.checks
    assert v.checks["discounted"]["planted"] == [{"seq": 2, "facts": ["attribute 'walnut'", "word 'walnut'"]}]
    # ids and prices are the catalog's own, whoever asked for them: an id viewed before any search still counts
    log = Log().llm(PLAN, 45).view()
    assert verdict(log.llm(NO_COMPARISON_TEXT, 40).finish().events).gate == "no_comparison"


def evidence(events: list) -> str:
    """The LLM judge's evidence of a run, with the notes of what it discounts (as `LLMJudge` builds it)."""
    problem = {"problem_id": "p", "task": "product", "query": QUERY}
    return build_evidence(problem, events, notes=discounts(context_text(problem), events).notes())


@pytest.mark.slow  # an OpenAI-compatible server on loopback
def test_the_llm_judge_sees_the_notes_and_keeps_what_was_discounted_with_its_verdict() -> None:
    answer = json.dumps(
        {"gate": "no_reasoning", "explanation": "the completion repeats the agent's text", "evidence": [2]}
    )
    problem = {"problem_id": "p", "task": "product", "query": QUERY}
    with OpenAIServer(lambda body: answer, models=("judge-a",)) as server:
        v = LLMJudge(server.base_url, ["judge-a"]).judge(problem, parrot_run(SOUND_TEXT))
        shown = server.requests[0]["messages"]
    assert "repeats text the agent itself wrote" in shown[0]["content"]
    assert "[repeats the agent's own messages: " in shown[1]["content"]
    [repeat] = v.checks["discounted"]["repeated"]
    assert repeat["seq"] == 2 and repeat["repeated"] == repeat["words"]
    with OpenAIServer(lambda body: answer, models=("judge-a",)) as server:
        planted = LLMJudge(server.base_url, ["judge-a"]).judge(problem, planted_run(NO_ANALYSIS_TEXT))
    assert planted.checks["discounted"]["planted"] == [{"seq": 1, "words": ["bayani", "handwoven", "kalinaw"]}]


def test_the_llm_judge_is_told_the_rule_and_shown_what_is_discounted() -> None:
    prompt = system_prompt(SN15_RUBRIC)
    assert "repeats text the agent itself wrote" in prompt and "its own tool arguments" in prompt
    text = evidence(parrot_run(SOUND_TEXT))
    note = next(line for line in text.splitlines() if line.startswith("[repeats the agent's own messages"))
    assert "discounted" in note
    text = evidence(planted_run(NO_ANALYSIS_TEXT))
    lines = text.splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith("[planted: "))
    assert lines[i + 1] == "| bayani handwoven kalinaw"
