"""A shopping session (task ``session``): a conversation with a shopper who knows more than the opening says.

1. Read the profile (``get_user_profile``): its notes may name services or a budget.
2. Search the opening like a product query (``baseline/search.py``) with what is known as filters.
3. Ask about what is unknown, one topic a question: the budget, the services, the attribute and SKU keys that tell
   the candidates apart, most telling first. Each answer is read for a value the catalog carries
   (``baseline/wants.py``); no question is asked that could leave fewer than half of them answered (an unproductive
   question costs the shopper's patience, and the rubric counts the share answered).
4. Propose the best candidate that meets everything learnt, one at a time (``respond``), quoting its price and the
   values that matter. A rejection names what was wrong: it is learnt (never the rejected product's own value) and
   the product never proposed again; a change of mind (a new budget, another value) is learnt and the same product
   proposed again if it still fits; a shopper who wants evidence gets every value quoted.
5. Commit (``recommend_product``) only the product the shopper agreed to: a session that ends without their
   agreement commits nothing (``answer.py`` terminates the run either way).
"""

from __future__ import annotations

from typing import Any

from baseline.query import Item, parse_item
from baseline.search import Session
from baseline.text import FILLER, stem, tokens
from baseline.wants import (
    AGAIN,
    CLOSED,
    CONFIRMED,
    NO_PREFERENCE,
    REFUSED,
    REJECTED,
    UNCONVINCED,
    UNKNOWN,
    Wants,
    full_quote,
    quote,
    read_line,
    read_profile,
    values_by_key,
)

#: The most questions asked (the shopper answers a limited number; each unproductive one costs patience).
QUESTIONS = 4
#: The share of questions that must reveal something: no question is asked that could bring it below this.
REVEAL_RATE = 0.5
#: The most proposals made.
PROPOSALS = 7
#: Candidates whose keys decide what to ask about.
TOP = 10
#: What a title like an acceptable one (unlike a rejected one) adds to a candidate's rank.
TITLE_WEIGHT = 6.0
#: Words of a shopper's line that are no search words.
_SAID = frozenset(
    "has have has to be it its needs need must should really only actually would rather prefer asked said".split()
)


class Talk:
    """The conversation's side of the run: the shopper's words, the turns left, whether they closed it."""

    def __init__(self, s: Session) -> None:
        self.s = s
        limits = s.problem.get("limits")
        turns = limits.get("max_user_turns") if isinstance(limits, dict) else None
        self.turns_left = turns if isinstance(turns, int) and turns > 0 else 12
        self.closed = False
        self.heard: list[str] = []

    def say(self, name: str, **arguments: Any) -> str | None:
        """One move (``ask_user`` or ``respond``): the shopper's words, or None when nothing came back."""
        if self.closed or self.turns_left <= 0:
            return None
        got = self.s.tool(name, **arguments)
        if not isinstance(got, dict):
            return None
        left = got.get("turns_left")
        self.turns_left = left if isinstance(left, int) else self.turns_left - 1
        self.closed = bool(got.get("closed"))
        text = str(got.get("user") or "")
        self.heard.append(text)
        return text


class Plan:
    """One session's state: what the shopper wants, the opening parsed, lines not understood yet."""

    def __init__(self, s: Session, query: str) -> None:
        self.s = s
        self.query = query
        self.talk = Talk(s)
        self.wants = Wants()
        self.notes = ""
        self.pending: list[str] = []  # the shopper's lines that named no value a viewed product carries
        self.full: set[str] = set()  # products proposed with every value quoted
        #: the title words of products the shopper found acceptable (a change of mind, a wish for evidence) and of
        #: those rejected for nothing we could read (most likely "not the kind of product I asked for")
        self.liked: list[set[str]] = []
        self.disliked: list[set[str]] = []
        #: product -> the needs its rejection taught us (a shopper judges it anew once one of them changes)
        self.refused: dict[str, set[str]] = {}

    def item(self) -> Item:
        """The opening, with the values learnt as words and what is known as filters."""
        extra = " ".join(dict.fromkeys(self.wants.pairs.values()))
        item = parse_item(f"{self.query} {extra}".strip() if extra else self.query)
        item.lo, item.hi = self.wants.lo, self.wants.hi
        item.services = list(self.wants.services)
        if extra or self.wants.price is not None:
            item.likely = None
        return item

    def known(self) -> dict[str, set[str]]:
        return values_by_key(self.s.details)

    def learn(self, line: str, prefer: str | None = None, product: dict[str, Any] | None = None) -> bool:
        """Read one line; a line that names nothing known waits for the next search (its words search too)."""
        if read_line(self.wants, line, self.known(), prefer, product):
            return True
        self.pending.append(line)
        return False

    def reread(self) -> None:
        """The lines not understood, read again with the values the latest search viewed."""
        waiting, self.pending = self.pending, []
        for line in waiting:
            if not read_line(self.wants, line, self.known()):
                self.pending.append(line)


