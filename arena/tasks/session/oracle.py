"""The reference agent, the sessions' oracle: it sees only what the tools and the shopper return and does everything
right, item after item. The generator keeps a problem only if it succeeds (``solved``), so it is fair by
construction; the benchmark runs it beside the templates.

Per item it keeps a `Mind` (`arena.tasks.session.agents`): it searches the item's opening and reads the hits'
details, reads the profile's notes about that item, then alternates between asking about the field its top
candidates share in several values (the budget last) and proposing the best remaining candidate, quoting its price
and values. Over the items:

- a bundle's opening gives the budget for all items together (before "First:"): each item's candidates must fit in
  what the products settled for the other items leave, cheapest first;
- "That one works for me." settles the item; "One more thing: ..." opens the next item with its own search;
  "... go ahead" commits the settled products, one per item;
- a change of mind "About the <noun>: ..." is read into the item it names; if the shopper says the product settled
  for it no longer fits, the agent goes back to that item and never proposes that product again;
- a veto ("that exact one") refuses that product only; a refusal over the bundle's budget refuses that product.
"""

from __future__ import annotations

import re
from typing import Any

from arena.tasks.session import shopper
from arena.tasks.session.agents import MAX_PROPOSALS, MISSES, Mind, Outcome, Session, best_key, blind_agent, pitch
from arena.tasks.session.agents import question as question_for
from arena.tasks.session.problem import ABOUT_ITEM, FIRST_ITEM, NEXT_ITEM, VETO_MARK, SessionProblem
from arena.tasks.session.reading import Needs, Vocabulary, read
from arena.tools.registry import ToolRegistry

Doc = dict[str, Any]
#: how the shopper goes on after a change of mind said with a verdict (the verdict's first words)
VERDICTS = (shopper.SAY_SETTLED, shopper.SAY_CONFIRM, shopper.SAY_UNCONVINCED)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _matches(noun: str, text: str) -> int:
    """How many words of ``noun`` the text has (a plural counts: "tent" in "tents")."""
    have = _words(text)
    return sum(1 for w in _words(noun) if len(w) > 2 and any(t.startswith(w) or w.startswith(t) for t in have))


def _about(text: str) -> tuple[str, str] | None:
    """("tent", the rest) for "For the tent: ..." or "About the tent: ...", else None."""
    for lead in ABOUT_ITEM:
        if text.startswith(lead) and ":" in text:
            noun, rest = text[len(lead) :].split(":", 1)
            return noun, rest.strip()
    return None


