"""Price arithmetic of the rebuild: the prices a product's rules admit, a voucher basket's budget window
(ShoppingBench's budget check, the total its recipe implies), and a cent price picked inside intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence

from arena.catalog.rng import Rng
from arena.tasks.shopping.problem import PriceRule, Voucher
from arena.tasks.shopping.tools import Voucher as ToolVoucher
from arena.tasks.shopping.tools import apply_voucher

#: the cheapest price a rebuilt product gets when its rules allow it
MIN_PRICE = 1.0
#: kept between a basket total and the edges of its budget window, so cent rounding never crosses one
MARGIN = 0.02

Interval = tuple[float, float]


def price_interval(rules: Sequence[PriceRule]) -> tuple[float, float]:
    """The prices every rule admits, as [lo, hi] (hi may be inf). Raises ValueError when none fits."""
    lo, hi = 0.0, math.inf
    for rule in rules:
        if rule.lo is not None:
            lo = max(lo, rule.lo)
        if rule.hi is not None:
            hi = min(hi, rule.hi)
    if lo > hi:
        raise ValueError(f"price rules admit no price (need >= {lo:g} and <= {hi:g})")
    return lo, hi


def describe(iv: Interval) -> str:
    lo, hi = iv
    if math.isinf(hi):
        return f">= {lo:g}"
    return f"<= {hi:g}" if lo <= 0 else f"between {lo:g} and {hi:g}"


def intersect(a: Sequence[Interval], b: Sequence[Interval]) -> list[Interval]:
    out = []
    for lo1, hi1 in a:
        for lo2, hi2 in b:
            lo, hi = max(lo1, lo2), min(hi1, hi2)
            if lo <= hi:
                out.append((lo, hi))
    return sorted(out)


def after_voucher(total: float, single_shop: bool, voucher: Voucher) -> float:
    tool = ToolVoucher(
        voucher_type=voucher.voucher_type,
        threshold=voucher.threshold,
        discount_type=voucher.discount_type,
        face_value=voucher.face_value,
        discount=voucher.discount,
        cap=voucher.cap,
    )
    discount, _, _ = apply_voucher(total, single_shop, tool)
    return total - discount


def fits_budget(total: float, voucher: Voucher) -> bool:
    """ShoppingBench's budget check for a basket whose voucher applies (one shop, or a platform voucher): the raw
    total within budget, or at the threshold and within budget after the voucher."""
    if total <= voucher.budget:
        return True
    if total < voucher.threshold:
        return False
    if voucher.discount_type == "fixed":
        return total - (voucher.face_value or 0) <= voucher.budget
    after = total * (1 - (voucher.discount or 0))
    if voucher.cap is not None:
        after = max(after, total - voucher.cap)
    return after <= voucher.budget


def budget_window(voucher: Voucher) -> list[Interval]:
    """Basket totals that fit the budget (the voucher applying): [0, budget] and [threshold, the largest total the
    voucher brings within budget], each kept ``MARGIN`` inside its edges."""
    windows = [(MARGIN, voucher.budget - MARGIN)]
    if voucher.discount_type == "fixed":
        top = voucher.budget + (voucher.face_value or 0)
    else:
        d = voucher.discount or 0
        top = voucher.budget / (1 - d)
        if voucher.cap is not None:
            top = min(top, voucher.budget + voucher.cap)
    windows.append((voucher.threshold + MARGIN, top - MARGIN))
    merged: list[Interval] = []
    for lo, hi in sorted(w for w in windows if w[0] <= w[1]):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def basket_total(voucher: Voucher) -> float:
    """The basket total ShoppingBench's recipe implies: inverted from ``price_after_voucher`` when the record has it
    and it fits, else the largest total the voucher brings within budget (so the voucher is needed), else a total
    within budget without it."""
    pav = voucher.price_after_voucher
    candidates: list[float] = []
    if pav is not None and pav > 0:
        if voucher.discount_type == "fixed":
            candidates.append(pav + (voucher.face_value or 0))
        else:
            d = voucher.discount or 0
            full = pav / (1 - d)
            candidates.append(full if voucher.cap is None or full * d <= voucher.cap else pav + voucher.cap)
    windows = budget_window(voucher)
    candidates.append(windows[-1][1] - 0.1 * (windows[-1][1] - windows[-1][0]))
    candidates.append(voucher.budget * 0.95)
    for total in candidates:
        total = round(total, 2)
        if any(lo <= total <= hi for lo, hi in windows) and fits_budget(total, voucher):
            return total
    raise ValueError("no basket total fits the budget")


def pick_in(intervals: Sequence[Interval], prefer: float | None, rng: Rng) -> float:
    """A cent price inside ``intervals``: ``prefer`` when it is inside, else a point well inside the widest one."""
    if prefer is not None:
        for lo, hi in intervals:
            if lo <= prefer <= hi and lo <= round(prefer, 2) <= hi:
                return round(prefer, 2)
    lo, hi = max(intervals, key=lambda iv: (min(iv[1], iv[0] + 1e9) - iv[0], -iv[0]))
    if math.isinf(hi):
        return round(max(lo, MIN_PRICE) * (1.1 + 0.5 * rng.u()), 2)
    value = round(lo + (hi - lo) * (0.25 + 0.5 * rng.u()), 2)
    if not lo <= value <= hi:
        value = math.ceil(lo * 100) / 100
    return value if value <= hi else lo


def floor_price(lo: float, hi: float) -> float:
    """The lowest price a product is given: ``MIN_PRICE`` when its interval allows, else its own lower bound."""
    if lo >= MIN_PRICE:
        return lo
    return MIN_PRICE if hi >= 2 * MIN_PRICE else max(lo, 0.01)
