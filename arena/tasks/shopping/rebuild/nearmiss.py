"""Near misses: copies of a gold product that each break exactly one constraint of its problem (another value of a
required attribute or SKU pair, a price just outside a rule, a required service missing), and fail every other
problem naming the gold too, so a basket's near misses are not another problem's answers."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.catalog import taxonomy
from arena.catalog.rng import Rng
from arena.tasks.shopping.consistency import replace_phrase, unpromise, values_of
from arena.tasks.shopping.problem import PriceRule, Problem, ProductReward
from arena.tasks.shopping.rebuild.plan import reward_option
from arena.tasks.shopping.rebuild.prices import price_interval

#: made-up values of a required pair, when the golds give too few others of its key
VARIANT_WORDS = ["Lite", "Plus", "Mini", "Max", "Pro", "II", "Classic", "Eco", "Neo", "Go"]
#: the texts a swapped value is renamed in (the title counts among the searched words)
TEXTS = ("title", "short_description", "description", "specification")
#: how far (a share of the bound, at least 1) price near misses fall outside a rule, in turn
PRICE_STEPS = [0.02, 0.1, 0.05, 0.25, 0.15, 0.4, 0.08, 0.6, 0.3, 0.2, 0.5, 0.12]


@dataclass
class Copy:
    """A product copied from gold ``gold_id``, with the values it swapped in its searched words (``contents``):
    ``removed`` taken out of the gold's, ``added`` put in their place."""

    gold_id: str
    product: dict[str, Any]
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)


class Values:
    """Other values of an attribute or SKU key, for near misses (another colour of the line, another size, another
    brand): the synthetic taxonomy's lists holding the value (all its lists of that key when none does) and every
    value the gold products take for the key; values no problem asks for first, so that a near miss is rarely
    another problem's answer; then values other problems ask for; then made-up variants."""

    def __init__(self, docs: dict[str, dict[str, Any]], problems: Sequence[Problem]) -> None:
        seen: dict[str, dict[str, None]] = {}
        for pid in sorted(docs):
            doc = docs[pid]
            for key, values in doc["attributes"].items():
                for value in values:
                    seen.setdefault(key, {})[value] = None
            for option in doc["sku_options"].values():
                for key, value in option.items():
                    seen.setdefault(key, {})[value] = None
        self.golds = {key: sorted(values) for key, values in seen.items()}
        self.asked: dict[str, set[str]] = {}
        for problem in problems:
            for reward in problem.reward:
                for key, value in reward.required_pairs():
                    self.asked.setdefault(key, set()).add(value.casefold())

    def pick(self, key: str, value: str, rng: Rng, n: int, avoid: Sequence[str] = ()) -> list[str]:
        """``n`` distinct values of ``key`` other than ``value`` and the ``avoid`` ones."""
        lists = _taxonomy_lists().get(key, [])
        holding = [vs for vs in lists if value.casefold() in vs] or lists
        candidates = list(dict.fromkeys([v for vs in holding for v in vs] + self.golds.get(key, [])))
        asked = self.asked.get(key, set())
        taken = {value.casefold(), *(v.casefold() for v in avoid)}
        out: list[str] = []
        for tier in (
            [v for v in candidates if v.casefold() not in asked],
            [v for v in candidates if v.casefold() in asked],
        ):
            fresh = [v for v in tier if v.casefold() not in taken]
            for v in rng.sample(fresh, n - len(out)):
                out.append(v)
                taken.add(v.casefold())
        for suffix in VARIANT_WORDS:
            if len(out) >= n:
                break
            made = f"{value} {suffix}"
            if made.casefold() not in taken:
                out.append(made)
                taken.add(made.casefold())
        while len(out) < n:  # only for very many near misses of one pair
            out.append(f"{value} {len(out) + 1}")
        return out


@functools.cache
def _taxonomy_lists() -> dict[str, list[list[str]]]:
    """Every value list of each attribute key in the synthetic catalog's taxonomy (families and leaves)."""
    lists: dict[str, list[list[str]]] = {}
    for family in taxonomy.FAMILIES.values():
        for key, values in family.items():
            lists.setdefault(key, []).append(values)
    for mids in taxonomy.TAXONOMY.values():
        for spec in mids.values():
            for leaf in spec.get("leaves", {}).values():
                for key, values in leaf.get("attrs", {}).items():
                    lists.setdefault(key, []).append(values)
    return lists


