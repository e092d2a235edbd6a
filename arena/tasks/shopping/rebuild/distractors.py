"""The distractor answers of each problem, with the products they add: near misses of each gold (in other shops, or
every other one in a one-shop basket's shop), another shop for shop tasks, an over-budget basket for voucher tasks,
and for web problems the answer removed or replaced by a near-miss value. Then the golds and their copies are
balanced, so that no query ranks a gold above its near misses."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from arena.catalog.rng import Rng
from arena.tasks.shopping.problem import Problem, ProductReward
from arena.tasks.shopping.rebuild.nearmiss import Copy, Values, fail_others, near_misses, with_knowledge
from arena.tasks.shopping.rebuild.plan import one_shop
from arena.tasks.shopping.rebuild.prices import after_voucher

#: near-miss products per gold of a one-product problem, and per gold of a basket (shop, voucher): other listings of
#: the product line that each break one constraint and match every query exactly as well as the gold
NEAR_MISSES_PRODUCT = 15
NEAR_MISSES_BASKET = 6
#: the attribute under which listings carry their tags (`balance`), unless a problem asks for a key of this name
TAGS_KEY = "tags"


class Ids:
    """Ids for distractors, drawn like their gold's (as many digits, the same first digit), so an id does not tell
    a near miss from its gold; never equal to, and never containing, any gold id (web gt is a substring test)."""

    def __init__(self, golds: set[str], seed: int) -> None:
        self._golds = golds
        self._used: set[str] = set()
        self._rng = Rng("rebuild-ids", seed)

    def new(self, like: str) -> str:
        if like.isdigit() and 6 <= len(like) <= 19 and like[0] != "0":
            head, size = like[0], len(like)
        else:
            head, size = "1", 10
        while True:
            candidate = head + "".join(str(self._rng.below(10)) for _ in range(size - 1))
            n = len(candidate)  # a gold id inside it is one of its substrings
            if candidate in self._used or any(
                candidate[i:j] in self._golds for i in range(n) for j in range(i + 1, n + 1)
            ):
                continue
            self._used.add(candidate)
            return candidate


Distractor = tuple[str, list[str], list[Copy]]


def distractors_of(
    problem: Problem,
    docs: dict[str, dict[str, Any]],
    ids: Ids,
    new_shop: Callable[[], str],
    near_values: Sequence[str],
    ceilings: dict[str, float],
    pool: Values,
    naming: dict[str, list[ProductReward]],
    rng: Rng,
) -> list[Distractor]:
    """Distractor answers of one problem: (what breaks, the answer ids, the products to add). ``naming``: the
    rewards of every non-web problem naming each gold id (a copy must fail those of the other problems too)."""
    answer = problem.gold_ids
    golds = [docs[pid] for pid in answer]
    out: list[Distractor] = []

    def copy_of(slot: int, product: dict[str, Any], reprice: bool = True) -> Copy:
        copy = Copy(answer[slot], product)
        fail_others(
            copy,
            None if problem.task == "web" else problem.reward[slot],
            naming.get(answer[slot], []),
            pool,
            rng,
            reprice=reprice,
        )
        return copy

    if problem.task == "web":
        knowledge = problem.knowledge_attribute or ""
        low = knowledge.lower()
        for breaks, value in [("knowledge attribute", None)] + [(f"knowledge value {v}", v) for v in near_values]:
            bad = dict(with_knowledge(golds[0], knowledge, value), product_id=ids.new(answer[0]))
            if low and (low in bad["title"].lower() or low in bad["description"].lower()):
                continue
            out.append((breaks, [bad["product_id"]], [copy_of(0, bad)]))
        return out
    count = NEAR_MISSES_PRODUCT if problem.task == "product" else NEAR_MISSES_BASKET
    same_shop = one_shop(problem)
    for slot, (reward, gold) in enumerate(zip(problem.reward, golds, strict=True)):
        for n, (breaks, copy) in enumerate(near_misses(reward, gold, count, pool, rng)):
            # another listing of the product line: in another shop (in a one-shop basket, every other one stays in
            # the basket's shop, so the shop search does not single the gold out)
            shop = gold["shop_id"] if same_shop and n % 2 == 0 else new_shop()
            copy.product.update(product_id=ids.new(answer[slot]), shop_id=shop, sold_count=rng.below(500))
            fail_others(copy, reward, naming.get(answer[slot], []), pool, rng, reprice=not breaks.startswith("price"))
            swapped = answer[:slot] + [copy.product["product_id"]] + answer[slot + 1 :]
            out.append((f"slot {slot + 1} {breaks}", swapped, [copy]))
    if problem.task == "shop":
        moved = dict(golds[-1], product_id=ids.new(answer[-1]), shop_id=new_shop())
        out.append(("another shop", answer[:-1] + [moved["product_id"]], [copy_of(len(answer) - 1, moved)]))
    if problem.task == "voucher":
        voucher = problem.voucher
        assert voucher is not None
        single = len({g["shop_id"] for g in golds}) == 1
        total = sum(g["price"] for g in golds)
        raise_by = max(1.0, voucher.budget - after_voucher(total, single, voucher) + 1.0)
        while after_voucher(total + raise_by, single, voucher) <= voucher.budget:
            raise_by *= 2
        # priced above every other problem's ceiling for this product too, so it is no one's substitute
        ceiling = ceilings.get(answer[0], math.inf)
        if not math.isinf(ceiling):
            raise_by = max(raise_by, ceiling - golds[0]["price"] + 1.0)
        pricey = dict(golds[0], product_id=ids.new(answer[0]), price=round(golds[0]["price"] + raise_by, 2))
        out.append(("over budget", [pricey["product_id"]] + answer[1:], [copy_of(0, pricey, reprice=False)]))
    return out


def rewards_met(docs: dict[str, dict[str, Any]], problems: Sequence[Problem]) -> dict[str, list[ProductReward]]:
    """Per gold id, the non-web rewards its copies must fail unless they are a distractor of it: those naming it,
    then those of other golds whose every SKU and attribute pair the gold has (a product of the same line that
    another problem asks for: its near misses would be that problem's answers)."""
    naming: dict[str, list[ProductReward]] = {}
    by_pair: dict[tuple[str, str], list[ProductReward]] = {}
    for problem in problems:
        if problem.task == "web":
            continue
        for reward in problem.reward:
            naming.setdefault(reward.product_id, []).append(reward)
            pairs = reward.required_pairs()
            if pairs:
                by_pair.setdefault(pairs[0], []).append(reward)
    for pid, doc in docs.items():
        have = {(k, v) for k, vs in doc["attributes"].items() for v in vs}
        have |= {(k, v) for option in doc["sku_options"].values() for k, v in option.items()}
        met = [
            r
            for pair in sorted(have)
            for r in by_pair.get(pair, ())
            if r.product_id != pid and all(p in have for p in r.required_pairs())
        ]
        if met:
            naming[pid] = naming.get(pid, []) + list({id(r): r for r in met}.values())
    return naming


def tags_key(problems: Sequence[Problem]) -> str:
    """The attribute that carries listings' tags: a key no problem asks for."""
    asked = {k for p in problems for r in p.reward for k, _ in r.required_pairs()}
    key = TAGS_KEY
    while key in asked:
        key = f"listing_{key}"
    return key


def _with_tags(doc: dict[str, Any], key: str, words: list[str]) -> dict[str, Any]:
    attributes = {k: list(v) for k, v in doc["attributes"].items()}
    attributes[key] = attributes.get(key, []) + words
    return dict(doc, attributes=attributes)


def balance(docs: dict[str, dict[str, Any]], copies: Sequence[Copy], key: str) -> None:
    """Give a gold and every copy of it the same searched words, so no query ranks the gold above its near misses.

    A copy that swapped value v for w lacks v and has w where the gold has v. Each gold gets, as tags, every value
    any of its copies swapped in (as often as the copy that has it most); each copy gets the same tags less its
    own swapped-in values, plus the values it swapped out. The tags are under a key no problem asks for, so they
    satisfy no constraint; title, SKU and attribute words then match any query exactly as often in the gold as in
    each copy, and the search engine's ties are broken by the shuffled order products are written in."""
    tags: dict[str, Counter[str]] = {}
    for copy in copies:
        tags.setdefault(copy.gold_id, Counter())
        tags[copy.gold_id] |= Counter(copy.added)
    for pid, words in tags.items():
        if words:
            docs[pid] = _with_tags(docs[pid], key, sorted(words.elements()))
    for copy in copies:
        words = tags[copy.gold_id]
        if words:
            own = words - Counter(copy.added) + Counter(copy.removed)
            copy.product = _with_tags(copy.product, key, sorted(own.elements()))
