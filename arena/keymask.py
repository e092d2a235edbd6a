"""A provider key's shape, and cutting it out of whatever a provider answers (`docs/miner.md`, "Paying for your own
inference").

A key a miner hands over is a token: 16 to 512 characters of ``A-Z a-z 0-9 . _ ~ -`` (`KEY_ALPHABET`, RFC 3986's
unreserved characters, which every provider's keys are made of). Such a key reads the same JSON-escaped, URL-encoded
or HTML-escaped, so a provider that reflects it in any of those forms reflects these very characters.

`KeyMask` cuts a key out of a provider's parsed answer before anything passes it on (the agent, the trajectory, the
store, a log): every string of the answer (values and object keys) is decoded (percent-encoding, HTML entities; JSON
escapes are gone once parsed), the strings are read end to end as one text, case folded, and every run of at least
`FRAGMENT` characters of the key found in it is replaced by ``[miner key]`` in the strings it spans. So the key is cut
out whole, in pieces of 8 characters or more, across neighbouring fields, in any case, and base64-encoded (standard or
URL-safe, at any alignment). A key made of a number's characters (digits: the alphabet allows them) is cut out of the
answer's numbers too, each number read alone as it is written (one holding 8 or more characters of the key becomes
the label). What is left: pieces shorter than 8 characters scattered among other text (a provider that echoes a key
does so whole)."""

from __future__ import annotations

import base64
import html
import re
from typing import Any
from urllib.parse import unquote

#: the characters a miner's key may hold (RFC 3986 unreserved): unchanged by JSON, URL or HTML escaping
KEY_ALPHABET = "A-Z a-z 0-9 . _ ~ -"
KEY_PATTERN = re.compile(r"[A-Za-z0-9._~-]+")
MIN_KEY_CHARS = 16
MAX_KEY_CHARS = 512  # real provider keys are well under 200 characters
#: the shortest run of a key's characters that is cut out wherever it appears
FRAGMENT = 8
MASK = "[miner key]"


def key_problem(key: str) -> str | None:
    """One line saying why `key` is not a usable provider key (None: it is)."""
    if not key.strip():
        return "the LLM key is empty"
    if len(key) > MAX_KEY_CHARS:
        return f"the LLM key is {len(key)} characters, over the {MAX_KEY_CHARS} a key may have"
    if not KEY_PATTERN.fullmatch(key):
        return (
            f"the LLM key holds a character outside {KEY_ALPHABET} (a space, a line break, a quote ...); "
            "give the key alone"
        )
    if len(key) < MIN_KEY_CHARS:
        return f"the LLM key is {len(key)} characters; a provider key has at least {MIN_KEY_CHARS}"
    return None


def _forms(key: str) -> list[str]:
    """The key, and the part of its base64 (standard and URL-safe) that reads the same wherever the key sits in the
    encoded bytes (each of the three alignments), case folded."""
    forms = [key.lower()]
    raw = key.encode()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode()
        first, last = -(-8 * offset // 6), (8 * (offset + len(raw))) // 6
        core = encoded[first:last]
        forms += [core.lower(), core.replace("+", "-").replace("/", "_").lower()]
    return [f for f in forms if len(f) >= FRAGMENT]


_NUMBER_CHARS = set("0123456789.e+-")


def _decoded(text: str) -> str:
    """`text` with its percent-encoding (up to three layers) and HTML entities decoded."""
    for _ in range(3):
        if "%" not in text and "&" not in text:
            break
        decoded = html.unescape(unquote(text))
        if decoded == text:
            break
        text = decoded
    return text


class KeyMask:
    """Cuts one key out of parsed JSON (`mask`) and of text (`text`)."""

    def __init__(self, key: str, mask: str = MASK) -> None:
        width = min(FRAGMENT, len(key))
        self.grams = {f[i : i + width] for f in _forms(key) for i in range(len(f) - width + 1)} if key else set()
        self.width, self.label = width, mask
        #: the pieces a JSON number can hold (a key with a run of 8 digits): only then are numbers read
        self.numeric = {g for g in self.grams if set(g) <= _NUMBER_CHARS}

    def _spans(self, folded: str) -> list[bool]:
        """Per character of `folded`, whether a run of the key covers it ([] when none does)."""
        covered: list[bool] = []
        for gram in self.grams:
            at = folded.find(gram)
            while at >= 0:
                covered = covered or [False] * len(folded)
                covered[at : at + self.width] = [True] * self.width
                at = folded.find(gram, at + 1)
        return covered

    def _cut(self, text: str, covered: list[bool]) -> str:
        out, inside = [], False
        for char, hit in zip(text, covered, strict=True):
            if hit and not inside:
                out.append(self.label)
            elif not hit:
                out.append(char)
            inside = hit
        return "".join(out)

    def text(self, text: str) -> str:
        """`text` with the key cut out (decoded first where the key is found only so)."""
        decoded = _decoded(text)
        covered = self._spans(decoded.lower()) if self.grams else []
        return self._cut(decoded, covered) if any(covered) else text

    def mask(self, doc: Any) -> tuple[Any, bool]:
        """(`doc` with the key cut out of its strings, whether anything was cut)."""
        if not self.grams:
            return doc, False
        if self.numeric:
            doc, numbers = self._numbers(doc)
            cut_doc, cut = self._strings_cut(doc)
            return cut_doc, cut or numbers
        return self._strings_cut(doc)

    def _number_hit(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        text = str(value).lower()
        return any(gram in text for gram in self.numeric)

    def _numbers(self, doc: Any) -> tuple[Any, bool]:
        """(`doc` with every number holding a piece of the key replaced by the label, in place: `doc` is a fresh
        parse; whether any was)."""
        if self._number_hit(doc):
            return self.label, True
        found, stack = False, [doc]
        while stack:
            item = stack.pop()
            pairs = item.items() if isinstance(item, dict) else enumerate(item) if isinstance(item, list) else ()
            for at, value in list(pairs):
                if isinstance(value, dict | list):
                    stack.append(value)
                elif self._number_hit(value):
                    item[at], found = self.label, True
        return doc, found

    def _strings_cut(self, doc: Any) -> tuple[Any, bool]:
        strings = _strings(doc)
        joined = "".join(strings)
        decoded = [_decoded(s) for s in strings] if "%" in joined or "&" in joined else strings
        covered = self._spans(("".join(decoded) if decoded is not strings else joined).lower())
        if not any(covered):
            return doc, False
        cut: list[str] = []
        at = 0
        for original, text in zip(strings, decoded, strict=True):
            part = covered[at : at + len(text)]
            at += len(text)
            cut.append(self._cut(text, part) if any(part) else original)
        return _rebuild(doc, iter(cut)), True


def _strings(doc: Any) -> list[str]:
    """Every string of `doc` (object keys before their values), in document order."""
    out: list[str] = []
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            for key, value in reversed(item.items()):
                stack += (value, str(key))
        elif isinstance(item, list):
            stack += reversed(item)
    return out


def _rebuild(doc: Any, cut: Any) -> Any:
    if isinstance(doc, str):
        return next(cut)
    if isinstance(doc, dict):
        out = {}
        for value in doc.values():
            new_key = next(cut)
            out[new_key] = _rebuild(value, cut)
        return out
    if isinstance(doc, list):
        return [_rebuild(value, cut) for value in doc]
    return doc


__all__ = ["FRAGMENT", "KEY_ALPHABET", "MASK", "MAX_KEY_CHARS", "MIN_KEY_CHARS", "KeyMask", "key_problem"]
