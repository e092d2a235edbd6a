"""Web tasks: ``web_search`` the question, read the answer off the fact page, then look for the requested kind of
product carrying that value in its title or description. A fact page states its value in a known phrase
(`fact_value`) or in a sentence that is the question turned into a statement (`statement_value`): of several pages
about related entities, the one whose sentence holds every detail of the question is read."""

from __future__ import annotations

import re
from typing import Any

from baseline.query import parse_item
from baseline.search import Session
from baseline.text import CATEGORY, stem, strip_intro, tokens

#: Score for a web task's candidate that the answer's value alone retrieves.
WEB_CORE_WEIGHT = 3.0
#: Score for a candidate whose title or description carries the answer's value.
CARRIES_WEIGHT = 20.0
#: Score per word of the request a web candidate's title holds (and for the value in its title).
TITLE_WORD_WEIGHT = 0.5

#: Where fact pages state their value.
_FACT_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"best known for playing the ([^.,;]+?) with the",
        r"instrument: ([^.;]+)\.",
        r"principal ([^.,;]+?) player",
        r"competes in ([^.;]+)\.",
        r"took up ([^.,;]+?) at the age",
        r"known across the islands for its ([^.;]+)\.",
        r"signature flavor of [^;]+? is ([^.;]+)[;.]",
        r"worked with ([^.,;]+?) for generations",
        r"handmade goods of ([^.,;]+?), a tradition",
        r"home games in ([^.,;]+?) jerseys",
        r"team color has been ([^.,;]+?) since",
        r"best known for (?:playing |making |its )?(?:the )?([^.,;]+?)[.,;]",
        r"famous for (?:its |the )?([^.,;]+?)[.,;]",
    )
)
#: How a web query refers to the answer without naming it.
_ANAPHOR = re.compile(
    r"\b(?:(?:in|with|for|matching|to go with|made for|meant for|made of|made from|crafted from|of)\s)?"
    r"(?:that|the same|this)(?: exact)? (?:color|colour|material|flavor|flavour|sport|instrument|kind|"
    r"[a-z]+(?: [a-z]+)?(?= *[,.?!]| *$))\b"
)
_WEB_HEADS = re.compile(r"^(?:one|that instrument|an instrument of that kind|the same instrument|something)\b")


def fact_value(pages: list[dict[str, Any]], question: str) -> str | None:
    """The answer a fact page gives: the page about the question's entity first, then any page."""
    q = question.lower()

    def about(page: dict[str, Any]) -> bool:
        title = str(page.get("title", "")).split(" - ")[0].strip().lower()
        return bool(title) and title in q

    ordered = [p for p in pages if about(p)] + [p for p in pages if not about(p)]
    for page in ordered:
        content = str(page.get("content", ""))
        for pattern in _FACT_PATTERNS:
            m = pattern.search(content)
            if m:
                value = m.group(1).strip().strip("'\"").lower()
                if value and len(value.split()) <= 4:
                    return value
    return None


#: Past forms a page's statement uses for the question's verb ("did ... win" -> "won").
_PAST = {
    "won": "win",
    "made": "make",
    "took": "take",
    "became": "become",
    "wrote": "write",
    "began": "begin",
    "held": "hold",
    "found": "find",
    "gave": "give",
    "built": "build",
    "sold": "sell",
    "led": "lead",
    "left": "leave",
    "met": "meet",
    "ran": "run",
    "sang": "sing",
    "went": "go",
    "came": "come",
    "got": "get",
    "bought": "buy",
    "chose": "choose",
    "drew": "draw",
    "flew": "fly",
    "grew": "grow",
    "knew": "know",
    "lost": "lose",
    "paid": "pay",
    "saw": "see",
    "said": "say",
    "spent": "spend",
    "taught": "teach",
    "told": "tell",
    "thought": "think",
    "was": "be",
    "were": "be",
    "had": "have",
    "did": "do",
}
#: Words a statement adds around the question's details that are never the answer.
_GLUE = frozenset("the a an of in on at by to for from and was were is are be been their its his her first".split())


def _explained(word: str, asked: set[str]) -> bool:
    """Whether a statement's word comes from the question (same stem, a past form of its verb, or a regular past
    tense of it: "reported" for "report")."""
    w = stem(word)
    return (
        w in asked or _PAST.get(word) in asked or (word.endswith("ed") and (word[:-2] in asked or word[:-1] in asked))
    )