class _Shopping:
    """One session's items, each with its `Mind`, and the products settled for them."""

    def __init__(self, session: Session, notes: list[str]) -> None:
        self.session = session
        self.notes = notes
        self.minds: list[Mind] = []
        self.active = 0
        self.settled: dict[int, Doc] = {}
        self.total: float | None = None
        self.late: int | None = None  # the item the latest change of mind was about
        self.tries = 0

    def item_of(self, noun: str) -> int | None:
        scores = [_matches(noun, m.opening) for m in self.minds]
        best = max(range(len(scores)), key=lambda i: scores[i], default=None)
        return best if best is not None and scores[best] > 0 else None

    def start(self, opening: str) -> None:
        mind = Mind(opening=opening)
        self.minds.append(mind)
        self.active = len(self.minds) - 1
        mind.see(self.session.search(opening))
        read(opening, mind.vocab, mind.needs)
        mind.loose = set(mind.needs.weak)
        for note in self.notes:
            about = _about(note)
            if about is None:
                read(note, mind.vocab, mind.needs)
            elif self.item_of(about[0]) == self.active:
                read(about[1], mind.vocab, mind.needs)
        self.tries = 0

    def room(self) -> float:
        if self.total is None:
            return float("inf")
        return self.total - sum(float(d["price"]) for i, d in self.settled.items() if i != self.active)

    def candidates(self, mind: Mind) -> list[Doc]:
        cands = mind.candidates() or _widen(self.session, mind)
        if self.total is None:
            return cands
        room = self.room()
        return sorted((d for d in cands if float(d["price"]) <= room + 0.005), key=lambda d: float(d["price"]))

    def hear_late(self, words: str) -> str:
        """A change of mind about another item, said before the verdict: read into that item; the verdict left."""
        about = _about(words) if words.startswith(ABOUT_ITEM[1]) else None
        if about is None:
            return words
        noun, rest = about
        cut = min((i for i in (rest.find(v) for v in VERDICTS) if i >= 0), default=len(rest))
        target = self.item_of(noun)
        self.late = 0 if target is None else target
        mind = self.minds[self.late]
        read(rest[:cut], mind.vocab, mind.needs)
        return rest[cut:].strip()

    def commit(self) -> Outcome:
        ids = ",".join(self.settled[i]["product_id"] for i in sorted(self.settled))
        self.session.call("recommend_product", product_ids=ids)
        return self.session.outcome(ids)

    def settle(self, pick: Doc, words: str) -> None:
        self.settled[self.active] = pick
        rest = words[len(shopper.SAY_SETTLED) :].strip()
        if rest.startswith(shopper.SAY_BACK):
            target = self.late if self.late is not None else 0
            old = self.settled.pop(target, None)
            if old is not None:
                self.minds[target].refused.add(old["product_id"])
            self.active, self.tries = target, 0
        elif NEXT_ITEM in rest:
            self.start(rest.split(NEXT_ITEM, 1)[1].strip())

    def refused(self, mind: Mind, pick: Doc, words: str) -> None:
        """A reply that neither settles nor commits: what it teaches about the item and the product."""
        if VETO_MARK in words or (words.startswith(shopper.SAY_REJECT) and "the total over" in words):
            mind.refused.add(pick["product_id"])  # that product alone, whatever its values
            return
        refused = words.startswith((shopper.SAY_REJECT, shopper.SAY_AGAIN))
        changed = read(words, mind.vocab, mind.needs, refused=None if not refused else pick)
        if not refused and (changed or words.startswith(shopper.SAY_UNCONVINCED)):
            mind.anchors.append(pick["title"])  # acceptable before a change of mind: the right kind of product
        if refused or not changed:
            mind.refused.add(pick["product_id"])
        if words.startswith(shopper.SAY_REJECT) and not changed:
            mind.plain_rejection(pick, words)

    def run(self) -> Outcome:
        while self.tries < MAX_PROPOSALS:
            mind = self.minds[self.active]
            cands = self.candidates(mind)
            if not cands:
                return self.session.outcome(None, ["no candidate fits what the shopper said"])
            key = best_key(cands, mind.needs, mind.asked) if mind.misses < MISSES else None
            if key is not None:
                if not _ask(self.session, mind, key):
                    return self.session.outcome(None, ["the shopper left while asked"])
                continue
            pick = cands[0]
            self.tries += 1
            answer = self.session.call("respond", message=pitch(pick), product_ids=[pick["product_id"]])
            if answer["closed"]:
                return self.session.outcome(None, ["the shopper left at a proposal"])
            words = self.hear_late(answer["user"])
            if words.startswith(shopper.SAY_CONFIRM):
                self.settled[self.active] = pick
                return self.commit()
            if words.startswith(shopper.SAY_SETTLED):
                self.settle(pick, words)
            else:
                self.refused(mind, pick, words)
        return self.session.outcome(None, [f"no confirmation after {MAX_PROPOSALS} proposals for one item"])


def _widen(session: Session, mind: Mind) -> list[Doc]:
    """No candidate left: search again with the item's opening and every value said since."""
    words = " ".join([mind.opening, *mind.needs.pairs.values()])
    mind.see(session.search(words))
    return mind.candidates()


def _ask(session: Session, mind: Mind, key: str) -> bool:
    """Ask about ``key``; whether the session is still open."""
    mind.asked.add(key)
    answer = session.call("ask_user", question=question_for(key))
    if not read(answer["user"], mind.vocab, mind.needs):
        mind.misses += 1
    return not answer["closed"]


def reference_agent(problem: SessionProblem, catalog: Any, tools: ToolRegistry | None = None) -> Outcome:
    """Ask, track, propose, settle each item, commit (see the module docstring). It reads the problem's public
    view only (the opening); everything else comes from the tools."""
    session = Session(problem, catalog, tools)
    profile = session.call("get_user_profile")
    shop = _Shopping(session, [str(n) for n in profile.get("notes", [])])
    opening = str(problem.public()["query"])
    if FIRST_ITEM in opening:  # a bundle: the budget for everything, then the first item
        lead, opening = opening.split(FIRST_ITEM, 1)
        needs = Needs()
        read(lead, Vocabulary(), needs)
        shop.total = needs.max_price
    shop.start(opening.strip())
    return shop.run()


AGENTS = {"reference": reference_agent, "blind": blind_agent}
