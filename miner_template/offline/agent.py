"""ShopArena offline baseline agent: rule-based, no LLM.

``agent_main(problem)`` is the bundle's entry point; ``solve(problem, call)`` does the work with any callable that
behaves like ``arena_agent.call_tool`` (so it can be tested in-process against the real tools).

The strategy, per task:

- every task: the query is split into requested items; each item's price range and services become search filters,
  the rest of its words (minus filler) the search text. Candidates come from ``find_product`` (two pages, then a
  second query without the attribute names learnt from the first candidates) and are checked with
  ``view_product_information``: a candidate is scored by how much of the item's wording its attribute and SKU
  values (and, for the product noun, its title) explain, whether it meets the price and service filters (and sits
  where the query's price rule suggests the price is), how many query words its title shares, and how many other
  candidates look like listings of the same product model (a common model is the likelier one);
- shop: ``find_products_in_same_shop`` with the items' search texts proposes shops; each shop is scored by its best
  candidate per item (with an in-shop ``find_product`` to refine the leading shops);
- voucher: the best basket whose total fits the budget after the voucher (computed locally by the voucher's rules,
  then confirmed with ``calculate_voucher``), preferring a total just under the budget (the budget is the price
  after the voucher plus a little); cheaper matches are searched (``sort=priceasc``) when it does not fit; shop
  vouchers keep one shop, as shop tasks do;
- web: ``web_search`` the question, read the answer off the fact page, then look for the requested kind of product
  carrying that value in its title or description.

The answer is always recommended (the best candidate found, whatever happens) and the run terminated.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

#: Tool calls this agent allows itself per problem (recommend and terminate included).
MAX_CALLS = 40
#: Calls kept back for the final recommendation and termination.
RESERVE = 2
#: Seconds after which no more searching starts.
TIME_LIMIT = 150.0
VIEW_BATCH = 20
#: Score per other listing of the same product model among the candidates (the gold is likelier a common model).
SUPPORT_WEIGHT = 0.3
#: Score for a title holding the product noun as a phrase ("line laser", not "laser level ... lines").
HEAD_PHRASE_WEIGHT = 1.5
#: Score for a web task's candidate that the answer's value alone retrieves.
WEB_CORE_WEIGHT = 3.0
#: Penalty for a value the query names under another attribute than the product's.
KEY_MISMATCH_WEIGHT = 3.0
#: Score of an item a shop does not seem to sell (until an in-shop search finds it).
MISSING_PENALTY = -6.0
#: The same for web tasks, where the gold is one of the products that carry the answer's value.
WEB_SUPPORT_WEIGHT = 0.3
#: Score for a price where the query's price rule suggests the product's price is.
LIKELY_WEIGHT = 2.0
#: Score for a voucher basket whose total after the voucher is where the budget suggests.
WINDOW_WEIGHT = 3.0

SERVICE_MARKERS: dict[str, tuple[str, ...]] = {
    "official": ("lazmall", "official"),
    "freeShipping": ("free shipping", "free delivery", "ships for free", "no shipping fee"),
    "COD": ("cash on delivery", "pay on delivery", "cod"),
    "flashsale": ("lazflash", "flash sale"),
}

#: Words that never carry a constraint: glue, request phrasing, service and price wording, attribute-phrase words.
FILLER = frozenset("""
a an the and or of in on at to for with without from by as is are be it its that this these those one some any also
plus well then too so just i i'm im me my you your we can could would will please help find show get buy want need
like love looking look search searching shopping shop shops store stores seller sellers order purchase pick
recommend track down locate where what options option good do have market hunting after plan list build cart check
out put together d m ll s ve re requirements requirement specs must haves these following item items thing things
free shipping delivery ships fee cash cod pay payable supports eligible included lazmall official brand lazflash
flash sale deal deals discount currently available through service sold priced price prices range costing costs
cost php peso pesos under over above below least most more less than between up no cheaper made crafted material
size color colour family variant style look design pattern scent taste flavor suitable meant recommended age ages
produced country origin handmade craft occasions occasion wear sport make fitment compatible fits warranty comes
condition language written type category section department kind something same exact
""".split())

#: Leading words of a request ("I'm looking for", "Could you help me track down") before the product itself.
INTRO = frozenset("""
where can could i i'm im i'd id me you help find show get buy want need like love looking look search searching
shopping for to please recommend track down locate pick order purchase do have any good options what are my in the
market hunting after plan list build cart with check out put together an a would also and plus as well then once know
knowing that based on answer use it quick question first second third fourth just mind is there
""".split())

_NUM = r"(\d+(?:\.\d+)?)"
_CUR = r"(?:\s?(?:php|pesos?))?"
_PRICE_RANGE = re.compile(
    r"(?:(?:priced|costing|that costs|with a price range|with a price|a price range|a price|in the)\s)?"
    rf"(?:(?:between|from|at)\s)?₱?{_NUM}\s?(?:and|to|up to|-)\s?₱?{_NUM}{_CUR}(?:\sprice range)?")
_PRICE_BELOW = re.compile(
    r"(?:(?:priced|costing|that costs|for|with a price of|a price of)\s)?"
    rf"(?:under|less than|at most|no more than|below|up to)\s₱?{_NUM}{_CUR}")
_PRICE_ABOVE = re.compile(
    r"(?:(?:priced|costing|that costs|with a price of|a price of)\s)?"
    rf"(?:more than|above|over|at least|no cheaper than)\s₱?{_NUM}{_CUR}")
_CATEGORY = re.compile(r"\b(?:in|from) the ((?:[\w'&-]+,? ){0,5}?[\w'&-]+) (?:category|section|department)\b")
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

_VOUCHER_BUDGET = re.compile(r"budget is only `?([\d.]+)`?")
_VOUCHER_THRESHOLD = re.compile(r"exceeds `?([\d.]+)`?")
_VOUCHER_FIXED = re.compile(r"fixed discount of `?([\d.]+)`?")
_VOUCHER_PERCENT = re.compile(r"percentage discount of `?([\d.]+)%`?(?: with a cap of `?([\d.]+)`?)?")

#: Where fact pages state their value.
_FACT_PATTERNS = tuple(re.compile(p, re.IGNORECASE) for p in (
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
))
#: How a web query refers to the answer without naming it.
_ANAPHOR = re.compile(
    r"\b(?:(?:in|with|for|matching|to go with|made for|meant for|made of|made from|crafted from|of)\s)?"
    r"(?:that|the same|this)(?: exact)? (?:color|colour|material|flavor|flavour|sport|instrument|kind|"
    r"[a-z]+(?: [a-z]+)?(?= *[,.?!]| *$))\b")
_WEB_HEADS = re.compile(r"^(?:one|that instrument|an instrument of that kind|the same instrument|something)\b")


# ------------------------------------------------------------------------------------------------------ text helpers


_IRREGULAR = {"mice": "mouse", "knives": "knife", "feet": "foot", "teeth": "tooth", "men": "man", "women": "woman",
              "children": "child", "leaves": "leaf", "shelves": "shelf", "people": "person", "geese": "goose",
              "halves": "half", "wolves": "wolf", "loaves": "loaf"}


def _stem(word: str) -> str:
    w = word.lower()
    if w.endswith("'s"):
        w = w[:-2]
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ches", "shes", "xes", "sses", "zes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _value_pattern(value: str) -> re.Pattern[str] | None:
    v = " ".join(value.lower().split())
    if not v or not re.search(r"[a-z0-9]", v):
        return None
    return re.compile(r"(?<![a-z0-9])" + re.escape(v) + r"(?:s|es)?(?![a-z0-9])")


def _fmt(x: float) -> str:
    return str(int(round(x))) if abs(x - round(x)) < 1e-9 else f"{x:.2f}".rstrip("0").rstrip(".")


def _has_currency(text: str) -> bool:
    low = text.lower()
    return "₱" in low or "php" in low or "peso" in low


def _services_of(text: str) -> list[str]:
    low = text.lower()
    found = []
    for name, markers in SERVICE_MARKERS.items():
        for marker in markers:
            if re.search(r"(?<![a-z])" + re.escape(marker) + r"(?![a-z])", low):
                found.append(name)
                break
    return found


def _strip_intro(text: str) -> str:
    """Drop the request's leading words ("could you help me find a ...") up to the product itself."""
    words = text.split()
    i = 0
    while i < len(words) - 1 and re.sub(r"[^a-z']", "", words[i].lower()) in INTRO:
        i += 1
    return " ".join(words[i:])


