"""What the LLM judge is shown of a run (`arena.judge.evidence`'s ``focus``): the products its completions refer to
in full, each thing once.

A judge checks the completions' claims (a datum, a reference to a result, a comparison of candidates) against the
results they rest on, so the products a completion names matter and a page's other listings are context:

- a product of a result of kind ``products``, ``details`` or ``shops`` (`arena.judge.kinds`) is shown in full when a
  completion of the run (any of them: the judge reads the whole run) or its answer writes its id or its price, or
  two words of its title (four letters or more) that neither the problem's text nor more than `COMMON` of the run's
  products' titles hold, or one that at most `RARE` titles hold; a product a result of the same kind showed before
  is named with that result's seq; the others are counted in one note. Descriptions of the products shown are cut
  to `DESCRIPTION_CHARS`; records that share their keys are JSON rows under one row of the keys;
- a tool call with the same arguments and result as an earlier one is named by that call's seq;
- a completion's sentence of `REPEATED` characters or more that an earlier completion wrote word for word is named
  by that completion's seq; an LLM call's tool calls the gateway logged are named by their seqs.

Results of other kinds are shown as they are. The notes are written by this module only (ids and names reduced to
label characters), so an agent cannot forge one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from arena.judge.evidence import completion_message, context_text, final_answer, label, message_text, quote, render
from arena.judge.kinds import result_kind
from arena.tasks.answer import raw_product_ids
from arena.trajectory import TrajectoryEvent

#: descriptions of the products shown are cut to this many characters
DESCRIPTION_CHARS = 100
#: title words (of at least four letters, not in the problem's text) a completion must write to refer to a product
TITLE_WORDS = 2
#: a title word of at most this many of the run's products refers to them alone
RARE = 2
_WORD = re.compile(r"[^\W\d_]{4,}")
#: a title word more than this many of the run's products (or 5% of them) share names none of them
COMMON = 3
#: a completion's sentence this long that an earlier completion wrote is named, not quoted again
REPEATED = 40
_SENTENCE = re.compile(r"(?<=[.!?])(\s+)")
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_FOCUSED = frozenset({"products", "details", "shops"})


def words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


@dataclass
class Focus:
    """A run's completions (their text, lower-cased, and words), the problem's words, and the products shown so far."""

    completions: str
    completion_words: set[str]
    context_words: set[str]  # the problem's words and the titles' common words (of more than COMMON titles)
    rare: set[str] = field(default_factory=set)  # title words of at most RARE of the run's products
    numbers: set[str] = field(default_factory=set)  # the numbers the completions write (a price cited without its id)
    shown: dict[tuple[str, str], int] = field(default_factory=dict)  # (kind, id) -> seq of the result showing it
    calls: dict[tuple[str, str, str], int] = field(default_factory=dict)  # (name, arguments, result) -> first seq
    sentences: dict[str, int] = field(default_factory=dict)  # a completion's sentence -> the first seq writing it

    @classmethod
    def of(cls, problem: dict[str, Any], events: list[TrajectoryEvent]) -> Focus:
        """The lens of one run: a fresh one for each evidence (it remembers what it has shown)."""
        completions = [message_text(completion_message(e.result)) for e in events if e.kind == "llm_call"]
        task = problem.get("task")
        answer = final_answer(sorted(events, key=lambda e: e.seq), task if isinstance(task, str) else None)
        if answer is not None:
            completions.append(raw_product_ids(answer) or "")
        text = "\n".join(completions)
        seen: dict[str, set[str]] = {}
        for event in events:
            if event.kind == "tool_call" and result_kind(event.name) in _FOCUSED:
                for record in _records_of(event.result):
                    seen.setdefault(str(record.get("product_id")), set()).update(words(str(record.get("title") or "")))
        df: dict[str, int] = {}
        for title_words in seen.values():
            for word in title_words:
                df[word] = df.get(word, 0) + 1
        common = {w for w, n in df.items() if n > max(COMMON, len(seen) // 20)}
        rare = {w for w, n in df.items() if n <= RARE}
        numbers = {f"{float(n.replace(',', '')):g}" for n in _NUMBER.findall(text)}
        return cls(text.lower(), words(text), words(context_text(problem)) | common, rare, numbers)

    def made(self, ordered: list[TrajectoryEvent]) -> dict[int, dict[tuple[str, str], int]]:
        """For each LLM call (by seq): the gateway's tool calls logged after it and before the next LLM call, by name
        and canonical arguments, with their seqs."""
        out: dict[int, dict[tuple[str, str], int]] = {}
        current: dict[tuple[str, str], int] | None = None
        for event in ordered:
            if event.kind == "llm_call":
                current = out.setdefault(event.seq, {})
            elif event.kind == "tool_call" and current is not None:
                current.setdefault((render(event.name or ""), render(event.arguments or {})), event.seq)
        return out

    def referred(self, record: dict[str, Any]) -> bool:
        pid = str(record.get("product_id") or "").strip()
        if pid and pid.lower() in self.completions:
            return True
        price = record.get("price")
        if isinstance(price, int | float) and f"{price:g}" in self.numbers:
            return True
        title = record.get("title")
        if not isinstance(title, str):
            return False
        shared = (words(title) - self.context_words) & self.completion_words
        return len(shared) >= TITLE_WORDS or any(w in self.rare for w in shared)

    def same(self, event: TrajectoryEvent) -> int | None:
        """The seq of an earlier call of the same tool with the same arguments and the same result, if any."""
        key = (render(event.name or ""), render(event.arguments), render(event.result))
        first = self.calls.setdefault(key, event.seq)
        return first if first != event.seq else None

    def content(self, seq: int, text: str, limit: int) -> list[str]:
        """A completion's quoted lines, a sentence of `REPEATED` characters or more that an earlier completion of the
        run wrote word for word named by that completion's seq (a note of this module's), cut at `limit`."""
        lines: list[str] = []
        run = ""
        parts = _SENTENCE.split(text[:limit])  # sentence, the space after it, sentence, ...
        for sentence, space in zip(parts[::2], [*parts[1::2], ""], strict=True):
            first = self.sentences.setdefault(sentence, seq) if len(sentence) >= REPEATED else seq
            if first == seq:
                run += sentence + space
                continue
            lines.extend(quote(run.strip()) if run.strip() else [])
            run = ""
            lines.append(f"[a sentence of seq {first} again]")
        lines.extend(quote(run.strip()) if run.strip() else [])
        if len(text) > limit:
            lines.append(f"[truncated: {limit} of {len(text)} chars]")
        return lines

    def result(self, name: str, seq: int, result: Any) -> tuple[Any, list[str]]:
        """The result as the judge is shown it, and the notes on what was left out."""
        kind = result_kind(name)
        if kind not in _FOCUSED or not isinstance(result, list):
            return result, []
        skipped: list[str] = []
        earlier: list[str] = []
        if kind == "shops":
            kept: Any = [self._shop(shop, seq, skipped, earlier) for shop in result]
        else:
            kept = self._records(kind, result, seq, skipped, earlier)
        if kind != "shops":
            kept = _table(kept)
        notes = []
        if earlier:
            notes.append("[shown before: " + ", ".join(earlier) + "]")
        if skipped:
            notes.append(f"[+{len(skipped)} product{'s' * (len(skipped) != 1)} no completion or answer refers to]")
        return kept, notes

    def _shop(self, shop: Any, seq: int, skipped: list[str], earlier: list[str]) -> Any:
        if not isinstance(shop, dict) or not isinstance(shop.get("matches"), list):
            return shop
        matches = []
        for match in shop["matches"]:
            if isinstance(match, dict) and isinstance(match.get("products"), list):
                match = {**match, "products": self._records("products", match["products"], seq, skipped, earlier)}
            matches.append(match)
        return {**shop, "matches": matches}

    def _records(self, kind: str, records: list[Any], seq: int, skipped: list[str], earlier: list[str]) -> list[Any]:
        kept = []
        for record in records:
            pid = str(record.get("product_id") or "").strip() if isinstance(record, dict) else ""
            if not pid or "error" in record:
                kept.append(record)
            elif not self.referred(record):
                skipped.append(label(pid))
            elif self.shown.get((kind, pid), seq) != seq:
                earlier.append(f"{label(pid)} (seq {self.shown[(kind, pid)]})")
            else:
                self.shown.setdefault((kind, pid), seq)
                kept.append(_cut(record))
        return kept


def _cut(record: dict[str, Any]) -> dict[str, Any]:
    out = dict(record)
    for key in ("description", "short_description"):
        value = out.get(key)
        if isinstance(value, str) and len(value) > DESCRIPTION_CHARS:
            out[key] = value[:DESCRIPTION_CHARS] + "..."
    return out


def _records_of(result: Any) -> list[dict[str, Any]]:
    """The product records of a result of a focused kind (a shop's matches' products included)."""
    out: list[dict[str, Any]] = []
    for item in result if isinstance(result, list) else []:
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("matches"), list):
            for match in item["matches"]:
                products = match.get("products") if isinstance(match, dict) else None
                out.extend(r for r in products or () if isinstance(r, dict))
        elif item.get("product_id") is not None:
            out.append(item)
    return out


def _table(records: list[Any]) -> Any:
    """Records that share their keys as JSON rows under one row of the keys (the keys written once, not per record);
    anything else as it is."""
    if len(records) < 2 or not all(isinstance(r, dict) for r in records):
        return records
    keys = sorted(records[0])
    if any(sorted(r) != keys for r in records[1:]):
        return records
    return "\n".join(render([r[k] for k in keys]) for r in [dict(zip(keys, keys, strict=True)), *records])
