"""A generated session put together from its items and its difficulty features (``docs/sessions.md``, "Difficulty").

Each item is first written as a one-item session of its own (`arena.tasks.session.generate.write`) and passes the
item-level self-checks on its own; `join` then makes one session of them:

- the constraints of item ``i`` keep their order, are numbered on from the items before and carry ``item = i``;
- the opening is the first item's; a bundle's opening first says how many things and the budget for all of them
  together ("... First: <the first item's opening>"); each later item is introduced once the items before it are
  settled ("One more thing: <its opening>", `Intent.intro`);
- with several items, each profile note names its item ("For the tent: ...");
- ``late``: the first item's change of mind fires on the last item's first acceptable proposal, said as "About the
  <noun>: ..." ;
- a veto (`pick_veto`): the best-ranked hit of an item's opening, other than the gold, that meets every final rule;
- the style follows the persona; the turn limit grows with the items.
"""

from __future__ import annotations

import math
from typing import Any

from arena.catalog.rng import Rng
from arena.tasks.session.facts import Undrawable
from arena.tasks.session.features import Features
from arena.tasks.session.problem import (
    FIRST_ITEM,
    NEXT_ITEM,
    VETO_MARK,
    Constraint,
    Event,
    Intent,
    Limits,
    Profile,
    SessionProblem,
    Style,
    Update,
    Veto,
)
from arena.tasks.session.selfcheck import opening_hits
from arena.tasks.session.truth import check
from arena.tasks.shopping.item_text import product_noun

BUNDLE_LINES = (
    "I'm buying {n} things today and can spend at most {b} on all of them together.",
    "I need {n} things, at most {b} for all of them together.",
)
NUMBERS = {2: "two", 3: "three"}
VETO_SAYS = (
    f"I had {VETO_MARK} before and sent it back; not that one again.",
    f"I owned {VETO_MARK} already and it broke; never that one again.",
)
LATE_LEAD = "About the {noun}: "
#: the shopper's turns: a session's limit, and what each item after the first adds
TURNS, TURNS_PER_ITEM = 12, 8


def style(features: Features, slots: int, rng: Rng) -> Style:
    """The shopper's style for the persona (plain: the patience and question cap of earlier generators); ``slots``:
    the most needs one item has that the shopper tells only when asked."""
    if features.persona == "sceptical":
        return Style(patience=3, max_questions=6, skeptic=True, persona="sceptical")
    if features.persona == "low_patience":
        return Style(patience=2, max_questions=6, persona="low_patience")
    if features.persona == "efficiency_first":
        return Style(patience=3, max_questions=max(1, slots), persona="efficiency_first")
    patience = 3 if rng.chance(0.2) else 4
    return Style(patience=patience, max_questions=max(slots + 1, 3) if rng.chance(0.2) else 6)


def pick_veto(part: SessionProblem, catalog: Any, rng: Rng) -> Veto:
    """The veto of a one-item session: its opening's best hit that meets every final rule and is not the gold."""
    final = list(part.final_rules().values())
    for doc in opening_hits(part, catalog):
        if doc["product_id"] not in part.gold_ids and check(final, doc).rule >= 1:
            return Veto(product_id=doc["product_id"], say=rng.pick(VETO_SAYS))
    raise Undrawable("no hit of the opening but the gold meets the final rules: nothing to veto")


def _renumbered(part: SessionProblem, item: int, offset: int) -> tuple[list[Constraint], list[Event]]:
    names = {c.cid: f"c{offset + i + 1}" for i, c in enumerate(part.constraints)}
    constraints = [c.model_copy(update={"cid": names[c.cid], "item": item}) for c in part.constraints]
    events = [e.model_copy(update={"update": Update(cid=names[e.update.cid], rule=e.update.rule)}) for e in part.events]
    return constraints, events


def join(parts: list[SessionProblem], golds: list[dict[str, Any]], features: Features, rng: Rng) -> SessionProblem:
    """One session of the one-item ``parts`` (their gold documents ``golds``) with the features' difficulty."""
    nouns = [product_noun(g) for g in golds]
    constraints: list[Constraint] = []
    events: list[Event] = []
    notes: dict[str, str] = {}
    for item, part in enumerate(parts):
        mine, said = _renumbered(part, item, len(constraints))
        constraints += mine
        events += said
        for text in part.profile.requirements.values():
            notes[f"note_{len(notes) + 1}"] = f"For the {nouns[item]}: {text}" if len(parts) > 1 else text
    if features.late and len(parts) > 1:
        first = events[0]
        events[0] = first.model_copy(
            update={"on": "last_item", "say": LATE_LEAD.format(noun=nouns[0]) + first.say[:1].lower() + first.say[1:]}
        )
    query = parts[0].query
    budget = None
    if features.bundle and len(parts) > 1:
        total = sum(float(g["price"]) for g in golds)
        budget = float(math.ceil(total * (1.0 + 0.05 * rng.u())))
        lead = rng.pick(BUNDLE_LINES).format(n=NUMBERS[len(parts)], b=f"{budget:g}")
        query = f"{lead} {FIRST_ITEM} {query}"
    # the question cap holds per item (the shopper counts anew for each item): the most slots one item has
    slots = max(sum(1 for c in constraints if c.src == "slot" and c.item == i) for i in range(len(parts)))
    return SessionProblem(
        problem_id=parts[0].problem_id,
        query=query,
        profile=Profile(visible=parts[0].profile.visible, requirements=notes),
        constraints=constraints,
        events=events,
        style=style(features, slots, rng),
        limits=Limits(max_user_turns=TURNS + TURNS_PER_ITEM * (len(parts) - 1)),
        gold={"product_ids": [g["product_id"] for g in golds]},
        intents=[Intent(noun=n, intro=f"{NEXT_ITEM} {p.query}") for n, p in zip(nouns[1:], parts[1:], strict=True)],
        bundle_budget=budget,
        vetoes=[v for p in parts for v in p.vetoes],
    )
