"""Shopping queries rendered from a problem's ground truth, in the style of ShoppingBench's synthesized queries.

The generator fixes the gold products and their constraints first; this module only puts them into words. It sees
a spec, never a product, so it cannot leak a title: every word it writes comes from the spec (noun, category names,
constraint values) or from the fixed phrase tables.

The pieces: this module renders whole queries per task (and the web tasks' knowledge questions, and the leak checks
they need); `arena.tasks.shopping.item_text` puts one requested item into words (its specs are defined there);
`arena.tasks.shopping.phrases` holds the wordings of one constraint; `arena.tasks.shopping.templates` the
query templates and `arena.tasks.shopping.english` the English helpers.

Guarantees a checker can rely on:

- every attribute value, SKU value and brand of an `ItemSpec` appears verbatim (case-insensitively) in the query;
- every service is stated with a phrase holding one of its `SERVICE_MARKERS`;
- price bounds are printed as plain numbers (integers without ``.0``, at most two decimals, no thousands separator);
- shop queries number their items "(1) ... (2) ..." or "First, ... Second, ..." and end with one of `SHOP_CLOSINGS`;
- voucher queries end with ShoppingBench's voucher block, character for character;
- web queries never state the knowledge value: a constraint carrying it is dropped from the wording and referred to
  ("in that color"), and a noun or category name that names it is not used (`ValueError` if nothing else is left
  to say about a stated constraint without naming it).

Deterministic: the only randomness is the `Rng` passed in, consumed in a fixed order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from arena.catalog import generator as gen
from arena.catalog.rng import Rng
from arena.tasks.shopping.english import capitalise, fmt_number, fmt_percent, plural
from arena.tasks.shopping.item_text import (
    ItemSpec,
    ItemText,
    KnowledgeSpec,
    VoucherSpec,
    build_item,
    categories,
    category_context,
    constraints,
    noun_phrase,
)
from arena.tasks.shopping.phrases import COLOR_KEYS, SERVICE_MARKERS, Phrase, humanise
from arena.tasks.shopping.templates import (
    FIND,
    NUMBER_WORDS,
    ORDINALS,
    PRODUCT_TEMPLATES,
    SHOP_CLOSINGS,
    SHOP_INTROS,
    VOUCHER_TEMPLATES,
    WANT,
    WEB_TEMPLATES,
)

#: what the generator and the checkers use from here, wherever it is defined
__all__ = [
    "ORDINALS",
    "SERVICE_MARKERS",
    "SHOP_CLOSINGS",
    "ItemSpec",
    "KnowledgeSpec",
    "VoucherSpec",
    "fmt_number",
    "fmt_percent",
    "knowledge_question",
    "mentions",
    "plural",
    "render_product_query",
    "render_shop_query",
    "render_voucher_query",
    "render_web_query",
    "voucher_block",
]

# ------------------------------------------------------------------------------------------------- leak detection


def _word_pattern(values: Sequence[str]) -> re.Pattern[str] | None:
    alts = sorted({re.escape(v.strip().lower()) for v in values if v.strip()}, key=len, reverse=True)
    if not alts:
        return None
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(alts) + r")(?:s|es)?(?![a-z0-9])")


def mentions(text: str, value: str) -> bool:
    """Whether ``text`` names ``value`` as a word (plural allowed): "Violins" names "violin", "Tanaw" not "tan"."""
    pattern = _word_pattern([value])
    return pattern is not None and pattern.search(text.lower()) is not None


@lru_cache(maxsize=64)
def _known_values(attribute_key: str) -> re.Pattern[str] | None:
    """Every value the catalog's taxonomy has for ``attribute_key`` (for "instrument": the instrument nouns)."""
    values: set[str] = set()
    for leaf in gen.leaves():
        if attribute_key == "instrument":
            if leaf.top == "Musical Instruments":
                values.update(n for n in leaf.nouns if len(n.split()) <= 2)
        else:
            values.update(leaf.schema.get(attribute_key, ()))
    return _word_pattern(sorted(values))


# ---------------------------------------------------------------------------------------------------- task queries


def render_product_query(item: ItemSpec, rng: Rng) -> str:
    """One product: "Show me Toyota back door buffer pads with LazFlash deals, priced from 101 to 430 PHP."."""
    built = build_item(item, rng, plural_ok=True)
    usable = [t for t, split in PRODUCT_TEMPLATES if not split or built.rest or built.lead]
    template = rng.pick(usable)
    inline = built.inline(rng) if "{item}" in template else ""
    text = template.format(
        item=inline, head=built.head, details=built.listed(), find=rng.pick(FIND), want=rng.pick(WANT)
    )
    return capitalise(text)


