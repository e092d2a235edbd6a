"""The strict checks of one recommended product against one reward (`arena.tasks.shoppingbench.strict` has the rules
and scores whole runs with these): the exact id, and the title, price, service and attribute fields."""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.scoring.models import Check
from arena.tasks.base import Lookup
from arena.tasks.shopping.problem import ProductReward
from arena.tasks.shopping.rulesets import Ruleset, get_ruleset
from arena.tasks.shopping.similarity import TitleEmbedder, similarities
from arena.tasks.shopping.verdict import ProductScore


def pair_hits(reward: ProductReward, product: dict[str, Any]) -> tuple[int, int, list[Check]]:
    """Required (k, v) pairs found exactly in the best single SKU option (or none) plus the attributes."""
    pairs = reward.required_pairs()
    if not pairs:
        return 0, 0, []
    attributes = {(k, v) for k, vs in (product.get("attributes") or {}).items() for v in (vs or ())}
    options: list[set[tuple[str, str]]] = [set()]
    options += [set(o.items()) for o in (product.get("sku_options") or {}).values() if isinstance(o, dict)]
    best: list[bool] = []
    for option in options:
        got = [(k, v) in option or (k, v) in attributes for k, v in pairs]
        if not best or sum(got) > sum(best):
            best = got
    have = {k: sorted({v for a, v in attributes if a == k}) for k, _ in pairs}
    checks = [
        Check(
            name=f"{k}={v}",
            passed=ok,
            evidence="in the best SKU option or the attributes"
            if ok
            else f"{k} is {have[k] or 'absent'} in the attributes",
        )
        for (k, v), ok in zip(pairs, best, strict=True)
    ]
    return sum(best), len(pairs), checks


def lookup_answer(lookup: Lookup, answer_id: str | None) -> dict[str, Any] | None:
    # the references look an id up exactly as given: " 123" is not "123"
    if not answer_id:
        return None
    try:
        return lookup(answer_id)
    except (ValueError, TypeError):
        return None


def score_product(
    slot: int,
    reward: ProductReward,
    answer_id: str | None,
    lookup: Lookup,
    embedder: TitleEmbedder | None = None,
    gold_vectors: np.ndarray | None = None,
    ruleset: str | Ruleset | None = None,
) -> ProductScore:
    rs = get_ruleset(ruleset)
    product = lookup_answer(lookup, answer_id)
    if product is None:
        why = "no product recommended for this slot" if not answer_id else f"unknown product id {answer_id!r}"
        return ProductScore(
            slot=slot,
            gold_id=reward.product_id,
            answer_id=answer_id,
            known=False,
            gt=0.0,
            rule=0.0,
            checks=[Check(name="answer", passed=False, evidence=why)],
        )
    gt = 1.0 if product["product_id"] == reward.product_id else 0.0
    checks: list[Check] = [Check(name="gt", passed=bool(gt), evidence=f"answer {answer_id}, gold {reward.product_id}")]
    hits: dict[str, list[int]] = {}
    if gt and not rs.slot_needs_rule:
        # the paper returns at an exact id before counting any field
        return ProductScore(
            slot=slot, gold_id=reward.product_id, answer_id=answer_id, known=True, gt=gt, rule=1.0, checks=checks
        )
    field_hits, field_checks, best = _field_checks(reward, product, rs, embedder, gold_vectors)
    hits.update(field_hits)
    checks.extend(field_checks)
    n_pass = sum(h[0] for h in hits.values())
    n_total = sum(h[1] for h in hits.values())
    if gt:
        rule = 1.0
    elif n_total:
        rule = n_pass / n_total
    else:
        rule = 0.0
        checks.append(
            Check(
                name="rule",
                passed=False,
                evidence="the reward has nothing to check: rule 0"
                + (" (the paper's evaluator divides by zero here)" if not rs.slot_needs_rule else ""),
            )
        )
    return ProductScore(
        slot=slot,
        gold_id=reward.product_id,
        answer_id=answer_id,
        known=True,
        gt=gt,
        rule=rule,
        title_similarity=best,
        hits=hits,
        checks=checks,
    )


def _field_checks(
    reward: ProductReward,
    product: dict[str, Any],
    rs: Ruleset,
    embedder: TitleEmbedder | None,
    gold_vectors: np.ndarray | None,
) -> tuple[dict[str, list[int]], list[Check], float | None]:
    """The answer's fields checked against the reward's: (hits and total per field, the checks, the best title
    similarity or None when the reward names no title)."""
    hits: dict[str, list[int]] = {}
    checks: list[Check] = []
    best = None
    if reward.title:
        sims = similarities(product["title"], reward.title, embedder, gold_vectors)
        passed = [s >= rs.title_threshold for s in sims]
        hits["title"] = [sum(passed), len(passed)]
        best = max(sims)
        for sim, ok in zip(sims, passed, strict=True):
            checks.append(
                Check(
                    name="title",
                    passed=ok,
                    evidence=f"similarity {sim:.3f} (threshold {rs.title_threshold}, {rs.title_model})",
                )
            )
    price = float(product["price"])
    if reward.price:
        passed = [rule.admits(price) for rule in reward.price]
        hits["price"] = [sum(passed), len(passed)]
        for price_rule, ok in zip(reward.price, passed, strict=True):
            checks.append(
                Check(
                    name=f"price {price_rule.mode} [{price_rule.lo}, {price_rule.hi}]",
                    passed=ok,
                    evidence=f"price {price}",
                )
            )
    if reward.service:
        have = list(product.get("service") or ())
        passed = [s in have for s in reward.service]
        hits["service"] = [sum(passed), len(passed)]
        for service, ok in zip(reward.service, passed, strict=True):
            checks.append(Check(name=f"service {service}", passed=ok, evidence=f"services {sorted(have)}"))
    got, total, pair_checks = pair_hits(reward, product)
    if total:
        hits["attributes"] = [got, total]
        checks.extend(pair_checks)
    return hits, checks, best
