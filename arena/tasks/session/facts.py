"""The facts of a generated session, fixed before any word is written (``docs/sessions.md``, generator step 1).

A plan is drawn from one gold product of the catalog and a rival: a product near it (the top hits of its noun) of
the same kind (its title passes the gold's title check) that one mid-session update tells apart from the gold. The
update is a budget that drops to just above the gold's price (the rival is dearer; the first budget admits it) or a
preference that flips from the rival's value of a field to the gold's. 5 to 7 of the gold's fields that the rival
shares (the title always, stated in the opening) become constraints, split by where the agent can learn them (query
2-3, profile 1, slot 1-2, reject 0-1): the most telling fields (those the most neighbours fail) are hidden, the least
telling stated in the opening, so the opening alone leaves several wrong candidates. The rival meets every first
rule and fails the updated one, so the update bites; the gold meets every final rule.

A flipped field is stated up front (in the opening or the profile), never asked for or rejected: an agent that
proposed the gold before the flip would see it refused, and the shopper never takes a refusal back. A draw with no
rival for its kind of update tries the other kind; one with none raises `Undrawable`.

`arena.tasks.session.wording` then puts the plan into words; `arena.tasks.session.selfcheck` decides whether it is
kept.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from arena.catalog.rng import Rng
from arena.tasks.session import truth
from arena.tasks.session.problem import Rule
from arena.tasks.shopping.problem import PriceRule

Kind = Literal["title", "attribute", "sku", "service", "price"]
#: how many constraints a plan holds, and how many of each source
MIN_FIELDS, MAX_FIELDS = 5, 7
#: the neighbours of a gold looked at when choosing hidden fields and update values
NEIGHBOURS = 50


class Undrawable(Exception):
    """A drawn gold that cannot make a session (too few fields, no update that bites); the draw is retried."""


@dataclass
class Fact:
    """One field of the gold as a constraint: its final rule, and the first rule when an update changes it."""

    kind: Kind
    key: str
    value: str
    rule: Rule
    src: str = "query"
    first: Rule | None = None  # the rule before the update, when this fact is the update's target
    first_value: str = ""

    @property
    def initial(self) -> Rule:
        return self.first or self.rule

    @property
    def stated_value(self) -> str:
        return self.first_value or self.value


@dataclass
class Plan:
    gold: dict[str, Any]
    facts: list[Fact]
    event: Literal["budget", "flip"]
    target: int  # index of the updated fact
    neighbours: list[dict[str, Any]] = field(default_factory=list)

    def by_src(self, src: str) -> list[Fact]:
        return [f for f in self.facts if f.src == src]


def _attribute_facts(gold: dict[str, Any], rng: Rng) -> list[Fact]:
    out: list[Fact] = []
    for key in sorted(gold["attributes"]):
        values = gold["attributes"][key]
        if not values:
            continue
        value = rng.pick(values)
        out.append(Fact("attribute", key, value, Rule(attributes=[{key: [value]}])))
    for option in list(gold["sku_options"].values())[:1]:
        key = rng.pick(sorted(option))
        out.append(Fact("sku", key, option[key], Rule(sku_options=[{key: option[key]}])))
    return out


def _service_facts(gold: dict[str, Any]) -> list[Fact]:
    return [Fact("service", s, s, Rule(service=[s])) for s in gold["service"]]


def price_rule(hi: float) -> Rule:
    return Rule(price=[PriceRule(mode="less than", hi=hi)])


def _splits(facts: list[Fact], neighbours: list[dict[str, Any]]) -> dict[int, int]:
    """Fact index -> how many neighbours fail it (0: asking about it tells nothing apart)."""
    return {i: sum(1 for d in neighbours if not truth.satisfies(f.rule, d)) for i, f in enumerate(facts)}


def _sizes(total: int, rng: Rng, vague: bool = False) -> dict[str, int]:
    """How many constraints of each source, ``total`` in all (the title is one of the query's); a vague opening
    states the title only, and the slots take what the opening would have said."""
    if vague:
        reject = rng.below(2)
        return {"query": 1, "profile": 1, "slot": total - 2 - reject, "reject": reject}
    for _ in range(50):
        sizes = {"query": 2 + rng.below(2), "profile": 1, "slot": 1 + rng.below(2), "reject": rng.below(2)}
        if sum(sizes.values()) == total:
            return sizes
    return {"query": 2, "profile": 1, "slot": total - 3, "reject": 0}


def _assign(
    facts: list[Fact], splits: dict[int, int], total: int, rng: Rng, keep: Fact | None = None, vague: bool = False
) -> list[Fact]:
    """Choose ``total`` facts (the title first, ``keep`` always) and give each its source; hidden ones prefer
    telling fields (and sometimes ``keep`` is stated in the opening instead, never in a vague one)."""
    sizes = _sizes(total, rng, vague)
    title, rest = facts[0], list(range(1, len(facts)))
    rng.shuffle(rest)
    kept = facts.index(keep) if keep is not None else None
    # a flipped field is stated up front (opening or profile): asked for, or learned from a rejection of the gold,
    # it would make the agent propose the gold before the flip and lose it (the shopper never takes back a refusal)
    stated = kept is not None and rng.chance(0.5) and not vague
    if kept is not None:
        rest = [i for i in rest if i != kept]
        rest = rest if stated else [kept] + rest
    # the most telling fields are hidden, the least telling stated: the opening then leaves many wrong candidates
    by_split = sorted(rest, key=lambda i: -splits[i])  # stable: ties keep the shuffled order
    hidden_n = sizes["profile"] + sizes["slot"] + sizes["reject"]
    hidden = by_split[:hidden_n]
    left = ([kept] if stated and kept is not None else []) + [i for i in reversed(by_split) if i not in hidden]
    query = left[: sizes["query"] - 1]
    if len(hidden) < hidden_n or len(query) < sizes["query"] - 1:
        raise Undrawable(f"the gold has {len(facts)} usable fields, {total} needed")
    chosen = [title]
    title.src = "query"
    for i in query:
        facts[i].src = "query"
        chosen.append(facts[i])
    # rejects need a value to name ({actual}); services and prices are told better by slots and the profile; the
    # flipped field is never a reject (the gold, proposed before the flip, would be refused for good)
    order = [i for i in sorted(hidden, key=lambda i: facts[i].kind in ("service", "price")) if i != kept]
    if kept is not None and not stated:
        facts[kept].src = "profile"
        chosen.append(facts[kept])
        sizes["profile"] -= 1
    for src in ("reject", "slot", "profile"):
        for _ in range(sizes[src]):
            i = order.pop(0) if src == "reject" else order.pop()
            facts[i].src = src
            chosen.append(facts[i])
    return chosen


def _pairs(doc: dict[str, Any], key: str) -> set[str]:
    return set(doc["attributes"].get(key, [])) | {o[key] for o in doc["sku_options"].values() if key in o}


def _rival(
    facts: list[Fact], gold: dict[str, Any], neighbours: list[dict[str, Any]], event: str, rng: Rng
) -> tuple[dict[str, Any], int | None, str]:
    """(a neighbour the update tells from the gold, the fact it changes or None for a budget, the flip's first value).
    The rival shares as many of the gold's fields as can be found: those become the constraints."""
    price = float(gold["price"])
    options: list[tuple[int, int, int | None, str]] = []  # (-shared, rank, fact index, first value)
    for rank, doc in enumerate(neighbours):
        shared = sum(1 for f in facts if truth.satisfies(f.rule, doc))
        if not truth.satisfies(facts[0].rule, doc):
            continue
        if event == "budget":
            if float(doc["price"]) > price * 1.08 + 1:
                options.append((-shared, rank, None, ""))
            continue
        for i, f in enumerate(facts):
            if f.kind not in ("attribute", "sku") or f.key == "brand":
                continue
            for v in sorted(_pairs(doc, f.key)):
                if v != f.value and v not in f.value and f.value not in v and f.value not in _pairs(doc, f.key):
                    options.append((-shared, rank, i, v))
    if not options:
        raise Undrawable(f"no neighbour the {event} update could tell from the gold")
    options.sort()
    best = [o for o in options if o[0] == options[0][0]]
    _, rank, index, value = rng.pick(best)
    return neighbours[rank], index, value


def draw_plan(gold: dict[str, Any], neighbours: list[dict[str, Any]], rng: Rng, vague: bool = False) -> Plan:
    """The facts of one session around ``gold`` (``neighbours``: products near it, e.g. the top hits of its noun);
    ``vague``: the opening states the kind of product only."""
    neighbours = [d for d in neighbours if d["product_id"] != gold["product_id"]][:NEIGHBOURS]
    facts = [Fact("title", "title", gold["title"], Rule(title=[gold["title"]]))]
    facts += _attribute_facts(gold, rng) + _service_facts(gold)
    event: Literal["budget", "flip"] = "budget" if rng.chance(0.5) else "flip"
    try:
        rival, index, first = _rival(facts, gold, neighbours, event, rng)
    except Undrawable:  # the other kind of update may find a rival
        event = "flip" if event == "budget" else "budget"
        rival, index, first = _rival(facts, gold, neighbours, event, rng)
    target_fact = facts[index] if index is not None else None
    usable = [f for i, f in enumerate(facts) if i == 0 or i == index or truth.satisfies(f.rule, rival)]
    total = MIN_FIELDS + rng.below(MAX_FIELDS - MIN_FIELDS + 1)
    if event == "budget":
        total -= 1  # the price fact is added below, with its source
    total = min(total, len(usable))
    if total < MIN_FIELDS - (1 if event == "budget" else 0):
        raise Undrawable(f"the gold shares {len(usable)} fields with its rival, {total} needed")
    siblings = [d for d in neighbours if truth.satisfies(usable[0].rule, d)]  # the same kind as the gold
    splits = _splits(usable, siblings)
    if target_fact is not None:
        splits[usable.index(target_fact)] = len(neighbours) + 1  # the flipped field is always chosen
    chosen = _assign(usable, splits, total, rng, keep=target_fact, vague=vague)
    if target_fact is not None:
        target_fact.first = (
            Rule(attributes=[{target_fact.key: [first]}])
            if target_fact.kind == "attribute"
            else Rule(sku_options=[{target_fact.key: first}])
        )
        target_fact.first_value = first
        return Plan(gold=gold, facts=chosen, event=event, target=chosen.index(target_fact), neighbours=neighbours)
    final = float(math.ceil(float(gold["price"]) * (1.0 + 0.08 * rng.u())))
    start = float(math.ceil(float(rival["price"]) * (1.02 + 0.1 * rng.u())))
    fact = Fact("price", "price", f"{final:g}", price_rule(final), first=price_rule(start), first_value=f"{start:g}")
    caps = {"slot": 4} if vague else {"query": 3, "slot": 2}
    room = [src for src, cap in caps.items() if sum(1 for f in chosen if f.src == src) < cap]
    if not room:
        raise Undrawable("no source has room for the budget")
    fact.src = rng.pick(room)
    chosen.append(fact)
    return Plan(gold=gold, facts=chosen, event=event, target=len(chosen) - 1, neighbours=neighbours)