def render_shop_query(items: list[ItemSpec], rng: Rng) -> str:
    """2-4 products of one shop, numbered, then a closing sentence from `SHOP_CLOSINGS`."""
    if not 2 <= len(items) <= 4:
        raise ValueError(f"a shop query lists 2-4 items, got {len(items)}")
    texts = [build_item(it, rng, plural_ok=False).inline(rng) for it in items]
    intro = rng.pick(SHOP_INTROS).format(n=NUMBER_WORDS[len(items)])
    style = rng.below(4)
    if style == 0:
        body = "; ".join(f"({i + 1}) {t}" for i, t in enumerate(texts)) + "."
    elif style == 1:
        body = " ".join(f"({i + 1}) {capitalise(t)}." for i, t in enumerate(texts))
    elif style == 2:
        body = " ".join(f"{ORDINALS[i]}, {t}." for i, t in enumerate(texts))
    else:
        body = "; ".join(f"{ORDINALS[i] if i == 0 else ORDINALS[i].lower()}, {t}" for i, t in enumerate(texts)) + "."
    return f"{intro} {body} {rng.pick(SHOP_CLOSINGS)}"


def voucher_block(voucher: VoucherSpec) -> str:
    """ShoppingBench's budget-and-voucher paragraph, exactly (it starts with the blank line)."""
    if voucher.voucher_type == "platform":
        scope = "The voucher applies to all products."
    elif voucher.voucher_type == "shop":
        scope = "The voucher only applies to the products from the same shop."
    else:
        raise ValueError(f"unknown voucher type {voucher.voucher_type!r}")
    if voucher.discount_type == "fixed":
        if voucher.face_value is None:
            raise ValueError("a fixed voucher needs a face value")
        benefit = f"It provides a fixed discount of `{fmt_number(voucher.face_value)}`."
    elif voucher.discount_type == "percentage":
        if voucher.discount is None:
            raise ValueError("a percentage voucher needs a discount")
        cap = "" if voucher.cap is None else f" with a cap of `{fmt_number(voucher.cap)}`"
        benefit = f"It provides a percentage discount of `{fmt_percent(voucher.discount)}`{cap}."
    else:
        raise ValueError(f"unknown discount type {voucher.discount_type!r}")
    return (
        f"\n\nMy budget is only `{fmt_number(voucher.budget)}`, but I have a voucher with the following rules:\n"
        f"1. {scope}\n"
        f"2. It is valid only when the total price of the products exceeds `{fmt_number(voucher.threshold)}`.\n"
        f"3. {benefit}"
    )


def _join_items(texts: Sequence[str], rng: Rng) -> str:
    """Whole items joined so that the joints stand out from the "and"s inside each item."""
    if len(texts) == 1:
        return texts[0]
    sep, last = rng.pick(
        [(", ", ", and also "), ("; ", "; and "), (", ", ", as well as "), ("; ", "; plus "), ("; ", "; and also ")]
    )
    if len(texts) > 2:  # items carry commas of their own
        sep, last = "; ", "; " + last.lstrip(",; ")
    return sep.join(texts[:-1]) + last + texts[-1]


def render_voucher_query(items: list[ItemSpec], voucher: VoucherSpec, rng: Rng) -> str:
    """1-4 products, then the voucher block (`voucher_block`) last."""
    if not 1 <= len(items) <= 4:
        raise ValueError(f"a voucher query lists 1-4 items, got {len(items)}")
    block = voucher_block(voucher)
    texts = [build_item(it, rng, plural_ok=False).inline(rng) for it in items]
    template = rng.pick([t for t, least in VOUCHER_TEMPLATES if len(items) >= least])
    if "{items}" in template:
        text = template.format(items=_join_items(texts, rng))
    else:
        text = template.format(first=texts[0], rest=_join_items(texts[1:], rng))
    return capitalise(text) + block


_ANAPHORS: dict[str, tuple[str, ...]] = {
    "color_family": ("in that color", "in the same color", "in that exact color"),
    "color": ("in that color", "in the same color", "in that exact color"),
    "material": ("made of that material", "crafted from the same material", "made from that material"),
    "flavor": ("in that flavor", "with that flavor", "in the same flavor"),
    "sport": ("for that sport", "made for that sport", "meant for the same sport"),
    "instrument": ("for that instrument", "to go with that instrument", "made for that instrument"),
}


def _strip_values(noun: str, pattern: re.Pattern[str]) -> str | None:
    """``noun`` without the words ``pattern`` matches, if its head word survives ("guitar capo" -> "capo");
    "" when the whole noun is a value ("acoustic guitar"), None when the head word itself is one."""
    low = noun.lower()
    matches = list(pattern.finditer(low))
    if not matches:
        return noun
    last_start = len(low.rstrip()) - len(low.split()[-1]) if low.split() else 0
    if any(m.end() > last_start for m in matches):
        rest = pattern.sub(" ", low)
        return "" if not re.search(r"[a-z]", rest) else None
    rest = re.sub(r"\s+", " ", pattern.sub(" ", noun)).strip(" -")
    rest = re.sub(r"^(?:and|of|for|with|-)\s+", "", rest)
    return rest if re.search(r"[a-z]", rest.lower()) else ""


