"""Web knowledge for imported web problems, laid out as the live web would hold it.

A ShoppingBench web problem asks a world-knowledge question ("In which month and year did scientists report that
... survived for three years in outer space? I would like to buy a travel magazine issue from that month") whose
answer (the ``Knowledge_Attribute``) the gold product carries. Offline there is no live web, so the rebuild writes
pages for each question:

- one page about the question's subject that states the fact in prose (the question turned into a statement, the
  answer in its place), among
- near-miss pages about related entities: the same statement with one detail changed (a number, a month, a name, a
  qualifier) and another value of the same kind (another year, another country...).

Every page of a question carries the same words (each page's "see also" line names the other pages' details) and the
pages are shuffled into the corpus, so a search for the question does not rank the true page first: an agent has to
read the pages and pick the one whose details match the question. The rebuild also adds, for each near-miss value, a
copy of the gold product carrying that value instead of the answer: the product that a wrong reading leads to.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from arena.catalog.rng import Rng
from arena.tasks.shopping.webknowledge_data import (
    CLASSES,
    FIRST_NAMES,
    GENERIC,
    INTROS,
    IRREGULAR_PAST,
    MONTHS,
    NUMBER_WORDS,
    ORDINALS,
    OUTROS,
    PARTICIPLES,
    PROPER_FALLBACK,
    QUALIFIERS,
    REGULAR,
    STOP,
)

_AUX = "did|does|do|has|have|had|is|was|are|were|can|could|will|would"


def knowledge_question(query: str) -> str:
    """The world-knowledge part of a web query: its text up to the first question mark (else its first sentence)."""
    text = " ".join(query.split())
    if "?" in text:
        return text[: text.index("?") + 1]
    first = re.split(r"(?<=[.!])\s", text, maxsplit=1)[0]
    return first


def _past(clause: str) -> str:
    """The clause after "did" in the past tense: its first known verb (after the subject's first word) conjugated."""
    words = clause.split(" ")
    for i, word in enumerate(words[1:], start=1):
        w = word.lower()
        if w in IRREGULAR_PAST:
            words[i] = IRREGULAR_PAST[w]
            break
        if w in REGULAR:
            words[i] = w + ("d" if w.endswith("e") else "ied" if w.endswith("y") and w[-2] not in "aeiou" else "ed")
            break
    return " ".join(words)


def _participle(word: str) -> bool:
    w = word.lower().strip(",")
    return w in PARTICIPLES or (len(w) > 5 and w.endswith("ed"))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def statement(question: str, answer: str) -> str:
    """The question turned into a sentence that states ``answer`` in its place (a few common SimpleQA shapes; other
    questions become a record line "subject: answer")."""
    q = question.strip().rstrip("?").strip()
    low = q.lower()
    m = re.match(r"^(?:in|on|at|during|by|from|since|until) (?:which|what) [\w', -]+? (?:did|does|do) (.+)$", q, re.I)
    if m or re.match(r"^(?:when|in what year|what year) (?:did|does|do) ", low):
        rest = m.group(1) if m else re.sub(r"^(?:when|in what year|what year) (?:did|does|do) ", "", q, flags=re.I)
        return f"{answer}: {_cap(_past(rest))}."
    m = re.match(r"^(?:what|who) (is|was|are|were) (.+)$", q, re.I)
    if m:
        return f"{_cap(m.group(2))} {m.group(1).lower()} {answer}."
    m = re.match(
        r"^(?:(in|on|at|during|by|from|since|until) )?(?:which|what) ([\w',-]+(?: [\w',-]+){0,3}?) "
        r"(was|were|is|are) (.+)$",
        q,
        re.I,
    ) or re.match(r"^()when()\s(was|were|is|are) (.+)$", q, re.I)
    if m:  # "In what city was X born" -> "X was born in A"; "Which city is the capital of X" -> "A is ..."
        prep, _, aux, rest = m.groups()
        words = rest.split()
        at = next((i for i, w in enumerate(words) if _participle(w)), None)
        if at:
            subject, tail = " ".join(words[:at]), " ".join(words[at:])
            return f"{_cap(subject)} {aux.lower()} {tail} {(prep or 'in').lower()} {answer}."
        if not prep:
            return f"{answer} {aux.lower()} {rest}."
    m = re.match(rf"^(?:which|what) ((?:[\w'-]+ ){{0,3}}[\w'-]+) ({_AUX}) (.+)$", q, re.I)
    if m and m.group(2).lower() not in ("did", "does", "do"):
        return f"{answer} {m.group(2).lower()} {m.group(3)}."
    m = re.match(r"^who ((?!did |does |do )\w+.*)$", q, re.I)
    if m:
        return f"{answer} {m.group(1)}."
    m = re.match(
        r"^(?:which|what) ((?:[\w'-]+ ){0,3}[\w'-]+) (\w+(?:ed|ew|on|ote|ade|ook|ave|ught|eld|ound))"
        r" (.+)$",
        q,
        re.I,
    )
    if m:
        return f"{answer} {m.group(2)} {m.group(3)}."
    m = re.match(rf"^how (?:many|much) (.+?) ({_AUX}) (.+)$", q, re.I)
    if m:
        return f"The number of {m.group(1)} that {m.group(3)}: {answer}."
    subject = re.sub(rf"^(?:how many|how much|which|what|who|where|when|whom)(?: ({_AUX}))?\s+", "", q, flags=re.I)
    return f"{_cap(subject)}: {answer}."


# ------------------------------------------------------------------------------------------------ near-miss values


def _year_variants(year: int, rng: Rng, k: int) -> list[int]:
    """Other years near ``year``, none after 2025 unless ``year`` is (a fact is not dated in the future)."""
    deltas = [d for d in range(-12, 13) if d and (year + d <= max(year, 2025))]
    rng.shuffle(deltas)
    return [year + d for d in deltas[:k]]


def near_miss_values(answer: str, pool: Sequence[str], rng: Rng, k: int) -> list[str]:
    """Up to ``k`` values of the same kind as ``answer`` (another year, month, number, country...), none of which
    contains the answer (ShoppingBench's keyword check is a substring test) nor is contained in it."""
    text = answer.strip()
    low = text.lower()
    candidates: list[str] = []
    m = re.fullmatch(r"(\D*?)(\d{1,4})(\D*)", text)
    date = re.fullmatch(r"(?:(\d{1,2}) )?([A-Za-z]+)(?: (\d{1,2}),?)? (\d{4})", text)
    if date and date.group(2).capitalize() in MONTHS:
        day, month, day2, year = date.groups()
        months = [mo for mo in MONTHS if mo != month.capitalize()]
        rng.shuffle(months)
        years = _year_variants(int(year), rng, 2 * k)
        for i in range(2 * k):
            mo = months[i % len(months)] if i % 3 != 2 else month
            yr = years[i] if i % 3 != 1 else int(year)
            lead = f"{day} " if day else ""
            mid = f" {day2}," if day2 else ""
            candidates.append(f"{lead}{mo}{mid} {yr}")
    elif m:
        prefix, digits, suffix = m.groups()
        n = int(digits)
        if len(digits) == 4 and 1000 <= n <= 2100:
            values = _year_variants(n, rng, 3 * k)
        else:
            values = [v for v in {n + d for d in (-3, -2, -1, 1, 2, 3, 4, 5)} | {n * 2, max(1, n // 2)} if v > 0]
            rng.shuffle(values)
        candidates = [f"{prefix}{v}{suffix}" for v in values]
    else:
        for cls in CLASSES:
            if low in (c.lower() for c in cls):
                others = [c for c in cls if c.lower() != low]
                rng.shuffle(others)
                candidates = [c if text[:1].isupper() or not c[:1].isupper() else c.lower() for c in others]
                break
        if not candidates:
            words = len(text.split())
            named = all(w[:1].isupper() for w in text.split())
            same_shape = [
                p for p in pool if len(p.split()) == words and all(w[:1].isupper() for w in p.split()) == named
            ]
            if named and words > 1:  # a person's name: other names of the same shape
                same_shape += [
                    f"{first} {last}" if words == 2 else f"{first} {text.split()[1]} {last}"
                    for first, last in zip(FIRST_NAMES, reversed(PROPER_FALLBACK), strict=False)
                ]
            others = [p for p in pool if len(p.split()) != words]
            rng.shuffle(same_shape)
            rng.shuffle(others)
            fallback = [f"{name} {text.split()[-1]}" if words > 1 else name for name in PROPER_FALLBACK]
            candidates = same_shape + fallback + others
    out: list[str] = []
    for value in candidates:
        v = value.strip()
        if not v or low in v.lower() or v.lower() in low or any(v.lower() == o.lower() for o in out):
            continue
        out.append(v)
        if len(out) == k:
            break
    return out


# -------------------------------------------------------------------------------------------------- perturbations


def _details(question: str) -> list[tuple[int, int, str]]:
    """Spans of the question's details that a related entity could differ in: (start, end, kind)."""
    spans: list[tuple[int, int, str]] = []
    for m in re.finditer(r"\b\d+(?:\.\d+)?\b", question):
        spans.append((m.start(), m.end(), "number"))
    words = "|".join(NUMBER_WORDS + ORDINALS + MONTHS)
    for m in re.finditer(rf"\b(?:{words})\b", question, re.I):
        spans.append((m.start(), m.end(), "word"))
    for m in re.finditer(r"(?<=[\w,;] )[A-Z][a-zA-Z'-]{2,}\b", question):
        if m.group(0) not in MONTHS:
            spans.append((m.start(), m.end(), "proper"))
    for m in re.finditer(r"\b(?:the|The|a|an) ([a-z][a-z-]{3,})\b", question):
        if m.group(1) not in STOP and m.group(1) not in GENERIC:
            spans.append((m.start(1), m.end(1), "content"))
    for m in re.finditer(r"\b[a-z][a-z-]{4,}\b", question):  # last resort: other nouns-looking words
        word = m.group(0)
        if word not in STOP and word not in GENERIC and not word.endswith(("ed", "ing", "ly")):
            spans.append((m.start(), m.end(), "loose"))
    priority = {"number": 0, "word": 0, "proper": 1, "content": 2, "loose": 3}
    spans.sort(key=lambda s: (s[0], priority[s[2]]))
    taken: list[tuple[int, int, str]] = []
    for span in spans:
        if not taken or span[0] >= taken[-1][1]:
            taken.append(span)
    return taken


def _replacement(token: str, kind: str, rng: Rng, proper_pool: Sequence[str], question: str) -> str:
    if kind == "number":
        if "." in token:
            return f"{float(token) + 1 + rng.below(3):g}"
        n = int(token)
        if 1000 <= n <= 2100:
            return str(n + rng.pick([-3, -2, -1, 1, 2, 3]))
        return str(max(0, n + rng.pick([-2, -1, 1, 2, 5])) if n > 2 else n + 1 + rng.below(3))
    if kind == "word":
        for cls in (NUMBER_WORDS, ORDINALS, MONTHS):
            lowered = [c.lower() for c in cls]
            if token.lower() in lowered:
                options = [c for c in cls if c.lower() != token.lower()]
                value = rng.pick(options)
                return (
                    value if token[:1].isupper() and cls is not MONTHS else (value if cls is MONTHS else value.lower())
                )
    if kind == "proper":  # a fictional name, or a name from another question, never one of this question's
        options = [p for p in [*PROPER_FALLBACK, *proper_pool] if p not in question]
        return rng.pick(options or PROPER_FALLBACK)
    return f"{rng.pick(QUALIFIERS)} {token}"


def related_questions(
    question: str, rng: Rng, k: int, proper_pool: Sequence[str], avoid: Collection[str] = ()
) -> list[tuple[str, str, str]]:
    """Up to ``k`` questions about related entities: (question, the detail changed, its replacement), each differing
    from ``question`` in one detail, preferring numbers, dates and names over other words. A variant whose statement
    drops the changed detail (it would read as the true page with another value), or that is another problem's
    question (``avoid``: its page would state that problem's question with a wrong value), is never used."""
    spans = _details(question)
    true_statement = statement(question, "\x00")
    order = {"number": 0, "word": 0, "proper": 1, "content": 2, "loose": 3}
    rng.shuffle(spans)
    spans.sort(key=lambda s: order[s[2]])
    out: list[tuple[str, str, str]] = []
    seen = {question}
    for start, end, kind in spans * 4:
        token = question[start:end]
        new = _replacement(token, kind, rng, proper_pool, question)
        variant = question[:start] + new + question[end:]
        if new == token or variant in seen or variant in avoid or statement(variant, "\x00") == true_statement:
            continue
        seen.add(variant)
        out.append((variant, token, new))
        if len(out) == k:
            break
    return out


def subject_of(question: str) -> str:
    """A short name for what a question is about: its first proper-noun phrase, else its rarest-looking words."""
    m = re.search(r"(?<=\w )((?:[A-Z][\w'-]+)(?: (?:of |the |de )?[A-Z][\w'-]+)*)", question)
    if m and m.group(1) not in MONTHS:
        return m.group(1)
    words = [w for w in re.findall(r"[A-Za-z][\w'-]+", question) if w.lower() not in STOP]
    words.sort(key=len, reverse=True)
    return " ".join(sorted(words[:3], key=question.index)) or question[:40]


def fact_pages(
    problem_id: str,
    query: str,
    answer: str,
    value_pool: Sequence[str],
    proper_pool: Sequence[str],
    rng: Rng,
    near_misses: int = 5,
    avoid: Collection[str] = (),
) -> tuple[list[dict[str, object]], list[str]]:
    """The pages of one web problem (the true page and its near misses, shuffled) and the near-miss values used;
    ``avoid``: the other problems' questions, which no near miss may restate."""
    question = knowledge_question(query)
    related = related_questions(question, rng, near_misses, proper_pool, avoid)
    values = near_miss_values(answer, [v for v in value_pool if v != answer], rng, len(related))
    related = related[: len(values)]
    entries = [(question, answer, None)] + [
        (q, v, (old, new)) for (q, old, new), v in zip(related, values, strict=True)
    ]
    details = [change[1] for _, _, change in entries if change]
    pages: list[dict[str, object]] = []
    for i, (q, value, change) in enumerate(entries):
        subject = subject_of(q)
        # the words of every sibling's detail, so that every page of the question shares the question's words
        others = [change[0]] + [d for d in details if d != change[1]] if change else list(details)
        see_also = f"See also: related records ({'; '.join(dict.fromkeys(others))})." if others else ""
        content = " ".join(
            p for p in (rng.pick(INTROS).format(subject=subject), statement(q, value), rng.pick(OUTROS), see_also) if p
        )
        slug = re.sub(r"[^a-z0-9]+", "-", subject.lower()).strip("-")[:50]
        pages.append(
            {
                "url": f"https://wiki.shoparena.example/sb/{problem_id[-12:]}-{i}/{slug}",
                "title": f"{subject} - ShopArena Encyclopedia",
                "content": content,
                "fact": None,
            }
        )
    rng.shuffle(pages)
    return pages, values
