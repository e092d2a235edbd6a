"""A session plan put into words (``docs/sessions.md``, generator step 2): the opening, the profile, each slot's
topics and answer, each rejection, the update. Text comes last and only from the plan's values and fixed phrase
tables, so every value sits in exactly one place: the opening says the query constraints (rendered as ShoppingBench
queries are, `arena.tasks.shopping.render`), the profile says its requirement in prose among distractors, a slot
answer or a rejection says its own value and no other hidden one (`leaks` checks this).

Every line is in the words `arena.tasks.session.agents`' reference agent can read: a value is written as the catalog
writes it, a budget as "at most N".
"""

from __future__ import annotations

from arena.catalog.rng import Rng
from arena.tasks.session.facts import Fact, Plan
from arena.tasks.session.problem import Constraint, Event, Profile, Update
from arena.tasks.shopping import render
from arena.tasks.shopping.item_text import product_noun
from arena.tasks.shopping.phrases import humanise

SERVICE_NOTES = {
    "official": ("Only buys from official stores.", "Trusts official brand stores and nothing else."),
    "freeShipping": ("Never pays for shipping: free shipping only.", "Insists on free shipping."),
    "COD": ("Always pays by cash on delivery.", "Will only order with cash on delivery."),
    "flashsale": ("Waits for a flash sale before buying anything.", "Buys only items on flash sale."),
}
SERVICE_SAYS = {
    "official": "It has to come from an official store.",
    "freeShipping": "I need free shipping on it.",
    "COD": "I can only pay by cash on delivery.",
    "flashsale": "I only buy things on flash sale.",
}
SERVICE_TOPICS = {
    "official": ["official", "store", "seller", "authentic"],
    "freeShipping": ["shipping", "delivery fee", "postage"],
    "COD": ["payment", "pay", "cash"],
    "flashsale": ["flash sale", "sale", "deal", "promo"],
}
PRICE_TOPICS = ["budget", "price", "cost", "spend", "afford", "how much"]
#: the visible part of a profile: distractors only, one drawn from each list
DISTRACTORS: dict[str, tuple[str, ...]] = {
    "age_range": ("18-24", "25-34", "35-44", "45-54", "55-64"),
    "city": ("Cebu City", "Quezon City", "Davao", "Iloilo", "Baguio", "Makati"),
    "occupation": ("nurse", "teacher", "software developer", "accountant", "student", "chef", "driver"),
    "hobbies": ("hiking", "baking", "chess", "photography", "gardening", "cycling", "karaoke", "reading"),
    "shops_on": ("phone app", "laptop", "tablet"),
    "shopping_frequency": ("weekly", "twice a month", "monthly", "a few times a year"),
}
SLOT_SAYS = (
    "I'd like the {k} to be {v}.",
    "For the {k}, {v} please.",
    "It should have {v} as the {k}.",
    "{V} is the {k} I want.",
)
REJECT_SAYS = ("That one has {actual} for the {k}; I need {v}.", "The {k} there is {actual}, but it has to be {v}.")
PROFILE_NOTES = ("Always picks {v} for the {k}.", "Sticks to {v} when it comes to {k}.")


def _key_words(key: str) -> str:
    return "color" if key in ("color_family", "colour_family") else humanise(key)


def topics(fact: Fact) -> list[str]:
    """The words of a question that ask about ``fact``: its key's words (each word of a long key too)."""
    if fact.kind == "price":
        return list(PRICE_TOPICS)
    if fact.kind == "service":
        return list(SERVICE_TOPICS[fact.key])
    words = _key_words(fact.key)
    out = [words] + [w for w in words.split() if len(w) > 3 and w not in ("type", "with", "level")]
    if fact.key == "brand":
        out += ["make", "manufacturer"]
    return list(dict.fromkeys(out))


def _budget_words(value: str) -> str:
    return f"at most {value}"


def value_line(fact: Fact, value: str, rng: Rng) -> str:
    """The shopper stating ``value`` for ``fact`` (a slot answer)."""
    if fact.kind == "price":
        return rng.pick(("My budget is {b}.", "I can spend {b}.", "I want to pay {b}.")).format(b=_budget_words(value))
    if fact.kind == "service":
        return SERVICE_SAYS[fact.key]
    return rng.pick(SLOT_SAYS).format(k=_key_words(fact.key), v=value, V=value[:1].upper() + value[1:])


def reject_line(fact: Fact, rng: Rng) -> str:
    """A rejection naming the violated value (a reject constraint is always an attribute or SKU option)."""
    return rng.pick(REJECT_SAYS).format(k=_key_words(fact.key), v=fact.stated_value, actual="{actual}")


