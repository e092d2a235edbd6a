"""The session problem: a multi-turn shopping conversation with a scripted shopper.

The record follows ``docs/sessions.md`` ("The problem"), which combines EComAgentBench's hidden
intent (constraints tagged by where the agent can learn them) with ShoppingBench's reward grammar: every constraint's
``rule`` is a fragment of a ShoppingBench product reward (``title``, ``sku_options``, ``attributes``, ``service``,
``price`` with `PriceRule`), so the strict check reuses the shopping domain's product checks on the merged rules.

- ``query`` (inherited) is the opening request; it is all the agent sees at first, with the `Limits`.
- ``profile`` is what ``get_user_profile`` returns: visible fields and requirements in prose among distractors.
- ``constraints``: each with a ``cid``, a source (``query``: stated in the opening; ``profile``: in the profile;
  ``slot``: said when the agent asks about one of its ``topics``; ``reject``: said only when a proposal violates it),
  its ``rule``, and for slots and rejects the shopper's line ``say`` (a reject's may hold ``{actual}``, filled from
  the catalog product that violated it).
- ``events``: mid-session updates; each fires on an acceptable proposal (the first pending one on the first such
  proposal) and replaces one constraint's rule; the latest value wins.
- ``style``: patience, question cap, skeptic; ``limits``: the shopper's turn cap and the question length cap.
- ``gold``: product ids that satisfy the final truth (all constraints, events applied).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from arena.catalog.models import Service
from arena.tasks.base import ProblemBase
from arena.tasks.shopping.problem import PriceRule, ProductReward

Source = Literal["query", "profile", "slot", "reject"]
SOURCES: tuple[str, ...] = ("query", "profile", "slot", "reject")
#: the longest question the shopper reads in full; a longer one is answered by the rules, never refused
QUESTION_CHARS = 160
RULE_FIELDS = ("title", "sku_options", "attributes", "service", "price")
#: the words before a bundle's first item in its opening, and before each later item's opening in its intro
FIRST_ITEM = "First:"
NEXT_ITEM = "One more thing:"
#: the words every veto holds (a refusal of that very product, not of its kind or of a value it has)
VETO_MARK = "that exact one"
#: the words a note of the profile, or a change of mind, about one item of several starts with
ABOUT_ITEM = ("For the ", "About the ")


class Rule(BaseModel):
    """One constraint's rule: a piece of a ShoppingBench product reward, in its grammar (no product id)."""

    model_config = ConfigDict(extra="forbid")

    title: list[str] = Field(default_factory=list)
    sku_options: list[dict[str, str]] = Field(default_factory=list)
    attributes: list[dict[str, list[str]]] = Field(default_factory=list)
    service: list[Service] = Field(default_factory=list)
    price: list[PriceRule] = Field(default_factory=list)

    @model_validator(mode="after")
    def _not_empty(self) -> Rule:
        if not any(getattr(self, f) for f in RULE_FIELDS):
            raise ValueError("a rule needs at least one of title, sku_options, attributes, service, price")
        return self

    def fields(self) -> list[str]:
        """The reward fields this rule constrains, in grammar order."""
        return [f for f in RULE_FIELDS if getattr(self, f)]

    def values(self) -> list[str]:
        """Every value this rule holds, as text (titles, option and attribute values, services, price bounds): what
        must never reach the agent before the constraint is revealed."""
        out: list[str] = list(self.title)
        out += [v for option in self.sku_options for v in option.values()]
        out += [v for attr in self.attributes for vs in attr.values() for v in vs]
        out += list(self.service)
        for p in self.price:
            out += [f"{b:g}" for b in (p.lo, p.hi) if b is not None]
        return out

    def keys(self) -> list[str]:
        """The SKU option and attribute keys this rule names."""
        return [k for option in self.sku_options for k in option] + [k for a in self.attributes for k in a]


