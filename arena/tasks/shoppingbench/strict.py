"""The strict checks, one implementation for both rulesets (`arena.tasks.shopping.rulesets`): written from the
rules of ShoppingBench's evaluator (``yjwjy/ShoppingBench`` ``src/agent/run_evaluate.py``, ``src/agent/rewards/orm.py``)
and subnet 15's scorer (``ORO-AI/oro`` ``src/agent/problem_scorer.py``, ``src/agent/rewards/orm.py``).

- The answer: `arena.tasks.answer.raw_answer` takes the last ``recommend_product`` call's raw ``product_ids``;
  the ruleset parses it (`Ruleset.parse`). Product and web tasks take the first id; shop and voucher tasks match id i
  to reward i; a missing or unknown id leaves its slot unresolved.
- Per product: ``gt`` = exact id; ``rule`` = 1 with gt, else hits / total over each title (similarity at or above the
  ruleset's threshold), each price rule (``less than`` checks only ``price <= hi``, ``greater than`` only
  ``price >= lo``, ``between`` both, inclusive), each required service (exact), and each required (k, v) of SKU
  options and attributes matched exactly in the best single SKU option (or none) plus the attributes.
- Shop: ``shop`` = 1 when every slot counted and the counted products share one shop. Voucher: ``budget`` = 1 when
  every slot counted and the raw sum of prices is within budget, or the voucher applies (platform, or shop over one
  shop) at ``total >= threshold`` and the discounted total (fixed: ``total - face_value``; percentage:
  ``max(total * (1 - discount), total - cap)``) is within budget. No rounding. A slot counts when it resolves
  (shoppingbench) or when its rule is above 0 (sn15).
- Web: exact id gives kw = title = 1; else ``kw`` = the knowledge attribute (lowercased) in the lowercased title or in
  the lowercased description, tested apart; ``title`` = similarity at the web threshold (the kw-in-title test when the
  reward has no title); ``rule = (kw + title) / 2``.
- Success: product and web ``rule >= 1``; shop also ``shop >= 1``; voucher also ``budget >= 1``. Before the judge,
  ``final`` = success; the rubric (`arena.judge.rubric.Rubric.final`) makes the final score after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena.scoring.models import Check, RunScore
from arena.tasks.base import Lookup
from arena.tasks.shopping.problem import Problem
from arena.tasks.shopping.rulesets import Ruleset, get_ruleset
from arena.tasks.shopping.similarity import TitleEmbedder, similarities
from arena.tasks.shopping.strict_product import lookup_answer, pair_hits, score_product
from arena.tasks.shopping.verdict import FIELDS, ProductScore, ShoppingExtras

__all__ = [
    "FIELDS",
    "Check",
    "ProductScore",
    "RunScore",
    "budget_check",
    "pair_hits",
    "parse_answer",
    "score_product",
    "score_run",
]


def parse_answer(raw: Any, ruleset: str | Ruleset | None = None) -> list[str]:
    """The answer's ids as the ruleset's reference reads them (see `Ruleset.parse`); never raises."""
    return get_ruleset(ruleset).parse(raw)


def _field_rates(products: list[ProductScore], n_rewards: int, rs: Ruleset) -> dict[str, float]:
    """Each reference's per-field match score: per scored product hits/total, or the ruleset's rate for a field
    with nothing to check; summed over the scored products and divided by the number of rewards."""
    rates: dict[str, float] = {}
    for name in FIELDS:
        total = 0.0
        for p in products:
            if not p.known:
                continue
            hit, count = p.hits.get(name, [0, 0])
            total += hit / count if count else rs.unconstrained_field_rate
        rates[name] = total / n_rewards if n_rewards else 0.0
    return rates


def discounted_total(voucher: Any, total: float) -> float:
    """The basket total after the voucher, by the references' formula (fixed: may go below 0; percentage: the
    discount is at most ``cap``; a voucher without a cap is uncapped, where the references raise)."""
    if voucher.discount_type == "fixed":
        return total - float(voucher.face_value)
    discounted = total * (1 - float(voucher.discount))
    return discounted if voucher.cap is None else max(discounted, total - float(voucher.cap))


def budget_check(problem: Problem, docs: list[dict[str, Any]]) -> tuple[float, Check]:
    """The budget check over the counted products (every slot already counted)."""
    voucher = problem.voucher
    assert voucher is not None
    total = 0.0
    for doc in docs:
        total += doc["price"]
    if total <= voucher.budget:
        return 1.0, Check(name="budget", passed=True, evidence=f"total {total!r} within budget {voucher.budget!r}")
    shops = {d["shop_id"] for d in docs}
    if not (voucher.voucher_type == "platform" or len(shops) == 1):
        return 0.0, Check(
            name="budget",
            passed=False,
            evidence=f"total {total!r} over budget {voucher.budget!r}; the "
            f"shop voucher needs one shop, got {len(shops)}",
        )
    if total < voucher.threshold:
        return 0.0, Check(
            name="budget",
            passed=False,
            evidence=f"total {total!r} over budget {voucher.budget!r}; "
            f"below the voucher's threshold {voucher.threshold!r}",
        )
    after = discounted_total(voucher, total)
    ok = after <= voucher.budget
    return (1.0 if ok else 0.0), Check(
        name="budget",
        passed=ok,
        evidence=f"total {total!r}; after the {voucher.discount_type} voucher {after!r}; budget {voucher.budget!r}",
    )


def score_run(
    problem: Problem,
    answer: Any,
    lookup: Lookup,
    embedder: TitleEmbedder | None = None,
    gold_vectors: Sequence[np.ndarray | None] | None = None,
    *,
    ruleset: str | Ruleset | None = None,
) -> RunScore:
    """Score one answer against one problem by ``ruleset`` (default ``shoppingbench``). ``answer`` is the raw
    ``product_ids`` of the last ``recommend_product`` call (any JSON value) or a list of ids. Never raises on an
    answer, whatever its shape."""
    rs = get_ruleset(ruleset)
    ids = rs.parse(answer)
    vectors: list[Any] = list(gold_vectors) if gold_vectors else [None] * len(problem.reward)
    if problem.task == "web":
        return _score_web(problem, ids, lookup, embedder, vectors[0], rs)
    slots = [ids[i] if i < len(ids) else None for i in range(1 if problem.task == "product" else len(problem.reward))]
    products = [
        score_product(i, reward, slots[i], lookup, embedder, vectors[i], rs) for i, reward in enumerate(problem.reward)
    ]
    n = len(products)
    rule = sum(p.rule for p in products) / n
    gt = sum(p.gt for p in products) / n
    extras = ShoppingExtras(
        title_model=rs.title_model, gt=gt, rule=rule, products=products, field_rates=_field_rates(products, n, rs)
    )
    score = RunScore(
        task=problem.task, ruleset=rs.name, ruleset_version=rs.version, answer=ids, success=False, extras=extras
    )
    counted = [p for p in products if p.known and (p.rule > 0 or not rs.slot_needs_rule)]
    docs = [lookup_answer(lookup, p.answer_id) for p in counted]
    why_counted = "with a rule score above 0" if rs.slot_needs_rule else "resolved"
    checks: list[Check] = []
    if problem.task == "shop":
        shops = {d["shop_id"] for d in docs if d is not None}
        one_shop = len(counted) == n and len(shops) == 1
        extras.shop = 1.0 if one_shop else 0.0
        checks.append(
            Check(
                name="one shop",
                passed=one_shop,
                evidence=f"shops {sorted(shops)}; {len(counted)}/{n} slots {why_counted}",
            )
        )
        score.success = rule >= 1 and extras.shop >= 1
    elif problem.task == "voucher":
        if len(counted) == n:
            extras.budget, check = budget_check(problem, [d for d in docs if d is not None])
        else:
            extras.budget = 0.0
            check = Check(name="budget", passed=False, evidence=f"{len(counted)}/{n} slots {why_counted}")
        checks.append(check)
        score.success = rule >= 1 and extras.budget >= 1
    else:
        score.success = rule >= 1
    score.checks = checks
    score.final = 1.0 if score.success else 0.0
    return score


def _web_checks(
    problem: Problem,
    product: dict[str, Any],
    answer_id: str | None,
    gt: float,
    embedder: TitleEmbedder | None,
    gold_vector: np.ndarray | None,
    rs: Ruleset,
) -> tuple[float, bool, float | None, list[Check]]:
    """A known web answer checked: (kw, title passed, title similarity or None, the checks); the gold product passes
    both outright."""
    reward = problem.reward[0]
    keyword = str(problem.knowledge_attribute or "").lower()
    if product["product_id"] == reward.product_id:
        return 1.0, True, None, [Check(name="gt", passed=True, evidence=f"answer {answer_id} is the gold product")]
    in_title = keyword in str(product.get("title", "")).lower()
    in_description = keyword in str(product.get("description", "")).lower()
    kw = 1.0 if in_title or in_description else 0.0
    if reward.title:
        similarity = similarities(product["title"], reward.title[:1], embedder, gold_vector)[0]
        title_ok = similarity >= rs.web_title_threshold
        title_evidence = f"similarity {similarity:.3f} (threshold {rs.web_title_threshold}, {rs.title_model})"
    else:
        similarity, title_ok = None, in_title
        title_evidence = "the reward has no title: the keyword in the title stands for it"
    where = "title" if in_title else "description" if in_description else None
    checks = [
        Check(name="gt", passed=bool(gt), evidence=f"answer {answer_id}, gold {reward.product_id}"),
        Check(
            name="knowledge attribute",
            passed=bool(kw),
            evidence=f"{problem.knowledge_attribute!r} "
            + (f"found in the {where}" if where else "in neither the title nor the description"),
        ),
        Check(name="title", passed=title_ok, evidence=title_evidence),
    ]
    return kw, title_ok, similarity, checks


def _score_web(
    problem: Problem,
    ids: list[str],
    lookup: Lookup,
    embedder: TitleEmbedder | None,
    gold_vector: np.ndarray | None,
    rs: Ruleset,
) -> RunScore:
    reward = problem.reward[0]
    answer_id = ids[0] if ids else None
    head: dict[str, Any] = {"task": "web", "ruleset": rs.name, "ruleset_version": rs.version, "answer": ids}
    if rs.web_gt_substring:
        gt = 1.0 if answer_id and reward.product_id in answer_id else 0.0  # the paper reports this; success ignores it
    else:
        gt = 1.0 if answer_id == reward.product_id else 0.0
    product = lookup_answer(lookup, answer_id)
    if product is None:
        why = "nothing recommended" if not answer_id else f"unknown product id {answer_id!r}"
        ps = ProductScore(
            slot=0,
            gold_id=reward.product_id,
            answer_id=answer_id,
            known=False,
            gt=gt,
            rule=0,
            checks=[Check(name="answer", passed=False, evidence=why)],
        )
        extras = ShoppingExtras(
            title_model=rs.title_model, gt=gt, rule=0, kw=0, products=[ps], field_rates=_field_rates([ps], 1, rs)
        )
        return RunScore(**head, success=False, extras=extras)
    kw, title_ok, similarity, checks = _web_checks(problem, product, answer_id, gt, embedder, gold_vector, rs)
    rule = (kw + float(title_ok)) / 2
    ps = ProductScore(
        slot=0,
        gold_id=reward.product_id,
        answer_id=answer_id,
        known=True,
        gt=gt,
        rule=rule,
        title_similarity=similarity,
        hits={"title": [int(title_ok), 1]},
        checks=checks,
    )
    extras = ShoppingExtras(
        title_model=rs.title_model, gt=gt, rule=rule, kw=kw, products=[ps], field_rates=_field_rates([ps], 1, rs)
    )
    return RunScore(**head, success=rule >= 1, extras=extras, final=1.0 if rule >= 1 else 0.0)
