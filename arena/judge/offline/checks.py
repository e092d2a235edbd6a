"""The offline judge's checks on one completion: what it is (`Completion`: text, tokens, words, numbers), which
facts of earlier tool results it repeats (`shared_facts`), and whether it compares two or more candidates (`compare`);
a check's finding is a `Match`, with the event seqs it rests on."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from arena.judge.echo import Echo, Repeat
from arena.judge.evidence import completion_message, message_text, message_tool_calls, usage_tokens
from arena.judge.offline.known import Candidate, Known
from arena.judge.offline.words import COMPARATIVE, numbers_in, tokens
from arena.trajectory import TrajectoryEvent

MIN_SHARED_WORDS = 2
MAX_MATCHED = 12  # matched facts kept per check in `Verdict.checks`

_ESTIMATE = re.compile(r"\w+|[^\w\s]")


def _fmt(value_cents: int) -> str:
    return f"{value_cents / 100:g}" if value_cents % 100 else str(value_cents // 100)


@dataclass
class Completion:
    """A completion as the checks read it: ``text``, ``words``, ``padded`` and ``numbers`` are the model's own words
    (its facts, its comparative wording); ``named_words`` and ``named_padded`` also hold what it quotes (a quoted
    title still names its product)."""

    seq: int
    tokens: int
    token_source: str  # "usage" or "estimate"
    text: str
    words: frozenset[str]
    padded: str  # " tok tok ... "
    numbers: frozenset[int]
    repeat: Repeat | None = None  # what it repeats of the agent's own messages (`arena.judge.echo`)
    named_words: frozenset[str] = frozenset()
    named_padded: str = ""

    @classmethod
    def of(cls, event: TrajectoryEvent, echo: Echo | None = None) -> Completion | None:
        """A successful LLM call's completion; with ``echo`` (the run read so far), the words it repeats of the
        agent's own messages are cut from its text, what it quotes of the query and of tool results is kept for
        naming only, and its token count is scaled down to the words it counts (`Repeat.counted_words`)."""
        if event.kind != "llm_call" or event.error is not None or not 200 <= event.status < 300:
            return None
        message = completion_message(event.result)
        if not message:
            return None
        text = message_text(message)
        count = usage_tokens(event, "completion_tokens")
        source = "usage"
        if count is None:
            calls = " ".join(f"{n} {a}" for n, a in message_tool_calls(message))
            count, source = len(_ESTIMATE.findall(f"{text} {calls}")), "estimate"
        repeat = None if echo is None else echo.completion(event.seq, text, event.arguments)
        named = text
        if repeat is not None and (repeat.repeated or repeat.quoted):
            named, text = repeat.kept, repeat.own_text
            count = count * repeat.counted_words // repeat.words
            cut = [
                what for what, n in (("repeats", repeat.repeated), ("quotes", repeat.quoted > repeat.own_words)) if n
            ]
            source += f", {' and '.join(cut)} discounted" if cut else ""
        toks, named_toks = tokens(text), tokens(named)
        return cls(
            seq=event.seq,
            tokens=count,
            token_source=source,
            text=text,
            words=frozenset(toks),
            padded=f" {' '.join(toks)} ",
            numbers=frozenset(numbers_in(text)),
            repeat=repeat,
            named_words=frozenset(named_toks),
            named_padded=f" {' '.join(named_toks)} ",
        )

    def says(self, norm: str) -> bool:
        """Whether a normalized phrase (an id, an attribute value, a title) occurs in its own words, on token bounds."""
        return (norm in self.words) if " " not in norm else (f" {norm} " in self.padded)

    def names(self, norm: str) -> bool:
        """Whether a normalized phrase occurs in its own words or in what it quotes, on token bounds."""
        words, padded = (self.named_words, self.named_padded) if self.named_padded else (self.words, self.padded)
        return (norm in words) if " " not in norm else (f" {norm} " in padded)


@dataclass
class Match:
    passed: bool = False
    seq: int | None = None
    sources: list[int] = field(default_factory=list)
    matched: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self, gate: str) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "gate": gate,
            "seq": self.seq,
            "sources": self.sources,
            "matched": self.matched[:MAX_MATCHED],
            **self.extra,
        }

    @property
    def evidence(self) -> set[int]:
        return ({self.seq} if self.seq is not None else set()) | set(self.sources)


def _said(c: Completion, phrases: dict[str, int]) -> list[tuple[str, int]]:
    """The phrases of `phrases` (phrase -> seq) the completion says: one-word ones by set lookup."""
    if len(phrases) > 4 * len(c.words):  # look the completion's words up, then check the multi-word phrases
        found = [(w, phrases[w]) for w in c.words if w in phrases]
        found += [(p, s) for p, s in phrases.items() if " " in p and c.says(p)]
        return sorted(found)
    return sorted((p, s) for p, s in phrases.items() if c.says(p))


def shared_facts(c: Completion, known: Known) -> dict[str, list[tuple[str, int]]]:
    """Facts of earlier tool results that a completion repeats, by kind: (description, source seq)."""
    out: dict[str, list[tuple[str, int]]] = {"id": [], "price": [], "number": [], "attribute": [], "word": []}
    for norm, seq in _said(c, known.ids):
        out["id"].append((f"id {norm}", seq))
    for value in sorted(c.numbers):
        if value in known.prices:
            out["price"].append((f"price {_fmt(value)}", known.prices[value]))
        elif value in known.numbers:
            out["number"].append((f"number {_fmt(value)}", known.numbers[value]))
    for norm, seq in _said(c, known.attrs):
        out["attribute"].append((f"attribute '{norm}'", seq))
    for word in sorted(c.words):
        if word in known.words:
            out["word"].append((f"word '{word}'", known.words[word]))
    for facts in out.values():
        facts.sort(key=lambda f: (f[1], f[0]))
    return out


def _named(c: Completion, known: Known) -> list[tuple[Candidate, str]]:
    """Candidates the completion names, with how (id, title, title words)."""
    # only candidates the completion could name: their id or a word of their title is among its words
    said = c.named_words if c.named_padded else c.words
    possible = {pid for pid, cand in known.candidates.items() if cand.id_phrase in said or " " in cand.id_phrase}
    for word in said:
        possible |= known.by_title_word.get(word, set())
    out = []
    for cand in sorted((known.candidates[p] for p in possible), key=lambda k: (k.seq, k.product_id)):
        words = known.unique_title_words(cand.product_id)
        hits = words & said
        if cand.id_phrase and c.names(cand.id_phrase) and not known.in_query(cand.id_phrase):
            out.append((cand, "id"))
        elif cand.title_phrase.count(" ") >= 1 and c.names(cand.title_phrase):
            out.append((cand, "title"))
        elif words and len(hits) >= min(MIN_SHARED_WORDS, len(words)):
            out.append((cand, "title words " + ", ".join(sorted(hits))))
    return out


def compare(c: Completion, known: Known) -> Match | None:
    named = _named(c, known)
    if len(named) < 2:
        return None
    cited: dict[str, set[str]] = {}
    for cand, _ in named:
        data = {f"price {_fmt(p)}" for p in cand.prices if p in c.numbers}
        data |= {f"attribute '{a}'" for a in cand.attrs if c.says(a)}
        if data:
            cited[cand.product_id] = data
    contrast = len(cited) >= 2 and len({frozenset(d) for d in cited.values()}) >= 2
    wording = COMPARATIVE.search(c.padded)
    if not (wording or contrast):
        return None
    how = ([f"comparative wording '{wording.group(1)}'"] if wording else []) + (
        ["contrasting data"] if contrast else []
    )
    matched = [f"candidate {cand.product_id} by {by}" for cand, by in named]
    matched += [f"{pid}: {d}" for pid, data in sorted(cited.items()) for d in sorted(data)]
    return Match(
        True,
        c.seq,
        sorted({cand.seq for cand, _ in named}),
        matched,
        {"candidates": [cand.product_id for cand, _ in named], "how": how},
    )