def merge(product_id: str, rules: list[Rule]) -> ProductReward:
    """One ShoppingBench product reward holding every rule of ``rules`` (what the strict checks score)."""
    reward: dict[str, list[Any]] = {f: [] for f in RULE_FIELDS}
    for rule in rules:
        for f in RULE_FIELDS:
            reward[f].extend(getattr(rule, f))
    return ProductReward.model_validate({"product_id": product_id, **reward})


class Constraint(BaseModel):
    """One thing the shopper needs, where the agent can learn it, and what the shopper says about it."""

    model_config = ConfigDict(extra="forbid")

    cid: Annotated[str, Field(min_length=1, max_length=32)]
    src: Source
    rule: Rule
    #: slots: the words and phrases of a question that ask about this constraint (lowercase)
    topics: list[str] = Field(default_factory=list)
    #: slots: the answer; rejects: the rejection (``{actual}`` is the violating product's value); query and profile
    #: constraints may give the line the shopper says when a proposal ignores them (else one is made from the rule)
    say: str = ""
    #: the item of the session this constraint is about (0: the first; a bundle or several intents have more)
    item: Annotated[int, Field(ge=0, le=2)] = 0

    @model_validator(mode="after")
    def _lines_fit_the_source(self) -> Constraint:
        if self.src == "slot" and not (self.topics and self.say):
            raise ValueError(f"slot constraint {self.cid!r} needs its topics and its say")
        if self.src == "reject" and not self.say:
            raise ValueError(f"reject constraint {self.cid!r} needs its say")
        if self.src not in ("slot",) and self.topics:
            raise ValueError(f"only slot constraints have topics ({self.cid!r} is {self.src})")
        self.topics = [t.strip().lower() for t in self.topics if t.strip()]
        return self


