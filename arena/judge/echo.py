"""What a run's agent wrote itself, and what of it comes back to the judge (`Echo`): both judges discount it.

Three ways an agent can make text it did not reason look like the model's reasoning or like facts it learned:

- **Parroting.** The agent writes its own analysis into the request (a comparison of the products it found, with
  their ids, titles and prices) and asks the model to repeat it. The completion is then the agent's text, not the
  model's reasoning. Rule: each stretch of the completion that the messages the agent sent the model (this request
  or an earlier one) also contain, as runs of `NGRAM` consecutive words, is *repeated* and earns nothing (every
  check reads the completion with it cut out, its token count scaled down in proportion), unless the whole stretch
  is also in what the agent did not write: the problem as the judge is shown it (the query), a tool result the
  gateway returned (less what its arguments put there), or the credited text of the model's earlier completions (a
  model restating its own reasoning, sent back as history): then it is a quotation (below). A parrot's sentence
  around a title loses the title too. Why cut rather than a share threshold: a threshold lets a completion that is
  half parroted keep the parroted half; cutting keeps what the model added and nothing else.
- **Quoting.** A stretch the agent sent the model that is the query or a tool result's text (not the model's own
  earlier words) is a *quotation*: kept, so a model quoting a product's title still names that product, but it is no
  reasoning of the model's. Its facts count for no analysis, datum or comparison (`Repeat.own`: the completion
  without its repeats and quotations), its words for reasoning tokens only up to as many as the model wrote of its
  own (`Repeat.counted_words`: an honest model names products by their titles and restates the query), and it is not
  credited as the model's text, so it cannot be laundered through the model's history. Before this rule a code-only
  agent asked the model to say a search result back as the gateway renders it and reached the top gate (coefficient
  1 against the template's 0.3875), or to say the query back and passed the reasoning check
  (`tests/unit/test_judge_quotes.py`). What is left: a model told to change the quotation mechanically (a word
  inserted every four words, the words reordered, a result's fields said in another order than the agent sent them)
  says nothing word for word for five words, and is not caught (the strict expected failures of that test file).
- **Planted words.** The agent writes words into its tool arguments (a search query of words the catalog will echo
  in result titles) and has the model say them back. Rule: a word or attribute value a tool result shows counts as
  learned only if the agent had not written it into any tool call's arguments before (or in) the call that returned
  it (`arena.judge.offline.known.Known`): neither a datum nor a reference to results. Ids, prices and numbers are
  the catalog's own whoever asked for them. `Echo.tool` gives each result's planted words for the evidence.

Words are `arena.judge.offline.words.tokens` (NFKC, case-folded letter/digit runs). `NGRAM` = 5: shorter runs match
the stock phrases of honest completions ("i will search the ..."), longer ones let a parrot dodge the rule by
changing one word in seven.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from arena.judge.evidence import completion_message, message_text, quote, render
from arena.judge.kinds import NO_FACTS, result_kind

NGRAM = 5
#: the words of a repeated run kept as a sample in the evidence
SAMPLE_WORDS = 16
_TOKEN = re.compile(r"[^\W_]+")
_STOP = frozenset("a an and are as at be by for from i in is it of on or so the this to with".split())

Gram = tuple[str, ...]


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _grams(words: list[str]) -> set[Gram]:
    return set(zip(*(words[i:] for i in range(NGRAM)), strict=False))


@lru_cache(maxsize=4096)
def text_grams(text: str) -> frozenset[Gram]:
    """The runs of `NGRAM` consecutive words of a text (cached: a conversation sends the same messages again)."""
    return frozenset(_grams(_TOKEN.findall(_norm(text))))


@lru_cache(maxsize=4096)
def text_words(text: str) -> frozenset[str]:
    return frozenset(_TOKEN.findall(_norm(text)))


def request_texts(request: Any) -> list[str]:
    """The texts of a chat request's messages: contents, reasoning, the arguments of tool calls (as sent)."""
    messages = request.get("messages") if isinstance(request, dict) else None
    out: list[str] = []
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict):
            continue
        out.append(message_text(message))
        calls = message.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                out.append(render(function.get("arguments") or ""))
    return [t for t in out if t]


@dataclass
class Repeat:
    """What a completion repeats of the agent's own text."""

    seq: int
    words: int  # the completion's words
    repeated: int  # of which inside a repeated run
    kept: str  # the completion's normalized text with each repeated run cut out (a line break in its place)
    sample: str = ""  # the first repeated run's words (up to `SAMPLE_WORDS`)
    quoted: int = 0  # of the words not repeated, those inside a quotation (the query, a tool result's text)
    own: str | None = None  # ``kept`` with each quotation cut out too: the model's own words (None: ``kept``)
    quote_sample: str = ""  # the first quotation's words (up to `SAMPLE_WORDS`)

    @property
    def share(self) -> float:
        return self.repeated / self.words if self.words else 0.0

    @property
    def own_words(self) -> int:
        """The completion's words that are neither repeated nor quoted."""
        return self.words - self.repeated - self.quoted

    @property
    def counted_words(self) -> int:
        """The words its reasoning tokens are counted over: its own words, and of its quotations as many words as it
        has of its own (a model naming products by their titles in a sentence of its own keeps those words; a
        completion that is all quotation, a search result or the query said back, counts none)."""
        return self.own_words + min(self.quoted, self.own_words)

    @property
    def own_text(self) -> str:
        return self.kept if self.own is None else self.own

    def as_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "words": self.words, "repeated": self.repeated, "sample": self.sample}

    def quote_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "words": self.words, "quoted": self.quoted, "sample": self.quote_sample}


