"""How well a viewed product fits a requested item: the `Ranker` scores each candidate by how much of the item's
wording its attribute and SKU values (and, for the product noun, its title) explain, whether it meets the price and
service filters (and sits where the query's price rule suggests the price is), how many query words its title
shares, and how many other candidates look like listings of the same product model (a common model is the likelier
one). A listing's tags (`TAG_KEYS`) are search keywords, not statements about the product: they never explain a
constraint."""

from __future__ import annotations

import re
from typing import Any

from baseline.query import Item
from baseline.text import FILLER, TOKEN, stem, tokens, value_pattern

#: Score per other listing of the same product model among the candidates (the gold is likelier a common model).
SUPPORT_WEIGHT = 0.3
#: The same for web tasks, where the gold is one of the products that carry the answer's value.
WEB_SUPPORT_WEIGHT = 0.3
#: Score for a title holding the product noun as a phrase ("line laser", not "laser level ... lines").
HEAD_PHRASE_WEIGHT = 1.5
#: Penalty for a value the query names under another attribute than the product's.
KEY_MISMATCH_WEIGHT = 3.0
#: Score for a price where the query's price rule suggests the product's price is.
LIKELY_WEIGHT = 2.0

#: Attribute names that hold a listing's search tags: keywords the seller added, not statements about the product
#: (a near miss may be tagged with the very value it lacks), so they never meet a constraint.
TAG_KEYS = ("tags", "listing_tags", "keywords")

#: (score, unmet constraints, product id), best first: what ranking an item's candidates gives.
Ranked = list[tuple[float, int, str]]