class Update(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cid: str
    rule: Rule


class Event(BaseModel):
    """A mid-session change of mind: on an acceptable proposal, one constraint's rule is replaced and said."""

    model_config = ConfigDict(extra="forbid")

    #: ``first_acceptable_proposal``: the first acceptable proposal for the updated constraint's item; ``last_item``
    #: (a late change of mind): the first acceptable proposal for the session's last item, after the earlier items
    #: were settled
    on: Literal["first_acceptable_proposal", "last_item"] = "first_acceptable_proposal"
    update: Update
    say: Annotated[str, Field(min_length=1)]


class Profile(BaseModel):
    """What ``get_user_profile`` returns: visible fields, and requirements in prose among distractors."""

    model_config = ConfigDict(extra="forbid")

    visible: dict[str, Any] = Field(default_factory=dict)
    requirements: dict[str, str] = Field(default_factory=dict)


class Style(BaseModel):
    """The shopper's temper: unproductive turns it tolerates, questions it answers, whether it wants evidence."""

    model_config = ConfigDict(extra="forbid")

    patience: Annotated[int, Field(ge=1, le=20)] = 4
    max_questions: Annotated[int, Field(ge=0, le=20)] = 6
    #: a skeptic confirms a product only when the message quotes its catalog price and one revealed value
    skeptic: bool = False
    #: the persona the style was drawn for (a label: the numbers above are what the shopper follows)
    persona: Literal["plain", "low_patience", "sceptical", "efficiency_first"] = "plain"


class Intent(BaseModel):
    """One more thing the shopper wants in the same session (items after the first): what it is called and the
    words that introduce it, said once the items before it are settled."""

    model_config = ConfigDict(extra="forbid")

    noun: Annotated[str, Field(min_length=1)]
    intro: Annotated[str, Field(min_length=1)]


class Veto(BaseModel):
    """A product the shopper refuses whatever the rules say ("I had that exact one before"): said only when it is
    proposed, and never acceptable afterwards."""

    model_config = ConfigDict(extra="forbid")

    product_id: Annotated[str, Field(min_length=1)]
    say: Annotated[str, Field(min_length=1)]


class Limits(BaseModel):
    """What the agent is told up front (the public view carries these)."""

    model_config = ConfigDict(extra="forbid")

    max_user_turns: Annotated[int, Field(ge=1, le=50)] = 12
    question_chars: Annotated[int, Field(ge=20, le=1000)] = QUESTION_CHARS


class Gold(BaseModel):
    model_config = ConfigDict(extra="forbid")

    product_ids: Annotated[list[str], Field(min_length=1)]


class SessionProblem(ProblemBase):
    """One shopping session: the opening (``query``) an agent sees, the plan and gold it never sees."""

    task: Literal["session"] = "session"
    profile: Profile = Field(default_factory=Profile)
    constraints: Annotated[list[Constraint], Field(min_length=1, max_length=24)]
    events: Annotated[list[Event], Field(max_length=4)] = Field(default_factory=list)
    style: Style = Field(default_factory=Style)
    limits: Limits = Field(default_factory=Limits)
    gold: Gold
    #: the items after the first (a bundle, or several intents), in the order the shopper brings them up
    intents: Annotated[list[Intent], Field(max_length=2)] = Field(default_factory=list)
    #: a bundle's budget: the committed products together cost at most this (stated in the opening)
    bundle_budget: Annotated[float, Field(gt=0)] | None = None
    vetoes: Annotated[list[Veto], Field(max_length=3)] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> SessionProblem:
        cids = [c.cid for c in self.constraints]
        if len(set(cids)) != len(cids):
            raise ValueError(f"constraint ids repeat: {cids}")
        for event in self.events:
            if event.update.cid not in cids:
                raise ValueError(f"an event updates unknown constraint {event.update.cid!r}")
        items = self.items
        if any(c.item >= items for c in self.constraints):
            raise ValueError(f"a constraint is about an item past the {items} the session has")
        if len(self.gold.product_ids) != items:
            raise ValueError(f"{items} items need one gold product each, got {len(self.gold.product_ids)}")
        return self

    @property
    def items(self) -> int:
        """How many products the session commits: the first item and each later intent."""
        return 1 + len(self.intents)

    def item_rules(self, item: int, rules: dict[str, Rule] | None = None) -> dict[str, Rule]:
        """The rules of ``rules`` (default: the final truth) about ``item``."""
        rules = self.final_rules() if rules is None else rules
        return {c.cid: rules[c.cid] for c in self.constraints if c.item == item}

    def item_opening(self, item: int) -> str:
        """The words that ask for ``item`` alone: the opening (after a bundle's lead), or an intent's intro."""
        text = self.query if item == 0 else self.intents[item - 1].intro
        marker = FIRST_ITEM if item == 0 else NEXT_ITEM
        return text.split(marker, 1)[1].strip() if marker in text else text

    def event_item(self, event: Event) -> int:
        """The item whose acceptable proposal fires ``event``."""
        return self.items - 1 if event.on == "last_item" else self.constraint(event.update.cid).item

    def public(self) -> dict[str, Any]:
        """The only view that enters a sandbox: the opening, non-revealing metadata and the limits."""
        return {**super().public(), "limits": self.limits.model_dump(mode="json")}

    @property
    def gold_ids(self) -> list[str]:
        return list(self.gold.product_ids)

    @property
    def slots(self) -> int:
        return self.items  # a session commits one product per item

    def constraint(self, cid: str) -> Constraint:
        for c in self.constraints:
            if c.cid == cid:
                return c
        raise KeyError(cid)

    def final_rules(self) -> dict[str, Rule]:
        """The final truth S*: every constraint's rule, with every event applied (the latest value wins)."""
        rules = {c.cid: c.rule for c in self.constraints}
        for event in self.events:
            rules[event.update.cid] = event.update.rule
        return rules

    def opening_rules(self, item: int = 0) -> dict[str, Rule]:
        """The rules stated in ``item``'s opening, before any event."""
        return {c.cid: c.rule for c in self.constraints if c.src == "query" and c.item == item}

    def truth(self) -> ProductReward:
        """S* as one ShoppingBench product reward (gold id: the first gold product)."""
        return merge(self.gold.product_ids[0], list(self.final_rules().values()))
