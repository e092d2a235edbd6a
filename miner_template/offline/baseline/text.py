"""Words: the query's tokens and stems, the words that never carry a constraint, and how services are named."""

from __future__ import annotations

import re

SERVICE_MARKERS: dict[str, tuple[str, ...]] = {
    "official": ("lazmall", "official"),
    "freeShipping": ("free shipping", "free delivery", "ships for free", "no shipping fee"),
    "COD": ("cash on delivery", "pay on delivery", "cod"),
    "flashsale": ("lazflash", "flash sale"),
}

#: Words that never carry a constraint: glue, request phrasing, service and price wording, attribute-phrase words.
FILLER = frozenset(
    """
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
""".split()
)

#: Leading words of a request ("I'm looking for", "Could you help me track down") before the product itself.
INTRO = frozenset(
    """
where can could i i'm im i'd id me you help find show get buy want need like love looking look search searching
shopping for to please recommend track down locate pick order purchase do have any good options what are my in the
market hunting after plan list build cart with check out put together an a would also and plus as well then once know
knowing that based on answer use it quick question first second third fourth just mind is there
""".split()
)

#: A category phrase ("in the kitchen & dining category"), dropped from an item's wording.
CATEGORY = re.compile(r"\b(?:in|from) the ((?:[\w'&-]+,? ){0,5}?[\w'&-]+) (?:category|section|department)\b")
TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

_IRREGULAR = {
    "mice": "mouse",
    "knives": "knife",
    "feet": "foot",
    "teeth": "tooth",
    "men": "man",
    "women": "woman",
    "children": "child",
    "leaves": "leaf",
    "shelves": "shelf",
    "people": "person",
    "geese": "goose",
    "halves": "half",
    "wolves": "wolf",
    "loaves": "loaf",
}


def stem(word: str) -> str:
    """The word without its plural ending ("boxes" -> "box", "mice" -> "mouse")."""
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


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


def value_pattern(value: str) -> re.Pattern[str] | None:
    """A pattern finding the value as whole words (plural allowed), or None for a value without letters or digits."""
    v = " ".join(value.lower().split())
    if not v or not re.search(r"[a-z0-9]", v):
        return None
    return re.compile(r"(?<![a-z0-9])" + re.escape(v) + r"(?:s|es)?(?![a-z0-9])")


def fmt(x: float) -> str:
    """A price as the tools take it: "120", "99.5"."""
    return str(int(round(x))) if abs(x - round(x)) < 1e-9 else f"{x:.2f}".rstrip("0").rstrip(".")


def has_currency(text: str) -> bool:
    low = text.lower()
    return "₱" in low or "php" in low or "peso" in low


def services_of(text: str) -> list[str]:
    """The services the text asks for, by the tools' names (``official``, ``freeShipping``, ``COD``, ``flashsale``)."""
    low = text.lower()
    found = []
    for name, markers in SERVICE_MARKERS.items():
        for marker in markers:
            if re.search(r"(?<![a-z])" + re.escape(marker) + r"(?![a-z])", low):
                found.append(name)
                break
    return found


def strip_intro(text: str) -> str:
    """Drop the request's leading words ("could you help me find a ...") up to the product itself."""
    words = text.split()
    i = 0
    while i < len(words) - 1 and re.sub(r"[^a-z']", "", words[i].lower()) in INTRO:
        i += 1
    return " ".join(words[i:])