def render_web_query(item: ItemSpec, knowledge: KnowledgeSpec, rng: Rng, answer: str | None = None) -> str:
    """The knowledge question, then a request for a product with the answer's trait, never naming the answer.

    The answer is ``answer`` when given, else the value of the item's attribute or SKU option keyed
    ``knowledge.attribute_key`` (that constraint is then referred to, not stated). When neither is known, every value
    the taxonomy has for the key counts as a possible answer for the noun and category words.
    """
    key = knowledge.attribute_key.strip().lower()
    if answer is None:
        answer = next((v for k, v in item.attributes + item.sku if k.lower() == key), None)
    if answer is not None and mentions(knowledge.question, answer):
        raise ValueError("the knowledge question names its own answer")
    avoid = _word_pattern([answer]) if answer else _known_values(key)

    def ok(text: str) -> bool:
        return answer is None or not mentions(text, answer)

    def safe(text: str) -> bool:
        return avoid is None or avoid.search(text.lower()) is None

    skip_pair: Callable[[str, str], bool] = (
        (lambda k, v: k.lower() == key and v.lower() == answer.lower()) if answer else (lambda k, v: False)
    )
    noun = item.noun.strip()
    kept = _strip_values(noun, avoid) if avoid is not None else noun
    pre, phrases = constraints(item, rng, skip=skip_pair, ok=ok, prefer=safe, allow_pre=bool(kept))
    hk = "color" if key in COLOR_KEYS else humanise(key)
    anaphors = _ANAPHORS.get(key, (f"with that {hk}", f"with the same {hk}", f"matching that {hk}"))
    top, _, _ = categories(item.category)
    lead: list[Phrase] = []
    if kept:
        head = noun_phrase(kept, pre, plural_form=False)
        lead.append(("", rng.pick(anaphors)))
        context = category_context(item, kept, safe)
        if context and rng.chance(0.2):
            lead.append(rng.pick(context))
    elif key == "instrument":  # the noun is the instrument itself: "I'd like to buy one"
        head = rng.pick(["one", "that instrument", "an instrument of that kind", "the same instrument"])
        if top and safe(top) and rng.chance(0.3):
            lead.append(("", f"from the {top.lower()} category"))
    else:
        contexts = [c.lower() for c in reversed(categories(item.category)) if c and safe(c)]
        head = f"something from the {contexts[0]} category" if contexts else "something"
        lead.append(("", rng.pick(anaphors)))
    built = ItemText(head, lead, phrases)
    question = knowledge.question.strip()
    return rng.pick(WEB_TEMPLATES).format(q=question, item=built.inline(rng))


# ---------------------------------------------------------------------------------------------- knowledge questions

_QUESTIONS: dict[str, tuple[str, ...]] = {
    "instrument": (
        "Which instrument is {e} best known for playing?",
        "What instrument does {e} play?",
        "What instrument is the musician {e} famous for?",
        "Which instrument does {e} play?",
        "What is the main instrument of the musician {e}?",
    ),
    "sport": (
        "What sport does {e} compete in?",
        "In which sport does the athlete {e} compete?",
        "Which sport is {e} a professional athlete in?",
        "What sport does {e} play professionally?",
    ),
    "flavor": (
        "What flavor is {e} famous for?",
        "Which flavor is {e} best known for?",
        "What is the signature flavor of {e}?",
        "What flavor are the local treats of {e} known for?",
    ),
    "material": (
        "What material are the crafts of {e} made of?",
        "Which material do the artisans of {e} work with?",
        "What are the handicrafts of {e} made from?",
        "What material is {e} known for in its crafts?",
    ),
    "color_family": (
        "What color are the home jerseys of {the}{e}?",
        "Which color do {the}{e} wear at home games?",
        "What is the home color of {the}{e}?",
        "What color do {the}{e} play in at home?",
    ),
}
_RELATION_KEYS = {
    "plays": "instrument",
    "competes in": "sport",
    "is famous for the flavor": "flavor",
    "is known for crafts made of": "material",
    "wears the home color": "color_family",
}


def knowledge_question(entity: str, entity_type: str, relation: str, attribute_key: str, rng: Rng) -> str:
    """A natural question whose answer is the fact's value (which the question never contains)."""
    key = attribute_key.strip().lower()
    if key not in _QUESTIONS:
        key = _RELATION_KEYS.get(relation.strip().lower(), key)
    the = "the " if entity_type == "team" and not entity.lower().startswith("the ") else ""
    if key == "color_family" and entity_type != "team":
        options: Sequence[str] = ("What color is {e} known for?", "Which color is {e} associated with?")
    elif key in _QUESTIONS:
        options = _QUESTIONS[key]
    else:
        hk = humanise(key)
        options = (f"What {hk} is {{e}} known for?", f"Which {hk} is {{e}} associated with?")
    return rng.pick(options).format(e=entity, the=the)
