"""The strict check of a compatibility run: exactly one product, known to the catalog, of the accessory asked for,
fitting the device, with what else the shopper asked for. Each check says what it read, so a verdict explains itself.

Fit is read from the product as the catalog has it now (its attribute values and SKU options for the fit key), so
any product that fits scores, not only the gold found when the problem was made. The verdict's extras
(`CompatExtras`): ``gt`` says whether the answer is one of those gold products, ``rule`` is the share of checks
passed; ``success`` (and ``final``, until the judge) needs every check.
"""

from __future__ import annotations

from typing import Any

from arena.scoring.models import Check, RunScore, ScoreExtras
from arena.tasks.base import Lookup
from arena.tasks.compatibility.fit import fit_values
from arena.tasks.compatibility.problem import CompatProblem
from arena.tasks.compatibility.stock import leaf_of

RULESET = "compatibility"
RULESET_VERSION = "1"


class CompatExtras(ScoreExtras):
    """What a compatibility verdict adds to `RunScore`: whether the answer is a gold product (``gt``) and the share
    of the checks it passed (``rule``)."""

    gt: float = 0.0
    rule: float = 0.0


def parse_answer(raw: Any) -> list[str]:
    """The product ids of a raw answer (a comma-separated string, or a list of ids); never raises."""
    if isinstance(raw, str):
        parts: list[Any] = raw.split(",")
    elif isinstance(raw, list | tuple):
        parts = list(raw)
    else:
        return []
    return [str(p).strip() for p in parts if isinstance(p, str | int) and str(p).strip()]


def product_checks(problem: CompatProblem, product: dict[str, Any]) -> list[Check]:
    """The checks one known product passes or fails for ``problem``: kind, fit, then each extra want."""
    fit = problem.fit
    category = str(product.get("category") or "")
    kind_ok = category == fit.category
    checks = [
        Check(
            name="kind",
            passed=kind_ok,
            evidence=f"{'a' if kind_ok else 'not a'} {leaf_of(fit.category)} listing: its category is "
            f"{category or '(none)'!r}, {fit.noun} was asked for",
        )
    ]
    offered = fit_values(product, fit.key)
    matching = [v for v in offered if v in fit.values]
    checks.append(
        Check(
            name="fits",
            passed=bool(matching),
            evidence=f"its {fit.key} {', '.join(offered) if offered else '(none listed)'}; "
            f"{problem.device.name} takes {' or '.join(fit.values)}"
            + (f": {', '.join(matching)} fits" if matching else ": nothing fits"),
        )
    )
    for key, accepted in sorted(fit.wants.items()):
        values = fit_values(product, key)
        hit = [v for v in values if v in accepted]
        checks.append(
            Check(
                name=f"want:{key}",
                passed=bool(hit),
                evidence=f"its {key} {', '.join(values) if values else '(none listed)'}; "
                f"the shopper asked for {' or '.join(accepted)}",
            )
        )
    return checks


def score_compat(problem: CompatProblem, answer: Any, lookup: Lookup) -> RunScore:
    """The strict verdict on a run whose raw committed answer is ``answer``."""
    ids = parse_answer(answer)
    one = len(ids) == 1
    checks = [
        Check(
            name="one_product",
            passed=one,
            evidence=f"recommended {len(ids)} product(s): {', '.join(ids[:5]) or '(nothing)'}; one was asked for",
        )
    ]
    product = lookup(ids[0]) if one else None
    if one:
        checks.append(
            Check(
                name="known",
                passed=product is not None,
                evidence=f"product {ids[0]} is {'in' if product is not None else 'not in'} the catalog",
            )
        )
    if product is not None:
        checks += product_checks(problem, product)
    success = all(c.passed for c in checks) and product is not None
    total = 4 + len(problem.fit.wants)  # one_product, known, kind, fits, each want
    rule = sum(c.passed for c in checks) / total
    return RunScore(
        task=problem.task,
        ruleset=RULESET,
        ruleset_version=RULESET_VERSION,
        answer=ids,
        success=success,
        checks=checks,
        extras=CompatExtras(gt=float(success and ids[0] in problem.gold), rule=rule),
        final=float(success),
    )
