"""A session's constraints checked against catalog products, with the shopping domain's product checks.

Both the shopper (is a proposal acceptable?) and the scorer (does the commit satisfy the final truth?) decide here,
so the shopper never confirms a product the scorer would fail: each rule becomes a product reward
(`arena.tasks.session.problem.merge`) and is scored by `arena.tasks.shopping.strict_product.score_product` under a
product id no catalog product has, so only the rule's own checks decide (never an exact-id shortcut).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena.tasks.session.problem import Rule, merge
from arena.tasks.shopping.similarity import default_embedder
from arena.tasks.shopping.strict_product import score_product
from arena.tasks.shopping.verdict import ProductScore

#: the reward id the checks run under: no product has it, so ``gt`` is always 0 and every check counts
NO_ID = "(the session's rules)"
SERVICE_WORDS = {
    "official": "from an official store",
    "freeShipping": "with free shipping",
    "COD": "with cash on delivery",
    "flashsale": "on flash sale",
}


class CachedEmbedder:
    """The default title embedder, remembering each title's vector: a session checks the same few titles again and
    again (the same vectors, so the same verdicts, only sooner)."""

    LIMIT = 4096

    def __init__(self) -> None:
        self._vectors: dict[str, np.ndarray] = {}

    def embed(self, titles: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(titles) if t not in self._vectors]
        if missing:
            if len(self._vectors) + len(missing) > self.LIMIT:
                self._vectors.clear()
            self._vectors.update(zip(missing, default_embedder().embed(missing), strict=True))
        return np.stack([self._vectors[t] for t in titles]) if titles else default_embedder().embed([])


EMBEDDER = CachedEmbedder()


def check(rules: list[Rule], product: dict[str, Any], ruleset: Any = None) -> ProductScore:
    """``product`` scored by the ShoppingBench checks against every rule of ``rules`` at once."""
    pid = str(product.get("product_id", ""))
    return score_product(0, merge(NO_ID, rules), pid, lambda _: product, EMBEDDER, ruleset=ruleset)


def satisfies(rule: Rule, product: dict[str, Any], ruleset: Any = None) -> bool:
    """Whether ``product`` passes every check of ``rule``."""
    return check([rule], product, ruleset).rule >= 1


def first_violation(
    rules: dict[str, Rule], order: list[str], product: dict[str, Any], ruleset: Any = None
) -> str | None:
    """The first constraint (in ``order``) whose rule ``product`` fails, or None."""
    for cid in order:
        if cid in rules and not satisfies(rules[cid], product, ruleset):
            return cid
    return None


def _values_of(product: dict[str, Any], key: str) -> list[str]:
    values = list((product.get("attributes") or {}).get(key) or [])
    for option in (product.get("sku_options") or {}).values():
        if isinstance(option, dict) and key in option:
            values.append(str(option[key]))
    return sorted(set(values))


def actual(rule: Rule, product: dict[str, Any]) -> str:
    """What ``product`` has where ``rule`` asks for something else (the ``{actual}`` of a rejection)."""
    if rule.sku_options or rule.attributes:
        key = rule.keys()[0]
        found = _values_of(product, key)
        return " / ".join(found) if found else f"without any {key}"
    if rule.price:
        return f"{float(product.get('price', 0)):g}"
    if rule.service:
        have = [SERVICE_WORDS.get(s, s) for s in product.get("service") or ()]
        return ", ".join(have) if have else "without any of the services"
    return str(product.get("title", ""))


def describe(rule: Rule) -> str:
    """The shopper's words for a rule it has already stated (a rejection naming a known constraint). A title rule is
    named by kind only: its text is a catalog title, which would hand the agent a search for the gold."""
    parts: list[str] = ["it has to be the kind of product I described"] if rule.title else []
    for p in rule.price:
        if p.mode == "less than":
            parts.append(f"it has to cost at most {p.hi:g}")
        elif p.mode == "greater than":
            parts.append(f"it has to cost at least {p.lo:g}")
        else:
            parts.append(f"it has to cost between {p.lo:g} and {p.hi:g}")
    parts += [f"it has to be {SERVICE_WORDS.get(s, s)}" for s in rule.service]
    parts += [f"the {k} has to be {v}" for option in rule.sku_options for k, v in option.items()]
    parts += [f"the {k} has to be {' and '.join(vs)}" for a in rule.attributes for k, vs in a.items()]
    text = "; ".join(parts)
    return text[:1].upper() + text[1:] + "."
