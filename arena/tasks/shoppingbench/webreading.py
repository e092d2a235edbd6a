"""What a reader learns from the web pages a ``web_search`` returns: the value a page states as the answer to a
web problem's question. The tool-visible oracle (`arena.tasks.shoppingbench.fairness`) reads it here instead of the
answer key, so a problem whose true page cannot be told from a near miss by its text fails the oracle.

Two layouts are read: the rebuild's fact pages (`arena.tasks.shopping.webknowledge`: the question turned into a
statement with the value in the answer's place) and the generated corpus's fact pages (`arena.catalog.webcorpus`:
a template about the entity the question names, `arena.catalog.webcorpus.FACT_KINDS`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Any

from arena.catalog.webcorpus import FACT_KINDS
from arena.tasks.shopping.webknowledge import knowledge_question, statement

_HOLE = "\x00"
#: a value: no sentence end inside it
_VALUE = r"((?:(?!\. ).)+?)"


def _statement_pattern(question: str) -> re.Pattern[str]:
    """The rebuild's statement of ``question`` with the value as the one group; the statement ends where a
    sentence does (a value with a point in it, "1.65" or "6.", is read whole, not up to its first point)."""
    prefix, _, suffix = statement(question, _HOLE).partition(_HOLE)
    return re.compile(r"(?:^|(?<=[.!?] ))" + re.escape(prefix) + _VALUE + re.escape(suffix) + r"(?=\s|$)")


@cache
def _template_patterns() -> list[re.Pattern[str]]:
    """The generated corpus's page templates, with the entity's name and the value as groups."""
    out = []
    for kind in FACT_KINDS:
        for template in kind.templates:
            parts = re.split(r"\{(\w+)\}", template)
            regex, seen = "^", set()
            for i, part in enumerate(parts):
                if i % 2 == 0:
                    regex += re.escape(part)
                elif part in ("name", "value"):
                    regex += f"(?P={part})" if part in seen else f"(?P<{part}>.+?)"
                    seen.add(part)
                else:
                    regex += ".+?"
            out.append(re.compile(regex + "$"))
    return out


def read_values(query: str, pages: Iterable[dict[str, Any]]) -> list[str]:
    """The distinct values the pages state as the answer to the query's question, first found first (one value
    when the pages are fair; none or several when the text cannot tell the true page from the others)."""
    question = knowledge_question(query)
    pattern = _statement_pattern(question)
    pages = list(pages)
    found: dict[str, str] = {}
    for page in pages:  # the rebuild's statements first
        m = pattern.search(str(page.get("content", "")))
        if m:
            found.setdefault(m.group(1).lower(), m.group(1))
    if not found:  # the generated corpus's pages else: those about the entity the question names
        named = [hit for page in pages if (hit := _templated(question, page))]
        for name, value in named:
            if not any(len(other) > len(name) and name.lower() in other.lower() for other, _ in named):
                found.setdefault(value.lower(), value)
    return list(found.values())


def _templated(question: str, page: dict[str, Any]) -> tuple[str, str] | None:
    """(the entity the page is about, the value it states) when the question names that entity. A town's page
    ("Bukid Hills") is named by a question about the town's team too ("the Bukid Hills Typhoons"): `read_values`
    drops a page whose entity's name lies inside a longer name another page matched."""
    content = str(page.get("content", ""))
    for template in _template_patterns():
        t = template.match(content)
        if not t:
            continue
        name = t.groupdict().get("name") or str(page.get("title", "")).split(" - ")[0]
        if name and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", question, re.I):
            return name, t.group("value")
    return None
