"""Two scripted agents that play a session through the family's real tools, for the generator's self-checks and the
benchmark: a reference agent that should solve every fair problem, and a blind agent that must not.

- `reference_agent`: reads the profile, searches the opening and reads the hits' details, then alternates between
  asking about the field its top candidates share in several values (the budget last) and proposing the best
  remaining candidate. It tracks what the shopper said (`arena.tasks.session.reading`: the latest value of a field
  wins, so an update replaces what it supersedes); words of the opening that only name the kind of product are
  dropped; a refused product is never proposed again (and a refusal it cannot read, the kind of product being
  wrong, refuses every product titled like it); after a change of mind it proposes products titled like the one the
  shopper found acceptable first; it quotes the price and the product's values (a skeptic asks for that), and
  commits only what the shopper confirmed.
- `blind_agent`: searches the opening and commits the top hit, never talking to the shopper.

Both run on a fresh `SessionState` of the problem and the tools of `arena.tasks.session.tools.registry`, exactly as
the gateway serves them; `Outcome` says whether the commit passed the final truth and how the session went.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from arena.tasks.session import truth
from arena.tasks.session.problem import SessionProblem
from arena.tasks.session.reading import Needs, Vocabulary, pairs_of
from arena.tasks.session.tools import SessionState, registry
from arena.tasks.shopping.rebuild.distractors import TAGS_KEY
from arena.tasks.shopping.render import mentions
from arena.tasks.shopping.similarity import TITLE_THRESHOLD, similarities
from arena.tools.registry import ToolContext, ToolError, ToolRegistry

#: find_product pages the agents read (10 hits a page), and "no preference" answers before the agent stops asking
PAGES = 5
MISSES = 2
MAX_PROPOSALS = 8
#: the hits `Mind.prune` looks at
TOP_HITS = 10


@dataclass
class Outcome:
    """How one scripted session went."""

    success: bool
    committed: str | None
    ending: str | None
    user_turns: int
    questions: int
    proposals: int
    tool_calls: int
    notes: list[str] = field(default_factory=list)


class Session:
    """One session through the family's tools: the calls an agent makes, with the state the gateway keeps."""

    def __init__(self, problem: SessionProblem, catalog: Any, tools: ToolRegistry | None = None) -> None:
        self.problem = problem
        self.catalog = catalog
        self.tools = tools or registry()
        self.state = SessionState(problem=problem)
        self.ctx = ToolContext(catalog=catalog, state=self.state)

    def call(self, name: str, **arguments: Any) -> Any:
        return self.tools.call(name, arguments, self.ctx)

    def search(self, query: str) -> list[dict[str, Any]]:
        """The full documents of the hits of ``query`` (every page), in rank order."""
        ids: list[str] = []
        for page in range(1, PAGES + 1):
            try:
                hits = self.call("find_product", q=query, page=page)
            except ToolError:
                break
            ids += [h["product_id"] for h in hits]
            if len(hits) < 10:
                break
        docs: list[dict[str, Any]] = []
        for start in range(0, len(ids), 20):
            self.call("view_product_information", product_ids=",".join(ids[start : start + 20]))
            docs += [d for d in (self.catalog.get(pid) for pid in ids[start : start + 20]) if d is not None]
        return docs

    def outcome(self, committed: str | None, notes: list[str] | None = None) -> Outcome:
        shopper_state = self.state.shopper_state
        ending = shopper_state.ending if shopper_state else None
        success = (
            committed is not None and ending == "agent_commit" and passes_truth(self.problem, committed, self.catalog)
        )
        replies = self.state.replies
        return Outcome(
            success=success,
            committed=committed,
            ending=ending,
            user_turns=shopper_state.turns if shopper_state else 0,
            questions=sum(1 for a in self.state.transcript if a.kind == "ask"),
            proposals=sum(
                1 for a, r in zip(self.state.transcript, replies, strict=True) if a.product_ids and a.kind == "respond"
            ),
            tool_calls=self.state.calls,
            notes=notes or [],
        )


def passes_truth(problem: SessionProblem, product_ids: str, catalog: Any) -> bool:
    """Whether the committed ``product_ids`` (comma-joined, one per item in any order) satisfy the final truth S*:
    every constraint with every event applied, none vetoed, within the bundle's budget."""
    ids = [p.strip() for p in product_ids.split(",") if p.strip()]
    docs = [catalog.get(pid) for pid in ids]
    if len(set(ids)) != problem.items or any(d is None for d in docs):
        return False
    if {v.product_id for v in problem.vetoes} & set(ids):
        return False
    if problem.bundle_budget is not None and sum(float(d["price"]) for d in docs if d) > problem.bundle_budget + 0.005:
        return False
    rules = [list(problem.item_rules(i).values()) for i in range(problem.items)]
    return any(
        all(truth.check(rules[i], docs[j]).rule >= 1 for i, j in enumerate(order) if docs[j] is not None)
        for order in itertools.permutations(range(len(ids)))
    )


