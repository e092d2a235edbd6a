"""Whether what the tools show of a product agrees with its own attributes: the consistency check of a catalog.

An agent reads a product through `find_product` (title, price, shop, services) and `view_product_information`
(short description, description, SKU options, attributes). A fair catalog never says two things about one product:

- a sentence written from attribute values (``"pack type: bag; material: cotton."``, ``"Its flavor is chili, just
  what you need."``, ``"Available options: red, blue."``) states only values the product holds for that key;
- a SKU option's value of a key the attributes also carry is one of the attributes' values;
- price, shop and services are well formed (a positive price, a shop id, known services, none twice), and the text
  promises no service the product does not offer ("Cash on Delivery" in a title without COD);
- against its gold (a near miss is a copy of one): a value the copy no longer holds (the gold's, swapped for
  another) is not named in its title, short description or description, unless the copy holds it under another
  key; the gold's price is not quoted when the copy's differs.

`contradictions` returns every one found, each with the field it is in, so a self-check can report them per field.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

#: the fields the tools show, in the order a report lists them
FIELDS = ("title", "short_description", "description", "sku_options", "attributes", "price", "shop", "service")
TEXT_FIELDS = ("title", "short_description", "description")
SERVICES = ("official", "freeShipping", "COD", "flashsale")
#: how a product's text promises each service
SERVICE_WORDS = {
    "official": ("lazmall", "official store"),
    "freeShipping": ("free shipping", "free delivery"),
    "COD": ("cash on delivery", "【cod】", "[cod]"),
    "flashsale": ("flash sale", "lazflash"),
}


@dataclass(frozen=True)
class Contradiction:
    field: str
    what: str


def key_name(key: str) -> str:
    """How a sentence names an attribute key: ``pack_type`` -> ``pack type``."""
    return key.replace("_", " ")


def values_of(product: dict[str, Any]) -> dict[str, set[str]]:
    """Every value the product holds, per key (attributes and SKU options together), casefolded."""
    held: dict[str, set[str]] = {}
    for key, values in (product.get("attributes") or {}).items():
        held.setdefault(key, set()).update(str(v).casefold() for v in values or ())
    for option in (product.get("sku_options") or {}).values():
        for key, value in (option or {}).items():
            held.setdefault(key, set()).add(str(value).casefold())
    return held


def mentions(text: str, phrase: str) -> bool:
    """Whether ``phrase`` is in ``text`` as a whole phrase (case ignored; a letter, digit, apostrophe or hyphen on
    either side, or a point before it or before a letter or digit after it, makes it part of another word: "s" is
    not in "Men's", "4" not in "4-6 years", "0" not in "1.0")."""
    return bool(phrase) and _phrase(phrase).search(text) is not None


def replace_phrase(text: str, phrase: str, by: str, keep: Iterable[str] = ()) -> tuple[str, int]:
    """``text`` with every whole-phrase mention of ``phrase`` replaced by ``by`` (capitalised where the mention
    was), except inside a mention of one of ``keep`` ("black" stays in "black and white" when the product still
    holds that), and how many were replaced."""
    if not phrase:
        return text, 0
    kept = [m.span() for k in keep if k != phrase and phrase in k for m in _phrase(k).finditer(text)]
    count = 0

    def swap(m: re.Match[str]) -> str:
        nonlocal count
        if any(a <= m.start() and m.end() <= b for a, b in kept):
            return m.group(0)
        count += 1
        return by[:1].upper() + by[1:] if m.group(0)[:1].isupper() else by

    return _phrase(phrase).sub(swap, text), count


def promises(text: str) -> set[str]:
    """The services ``text`` promises ("Free Shipping", "Cash on Delivery", "LazMall", ...)."""
    folded = text.casefold()
    return {service for service, words in SERVICE_WORDS.items() if any(w in folded for w in words)}


def unpromise(text: str, service: str) -> tuple[str, list[str]]:
    """``text`` without the words promising ``service``, and the words taken out."""
    removed: list[str] = []
    for word in SERVICE_WORDS.get(service, ()):
        pattern = re.compile(re.escape(word), re.IGNORECASE)
        removed += [m.group(0) for m in pattern.finditer(text)]
        text = pattern.sub(" ", text)
    return (" ".join(text.split()) if removed else text), removed


@functools.lru_cache(maxsize=65536)
def _phrase(phrase: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w'.-]){re.escape(phrase)}(?![\w'-]|\.\w)", re.IGNORECASE)


def _value_ends(text: str, i: int, ends: Sequence[str]) -> bool:
    if i >= len(text) or text[i] in ",;" or any(text.startswith(e, i) for e in ends):
        return True
    return text[i] == "." and (i + 1 >= len(text) or text[i + 1].isspace())


def _read_values(text: str, pos: int, held: set[str], ends: Sequence[str]) -> list[str]:
    """Read the list of values a statement makes from ``pos`` (``a, b, c``, up to ``;``, a full stop or one of
    ``ends``), each the longest held value that fits (a value may hold ", " or ". "); the stated values that are no
    held value."""
    wrong: list[str] = []
    folded = text.casefold()
    while True:
        fits = [v for v in held if folded.startswith(v, pos) and _value_ends(text, pos + len(v), ends)]
        if fits:
            pos += len(max(fits, key=len))
        else:
            m = re.compile(r"[^,;]*?(?=,\s|;|\.\s|\.$|$)").match(text, pos)
            token = m.group(0) if m else text[pos:]
            wrong.append(token.strip())
            pos += max(len(token), 1)
        if text.startswith(", ", pos) and not any(text.startswith(e, pos) for e in ends):
            pos += 2
            continue
        return [w for w in wrong if w]


#: the sentences the catalog generator and the rebuild write from attribute values: (the pattern before the values,
#: its group ``name`` naming the product's key, or the key it states; what ends the list)
_FORMS: list[tuple[re.Pattern[str], str | None, tuple[str, ...]]] = [
    (re.compile(r"[.;]\s*(?P<name>[^.;:]{1,80}?):\s*"), None, ()),
    (re.compile(r"\bIts (?P<name>[^.;]{1,80}?) is "), None, (", just what you need.",)),
    (re.compile(r"\bMade with "), "material", (" for lasting quality.",)),
    (re.compile(r"\bComes in "), "color_family", (" to match your style.",)),
    (re.compile(r"\bAvailable options: "), "*", ()),
]


def statements(text: str, product: dict[str, Any]) -> Iterator[tuple[str, list[str]]]:
    """(key, the stated values that are not the product's) for each sentence of ``text`` stating values of one of
    the product's keys: ``name: v`` (after ``. `` or ``;``), ``Its name is v, just what you need.``, ``Made with v
    for lasting quality.`` (material), ``Comes in v to match your style.`` (color_family), ``Available options:
    ...`` (key ``*``: any SKU option's value)."""
    held = values_of(product)
    named = {key_name(k).casefold(): k for k in held}
    held["*"] = {str(v).casefold() for o in (product.get("sku_options") or {}).values() for v in (o or {}).values()}
    for pattern, fixed, ends in _FORMS:
        for m in pattern.finditer(text):
            key = fixed or named.get(m.group("name").strip().casefold())
            if key is not None and key in held:
                yield key, _read_values(text, m.end(), held[key], ends)


def _stated(product: dict[str, Any]) -> Iterator[Contradiction]:
    held = values_of(product)
    for field in ("short_description", "description"):
        for key, wrong in statements(str(product.get(field) or ""), product):
            for value in wrong:
                where = "the SKU options" if key == "*" else f"its {key} is {sorted(held.get(key, ()))}"
                yield Contradiction(field, f"states {key_name(key)} {value!r}, but {where}")


def _structure(product: dict[str, Any]) -> Iterator[Contradiction]:
    attributes = product.get("attributes") or {}
    for name, option in (product.get("sku_options") or {}).items():
        for key, value in (option or {}).items():
            if key in attributes and str(value).casefold() not in {str(v).casefold() for v in attributes[key]}:
                yield Contradiction(
                    "sku_options", f"option {name} has {key} {value!r}, but the attributes say {attributes[key]}"
                )
    for key, values in attributes.items():
        if not values or any(not str(v).strip() for v in values):
            yield Contradiction("attributes", f"{key} has an empty value")
    try:
        price = float(product.get("price"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        price = math.nan
    if not (price > 0 and math.isfinite(price)):
        yield Contradiction("price", f"price {product.get('price')!r} is not a positive amount")
    if not str(product.get("shop_id") or "").strip():
        yield Contradiction("shop", "no shop id")
    services = list(product.get("service") or ())
    if len(set(services)) != len(services) or any(s not in SERVICES for s in services):
        yield Contradiction("service", f"services {services} are not distinct known services")
    for field in TEXT_FIELDS:
        for service in sorted(promises(str(product.get(field) or "")) - set(services)):
            yield Contradiction(field, f"promises {service}, which it does not offer")


def _against_gold(product: dict[str, Any], gold: dict[str, Any], ignore: Iterable[str]) -> Iterator[Contradiction]:
    skip = set(ignore)
    held = {k: v for k, v in values_of(product).items() if k not in skip}
    every = set().union(*held.values()) if held else set()
    was = values_of(gold)
    # the product's own values are read first: "white" inside its "off white" names nothing it lost
    texts = {field: str(product.get(field) or "") for field in TEXT_FIELDS}
    for value in sorted(every | {key_name(k).casefold() for k in held}, key=len, reverse=True):
        texts = {field: replace_phrase(text, value, " ")[0] for field, text in texts.items()}
    for key, values in was.items():
        if key in skip or key not in held:
            continue
        for value in sorted(values - held[key]):
            if value in every:
                continue
            for field in TEXT_FIELDS:
                if mentions(texts[field], value):
                    yield Contradiction(field, f"names {value!r}, but its {key} is {sorted(held[key])}")
    if float(gold.get("price") or 0) != float(product.get("price") or 0):
        quoted = f"{float(gold.get('price') or 0):g}"
        for field in TEXT_FIELDS:
            if re.search(rf"(?:₱|\bphp|\bP)\s?{re.escape(quoted)}(?![\d.])", str(product.get(field) or ""), re.I):
                yield Contradiction(field, f"quotes the price {quoted}, but it costs {product.get('price')}")


def contradictions(
    product: dict[str, Any], gold: dict[str, Any] | None = None, *, ignore: Iterable[str] = ()
) -> list[Contradiction]:
    """Every contradiction in what the tools show of ``product``; with ``gold`` (the product it is a copy of), also
    the gold's values, services and price it still claims. ``ignore``: keys not compared with the gold's (a key
    of listing tags, which hold other listings' values on purpose)."""
    found = list(_stated(product)) + list(_structure(product))
    if gold is not None and gold.get("product_id") != product.get("product_id"):
        found += list(_against_gold(product, gold, ignore))
    return found