class Ranker:
    """Scores candidates from what the run has seen: ``summaries`` (search hits: title, price, shop, services) and
    ``details`` (viewed products: attributes, SKU options, description), both keyed by product id."""

    def __init__(self, summaries: dict[str, dict[str, Any]], details: dict[str, dict[str, Any]], web: bool) -> None:
        self.summaries = summaries
        self.details = details
        self.support_weight = WEB_SUPPORT_WEIGHT if web else SUPPORT_WEIGHT
        self._shown: dict[str, tuple[str, dict[str, set[str]]]] = {}
        self._same: dict[tuple[str, str], bool] = {}

    def rank_item(self, item: Item, ids: list[str]) -> Ranked:
        """The candidates scored for the item, best first."""
        keys: set[str] = set()
        ids = list(dict.fromkeys(ids))
        for pid in ids:
            keys |= self.keys_of(pid)
        ranked = []
        viewed = [p for p in ids if p in self.details]
        adjacency: dict[tuple[int, int], set[str]] = {}
        for rank, pid in enumerate(ids):
            s, bad = self.score(item, pid, keys, rank, adjacency)
            if pid in self.details:
                support = sum(1 for q in viewed if q != pid and self.same_model(pid, q))
                s += self.support_weight * support
            if item.likely is not None:
                listed: Any = self.summaries.get(pid, {}).get("price")  # None or garbage: no likely price
                try:
                    price = float(listed)
                except (TypeError, ValueError):
                    price = -1.0
                if item.likely[0] <= price <= item.likely[1]:
                    s += LIKELY_WEIGHT
            ranked.append((s, bad, pid))
        ranked.sort(key=lambda t: -t[0])
        return ranked

    # --- what a product says about itself

    def values_of(self, pid: str) -> dict[str, set[str]]:
        """The product's attribute and SKU values (normalised), each with the names of the keys that carry it."""
        doc = self.details.get(pid, {})
        values: dict[str, set[str]] = {}

        def add(key: Any, value: Any) -> None:
            v = " ".join(str(value).lower().split())
            if v:
                values.setdefault(v, set()).add(str(key).lower().replace("_", " ").replace("-", " "))

        for key, vs in (doc.get("attributes") or {}).items():
            if str(key).lower().endswith(TAG_KEYS):
                continue
            for v in vs if isinstance(vs, list) else [vs]:
                add(key, v)
        for option in (doc.get("sku_options") or {}).values():
            if isinstance(option, dict):
                for key, v in option.items():
                    add(key, v)
        return values

    def keys_of(self, pid: str) -> set[str]:
        """The product's attribute and SKU option names (normalised: "wheel size", not "wheel_size")."""
        doc = self.details.get(pid, {})
        keys = {str(k) for k in (doc.get("attributes") or {}) if not str(k).lower().endswith(TAG_KEYS)}
        for option in (doc.get("sku_options") or {}).values():
            if isinstance(option, dict):
                keys.update(str(k) for k in option)
        return {k.lower().replace("_", " ").replace("-", " ") for k in keys}

    @staticmethod
    def adjacent_keys(text: str, start: int, end: int, keys: set[str]) -> set[str]:
        """The attribute names the query puts right by a value ("20 inches wheel size", "color: grey")."""
        after, before = text[end : end + 60], text[max(0, start - 60) : start]
        found = set()
        for k in keys:
            if k not in after and k not in before:
                continue
            e = re.escape(k)
            if (
                re.match(r"\s+(?:as the )?" + e + r"(?![a-z0-9])", after)
                or re.search(r"(?<![a-z0-9])" + e + r"\s*:\s*$", before)
                or re.search(r"(?<![a-z0-9])" + e + r" of (?:an? )?$", before)
            ):
                found.add(k)
        return {k for k in found if not any(k != o and k in o for o in found)}

    def hard_ok(self, item: Item, pid: str) -> int:
        """How many of the item's price and service constraints the product fails (0 = all met)."""
        s = self.summaries.get(pid)
        if s is None:
            return 0
        fails = 0
        listed: Any = s.get("price")
        try:
            price: float | None = float(listed)
        except (TypeError, ValueError):
            price = None
        if price is not None:
            if item.lo is not None and price < item.lo - 1e-9:
                fails += 1
            if item.hi is not None and price > item.hi + 1e-9:
                fails += 1
        have = set(s.get("service") or [])
        fails += sum(1 for sv in item.services if sv not in have)
        return fails

    # --- the score

    def score(
        self,
        item: Item,
        pid: str,
        keys: set[str],
        rank: int = 0,
        adjacency: dict[tuple[int, int], set[str]] | None = None,
    ) -> tuple[float, int]:
        """(score, unmet constraints): how well the product's values and title explain the item's wording."""
        text = item.text
        covered = [False] * len(text)
        adjacency = {} if adjacency is None else adjacency
        mismatched = 0

        def mark(pattern: re.Pattern[str] | None, value_keys: set[str] | None = None) -> int:
            nonlocal mismatched
            hits = 0
            if pattern is None:
                return 0
            for m in pattern.finditer(text):
                if not any(covered[m.start() : m.end()]):
                    hits += 1
                    if value_keys is not None:
                        span = (m.start(), m.end())
                        if span not in adjacency:
                            adjacency[span] = self.adjacent_keys(text, m.start(), m.end(), keys)
                        named = adjacency[span]
                        if named and not named & value_keys:
                            mismatched += 1  # the right value under another attribute ("kids wheel size")
                for i in range(m.start(), m.end()):
                    covered[i] = True
            return hits

        by_value = self.values_of(pid)
        values = sorted(by_value, key=len, reverse=True)
        matched = sum(1 for v in values if mark(value_pattern(v), by_value[v]))
        head_covered = covered[: item.head_end]
        for key in sorted(keys, key=len, reverse=True):
            mark(value_pattern(key))
        covered[: item.head_end] = head_covered  # an attribute's name is no product noun ("fruit", "fruits")
        title = str(self.summaries.get(pid, {}).get("title", ""))
        unexplained, title_words = _unexplained(item, covered, {stem(w) for w in tokens(title)})
        fails = self.hard_ok(item, pid)
        value = (
            -3.0 * unexplained
            - 8.0 * fails
            - KEY_MISMATCH_WEIGHT * mismatched
            + 0.3 * matched
            + 0.5 * title_words
            - 0.03 * rank
        )
        head = [stem(w) for w in tokens(text[: item.head_end]) if w not in FILLER]
        if len(head) >= 2:
            title_seq = " " + " ".join(stem(w) for w in tokens(title)) + " "
            if " " + " ".join(head[-2:]) + " " in title_seq:
                value += HEAD_PHRASE_WEIGHT
        if pid not in self.details:
            value -= 2.0
        return value, unexplained + fails + mismatched

    # --- listings of one product model

    def shown(self, pid: str) -> tuple[str, dict[str, set[str]]]:
        """(brand, the attribute values its title shows): what one product model's listings share."""
        if pid in self._shown:
            return self._shown[pid]
        doc = self.details.get(pid, {})
        attrs = doc.get("attributes") or {}
        title = " ".join(str(self.summaries.get(pid, {}).get("title", "")).lower().split())
        brand = " ".join(str((attrs.get("brand") or [""])[0]).lower().split())
        shown: dict[str, set[str]] = {}
        for key, values in attrs.items():
            if key == "brand" or str(key).lower().endswith(TAG_KEYS):
                continue
            for v in values if isinstance(values, list) else [values]:
                pattern = value_pattern(str(v))
                if pattern is not None and pattern.search(title):
                    shown.setdefault(key, set()).add(" ".join(str(v).lower().split()))
        self._shown[pid] = (brand, shown)
        return brand, shown

    def same_model(self, a: str, b: str) -> bool:
        """Whether two listings look like the same product model (same brand, the values their titles show, and
        most title words)."""
        key = (a, b) if a < b else (b, a)
        if key not in self._same:
            self._same[key] = self._same_model(a, b)
        return self._same[key]

    def _same_model(self, a: str, b: str) -> bool:
        brand_a, shown_a = self.shown(a)
        brand_b, shown_b = self.shown(b)
        if brand_a != brand_b:
            return False
        attrs_a = self.details.get(a, {}).get("attributes") or {}
        attrs_b = self.details.get(b, {}).get("attributes") or {}
        for shown, other in ((shown_a, attrs_b), (shown_b, attrs_a)):
            for key, values in shown.items():
                have = {" ".join(str(v).lower().split()) for v in other.get(key) or []}
                if not values <= have:
                    return False
        words_a = {stem(w) for w in tokens(str(self.summaries.get(a, {}).get("title", "")))}
        words_b = {stem(w) for w in tokens(str(self.summaries.get(b, {}).get("title", "")))}
        return len(words_a & words_b) >= 0.4 * min(len(words_a), len(words_b))


def _unexplained(item: Item, covered: list[bool], title_stems: set[str]) -> tuple[int, int]:
    """(the item's words no value explains, and no title word explains within the product noun; the item's
    distinct words its title shares)."""
    unexplained = 0
    title_words = 0
    seen: set[str] = set()
    for m in TOKEN.finditer(item.text):
        word = m.group(0)
        word_stem = stem(word)
        in_title = word_stem in title_stems
        if word not in FILLER and word_stem not in seen:
            seen.add(word_stem)
            title_words += in_title
        if word in FILLER or all(covered[m.start() : m.end()]):
            continue
        if m.start() < item.head_end and in_title:
            continue
        unexplained += 1
    return unexplained, title_words