def solve_session(s: Session, query: str) -> None:
    """The whole session: profile, search, questions, proposals, the commit of the product agreed to."""
    plan = Plan(s, query)
    plan.notes = read_profile(plan.wants, s.tool("get_user_profile"))
    opening = parse_item(query)
    plan.wants.set_price(opening.lo, opening.hi)
    plan.wants.add_services(opening.services)
    item = plan.item()
    item.likely = opening.likely
    ranked = s.rank_item(item, s.candidates(item))
    if plan.notes:
        plan.learn(plan.notes)  # a value the profile names ("always picks red for the color")
    ask(plan, [pid for _, _, pid in ranked[:TOP]])
    chosen = propose(plan)
    if chosen is not None:
        s.recommend([chosen])


#: What an answer about a budget, a service or the brand is worth beside one about another key.
BUDGET_WEIGHT = 0.6
SERVICE_WEIGHT = 1.0
BRAND_WEIGHT = 2.0
#: How to ask about a budget and about each service (one topic a question, in the shopper's words).
BUDGET_QUESTION = "What is your budget?"
SERVICE_QUESTIONS = {
    "official": "Should it come from an official store?",
    "freeShipping": "Do you need free shipping?",
    "COD": "How do you want to pay?",
    "flashsale": "Are you waiting for a flash sale?",
}


def questions(plan: Plan, ids: list[str]) -> list[tuple[str | None, str]]:
    """(key, question) pairs, most telling first: how many of the leading candidates an answer is expected to rule
    out. A key (attribute or SKU option) rules out those without the value asked for; a service those without it
    (weighted by how likely it is wanted at all); a budget, when none is known, about half of them."""
    s, wants = plan.s, plan.wants
    n = max(1, len(ids))
    scored: list[tuple[float, str, str | None, str]] = []
    if wants.hi is None:
        scored.append((BUDGET_WEIGHT * n / 2, "~budget", None, BUDGET_QUESTION))
    summaries = [s.summaries.get(pid, {}) for pid in ids]
    for service, question in SERVICE_QUESTIONS.items():
        have = sum(1 for doc in summaries if service in (doc.get("service") or ()))
        if service not in wants.services and 0 < have < n:
            scored.append((SERVICE_WEIGHT * have / n * (n - have), "~" + service, None, question))
    said = " " + " ".join(tokens(plan.query)) + " "
    counts: dict[str, dict[str, int]] = {}
    for pid in ids:
        for key, values in values_by_key({pid: s.details.get(pid, {})}).items():
            for v in values:
                counts.setdefault(key, {})[v] = counts.setdefault(key, {}).get(v, 0) + 1
    for key, by_value in counts.items():
        if key in wants.pairs or key in ("model",):
            continue
        if any(f" {' '.join(tokens(v))} " in said for v in by_value if tokens(v)):
            continue  # the opening already names one of its values
        split = sum(c / n * (n - c) for c in by_value.values())
        scored.append((split * (BRAND_WEIGHT if key == "brand" else 1.0), key, key, ask_about(key)))
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [(key, question) for _, _, key, question in scored]


def ask_about(key: str) -> str:
    return f"Any preference for the {key.replace('_', ' ')}?"


def ask(plan: Plan, ids: list[str]) -> None:
    """Questions, one topic each, while the shopper has something to say."""
    talk, misses = plan.talk, 0
    asked = 0
    for key, question in questions(plan, ids):
        if asked >= QUESTIONS or talk.turns_left <= 2 or not plan.s.can_search(4):
            return
        if key is not None and (key in plan.wants.pairs or key in plan.wants.mentions):
            continue  # learnt meanwhile (an answer may name another topic than the one asked)
        if asked and (asked - misses) / (asked + 1) < REVEAL_RATE:
            return  # one more unanswered question would leave fewer answers than the rate asks
        asked += 1
        reply = talk.say("ask_user", question=question)
        if reply is None or talk.closed or has_any(reply, REFUSED):
            return
        if has_any(reply, NO_PREFERENCE):
            misses += 1
            continue
        plan.learn(reply, prefer=key)


def has_any(text: str, fragments: tuple[str, ...]) -> bool:
    low = text.lower()
    return any(f in low for f in fragments)


def hear(reply: str) -> str:
    """What a reply to a proposal says: confirm, unconvinced, again, unknown, reject, closed, or update."""
    if has_any(reply, REJECTED):
        return "reject"
    if has_any(reply, AGAIN):
        return "again"
    if has_any(reply, UNKNOWN):
        return "unknown"
    if has_any(reply, UNCONVINCED):
        return "unconvinced"
    if has_any(reply, CONFIRMED):
        return "confirm"
    if has_any(reply, CLOSED):
        return "closed"
    return "update"


