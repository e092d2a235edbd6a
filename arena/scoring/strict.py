"""ShoppingBench's strict checks, reimplemented from their description (yjwjy/ShoppingBench
``src/agent/rewards/orm.py`` and ``run_evaluate.py``; subnet 15's ``problem_scorer.py`` for the shop-slot rule).

- The answer is the id list of the last ``recommend_product`` call (comma-split, deduplicated). Product and web
  tasks take the first id; shop and voucher tasks match position i to reward i. An unknown id scores 0.
- Per product: ``gt`` (the gold id); ``rule`` = 1 if gt, else hits / total over the title (embedding similarity at or
  above the threshold), each price rule (inclusive), each required service, and each required (k, v) in the union of
  one SKU option and the attributes (the best-matching option is used).
- Shop tasks: ``shop`` = 1 when every slot resolved and all products share one shop. Voucher tasks: ``budget`` = 1
  when every slot resolved and the total is within budget, or the voucher applies (platform, or shop with one shop)
  at ``total >= threshold`` and the discounted total is within budget. Web tasks: gt when the gold id is a substring
  of the answer's, ``kw`` when the knowledge attribute is in the title or description, the title at the web
  threshold, ``rule = (kw + title) / 2`` (1 with gt).
- Success: product and web ``rule >= 1``; shop also ``shop >= 1``; voucher also ``budget >= 1``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from arena.problems.models import Problem, ProductReward
from arena.scoring.similarity import TITLE_THRESHOLD, WEB_TITLE_THRESHOLD, TitleEmbedder, best_similarity
from arena.tools.shopping import Voucher as ToolVoucher
from arena.tools.shopping import apply_voucher

Lookup = Callable[[str], "dict[str, Any] | None"]
FIELDS = ("title", "price", "service", "attributes")


class Check(BaseModel):
    """One strict check and what it was decided on."""

    name: str
    passed: bool
    evidence: str


class ProductScore(BaseModel):
    slot: int
    gold_id: str
    answer_id: str | None
    known: bool
    gt: float
    rule: float
    title_similarity: float | None = None
    hits: dict[str, list[int]] = Field(default_factory=dict)  # field -> [passed, total]
    checks: list[Check] = Field(default_factory=list)


class RunScore(BaseModel):
    """A run's strict verdict; the judge fills ``judge_*`` and ``final`` later (until then final = success)."""

    task: str
    answer: list[str]
    success: bool
    gt: float
    rule: float
    shop: float | None = None
    budget: float | None = None
    kw: float | None = None
    field_rates: dict[str, float | None] = Field(default_factory=dict)
    products: list[ProductScore] = Field(default_factory=list)
    checks: list[Check] = Field(default_factory=list)
    judge_quality: float | None = None
    judge_coefficient: float | None = None
    final: float = 0.0


def parse_answer(recommendations: Sequence[str] | str | None) -> list[str]:
    """Ids of an answer: a comma-separated string or a list of ids; stripped, deduplicated, order kept."""
    if recommendations is None:
        return []
    raw = recommendations.split(",") if isinstance(recommendations, str) else list(recommendations)
    seen: dict[str, None] = {}
    for item in raw:
        text = str(item).strip()
        if text:
            seen.setdefault(text, None)
    return list(seen)


def _norm(value: str) -> str:
    return " ".join(str(value).lower().split())


def pair_hits(reward: ProductReward, product: dict[str, Any]) -> tuple[int, int, list[Check]]:
    """Required (k, v) pairs found in the union of the best SKU option and the attributes."""
    pairs = [(_norm(k), _norm(v)) for k, v in reward.required_pairs()]
    if not pairs:
        return 0, 0, []
    attributes = {_norm(k): {_norm(v) for v in vs} for k, vs in (product.get("attributes") or {}).items()}
    options = [{_norm(k): _norm(v) for k, v in o.items()} for o in (product.get("sku_options") or {}).values()]

    def satisfied(option: dict[str, str]) -> list[bool]:
        return [option.get(k) == v or v in attributes.get(k, ()) for k, v in pairs]

    best = satisfied({})
    for option in options:
        got = satisfied(option)
        if sum(got) > sum(best):
            best = got
    checks = [Check(name=f"{k}={v}", passed=ok, evidence="in the best SKU option or the attributes" if ok
                    else f"{k} is {sorted(attributes.get(k, ())) or 'absent'}") for (k, v), ok in zip(pairs, best,
                                                                                                  strict=True)]
    return sum(best), len(pairs), checks