def stated_line(fact: Fact, noun: str) -> str:
    """What the shopper says when a proposal ignores a constraint it already stated (query, profile)."""
    if fact.kind == "title":
        return f"That is not the kind of {noun} I asked for."
    if fact.kind == "price":
        return f"That is over my budget: it has to cost at most {fact.stated_value}."
    if fact.kind == "service":
        return SERVICE_SAYS[fact.key]
    return f"That one has {{actual}} for the {_key_words(fact.key)}; I said {fact.stated_value}."


def profile_note(fact: Fact, rng: Rng) -> str:
    if fact.kind == "price":
        return rng.pick(("Spends {b} on any one item.", "Keeps every purchase {b}.")).format(
            b=_budget_words(fact.stated_value)
        )
    if fact.kind == "service":
        return rng.pick(SERVICE_NOTES[fact.key])
    return rng.pick(PROFILE_NOTES).format(k=_key_words(fact.key), v=fact.stated_value)


def update_line(fact: Fact, rng: Rng) -> str:
    if fact.kind == "price":
        return rng.pick(("Actually, my budget just dropped: {b} now.", "Change of plan: I can only spend {b}.")).format(
            b=_budget_words(fact.value)
        )
    return rng.pick(
        ("Actually, I changed my mind: I want {v} for the {k}.", "On second thought, make the {k} {v} instead.")
    ).format(k=_key_words(fact.key), v=fact.value)


def opening(plan: Plan, rng: Rng) -> str:
    """The opening request: the query constraints (first values), rendered as a ShoppingBench product query."""
    query = [f for f in plan.by_src("query") if f.kind != "title"]
    brand = next((f.stated_value for f in query if f.kind == "attribute" and f.key == "brand"), None)
    price = next((f for f in query if f.kind == "price"), None)
    spec = render.ItemSpec(
        noun=product_noun(plan.gold),
        category=plan.gold["category"],
        brand=brand,
        attributes=tuple((f.key, f.stated_value) for f in query if f.kind == "attribute" and f.key != "brand"),
        sku=tuple((f.key, f.stated_value) for f in query if f.kind == "sku"),
        services=tuple(f.key for f in query if f.kind == "service"),
        price=("less than", None, float(price.stated_value)) if price else None,
    )
    return render.render_product_query(spec, rng)


def profile(plan: Plan, rng: Rng) -> Profile:
    visible = {k: rng.pick(v) for k, v in DISTRACTORS.items()}
    visible["hobbies"] = rng.sample(list(DISTRACTORS["hobbies"]), 2)
    notes = {f"note_{i + 1}": profile_note(f, rng) for i, f in enumerate(plan.by_src("profile"))}
    return Profile(visible=visible, requirements=notes)


def constraints(plan: Plan, rng: Rng) -> tuple[list[Constraint], list[Event]]:
    """The constraints (first rules) with their lines, and the update."""
    noun = product_noun(plan.gold)
    out: list[Constraint] = []
    for i, fact in enumerate(plan.facts):
        cid = f"c{i + 1}"
        if fact.src == "slot":
            say = value_line(fact, fact.stated_value, rng)
            out.append(Constraint(cid=cid, src="slot", rule=fact.initial, topics=topics(fact), say=say))
        elif fact.src == "reject":
            out.append(Constraint(cid=cid, src="reject", rule=fact.initial, say=reject_line(fact, rng)))
        else:
            out.append(Constraint(cid=cid, src=fact.src, rule=fact.initial, say=stated_line(fact, noun)))
    target = plan.facts[plan.target]
    event = Event(update=Update(cid=f"c{plan.target + 1}", rule=target.rule), say=update_line(target, rng))
    return out, [event]


def _values(fact: Fact) -> list[str]:
    if fact.kind in ("title", "service"):
        return []
    return [fact.stated_value] + ([fact.value] if fact.first is not None else [])


def leaks(plan: Plan, opening_text: str, profile_: Profile, lines: list[Constraint]) -> str | None:
    """Where a value shows outside its own place (EComAgentBench's cross-source isolation), or None."""
    hidden = [f for f in plan.facts if f.src != "query"]
    for fact in hidden:
        for value in _values(fact):
            if render.mentions(opening_text, value):
                return f"the opening names the {fact.src} value {value!r}"
    for fact, line in zip(plan.facts, lines, strict=True):
        texts = [line.say] if fact.src in ("slot", "reject") else []
        if fact.src == "profile":
            texts = list(profile_.requirements.values())
        for other in hidden:
            if other is fact or other.kind == "price":
                continue
            for value in _values(other):
                if any(render.mentions(t, value) for t in texts) and not any(
                    render.mentions(t, v) and value in v for t in texts for v in _values(fact)
                ):
                    return f"the line for {fact.key} names the {other.src} value {value!r}"
    return None