def blind_agent(problem: SessionProblem, catalog: Any, tools: ToolRegistry | None = None) -> Outcome:
    """Search the opening, commit the top hit."""
    session = Session(problem, catalog, tools)
    hits = session.call("find_product", q=problem.query)
    top = hits[0]["product_id"] if hits else None
    if top is not None:
        session.call("recommend_product", product_ids=top)
    return session.outcome(top)


def question(key: str) -> str:
    if key == "price":
        return "What is your budget?"
    words = "color" if key.startswith("colo") else key.replace("_", " ")
    return f"Which {words} would you like?"


def best_key(cands: list[dict[str, Any]], needs: Needs, asked: set[str]) -> str | None:
    """The field to ask about: among the top candidates, one they all have in several values (most of them having
    it first, then the most even split), not asked or known yet; the budget only when no field is left."""
    skip = asked | needs.known()
    groups: dict[str, dict[str, int]] = {}
    for doc in cands[:TOP_HITS]:
        for key in {k for k, _ in pairs_of(doc)} - {TAGS_KEY}:
            for value in sorted(v for k, v in pairs_of(doc) if k == key):
                groups.setdefault(key, {}).setdefault(value, 0)
                groups[key][value] += 1
        groups.setdefault("price", {}).setdefault(f"{float(doc['price']):.0f}", 0)
    scored = []
    for key, counts in groups.items():
        if key in skip or len(counts) < 2:
            continue
        have = sum(1 for d in cands[:TOP_HITS] if key == "price" or any(k == key for k, _ in pairs_of(d)))
        scored.append((key == "price", -have, max(counts.values()) - len(counts), key))
    return min(scored)[-1] if scored else None


def pitch(doc: dict[str, Any]) -> str:
    values = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(pairs_of(doc)))
    return f"How about {doc['title']}? It costs {float(doc['price']):.2f}; {values}."


@dataclass
class Mind:
    """What the reference agent knows about one item: its opening, what the catalog showed, what the shopper said."""

    opening: str = ""
    vocab: Vocabulary = field(default_factory=Vocabulary)
    needs: Needs = field(default_factory=Needs)
    docs: list[dict[str, Any]] = field(default_factory=list)
    refused: set[str] = field(default_factory=set)
    asked: set[str] = field(default_factory=set)
    misses: int = 0
    loose: set[str] = field(default_factory=set)  # fields read from bare words of the opening
    anchors: list[str] = field(default_factory=list)  # titles of products the shopper found acceptable

    def see(self, docs: list[dict[str, Any]]) -> None:
        have = {d["product_id"] for d in self.docs}
        for rank, doc in enumerate(docs):
            self.vocab.add(doc, top=rank < TOP_HITS)
            if doc["product_id"] not in have:
                self.docs.append(doc)
                have.add(doc["product_id"])

    def plain_rejection(self, doc: dict[str, Any], words: str) -> None:
        """``doc`` was refused for nothing the agent did not know: a field read from a bare value that it lacks was
        meant after all; else such fields were misread and are dropped; with none, the kind of product is wrong
        (every candidate whose title reads like ``doc``'s is refused)."""
        needs, have = self.needs, pairs_of(doc)
        lacking = {k for k in needs.weak if (k, needs.pairs[k]) not in have and mentions(words, needs.pairs[k])}
        if lacking:
            needs.weak -= lacking
            return
        if needs.weak:
            for key in needs.weak:
                needs.pairs.pop(key, None)
            needs.weak.clear()
            return
        cands = [d for d in self.docs if d["product_id"] not in self.refused]
        if cands:
            sims = similarities(doc["title"], [d["title"] for d in cands])
            self.refused |= {d["product_id"] for d, s in zip(cands, sims, strict=True) if s >= TITLE_THRESHOLD}

    def prune(self) -> None:
        """Drop the fields read from bare words of the opening that a top hit has not at all while it fits the rest:
        those words named the kind of product ("hiking" in "hiking backpack"), not a field's value."""
        loose = self.loose & self.needs.weak
        for doc in self.docs[:TOP_HITS]:
            missing = loose - {k for k, _ in pairs_of(doc)}
            if missing and doc["product_id"] not in self.refused and self.needs.fits(doc, frozenset(missing)):
                for key in missing:
                    self.needs.pairs.pop(key, None)
                    self.needs.weak.discard(key)
                self.loose -= missing
                return

    def candidates(self) -> list[dict[str, Any]]:
        """The products that fit what was said; when none does, the fields read from bare values are dropped."""
        self.prune()
        fresh = [d for d in self.docs if d["product_id"] not in self.refused]
        out = [d for d in fresh if self.needs.fits(d)]
        # nothing fits: leave out one field read from a bare value (the opening's first), else all of them
        relax = [frozenset({k}) for k in sorted(self.needs.weak, key=lambda k: (k not in self.loose, k))]
        for ignore in [*relax, frozenset(self.needs.weak)] if not out and self.needs.weak else []:
            out = [d for d in fresh if self.needs.fits(d, ignore)]
            if out:
                break
        if self.anchors and out:  # products of the kind the shopper accepted first, in search order
            sims = [max(similarities(d["title"], self.anchors)) for d in out]
            out = [d for _, d in sorted(zip(sims, out, strict=True), key=lambda x: x[0] < TITLE_THRESHOLD)]
        return out