def score_product(slot: int, reward: ProductReward, answer_id: str | None, lookup: Lookup,
                  embedder: TitleEmbedder | None = None, gold_vectors: np.ndarray | None = None,
                  threshold: float = TITLE_THRESHOLD) -> ProductScore:
    product = lookup(answer_id) if answer_id else None
    if product is None:
        why = "no product recommended for this slot" if not answer_id else f"unknown product id {answer_id!r}"
        return ProductScore(slot=slot, gold_id=reward.product_id, answer_id=answer_id, known=False, gt=0.0, rule=0.0,
                            checks=[Check(name="answer", passed=False, evidence=why)])
    gt = 1.0 if answer_id == reward.product_id else 0.0
    checks: list[Check] = [Check(name="gt", passed=bool(gt), evidence=f"answer {answer_id}, gold {reward.product_id}")]
    hits: dict[str, list[int]] = {}
    similarity = None
    if reward.title:
        similarity = best_similarity(product["title"], reward.title, embedder, gold_vectors)
        ok = similarity >= threshold
        hits["title"] = [int(ok), 1]
        checks.append(Check(name="title", passed=ok, evidence=f"similarity {similarity:.3f} (threshold {threshold})"))
    price = float(product["price"])
    if reward.price:
        passed = [rule.admits(price) for rule in reward.price]
        hits["price"] = [sum(passed), len(passed)]
        for rule, ok in zip(reward.price, passed, strict=True):
            checks.append(Check(name=f"price {rule.mode} [{rule.lo}, {rule.hi}]", passed=ok, evidence=f"price {price}"))
    if reward.service:
        have = set(product.get("service") or ())
        passed = [s in have for s in reward.service]
        hits["service"] = [sum(passed), len(passed)]
        for service, ok in zip(reward.service, passed, strict=True):
            checks.append(Check(name=f"service {service}", passed=ok, evidence=f"services {sorted(have)}"))
    got, total, pair_checks = pair_hits(reward, product)
    if total:
        hits["attributes"] = [got, total]
        checks.extend(pair_checks)
    n_pass = sum(h[0] for h in hits.values())
    n_total = sum(h[1] for h in hits.values())
    rule = 1.0 if gt else (n_pass / n_total if n_total else 0.0)
    return ProductScore(slot=slot, gold_id=reward.product_id, answer_id=answer_id, known=True, gt=gt, rule=rule,
                        title_similarity=similarity, hits=hits, checks=checks)


def _field_rates(products: list[ProductScore]) -> dict[str, float | None]:
    rates: dict[str, float | None] = {}
    for name in FIELDS:
        passed = sum(p.hits.get(name, [0, 0])[0] for p in products)
        total = sum(p.hits.get(name, [0, 0])[1] for p in products)
        rates[name] = passed / total if total else None
    return rates


def budget_check(problem: Problem, docs: list[dict[str, Any]]) -> tuple[float, Check]:
    voucher = problem.voucher
    assert voucher is not None
    total = round(sum(float(d["price"]) for d in docs), 2)
    if total <= voucher.budget:
        return 1.0, Check(name="budget", passed=True, evidence=f"total {total} within budget {voucher.budget}")
    tool_voucher = ToolVoucher(voucher_type=voucher.voucher_type, threshold=voucher.threshold,
                               discount_type=voucher.discount_type, face_value=voucher.face_value,
                               discount=voucher.discount, cap=voucher.cap)
    discount, applied, reason = apply_voucher(total, len({d["shop_id"] for d in docs}) == 1, tool_voucher)
    after = round(total - discount, 2)
    ok = applied and after <= voucher.budget
    evidence = f"total {total}; voucher {reason}; after voucher {after}; budget {voucher.budget}"
    return (1.0 if ok else 0.0), Check(name="budget", passed=ok, evidence=evidence)