def statement_value(pages: list[dict[str, Any]], question: str) -> str | None:
    """The answer a page states in a sentence that is the question turned into a statement ("2019: The Comets won
    their first national title."): the sentence holding the most of the question's details (near-miss pages change
    one), then the part of it the question does not explain ("X: sentence", "sentence: X", else the longest run of
    words the question does not hold). A page's "see also" line names other pages' details and is never read."""
    asked = {stem(w) for w in tokens(question)}
    best: tuple[int, int, str] | None = None
    for page in pages:
        for sentence in re.split(r"(?<=[.!?])\s+", " ".join(str(page.get("content", "")).split())):
            if not sentence or sentence.lower().startswith("see also"):
                continue
            words = tokens(sentence)
            held = len({stem(w) for w in words if _explained(w, asked) and w not in _GLUE})
            extra = sum(1 for w in words if not _explained(w, asked) and w not in _GLUE)
            if extra and (best is None or (held, -extra) > best[:2]):
                best = (held, -extra, sentence)
    if best is None or best[0] < 2:
        return None
    return _unexplained_part(best[2].rstrip(" ."), asked)


def _unexplained_part(sentence: str, asked: set[str]) -> str | None:
    def foreign(text: str) -> float:
        words = tokens(text)
        return sum(not _explained(w, asked) for w in words) / max(1, len(words))

    head, sep, tail = sentence.partition(": ")
    if sep and len(head) <= 60 and foreign(head) >= 0.5 and foreign(tail) < 0.5:
        return head.strip()
    head, sep, tail = sentence.rpartition(": ")
    if sep and len(tail) <= 60 and foreign(tail) >= 0.5:
        return tail.strip()
    runs: list[list[str]] = [[]]
    for word in sentence.split():
        bare = word.strip(",;()\"'")
        if bare and any(not _explained(w, asked) and w not in _GLUE for w in tokens(bare)):
            runs[-1].append(bare)
        elif runs[-1] and bare[:1].isupper():  # a name goes on ("Bued River": "river" was asked about)
            runs[-1].append(bare)
        elif runs[-1]:
            runs.append([])
    longest = max(runs, key=len)
    return " ".join(longest) or None


def solve_web(s: Session, query: str) -> None:
    """The question answered from the web, then the requested product carrying the answer."""
    q = " ".join(query.split())
    q = re.sub(r"^quick question first:\s*", "", q, flags=re.IGNORECASE)
    cut = q.find("?")
    question, rest = (q[: cut + 1], q[cut + 1 :]) if cut >= 0 else (q, q)
    pages = s.tool("web_search", q=question, max_results=10)
    pages = pages if isinstance(pages, list) else []
    value = fact_value(pages[:5], question) or statement_value(pages, question)
    rest_low = " " + strip_intro(rest.lower().strip(" .?!")) + " "
    rest_low = _ANAPHOR.sub(" ", rest_low)
    rest_low = CATEGORY.sub(" ", rest_low)
    rest_low = _WEB_HEADS.sub(" ", strip_intro(" ".join(rest_low.split())))
    item = parse_item(f"{value} {rest_low}" if value else rest_low)
    if value:
        item.head_end = len(item.text)
    # the products the value itself retrieves (where a product carrying it is most likely found), then the
    # value with the requested kind of product
    ids: list[str] = []
    core: set[str] = set()
    if value:
        for page in range(1, 6):
            got = s.search(value, page)
            ids += got
            if len(got) < 10 or not s.can_search(6):
                break
        core = set(ids)
        s.view(ids)
    ids += s.candidates(item, deep=True)
    ranked = s.rank_item(item, ids)
    if value:
        wanted = {stem(w) for w in tokens(rest_low)} - _GLUE

        def carries(pid: str) -> float:
            """The value in the title (the product named after it), else in the description; and the title's
            words the request uses (any word: "a sale" asks for a listing titled "... Sale ...")."""
            title = " ".join(str(s.summaries.get(pid, {}).get("title", "")).lower().split())
            description = " ".join(str(s.details.get(pid, {}).get("description", "")).lower().split())
            shared = len(wanted & {stem(w) for w in tokens(title)})
            weight = CARRIES_WEIGHT if value in title or value in description else 0.0
            return weight + (TITLE_WORD_WEIGHT if value in title else 0.0) + TITLE_WORD_WEIGHT * shared

        ranked.sort(key=lambda t: -(t[0] + carries(t[2]) + (WEB_CORE_WEIGHT if t[2] in core else 0.0)))
    if ranked:
        s.recommend([ranked[0][2]])


#: the strategy `baseline.answer` finds by the task type's name
solve = solve_web