@dataclass
class Echo:
    """A run read in seq order: what the agent wrote (tool arguments, requests) and what came back."""

    given: frozenset[Gram]  # the problem's text as the judge is shown it
    given_words: frozenset[str]
    sent: set[Gram] = field(default_factory=set)  # every run of words the agent sent the model so far
    args: set[Gram] = field(default_factory=set)
    arg_words: set[str] = field(default_factory=set)
    results: set[Gram] = field(default_factory=set)
    result_words: set[str] = field(default_factory=set)
    planted_words: set[str] = field(default_factory=set)
    credited: set[Gram] = field(default_factory=set)
    _texts: set[str] = field(default_factory=set)
    planted: bool = True  # whether `tool` reports planted words (the offline judge reads them from its facts)
    _pending: list[Any] = field(default_factory=list)  # results and arguments not yet read as text
    _pending_args: list[Any] = field(default_factory=list)

    @classmethod
    def for_context(cls, context: str, *, planted: bool = True) -> Echo:
        return cls(given=text_grams(context), given_words=text_words(context), planted=planted)

    def tool(self, arguments: Any, result: Any, ok: bool, kind: str = "other") -> list[str]:
        """Take a tool call in (of result kind ``kind``); with ``planted`` on, the words of its result (successful)
        the agent had written into arguments before they first came back: planted, sorted (none for a result that
        only echoes the agent or is a person's reply: `arena.judge.kinds.NO_FACTS`). Texts are read when needed."""
        if arguments is not None:
            self._pending_args.append(arguments)
        if not ok or result is None:
            return []
        self._pending.append(result)
        if not self.planted or kind in NO_FACTS:
            return []
        if arguments is not None:
            self.arg_words |= text_words(_values(arguments))
        words = text_words(_values(result))
        fresh = (words & self.arg_words) - self.result_words - self.given_words - self.planted_words
        planted = sorted(w for w in fresh if len(w) >= 3 and not w.isdigit())
        self.result_words |= words - self.arg_words
        self.planted_words.update(planted)
        return planted

    def completion(self, seq: int, text: str, request: Any) -> Repeat:
        """The completion ``text`` of the call at ``seq`` (its ``request`` taken in first), with what it repeats."""
        for message in request_texts(request):
            if message not in self._texts:
                self._texts.add(message)
                self.sent |= text_grams(message)
        norm = _norm(text)
        spans = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(norm)]
        words = [w for _, _, w in spans]
        cut = [False] * len(words)
        grams = list(zip(*(words[j:] for j in range(NGRAM)), strict=False))
        hits = self.sent.intersection(grams)
        if hits - self.given - self.credited:
            for a, b in _runs([g in hits for g in grams]):  # each stretch the completion shares with the request
                if not all(self._explained(g) for g in grams[a:b]):
                    cut[a : b + NGRAM - 1] = [True] * (b + NGRAM - 1 - a)
        quoted = self._quoted(grams, hits, cut)
        gone = [c or q for c, q in zip(cut, quoted, strict=True)]
        self.credited |= _kept_grams(words, gone)
        if not any(gone):
            return Repeat(seq, len(words), 0, norm)
        kept, sample = _without(norm, spans, cut)
        own, _ = _without(norm, spans, gone)
        _, quote_sample = _without(norm, spans, quoted)
        return Repeat(seq, len(words), sum(cut), kept, sample, sum(quoted), own, quote_sample)

    def _quoted(self, grams: list[Gram], hits: set[Gram], cut: list[bool]) -> list[bool]:
        """Which words of a completion (``grams`` its runs, ``hits`` those the agent sent, ``cut`` its repeats) are
        inside a quotation: a run the agent sent that is the query or a tool result's text, not the model's own
        credited words nor stop words only."""
        quoted = [False] * len(cut)
        for j, gram in enumerate(grams):
            if gram not in hits or gram in self.credited or cut[j] or all(w in _STOP for w in gram):
                continue
            if self._explained(gram):
                quoted[j : j + NGRAM] = [True] * NGRAM
        return [q and not c for q, c in zip(quoted, cut, strict=True)]

    def _explained(self, gram: Gram) -> bool:
        """Whether a run of words the agent sent is also what it did not write: the problem, the model's credited
        text, a tool result (less what its arguments put there), or stop words only."""
        if gram in self.given or gram in self.credited or all(w in _STOP for w in gram):
            return True
        if self._pending or self._pending_args:
            for value in self._pending:
                self.results |= text_grams(render(value))
            for value in self._pending_args:
                self.args |= text_grams(render(value))
            self._pending.clear()
            self._pending_args.clear()
        return gram in self.results and gram not in self.args