def score_run(problem: Problem, answer: Sequence[str] | str | None, lookup: Lookup,
              embedder: TitleEmbedder | None = None, gold_vectors: list[np.ndarray] | None = None) -> RunScore:
    """Score one run's answer against one problem by ShoppingBench's rules. Junk and empty answers score 0."""
    ids = parse_answer(answer)
    vectors = gold_vectors or [None] * len(problem.reward)  # type: ignore[list-item]
    checks: list[Check] = []
    if problem.task == "web":
        return _score_web(problem, ids, lookup, embedder, vectors[0])
    if problem.task == "product":
        slots = [ids[0] if ids else None]
    else:
        slots = [ids[i] if i < len(ids) else None for i in range(len(problem.reward))]
    products = [score_product(i, reward, slots[i], lookup, embedder, vectors[i])
                for i, reward in enumerate(problem.reward)]
    rule = sum(p.rule for p in products) / len(products)
    gt = sum(p.gt for p in products) / len(products)
    score = RunScore(task=problem.task, answer=ids, success=False, gt=gt, rule=rule, products=products,
                     field_rates=_field_rates(products))
    resolved = all(p.known for p in products)
    if problem.task == "shop":
        shops = {lookup(p.answer_id)["shop_id"] for p in products if p.known and p.answer_id}  # type: ignore[index]
        # subnet 15 counts a slot only when its rule score is above 0
        one_shop = resolved and len(shops) == 1 and all(p.rule > 0 for p in products)
        score.shop = 1.0 if one_shop else 0.0
        checks.append(Check(name="one shop", passed=one_shop, evidence=f"shops {sorted(shops)}; "
                            f"{sum(p.known for p in products)}/{len(products)} slots resolved"))
        score.success = rule >= 1 and score.shop >= 1
    elif problem.task == "voucher":
        if resolved:
            docs = [lookup(p.answer_id) for p in products]  # type: ignore[arg-type]
            score.budget, check = budget_check(problem, docs)  # type: ignore[arg-type]
        else:
            score.budget = 0.0
            check = Check(name="budget", passed=False, evidence="not every requested product was recommended")
        checks.append(check)
        score.success = rule >= 1 and score.budget >= 1
    else:
        score.success = rule >= 1
    score.checks = checks
    score.final = 1.0 if score.success else 0.0
    return score


def _score_web(problem: Problem, ids: list[str], lookup: Lookup, embedder: TitleEmbedder | None,
               gold_vector: np.ndarray | None) -> RunScore:
    reward = problem.reward[0]
    answer_id = ids[0] if ids else None
    product = lookup(answer_id) if answer_id else None
    if product is None:
        why = "nothing recommended" if not answer_id else f"unknown product id {answer_id!r}"
        ps = ProductScore(slot=0, gold_id=reward.product_id, answer_id=answer_id, known=False, gt=0, rule=0,
                          checks=[Check(name="answer", passed=False, evidence=why)])
        return RunScore(task="web", answer=ids, success=False, gt=0, rule=0, kw=0, products=[ps],
                        field_rates=_field_rates([ps]))
    gt = 1.0 if reward.product_id in str(answer_id) else 0.0  # ShoppingBench: gold id is a substring of the answer
    attribute = _norm(problem.knowledge_attribute or "")
    text = _norm(product["title"]) + " " + _norm(product.get("description", ""))
    kw = 1.0 if attribute and attribute in text else 0.0
    similarity = best_similarity(product["title"], reward.title, embedder, gold_vector) if reward.title else 0.0
    title_ok = similarity >= WEB_TITLE_THRESHOLD
    rule = 1.0 if gt else (kw + float(title_ok)) / 2
    checks = [
        Check(name="gt", passed=bool(gt), evidence=f"answer {answer_id}, gold {reward.product_id}"),
        Check(name="knowledge attribute", passed=bool(kw),
              evidence=f"{problem.knowledge_attribute!r} {'found' if kw else 'not found'} in title or description"),
        Check(name="title", passed=title_ok, evidence=f"similarity {similarity:.3f} (threshold {WEB_TITLE_THRESHOLD})"),
    ]
    ps = ProductScore(slot=0, gold_id=reward.product_id, answer_id=answer_id, known=True, gt=gt, rule=rule,
                      title_similarity=similarity, hits={"title": [int(title_ok), 1]}, checks=checks)
    return RunScore(task="web", answer=ids, success=rule >= 1, gt=gt, rule=rule, kw=kw, products=[ps],
                    field_rates=_field_rates([ps]), final=1.0 if rule >= 1 else 0.0)
