"""Every form a key may be reflected in, for tests that grep for it: whole, in any case, percent-encoded, as HTML
entities, JSON-escaped, base64-encoded, and any piece of 8 characters or more (`arena.keymask.FRAGMENT`) of the text
once decoded."""

from __future__ import annotations

import base64
import html
from urllib.parse import unquote

from arena.keymask import FRAGMENT


def percent(key: str) -> str:
    return "".join(f"%{ord(c):02X}" for c in key)


def entities(key: str) -> str:
    return "".join(f"&#{ord(c)};" for c in key)


def escaped(key: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in key)


def leaks(data: bytes | str, key: str) -> list[str]:
    """The forms of `key` found in `data` ([] when none is)."""
    text = data.decode("latin-1") if isinstance(data, bytes) else data
    found = [
        name
        for name, form in (("percent", percent(key)), ("entities", entities(key)), ("escaped", escaped(key)))
        if form.lower() in text.lower()
    ]
    decoded = html.unescape(unquote(unquote(text))).lower()
    folded = key.lower()
    pieces = {folded[i : i + FRAGMENT] for i in range(len(folded) - FRAGMENT + 1)}
    found += [f"piece {p!r}" for p in sorted(pieces) if p in decoded]
    for offset in range(3):  # base64 at each alignment: the part that reads the same, less a character each end
        core = base64.b64encode(b"~" * offset + key.encode()).decode()[offset + 1 : -4]
        found += [f"base64 {core!r}" for form in (core, core.replace("+", "-").replace("/", "_")) if form in text]
    return found