class Item:
    """One requested product, as the query states it (a plain class: the bundle loader may not register the module,
    which dataclasses need)."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.text = ""  # lower-case wording with the price and category phrases removed
        self.head_end = 0  # text[:head_end] names the product itself (noun, maybe a colour or brand before it)
        self.lo: float | None = None
        self.hi: float | None = None
        self.services: list[str] = []
        self.query = ""  # the search words
        #: where the price most likely is: a price rule's bounds are drawn around the gold price
        self.likely: tuple[float, float] | None = None

    def __repr__(self) -> str:
        return f"Item(text={self.text!r}, head={self.text[:self.head_end]!r}, price={self.price}, " \
               f"service={self.service}, query={self.query!r})"

    @property
    def price(self) -> str | None:
        if self.lo is None and self.hi is None:
            return None
        return f"{_fmt(self.lo) if self.lo is not None else ''}-{_fmt(self.hi) if self.hi is not None else ''}"

    @property
    def service(self) -> str | None:
        return ",".join(self.services) or None


_HEAD_STOP = re.compile(
    r"[,;:(]|\.(?:\s|$)|\s(?:with|in|from|by|made|crafted|for|meant|suitable|recommended|produced|handmade|that|"
    r"priced|costing|under|below|over|eligible|payable|available|sold|on|currently|compatible|written|size|at|no|"
    r"of the|brand|color|pattern|style|material|pack size|requirements|specs|must-haves)\b")


def parse_item(raw: str) -> Item:
    item = Item(raw=raw)
    text = " " + " ".join(raw.replace("\n", " ").split()) + " "
    text = re.sub(r"\.\s*(?:requirements|must-haves|specs):", ", ", text, flags=re.IGNORECASE)
    text = re.sub(r"\bwith these requirements:", ", ", text, flags=re.IGNORECASE)
    low = text.lower()
    item.services = _services_of(low)
    for pattern, kind in ((_PRICE_RANGE, "range"), (_PRICE_BELOW, "below"), (_PRICE_ABOVE, "above")):
        if item.lo is not None or item.hi is not None:
            break
        for m in pattern.finditer(low):
            if not _has_currency(m.group(0)):
                continue
            if kind == "range":
                a, b = float(m.group(1)), float(m.group(2))
                item.lo, item.hi = min(a, b), max(a, b)
                item.likely = (max(item.lo / 0.951, (item.hi - 1) / 2.05), min((item.lo + 1) / 0.5, item.hi / 1.05))
            elif kind == "below":
                item.hi = float(m.group(1))
                item.likely = ((item.hi - 1) / 2.05, item.hi / 1.05)
            else:
                item.lo = float(m.group(1))
                item.likely = (item.lo / 0.951, (item.lo + 1) / 0.3)
            low = low[:m.start()] + " " + low[m.end():]
            break
    low = _CATEGORY.sub(" ", low)
    low = " ".join(low.split()).strip(" .?!")
    low = _strip_intro(low)
    item.text = low
    m = _HEAD_STOP.search(" " + low)
    item.head_end = max(0, m.start() - 1) if m else len(low)
    if item.head_end == 0:
        item.head_end = len(low)
    words = []
    for w in _tokens(low):
        if w not in words and w not in FILLER and (len(w) > 1 or w.isdigit()):
            words.append(w)
    item.query = " ".join(words) or " ".join(_tokens(raw)) or raw
    return item


def split_shop_items(query: str) -> list[str]:
    """The numbered items of a shop query: "(1) ... (2) ..." or "First, ... Second, ..."."""
    body = " ".join(query.split())
    if re.search(r"\(\d\)", body):
        parts = re.split(r"\(\d\)", body)[1:]
    else:
        parts = re.split(r"(?:^|[.;:!?]\s+)(?:first|second|third|fourth|fifth),\s", body, flags=re.IGNORECASE)[1:]
    if not parts:
        return [body]
    last = parts[-1]
    # the closing sentence ("The shop should sell all these products.") follows the last item
    cut = re.search(r"\.\s+(?:the|all|one|every|they|each|these|please|make)\b[^.]*(?:shop|seller|store)[^.]*\.?\s*$",
                    last, flags=re.IGNORECASE)
    if cut:
        parts[-1] = last[:cut.start()]
    return [p.strip(" ;.") for p in parts if p.strip(" ;.")]


def split_voucher_items(text: str) -> list[str]:
    body = " ".join(text.split()).strip()
    for joint in (r"\.\s+also, i need\s", r"\.\s+then i also want\s", r"\.\s+i also want\s"):
        m = re.search(joint, body, flags=re.IGNORECASE)
        if m:
            return [body[:m.start()]] + split_voucher_items(body[m.end():])
    if ";" in body:
        parts = body.split(";")
    else:
        parts = re.split(r",\s(?:and also|as well as)\s", body, maxsplit=1)
    out = []
    for p in parts:
        p = re.sub(r"^\s*(?:and also|and|plus|as well as|also)\s", "", p.strip(), flags=re.IGNORECASE)
        p = re.sub(r"\btogether\.?\s*$", "", p.strip()).strip(" .?")
        if p:
            out.append(p)
    return out or [body]


def parse_voucher(query: str) -> tuple[str, dict[str, Any] | None]:
    """(the items' text, the voucher as calculate_voucher takes it with the budget) from a voucher query."""
    cut = re.search(r"\s*my budget is only", query, flags=re.IGNORECASE)
    if not cut:
        return query, None
    items_text, block = query[:cut.start()], query[cut.start():]
    low = block.lower()
    budget = _VOUCHER_BUDGET.search(low)
    threshold = _VOUCHER_THRESHOLD.search(low)
    voucher: dict[str, Any] = {
        "voucher_type": "shop" if "same shop" in low else "platform",
        "threshold": float(threshold.group(1)) if threshold else 0.0,
        "budget": float(budget.group(1)) if budget else None,
    }
    fixed = _VOUCHER_FIXED.search(low)
    percent = _VOUCHER_PERCENT.search(low)
    if fixed:
        voucher.update(discount_type="fixed", face_value=float(fixed.group(1)))
    elif percent:
        voucher.update(discount_type="percentage", discount=float(percent.group(1)) / 100)
        if percent.group(2):
            voucher["cap"] = float(percent.group(2))
    else:
        voucher.update(discount_type="fixed", face_value=0.0)
    return items_text, voucher


def voucher_total(prices: list[float], one_shop: bool, voucher: dict[str, Any]) -> float:
    """The basket's total after the voucher, by ShoppingBench's rule (applies from total >= threshold)."""
    total = sum(prices)
    if voucher.get("voucher_type") == "shop" and not one_shop:
        return total
    if total < float(voucher.get("threshold") or 0):
        return total
    if voucher.get("discount_type") == "fixed":
        return total - min(total, float(voucher.get("face_value") or 0))
    after = total * (1 - float(voucher.get("discount") or 0))
    if voucher.get("cap") is not None:
        after = max(after, total - float(voucher["cap"]))
    return after


def voucher_window(voucher: dict[str, Any], one_item: bool) -> tuple[float, float] | None:
    """Where the basket's total after the voucher most likely lies (the budget is that plus up to 10%), or, for one
    item, where its price lies (inverting the voucher)."""
    budget = voucher.get("budget")
    if budget is None:
        return None
    lo, hi = (float(budget) - 2) / 1.1, float(budget)
    if not one_item:
        return lo, hi

    def before(after: float) -> float:
        if voucher.get("discount_type") == "fixed":
            return after + float(voucher.get("face_value") or 0)
        d = float(voucher.get("discount") or 0)
        full = after / (1 - d) if d < 1 else after
        return min(full, after + float(voucher["cap"])) if voucher.get("cap") is not None else full

    return before(lo), before(hi)


def fits_budget(prices: list[float], one_shop: bool, voucher: dict[str, Any]) -> bool:
    budget = voucher.get("budget")
    if budget is None:
        return True
    total = round(sum(prices), 2)
    return total <= budget + 1e-9 or round(voucher_total(prices, one_shop, voucher), 2) <= budget + 1e-9


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


# ------------------------------------------------------------------------------------------------------------ agent


class Agent:
    def __init__(self, problem: dict[str, Any], call: Callable[..., Any]) -> None:
        self.problem = problem
        self._call = call
        self.calls = 0
        self.started = time.monotonic()
        self.summaries: dict[str, dict[str, Any]] = {}
        self.details: dict[str, dict[str, Any]] = {}
        self.answer: list[str] = []
        self.exhausted = False
        self.errors: list[str] = []
        self._shown: dict[str, tuple[str, dict[str, set[str]]]] = {}
        self._same: dict[tuple[str, str], bool] = {}

    # --- tools

    def can_search(self, need: int = 1) -> bool:
        return (not self.exhausted and self.calls + need <= MAX_CALLS - RESERVE
                and time.monotonic() - self.started < TIME_LIMIT)

    def tool(self, name: str, final: bool = False, **arguments: Any) -> Any:
        """One tool call; None when it failed or the budget does not allow it (never raises)."""
        if self.exhausted or (not final and not self.can_search()) or self.calls >= MAX_CALLS:
            return None
        self.calls += 1
        try:
            return self._call(name, **{k: v for k, v in arguments.items() if v is not None})
        except Exception as exc:  # a ToolError, the budget (BudgetExhausted), the gateway: never crash
            if type(exc).__name__ == "BudgetExhausted":
                self.exhausted = True
            self.errors.append(f"{name}: {exc}"[:200])
            return None

    def search(self, q: str, page: int = 1, price: str | None = None, service: str | None = None,
               sort: str | None = None, shop_id: str | None = None) -> list[str]:
        if not q.strip():
            return []
        hits = self.tool("find_product", q=q, page=page, price=price, service=service, sort=sort, shop_id=shop_id)
        ids = []
        for hit in hits if isinstance(hits, list) else []:
            if isinstance(hit, dict) and hit.get("product_id"):
                pid = str(hit["product_id"])
                self.summaries.setdefault(pid, hit)
                ids.append(pid)
        return ids

    def view(self, ids: list[str]) -> None:
        missing = [p for p in dict.fromkeys(ids) if p not in self.details]
        for start in range(0, len(missing), VIEW_BATCH):
            batch = missing[start:start + VIEW_BATCH]
            got = self.tool("view_product_information", product_ids=",".join(batch))
            if not isinstance(got, list):
                continue
            for doc in got:
                if isinstance(doc, dict) and doc.get("product_id") and "error" not in doc:
                    self.details[str(doc["product_id"])] = doc

    def recommend(self, ids: list[str]) -> None:
        ids = [i for i in ids if i]
        if ids:
            self.answer = ids
            self.tool("recommend_product", final=True, product_ids=",".join(ids))

    # --- scoring

    def values_of(self, pid: str) -> dict[str, set[str]]:
        """The product's attribute and SKU values (normalised), each with the names of the keys that carry it."""
        doc = self.details.get(pid, {})
        values: dict[str, set[str]] = {}

        def add(key: Any, value: Any) -> None:
            v = " ".join(str(value).lower().split())
            if v:
                values.setdefault(v, set()).add(str(key).lower().replace("_", " ").replace("-", " "))

        for key, vs in (doc.get("attributes") or {}).items():
            for v in vs if isinstance(vs, list) else [vs]:
                add(key, v)
        for option in (doc.get("sku_options") or {}).values():
            if isinstance(option, dict):
                for key, v in option.items():
                    add(key, v)
        return values

    @staticmethod
    def adjacent_keys(text: str, start: int, end: int, keys: set[str]) -> set[str]:
        """The attribute names the query puts right by a value ("20 inches wheel size", "color: grey")."""
        after, before = text[end:end + 60], text[max(0, start - 60):start]
        found = set()
        for k in keys:
            if k not in after and k not in before:
                continue
            e = re.escape(k)
            if (re.match(r"\s+(?:as the )?" + e + r"(?![a-z0-9])", after)
                    or re.search(r"(?<![a-z0-9])" + e + r"\s*:\s*$", before)
                    or re.search(r"(?<![a-z0-9])" + e + r" of (?:an? )?$", before)):
                found.add(k)
        return {k for k in found if not any(k != o and k in o for o in found)}

    def keys_of(self, pid: str) -> set[str]:
        doc = self.details.get(pid, {})
        keys = {str(k) for k in (doc.get("attributes") or {})}
        for option in (doc.get("sku_options") or {}).values():
            if isinstance(option, dict):
                keys.update(str(k) for k in option)
        return {k.lower().replace("_", " ").replace("-", " ") for k in keys}

    def hard_ok(self, item: Item, pid: str) -> int:
        """How many of the item's price and service constraints the product fails (0 = all met)."""
        s = self.summaries.get(pid)
        if s is None:
            return 0
        fails = 0
        try:
            price = float(s.get("price"))
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

    def score(self, item: Item, pid: str, keys: set[str], rank: int = 0,
              adjacency: dict[tuple[int, int], set[str]] | None = None) -> tuple[float, int]:
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
                if not any(covered[m.start():m.end()]):
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
        matched = sum(1 for v in values if mark(_value_pattern(v), by_value[v]))
        head_covered = covered[:item.head_end]
        for key in sorted(keys, key=len, reverse=True):
            mark(_value_pattern(key))
        covered[:item.head_end] = head_covered  # an attribute's name is no product noun ("fruit", "fruits")
        title = str(self.summaries.get(pid, {}).get("title", ""))
        title_stems = {_stem(w) for w in _tokens(title)}
        unexplained = 0
        title_words = 0
        seen: set[str] = set()
        for m in _TOKEN.finditer(text):
            word = m.group(0)
            stem = _stem(word)
            in_title = stem in title_stems
            if word not in FILLER and stem not in seen:
                seen.add(stem)
                title_words += in_title
            if word in FILLER or all(covered[m.start():m.end()]):
                continue
            if m.start() < item.head_end and in_title:
                continue
            unexplained += 1
        fails = self.hard_ok(item, pid)
        value = (-3.0 * unexplained - 8.0 * fails - KEY_MISMATCH_WEIGHT * mismatched + 0.3 * matched
                 + 0.5 * title_words - 0.03 * rank)
        head = [_stem(w) for w in _tokens(text[:item.head_end]) if w not in FILLER]
        if len(head) >= 2:
            title_seq = " " + " ".join(_stem(w) for w in _tokens(title)) + " "
            if " " + " ".join(head[-2:]) + " " in title_seq:
                value += HEAD_PHRASE_WEIGHT
        if pid not in self.details:
            value -= 2.0
        return value, unexplained + fails + mismatched

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
            if key == "brand":
                continue
            for v in values if isinstance(values, list) else [values]:
                pattern = _value_pattern(str(v))
                if pattern is not None and pattern.search(title):
                    shown.setdefault(key, set()).add(" ".join(str(v).lower().split()))
        self._shown[pid] = (brand, shown)
        return brand, shown

    def same_model(self, a: str, b: str) -> bool:
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
        words_a = {_stem(w) for w in _tokens(str(self.summaries.get(a, {}).get("title", "")))}
        words_b = {_stem(w) for w in _tokens(str(self.summaries.get(b, {}).get("title", "")))}
        return len(words_a & words_b) >= 0.4 * min(len(words_a), len(words_b))

    def rank_item(self, item: Item, ids: list[str]) -> list[tuple[float, int, str]]:
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
                s += (WEB_SUPPORT_WEIGHT if self.problem.get("task") == "web" else SUPPORT_WEIGHT) * support
            if item.likely is not None:
                try:
                    price = float(self.summaries.get(pid, {}).get("price"))
                except (TypeError, ValueError):
                    price = -1.0
                if item.likely[0] <= price <= item.likely[1]:
                    s += LIKELY_WEIGHT
            ranked.append((s, bad, pid))
        ranked.sort(key=lambda t: -t[0])
        return ranked

    # --- per-item candidate search

    def candidates(self, item: Item, deep: bool = True, shop_id: str | None = None) -> list[str]:
        ids = self.search(item.query, 1, item.price, item.service, shop_id=shop_id)
        if not ids and (item.price or item.service):  # filters too strict for this wording: relax them
            ids = self.search(item.query, 1, shop_id=shop_id)
        if deep and len(ids) >= 10:
            ids += self.search(item.query, 2, item.price, item.service, shop_id=shop_id)
        self.view(ids)
        if deep and ids:
            ranked = self.rank_item(item, ids)
            if ranked and ranked[0][1] > 0:
                # the attribute names are no search words: query the values and the noun only
                keys: set[str] = set()
                for pid in ids:
                    keys |= self.keys_of(pid)
                key_words = {w for k in keys for w in k.split()}
                words = [w for w in item.query.split() if w not in key_words]
                if words and words != item.query.split():
                    more = self.search(" ".join(words), 1, item.price, item.service, shop_id=shop_id)
                    self.view(more)
                    ids += more
        return list(dict.fromkeys(ids))

    # --- tasks

    def solve(self) -> dict[str, Any]:
        task = str(self.problem.get("task") or "product")
        query = str(self.problem.get("query") or "")
        try:
            if task == "shop":
                self.solve_shop(query)
            elif task == "voucher":
                self.solve_voucher(query)
            elif task == "web":
                self.solve_web(query)
            else:
                self.solve_product(query)
        except Exception as exc:  # a bug of ours must not lose the answer found so far
            self.errors.append(f"agent: {type(exc).__name__}: {exc}"[:200])
        if not self.answer:
            try:
                self.fallback(query)
            except Exception as exc:
                self.errors.append(f"fallback: {type(exc).__name__}: {exc}"[:200])
        if not self.answer:
            self.answer = ["0"]
            self.tool("recommend_product", final=True, product_ids="0")
        self.tool("terminate", final=True, status="success")
        return {"recommended": self.answer, "calls": self.calls, "errors": self.errors[:5]}

    def fallback(self, query: str) -> None:
        """Anything at all: the best-known product, else the first hit of the query's words."""
        ids = list(self.summaries)
        if not ids and not self.exhausted and self.calls < MAX_CALLS - 1:
            words = [w for w in _tokens(query) if w not in FILLER][:12]
            hits = self.tool("find_product", final=True, q=" ".join(words) or query or "product")
            ids = [str(h["product_id"]) for h in hits or [] if isinstance(h, dict) and h.get("product_id")]
        if ids:
            n = self.problem.get("n_products")
            n = n if isinstance(n, int) and 1 <= n <= 10 else 1
            self.recommend((ids * n)[:n])

    def best_for(self, item: Item) -> list[tuple[float, int, str]]:
        ids = self.candidates(item)
        return self.rank_item(item, ids)

    def solve_product(self, query: str) -> None:
        item = parse_item(query)
        ranked = self.best_for(item)
        if ranked:
            self.recommend([ranked[0][2]])

    def solve_web(self, query: str) -> None:
        q = " ".join(query.split())
        q = re.sub(r"^quick question first:\s*", "", q, flags=re.IGNORECASE)
        cut = q.find("?")
        question, rest = (q[:cut + 1], q[cut + 1:]) if cut >= 0 else (q, q)
        pages = self.tool("web_search", q=question, max_results=5)
        value = fact_value(pages if isinstance(pages, list) else [], question)
        rest_low = " " + _strip_intro(rest.lower().strip(" .?!")) + " "
        rest_low = _ANAPHOR.sub(" ", rest_low)
        rest_low = _CATEGORY.sub(" ", rest_low)
        rest_low = _WEB_HEADS.sub(" ", _strip_intro(" ".join(rest_low.split())))
        item = parse_item(f"{value} {rest_low}" if value else rest_low)
        if value:
            item.head_end = len(item.text)
        # the products the value itself retrieves (where a product carrying it is most likely found), then the
        # value with the requested kind of product
        ids: list[str] = []
        core: set[str] = set()
        if value:
            for page in range(1, 6):
                got = self.search(value, page)
                ids += got
                if len(got) < 10 or not self.can_search(6):
                    break
            core = set(ids)
            self.view(ids)
        ids += self.candidates(item, deep=True)
        ranked = self.rank_item(item, ids)
        if value:
            def carries(pid: str) -> bool:
                doc = self.details.get(pid, {})
                text = " ".join((str(self.summaries.get(pid, {}).get("title", "")) + " "
                                 + str(doc.get("description", ""))).lower().split())
                return value in text

            ranked.sort(key=lambda t: -(t[0] + (20.0 if carries(t[2]) else 0.0)
                                        + (WEB_CORE_WEIGHT if t[2] in core else 0.0)))
        if ranked:
            self.recommend([ranked[0][2]])

    def solve_shop(self, query: str) -> None:
        items = [parse_item(t) for t in split_shop_items(query)]
        if len(items) < 2:
            self.solve_product(query)
            return
        chosen = self.one_shop_basket(items)
        if chosen and len(items) > len(chosen):  # more than the shop search takes: look in the chosen shop
            sid = str(self.summaries.get(chosen[0], {}).get("shop_id") or "") or None
            for item in items[len(chosen):]:
                ranked = self.rank_item(item, self.candidates(item, deep=False, shop_id=sid))
                chosen.append(ranked[0][2] if ranked else chosen[0])
        if chosen:
            self.recommend(chosen)

    def one_shop_basket(self, items: list[Item], voucher: dict[str, Any] | None = None) -> list[str]:
        """The best basket of one product per item, all from one shop."""
        items = items[:4]
        common = set(items[0].services)
        for it in items[1:]:
            common &= set(it.services)
        per_item: list[list[str]] = [[] for _ in items]
        shops: list[str] = []
        result = self.tool("find_products_in_same_shop", queries=[it.query for it in items],
                           service=",".join(sorted(common)) or None, max_shops=10, per_query=3)
        for shop in result if isinstance(result, list) else []:
            if not isinstance(shop, dict):
                continue
            sid = str(shop.get("shop_id"))
            if sid not in shops:
                shops.append(sid)
            for qi, match in enumerate((shop.get("matches") or [])[:len(items)]):
                for prod in match.get("products") or []:
                    if isinstance(prod, dict) and prod.get("product_id"):
                        pid = str(prod["product_id"])
                        self.summaries.setdefault(pid, prod)
                        per_item[qi].append(pid)
        # view the shops' products, the leading shops first
        order = {sid: i for i, sid in enumerate(shops)}
        pool = sorted({p for lst in per_item for p in lst},
                      key=lambda p: (order.get(str(self.summaries[p].get("shop_id")), 99), p))
        self.view(pool[:5 * VIEW_BATCH])

        def shop_plan(sid: str) -> tuple[float, list[str], list[int], str]:
            """(score, picks, unmet constraints per item, shop); a missing item has pick "" and counts as weak."""
            total = 0.0
            picks: list[str] = []
            bads: list[int] = []
            for i, item in enumerate(items):
                ids = [p for p in per_item[i] if str(self.summaries[p].get("shop_id")) == sid]
                ranked = self.rank_item(item, ids)
                if not ranked:
                    total += MISSING_PENALTY
                    bads.append(99)
                    picks.append("")
                    continue
                total += ranked[0][0]
                bads.append(ranked[0][1])
                picks.append(ranked[0][2])
            if voucher is not None and all(picks):
                prices = [float(self.summaries[p].get("price") or 0) for p in picks]
                total += self.window_bonus(prices, True, voucher)
                if not fits_budget(prices, True, voucher):
                    total -= 20.0
            return total, picks, bads, sid

        def plans(complete: bool) -> list[tuple[float, list[str], list[int], str]]:
            return sorted((p for p in map(shop_plan, shops) if all(p[1]) or not complete), key=lambda t: -t[0])

        ranked_plans = plans(complete=True)
        if ranked_plans:
            self.recommend(ranked_plans[0][1])
        ranked_plans = plans(complete=False)
        if not ranked_plans:
            # no shop covers every item: the best candidate of each item on its own
            basket = []
            for item in items:
                ranked = self.best_for(item)
                basket.append(ranked[0][2] if ranked else "")
            return [b for b in basket if b]
        # refine the leading shops with in-shop searches (with each item's own filters) for their weak items
        found_all: list[str] = []
        for _, _, bads, sid in ranked_plans[:3]:
            for i, item in enumerate(items):
                if bads[i] == 0 or not self.can_search(3):
                    continue
                found = self.search(item.query, 1, item.price, item.service, shop_id=sid)
                if not found and (item.price or item.service) and self.can_search(3):
                    found = self.search(item.query, 1, shop_id=sid)
                per_item[i] += found
                found_all += found
        self.view(found_all)
        ranked_plans = plans(complete=True)
        return ranked_plans[0][1] if ranked_plans else list(self.answer)

    def solve_voucher(self, query: str) -> None:
        items_text, voucher = parse_voucher(query)
        texts = split_voucher_items(items_text)
        items = [parse_item(t) for t in texts]
        if voucher is None:
            voucher = {"voucher_type": "platform", "threshold": 0.0, "discount_type": "fixed", "face_value": 0.0}
        if voucher.get("voucher_type") == "shop" and len(items) > 1:
            basket = self.one_shop_basket(items, voucher)
            if basket:
                self.recommend(basket)
                self.confirm(basket, voucher)
            return
        options: list[list[tuple[float, int, str]]] = []
        if len(items) == 1:  # the budget tells roughly what the product costs
            window = voucher_window(voucher, one_item=True)
            if window is not None and window[1] >= window[0] > 0:
                items[0].likely = window
        for item in items:
            ids = self.candidates(item) if self.can_search(2) else []
            if item.likely is not None and len(items) == 1 and self.can_search(2):
                lo, hi = item.likely
                span = f"{_fmt(max(0.0, lo * 0.98))}-{_fmt(hi * 1.02)}"
                more = self.search(item.query, 1, span, item.service)
                self.view(more)
                ids += more
            options.append(self.rank_item(item, ids)[:10])
        basket = self.pick_basket(options, voucher)
        if not basket:
            return
        self.recommend(basket)
        if self.confirm(basket, voucher) or not all(options):
            return
        # too dear: add the cheapest good matches of the items, the dearest item first, until a basket fits
        for i in sorted(range(len(items)), key=lambda k: -self.price_of(basket[k])):
            if not self.can_search(3):
                break
            cheap = self.search(items[i].query, 1, items[i].price, items[i].service, sort="priceasc")
            self.view(cheap)
            ranked = self.rank_item(items[i], [p for _, _, p in options[i]] + cheap)
            least_bad = min(r[1] for r in ranked)
            cheapest = sorted((r for r in ranked[6:] if r[1] <= least_bad + 1), key=lambda r: self.price_of(r[2]))
            options[i] = ranked[:6] + cheapest[:4]
            again = self.pick_basket(options, voucher)
            if again and again != basket:
                basket = again
                self.recommend(basket)
                if self.fits(basket, voucher):
                    break

    def price_of(self, pid: str) -> float:
        try:
            return float(self.summaries.get(pid, {}).get("price") or 0)
        except (TypeError, ValueError):
            return 0.0

    def fits(self, basket: list[str], voucher: dict[str, Any]) -> bool:
        shops = {self.summaries.get(p, {}).get("shop_id") for p in basket}
        return fits_budget([self.price_of(p) for p in basket], len(shops) == 1, voucher)

    def pick_basket(self, options: list[list[tuple[float, int, str]]], voucher: dict[str, Any]) -> list[str]:
        """The best-scoring basket (one option per item) that fits the budget; else the best one."""
        options = [o for o in options if o]
        if not options:
            return []
        best: tuple[float, list[str]] | None = None
        fallback: tuple[float, list[str]] | None = None

        def walk(i: int, score: float, picks: list[str]) -> None:
            nonlocal best, fallback
            if i == len(options):
                prices = [float(self.summaries[p].get("price") or 0) for p in picks]
                shops = {self.summaries[p].get("shop_id") for p in picks}
                score += self.window_bonus(prices, len(shops) == 1, voucher)
                if fits_budget(prices, len(shops) == 1, voucher):
                    if best is None or score > best[0]:
                        best = (score, list(picks))
                if fallback is None or score - 0.001 * sum(prices) > fallback[0]:
                    fallback = (score - 0.001 * sum(prices), list(picks))
                return
            for s, _, pid in options[i][: 10 if len(options) <= 3 else 6]:
                picks.append(pid)
                walk(i + 1, score + s, picks)
                picks.pop()

        walk(0, 0.0, [])
        if best is not None:
            return best[1]
        return fallback[1] if fallback else []

    @staticmethod
    def window_bonus(prices: list[float], one_shop: bool, voucher: dict[str, Any]) -> float:
        window = voucher_window(voucher, one_item=False)
        if window is None:
            return 0.0
        after = voucher_total(prices, one_shop, voucher)
        return WINDOW_WEIGHT if window[0] - 0.5 <= after <= window[1] + 0.5 else 0.0

    def confirm(self, basket: list[str], voucher: dict[str, Any]) -> bool:
        """Whether the basket fits the budget, by calculate_voucher (by the local rule when the tool fails)."""
        args = {k: v for k, v in voucher.items() if v is not None}
        got = self.tool("calculate_voucher", product_ids=",".join(basket), voucher=args) if self.can_search() else None
        if isinstance(got, dict) and got.get("within_budget") is not None:
            return bool(got["within_budget"])
        prices = [float(self.summaries.get(p, {}).get("price") or 0) for p in basket]
        shops = {self.summaries.get(p, {}).get("shop_id") for p in basket}
        return fits_budget(prices, len(shops) == 1, voucher)


def solve(problem: dict[str, Any], call: Callable[..., Any]) -> dict[str, Any]:
    """Solve one problem with ``call(name, **arguments)`` as the tool gateway; never raises."""
    try:
        return Agent(problem if isinstance(problem, dict) else {}, call).solve()
    except Exception as exc:  # the last line of defence
        return {"recommended": [], "error": f"{type(exc).__name__}: {exc}"[:200]}


def agent_main(problem: dict[str, Any]) -> dict[str, Any] | None:
    import arena_agent

    return solve(problem, arena_agent.call_tool)