def _reads_as(k: str, key: str) -> bool:
    """Whether attribute key ``k`` reads as ``key`` in a product's text ("packaging_type", "packaging type")."""
    return k.replace("_", " ").casefold() == key.replace("_", " ").casefold()


def _break_pair(gold: dict[str, Any], key: str, value: str, other: str) -> tuple[dict[str, Any], int]:
    """A copy of ``gold`` where (key, value) is in no SKU option and in no attribute: each occurrence is swapped for
    ``other``, so the product still has the key; and its text says so too (``value`` named in the title and
    descriptions becomes ``other``, unless the copy still holds ``value`` under another key). Returns the copy and
    how many of its searched words were swapped (SKU, attribute and title occurrences)."""
    swapped = 0
    options: dict[str, dict[str, str]] = {}
    for name, option in gold["sku_options"].items():
        for k in [k for k, v in option.items() if _reads_as(k, key) and v == value]:
            option = {**option, k: other}
            swapped += 1
        options[name] = option
    attributes: dict[str, list[str]] = {}
    for k, values in gold["attributes"].items():
        if _reads_as(k, key):  # "packaging_type" and "packaging type" in one record are one attribute to a reader
            swapped += sum(v == value for v in values)
            values = [other if v == value else v for v in values]
        attributes[k] = list(values)
    copy = dict(gold, sku_options=options, attributes=attributes)
    held = set().union(*values_of(copy).values())
    if value.casefold() not in held:
        for text in TEXTS:
            copy[text], n = replace_phrase(str(gold.get(text, "")), value, other, keep=held)
            swapped += n if text == "title" else 0
    return copy, swapped


def _drop_service(product: dict[str, Any], service: str) -> tuple[dict[str, Any], list[str]]:
    """A copy of ``product`` without ``service``, its texts no longer promising it; and the title's words taken out
    (searched words, which `balance` gives back as tags)."""
    copy = dict(product, service=[s for s in product["service"] if s != service])
    removed: list[str] = []
    for text in TEXTS:
        copy[text], words = unpromise(str(product.get(text, "")), service)
        removed += words if text == "title" else []
    return copy, removed


def _missed_prices(rule: PriceRule, n: int) -> list[float]:
    """Up to ``n`` distinct prices just outside ``rule``, by growing steps, from each bound the rule's mode tests."""
    sides: list[Callable[[float], float | None]] = []
    if rule.hi is not None and rule.mode in ("less than", "between"):
        hi = rule.hi
        sides.append(lambda f: round(hi + max(1.0, f * hi), 2))
    if rule.lo is not None and rule.lo >= 2 and rule.mode in ("greater than", "between"):
        lo = rule.lo
        sides.append(lambda f: round(lo - max(1.0, min(f * lo, lo / 2)), 2))
    out: dict[float, None] = {}
    for step in PRICE_STEPS:
        for side in sides:
            price = side(step)
            if price is not None and price > 0 and not rule.admits(price):
                out.setdefault(price, None)
    return list(out)[:n]


def _price_like(center: float, gold: dict[str, Any], reward: ProductReward, rng: Rng) -> float:
    """A price around ``center`` (itself drawn around the gold's price, so the gold's is not the middle one) that the
    reward's price rules admit: price alone does not tell the near misses from the gold."""
    lo, hi = price_interval(reward.price) if reward.price else (0.0, math.inf)
    price = round(center * (0.85 + 0.3 * rng.u()), 2)
    return price if lo <= price <= hi and price > 0 else float(gold["price"])


def near_misses(
    reward: ProductReward, gold: dict[str, Any], count: int, pool: Values, rng: Rng
) -> list[tuple[str, Copy]]:
    """``count`` copies of ``gold``, the reward's constraints taken in turn, each breaking exactly one of them (a
    price just outside a rule, a required service missing, another value of a required SKU or attribute pair):
    (what it breaks, the copy). Copies that break something other than the price are priced near the gold, inside
    the reward's rules. None when the reward constrains nothing but the title."""
    kinds: list[list[tuple[str, Copy]]] = []
    gold_id = gold["product_id"]
    center = float(gold["price"]) * (0.85 + 0.3 * rng.u())
    for rule in reward.price:
        kinds.append(
            [
                (f"price {rule.mode} ({price:g})", Copy(gold_id, dict(gold, price=price)))
                for price in _missed_prices(rule, count)
            ]
        )
    for service in dict.fromkeys(reward.service):
        without, words = _drop_service(gold, service)
        kinds.append(
            [
                (
                    f"service {service}",
                    Copy(gold_id, dict(without, price=_price_like(center, gold, reward, rng)), list(words)),
                )
                for _ in range(count)
            ]
        )
    pairs = [("sku", k, v) for k, v in reward_option(reward).items()]
    pairs += [
        ("attribute", k, v) for attr in reward.attributes for k, values in attr.items() for v in dict.fromkeys(values)
    ]
    for what, key, value in pairs:
        variants = []
        for other in pool.pick(key, value, rng, count):
            product, swapped = _break_pair(gold, key, value, other)
            product["price"] = _price_like(center, gold, reward, rng)
            variants.append((f"{what} {key} ({other})", Copy(gold_id, product, [value] * swapped, [other] * swapped)))
        kinds.append(variants)
    rng.shuffle(kinds)
    out: list[tuple[str, Copy]] = []
    for turn in range(count):  # round robin over the constraints, so every one is broken several times
        for variants in kinds:
            if turn < len(variants) and len(out) < count:
                out.append(variants[turn])
    return out