def _without(norm: str, spans: list[tuple[int, int, str]], flags: list[bool]) -> tuple[str, str]:
    """``norm`` with each stretch of flagged words cut out (a line break in its place), and the first stretch's words
    (up to `SAMPLE_WORDS`)."""
    parts: list[str] = []
    start, i, sample = 0, 0, ""
    while i < len(flags):
        if not flags[i]:
            i += 1
            continue
        j = i
        while j < len(flags) and flags[j]:
            j += 1
        parts.append(norm[start : spans[i][0]])
        start = spans[j - 1][1]
        sample = sample or " ".join(w for _, _, w in spans[i : min(j, i + SAMPLE_WORDS)])
        i = j
    parts.append(norm[start:])
    return "\n".join(parts), sample


def _runs(flags: list[bool]) -> list[tuple[int, int]]:
    """The maximal stretches [a, b) of true flags."""
    out: list[tuple[int, int]] = []
    start: int | None = None
    for i, flag in enumerate([*flags, False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            out.append((start, i))
            start = None
    return out


def _values(value: Any) -> str:
    """The text of a JSON value's leaves (strings and numbers; no keys), one per line."""
    if isinstance(value, dict):
        return "\n".join(_values(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(_values(v) for v in value)
    return "" if value is None or isinstance(value, bool) else str(value)


def _kept_grams(words: list[str], cut: list[bool]) -> set[Gram]:
    """The runs of words of a completion that no repeated run touches: the model's own text, credited."""
    out: set[Gram] = set()
    run: list[str] = []
    for word, c in zip(words, cut, strict=True):
        if c:
            out |= _grams(run)
            run = []
        else:
            run.append(word)
    return out | _grams(run)


@dataclass
class Discounts:
    """What a run's judge discounts, by event seq: each completion's repeats and quotations, each tool result's
    planted words."""

    repeats: dict[int, Repeat] = field(default_factory=dict)
    planted: dict[int, list[str]] = field(default_factory=dict)
    quotes: dict[int, Repeat] = field(default_factory=dict)

    def as_dict(self, limit: int = 12) -> dict[str, Any]:
        """The verdict's record (`Verdict.checks["discounted"]`), at most ``limit`` entries of each."""
        return {
            "repeated": [r.as_dict() for _, r in sorted(self.repeats.items())[:limit]],
            "planted": [{"seq": s, "words": w[:limit]} for s, w in sorted(self.planted.items())[:limit]],
            "quoted": [r.quote_dict() for _, r in sorted(self.quotes.items())[:limit]],
        }

    def notes(self) -> dict[int, list[str]]:
        """The lines that tell the LLM judge what is discounted, by event seq (`arena.judge.evidence`'s notes; the
        planted words quoted: they are data)."""
        out: dict[int, list[str]] = {}
        for seq, repeat in self.repeats.items():
            out.setdefault(seq, []).append(
                f"[repeats the agent's own messages: {repeat.repeated} of the {repeat.words} words of this completion "
                f"are runs of {NGRAM} or more words the agent itself sent the model (in no tool result, not the "
                "query); they are discounted: they are no reasoning of the model]"
            )
        for seq, repeat in self.quotes.items():
            out.setdefault(seq, []).append(
                f"[quotes what the agent sent the model: {repeat.quoted} of the {repeat.words} words of this "
                f"completion are runs of {NGRAM} or more words of a tool result or the query the agent put in its "
                "request, said back word for word; a quotation names what it quotes and is no reasoning of the model]"
            )
        for seq, planted in self.planted.items():
            out.setdefault(seq, []).append(
                f"[planted: {len(planted)} word{'' if len(planted) == 1 else 's'} of this result the agent had "
                "written into its own tool arguments before they came back; they are discounted: no fact it learned, "
                "no reference to results:]"
            )
            out[seq].extend(quote(" ".join(planted[:24])))
        return out


def discounts(context: str, events: list[Any]) -> Discounts:
    """The discounts of a run's gateway log (events of `arena.trajectory`), read in seq order; ``context`` is the
    text of the problem as the judge is shown it."""
    echo = Echo.for_context(context)
    out = Discounts()
    for event in sorted(events, key=lambda e: e.seq):
        ok = event.error is None and 200 <= event.status < 300
        if event.kind == "tool_call":
            kind = result_kind(event.name)
            planted = echo.tool(event.arguments, event.result, ok and event.result is not None, kind)
            if planted:
                out.planted[event.seq] = planted
        elif event.kind == "llm_call" and ok:
            message = completion_message(event.result)
            if message:
                repeat = echo.completion(event.seq, message_text(message), event.arguments)
                if repeat.repeated:
                    out.repeats[event.seq] = repeat
                if repeat.quoted:
                    out.quotes[event.seq] = repeat
    return out