def propose(plan: Plan) -> str | None:
    """Proposals until the shopper agrees to one (returned), or the conversation or the candidates run out."""
    s, talk, wants = plan.s, plan.talk, plan.wants
    again: str | None = None
    for _ in range(PROPOSALS):
        if talk.closed or talk.turns_left <= 0 or not s.can_search(2):
            return None
        pid = again or next_candidate(plan)
        if pid is None:
            return None
        again = None
        summary, detail = s.summaries.get(pid, {}), s.details.get(pid)
        if pid in plan.full:
            message = quote(summary, detail, wants, plan.query) + " " + full_quote(summary, detail)
        else:
            message = quote(summary, detail, wants, plan.query)
        reply = talk.say("respond", message=message, product_ids=[pid])
        if reply is None:
            return None
        heard = hear(reply)
        if heard == "confirm":
            wants.confirmed = pid
            return pid
        if heard in ("unconvinced", "update"):
            plan.liked.append(title_words(summary))
        if heard == "unconvinced" and pid not in plan.full:
            plan.full.add(pid)
            again = pid
        elif heard == "update":
            before = needs(wants)
            understood = plan.learn(reply)
            changed = changed_needs(before, wants)
            for other, why in plan.refused.items():  # refused for a need that has changed: worth a new look
                if why & changed:
                    wants.rejected.discard(other)
            # still fitting, or nothing understood (a stale proposal is rejected naming the new value): again
            again = pid if wants.fits(summary, detail) or not understood else None
        else:
            wants.rejected.add(pid)
            before = needs(wants)
            if heard == "reject" and not plan.learn(reply, product=detail):
                plan.disliked.append(title_words(summary))
            plan.refused[pid] = changed_needs(before, wants)
    return None


def needs(wants: Wants) -> dict[str, object]:
    """What the shopper's needs are now, by need: each key's value (or words), the price range, each service."""
    out: dict[str, object] = {**wants.pairs, **{k: words for k, (words, _) in wants.mentions.items()}}
    out["~price"] = (wants.lo, wants.hi)
    out.update({f"~{service}": True for service in wants.services})
    return out


def changed_needs(before: dict[str, object], wants: Wants) -> set[str]:
    """The needs whose value differs from ``before``."""
    after = needs(wants)
    return {k for k in set(before) | set(after) if before.get(k) != after.get(k)}


def next_candidate(plan: Plan) -> str | None:
    """The best candidate that meets everything learnt and was not rejected; searched for when none is at hand."""
    pid = _best_seen(plan)
    if pid is not None:
        return pid
    search_more(plan)
    plan.reread()
    return _best_seen(plan)


def _best_seen(plan: Plan) -> str | None:
    """The best-ranked candidate that fits, its title like those the shopper found acceptable and unlike those
    rejected for what we could not read."""
    s, wants = plan.s, plan.wants
    best: tuple[float, str] | None = None
    for score, _, pid in s.rank_item(plan.item(), list(s.summaries)):
        summary = s.summaries.get(pid, {})
        if pid in wants.rejected or not wants.fits(summary, s.details.get(pid)):
            continue
        words = title_words(summary)
        score += TITLE_WEIGHT * (_likeness(words, plan.liked) - _likeness(words, plan.disliked))
        if best is None or score > best[0]:
            best = (score, pid)
    return best[1] if best else None


def title_words(summary: dict[str, Any]) -> set[str]:
    return {stem(w) for w in tokens(str(summary.get("title") or "")) if w not in FILLER}


def _likeness(words: set[str], others: list[set[str]]) -> float:
    """How close a title's words come to the closest of ``others`` (Jaccard, 0 to 1)."""
    return max((len(words & o) / len(words | o) for o in others if words | o), default=0.0)


def search_more(plan: Plan) -> None:
    """Search again with the values learnt (and the words of lines not understood yet), then view the hits."""
    s, wants = plan.s, plan.wants
    if not s.can_search(3):
        return
    item = plan.item()
    words = item.query.split()
    for line in plan.pending:
        words += [w for w in tokens(line) if w not in FILLER and w not in _SAID and len(w) > 1]
    q = " ".join(dict.fromkeys(words))[:200]
    service = ",".join(wants.services) or None
    ids = s.search(q, 1, wants.price, service)
    if not ids and (wants.price or service):
        ids = s.search(q, 1)
    if not ids and plan.pending:
        ids = s.search(item.query, 1, wants.price, service)
    if plan.liked and s.can_search(3):  # products like one the shopper found acceptable
        ids += s.search(" ".join(sorted(plan.liked[-1] | set(wants.pairs.values())))[:200], 1, wants.price, service)
    s.view(ids)


#: the strategy `baseline.answer` finds by the task type's name
solve = solve_session

#: a session commits only the product the shopper agreed to: no fallback answer (`baseline.answer`)
ANSWER_ALWAYS = False
