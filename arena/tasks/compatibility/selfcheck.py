"""The self-check every generated compatibility problem passes before it is kept, by the family's own strict check
(`arena.tasks.compatibility.scoring`):

- ``leak``: the public view names no gold product;
- ``gold``: every gold product scores (success);
- ``near_miss``: a product that almost fits exists (the accessory asked for, with every extra want, whose fit value
  is not the device's), and every such product fails, on ``fits`` and only there;
- ``other_kind``: a product of another category offering a fitting value (a screen protector for the same phone
  when a case is asked for) fails on ``kind``;
- ``share``: the gold is at most half of the category's products that meet the extra wants, so answering without
  reading fit is not a fair bet, and at most `MAX_GOLD` products (a request most listings meet asks nothing).

`check_problem` returns None when every check passes, else ``"<check>: <one line why>"``; `selfcheck_report` runs it
over a problem set (``arena problems selfcheck``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

from arena.tasks.base import Lookup, ProblemBase
from arena.tasks.compatibility.fit import fit_values
from arena.tasks.compatibility.problem import CompatProblem
from arena.tasks.compatibility.scoring import score_compat
from arena.tasks.compatibility.stock import Pool, leaf_of, pools

if TYPE_CHECKING:
    from arena.tasks.hooks import SelfCheckReport, Step

#: the largest share of the category's candidates (those meeting the extra wants) the gold may be
MAX_GOLD_SHARE = 0.5
#: the most gold products a problem may have
MAX_GOLD = 12


def near_misses(problem: CompatProblem, stock: Pool) -> list[dict[str, Any]]:
    """Products of the accessory's category that meet every extra want but offer no fitting value."""
    fit = problem.fit
    out = []
    for product in stock:
        if product.get("category") != fit.category or not fit_values(product, fit.key):
            continue
        if set(fit_values(product, fit.key)) & set(fit.values):
            continue
        if all(set(fit_values(product, k)) & set(v) for k, v in fit.wants.items()):
            out.append(product)
    return out


def _failed_only(score: Any, name: str) -> bool:
    failed = [c.name for c in score.checks if not c.passed]
    return not score.success and failed == [name]


def check_problem(
    problem: CompatProblem, stock: Pool, lookup: Lookup, by_leaf: dict[str, Pool] | None = None
) -> str | None:
    """None when ``problem`` passes every self-check against ``stock`` (its category's products), else the first
    failure as ``"<check>: <why>"``."""
    public = orjson.dumps(problem.public()).decode()
    leaked = [g for g in problem.gold if g in public]
    if leaked:
        return f"leak: the public view names gold product {leaked[0]}"
    for gold in problem.gold:
        score = score_compat(problem, gold, lookup)
        if not score.success:
            bad = next(c for c in score.checks if not c.passed)
            return f"gold: gold product {gold} fails {bad.name} ({bad.evidence})"
    misses = near_misses(problem, stock)
    if not misses:
        return "near_miss: no product of the category almost fits (every candidate fits the device)"
    for product in misses:
        score = score_compat(problem, str(product["product_id"]), lookup)
        if not _failed_only(score, "fits"):
            return f"near_miss: near miss {product['product_id']} is not failed on fit alone"
    candidates = len(problem.gold) + len(misses)
    if len(problem.gold) > MAX_GOLD_SHARE * candidates:
        return f"share: {len(problem.gold)} of {candidates} candidates fit; at most half may"
    if len(problem.gold) > MAX_GOLD:
        return f"share: {len(problem.gold)} products fit; at most {MAX_GOLD} may"
    for leaf, products in (by_leaf or {}).items():
        if leaf == leaf_of(problem.fit.category):
            continue
        for product in products:
            if set(fit_values(product, problem.fit.key)) & set(problem.fit.values):
                score = score_compat(problem, str(product["product_id"]), lookup)
                if score.success or next(c for c in score.checks if c.name == "kind").passed:
                    return f"other_kind: {product['product_id']} of {product.get('category')} is not failed on kind"
                break
    return None


def selfcheck_report(problems: Sequence[ProblemBase], catalog: Any, step: Step | None = None) -> SelfCheckReport:
    """``arena problems selfcheck`` for the family: `check_problem` on every problem against ``catalog``, a row per
    rule (problems, passed, near misses failed on fit)."""
    from arena.tasks.hooks import SelfCheckReport, Table

    report = SelfCheckReport()
    by_leaf = pools(catalog)
    rows: dict[str, list[int]] = {}
    advance = step("self-check", len(problems)) if step else None
    for problem in problems:
        if not isinstance(problem, CompatProblem):
            continue
        stock = by_leaf.get(leaf_of(problem.fit.category), [])
        failed = check_problem(problem, stock, catalog.get, by_leaf)
        row = rows.setdefault(problem.fit.rule, [0, 0, 0])
        row[0] += 1
        if failed:
            report.failures.append(f"{problem.problem_id}: {failed}")
        else:
            row[1] += 1
            row[2] += len(near_misses(problem, stock))
            report.kept.append(problem)
        if advance:
            advance(1)
    table = Table("self-check of the compatibility problems", ["rule", "problems", "passed", "near misses failed"])
    table.rows = [[rule, str(n), str(ok), str(misses)] for rule, (n, ok, misses) in sorted(rows.items())]
    report.tables.append(table)
    report.ok = not report.failures
    report.figures = {"by_rule": {r: {"problems": n, "passed": ok, "near_misses": m} for r, (n, ok, m) in rows.items()}}
    return report
