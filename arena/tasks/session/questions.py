"""How the shopper hears a question (``docs/sessions.md``, "The shopper"): the words of a question matched against
the topics of the slots of the item being talked about, and the common shopping topics a question touches (three or
more at once is a spray). Pure functions of the problem and the question."""

from __future__ import annotations

import re

from arena.tasks.session.problem import SessionProblem


def norm(text: str) -> str:
    return " " + " ".join(re.findall(r"[a-z0-9]+", text.lower())) + " "


def topic_scores(problem: SessionProblem, question: str, item: int = 0) -> dict[str, int]:
    """Slot constraint -> how many topic words the question matched (whole words and phrases)."""
    words = norm(question)
    scores: dict[str, int] = {}
    for c in problem.constraints:
        if c.src != "slot" or c.item != item:
            continue
        hit = sum(len(t.split()) for t in c.topics if norm(t).strip() and norm(t) in words)
        if hit:
            scores[c.cid] = hit
    return scores


#: what shoppers are commonly asked about, one group per topic: a question that touches three or more topics at once
#: (these, or the slots not yet revealed) fishes for many needs in one go and is a spray, however few slots it hits
COMMON_TOPICS: tuple[tuple[str, ...], ...] = (
    ("price", "budget", "cost", "costs", "spend", "expensive", "cheap", "afford"),
    ("brand", "maker", "manufacturer"),
    ("color", "colour"),
    ("size", "dimensions", "inch", "inches"),
    ("material", "made of", "fabric"),
    ("shipping", "delivery", "deliver", "ship"),
    ("store", "shop", "seller", "official"),
    ("payment", "pay", "cod", "cash"),
    ("warranty", "guarantee", "return", "returns"),
    ("rating", "ratings", "review", "reviews"),
    ("style", "design"),
    ("weight", "heavy", "light"),
    ("feature", "features", "function", "functions"),
)


def spread(problem: SessionProblem, question: str, fresh: dict[str, int]) -> int:
    """How many topics the question touches: the fresh slots it matched, plus the common topics it names that are
    no slot's topic (a revealed slot's words are a question asked again, not a new topic)."""
    words = norm(question)
    slot_words = {norm(t) for c in problem.constraints if c.src == "slot" for t in c.topics}
    common = {
        i for i, group in enumerate(COMMON_TOPICS) if any(norm(t) in words and norm(t) not in slot_words for t in group)
    }
    return len(fresh) + len(common)


def best(scores: dict[str, int], order: list[str]) -> str:
    return max(scores, key=lambda cid: (scores[cid], -order.index(cid)))