def _meets(product: dict[str, Any], reward: ProductReward) -> bool:
    """Whether ``product`` meets every price, service and pair constraint of ``reward`` (its title assumed to)."""
    price = float(product["price"])
    if not all(rule.admits(price) for rule in reward.price):
        return False
    if not all(s in product["service"] for s in reward.service):
        return False
    pairs = reward.required_pairs()
    attributes = {(k, v) for k, vs in product["attributes"].items() for v in vs}
    options = [set()] + [set(o.items()) for o in product["sku_options"].values()]
    return any(all(pair in option or pair in attributes for pair in pairs) for option in options)


def fail_others(
    copy: Copy,
    own: ProductReward | None,
    others: Sequence[ProductReward],
    pool: Values,
    rng: Rng,
    *,
    reprice: bool = True,
) -> None:
    """Make ``copy`` fail every other problem's reward naming its gold (it would be their substitute: a problem
    sharing a gold with a voucher basket would find the basket's near misses as answers): one more constraint of
    that reward broken, one that ``own`` (the reward the copy is a distractor of) does not ask for. A reward whose
    every constraint ``own`` asks too is left alone (the copy breaks one of them, or is a true substitute). Without
    ``reprice`` the copy's price is kept (it is what the copy breaks: a price rule, a budget)."""
    keep_pairs = set(own.required_pairs()) if own else set()
    keep_services = set(own.service) if own else set()
    for other in others:
        if other is own or not _meets(copy.product, other):
            continue
        pairs = [pair for pair in other.required_pairs() if pair not in keep_pairs]
        services = [s for s in other.service if s not in keep_services]
        if pairs:
            key, value = pairs[0]
            # never a value the copy's own reward asks for (a range such as "7-9 years" swapped back in would make
            # the copy meet the constraint it exists to break)
            own_values = [v for k, v in keep_pairs if k == key]
            other_value = pool.pick(key, value, rng, 1, avoid=own_values)[0]
            copy.product, swapped = _break_pair(copy.product, key, value, other_value)
            copy.removed += [value] * swapped
            copy.added += [other_value] * swapped
        elif services:
            copy.product, words = _drop_service(copy.product, services[0])
            copy.removed += words
        elif reprice:
            for rule in other.price:
                fits = [
                    p
                    for p in _missed_prices(rule, len(PRICE_STEPS))
                    if own is None or all(r.admits(p) for r in own.price)
                ]
                if fits:
                    copy.product = dict(copy.product, price=fits[0])
                    break


def _replace_text(text: str, phrase: str, by: str) -> str:
    return re.sub(re.escape(phrase), by, text, flags=re.IGNORECASE)


def with_knowledge(gold: dict[str, Any], knowledge: str, value: str | None) -> dict[str, Any]:
    """A copy of a web gold with its knowledge attribute replaced by ``value`` (removed when None) everywhere: its
    texts, attributes and SKU options."""
    by = value or ""
    bad = dict(gold)
    for key in ("title", "short_description", "description", "specification"):
        text = _replace_text(str(gold.get(key, "")), knowledge, by)
        bad[key] = " ".join(text.split()) if value is None else text
    bad["attributes"] = {
        k: [_replace_text(v, knowledge, by).strip() or v for v in vs] for k, vs in gold["attributes"].items()
    }
    bad["sku_options"] = {  # its SKU options say what its attributes say
        name: {k: _replace_text(str(v), knowledge, by).strip() or v for k, v in option.items()}
        for name, option in gold.get("sku_options", {}).items()
    }
    return bad
