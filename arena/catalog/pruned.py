"""A filtered product search answered from the unfiltered search's best candidates (docs/operator.md, section 1).

A search filtered by price or services used to score every product that matches a query word and seek it in the
filters (a service's postings, the price column): two to six times the words' own cost, hundreds of thousands of
products for a common word to keep 50 (tantivy-py never skips any: its searches do not use tantivy's block-max
WAND, docs/operator.md section 1). Here the unfiltered query's best ``k`` (``k`` from the share of products the
filters should pass, `share`) are read with their price and services (fast fields, no stored documents, best first
and only as far as they can matter: `_passes`), the filters applied to them, and the answer accepted only where it
is the full search's:

* the unfiltered search can score a product differently from the filtered one in the last bits (the same BM25 word
  scores summed in another order), so the two are taken as equal within `SLACK`, relative;
* the ``limit``-th candidate that passes the filters must score clearly above the lowest candidate read: then every
  product that the full search could rank among the first ``limit`` is among the candidates;
* with one or two words a product's score is the same float either way (a sum of two numbers has one order); with
  more, the candidates are scored again by the filtered query itself, restricted to their rows, which sums the
  words in the query's order as the full search does (tantivy changes that order only near where a word's
  postings end in a segment, and the full search itself does so differently in two builds of one catalog, whose
  segment layouts differ);
* where ``window`` or more products share or beat the ``limit``-th score, the full search's answer depends on how
  tantivy breaks ties (`arena.catalog.index.TIE_WINDOW`), so the full search answers.

Anything not proven (including a filter needing more than `MOST` candidates) returns None, and the caller runs the
full search.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from typing import cast

import tantivy

#: The first read holds this many times the candidates that should pass the filters, by `share`'s estimate.
MARGIN = 3
#: The most candidates read; a filter needing more (a rare price band, two rare services) takes the full search.
MOST = 8192
#: How far apart, relative, two tantivy scores of the same product can be: float32 sums of the same n word scores
#: in another order differ by at most about (n - 1) * 2**-23 of the sum (1.2e-5 at 100 words).
SLACK = 1e-4
#: Queries with more words than this take the full search (their sums can differ by more than `SLACK`).
MOST_WORDS = 100
#: Up to this many words the two scores are the same float: a sum of one or two numbers has one order
#: (the filter adds 0), so the candidates need no scoring again.
EXACT_WORDS = 2

#: The percentiles of price `price_points` asks tantivy for (every half percent).
_PERCENTS = [i / 2 for i in range(1, 200)]

Hits = list[tuple[float, tantivy.DocAddress]]
Points = list[tuple[float, float]]


def price_points(searcher: tantivy.Searcher) -> Points:
    """(price, share of products priced at most that) at every half percent of the catalog's products: tantivy's
    percentiles aggregation (approximate; about 0.1 s for 2.5M products, once per open catalog)."""
    spec = {"p": {"percentiles": {"field": "price", "percents": _PERCENTS, "keyed": False}}}
    try:
        values = searcher.aggregate(tantivy.Query.all_query(), spec)["p"]["values"]
    except (ValueError, KeyError, TypeError):  # no products: every estimate is 0, and the full search answers
        return []
    points = [(v.get("value"), float(v["key"]) / 100) for v in values]
    return [(float(x), p) for x, p in points if isinstance(x, float) and math.isfinite(x)]


def share(points: Points, price_min: float | None, price_max: float | None, rates: Sequence[float]) -> float:
    """The estimated share of products in the price range (from `price_points`) offering every service (each
    service's share in ``rates``, taken as independent)."""

    def below(price: float) -> float:
        i = bisect.bisect_right(points, (price, 2.0))
        if i == 0:
            return 0.0
        if i == len(points):
            return 1.0
        (x0, p0), (x1, p1) = points[i - 1], points[i]
        return p0 + (p1 - p0) * (price - x0) / (x1 - x0) if x1 > x0 else p1

    estimate = (1.0 if price_max is None else below(price_max)) - (0.0 if price_min is None else below(price_min))
    for rate in rates:
        estimate *= rate
    return estimate


def _passes(
    searcher: tantivy.Searcher,
    hits: Hits,
    price_min: float | None,
    price_max: float | None,
    services: int,
    *,
    limit: int,
    step: int,
) -> Hits:
    """The hits (best first) whose price is within the bounds (inclusive) and that offer every service in the mask,
    read ``step`` hits at a time, doubling, until ``limit`` have passed and the hits left score below the
    ``limit``-th passing one by more than `_contenders` keeps (3 `SLACK`): those left unread can never be among its
    contenders, and their fast fields are not read (most of the candidates of a read, the slow filtered searches'
    largest cost in Python)."""
    price = price_min is not None or price_max is not None
    low = -math.inf if price_min is None else price_min
    high = math.inf if price_max is None else price_max
    passing: Hits = []
    start = 0
    while start < len(hits):
        chunk = hits[start : start + step]
        start, step = start + len(chunk), 2 * step
        addresses = [address for _, address in chunk]
        prices = searcher.fast_field_values("price", addresses) if price else [low] * len(chunk)
        # an integer (i64) fast field: ints, None only in a damaged index
        masks = (
            cast(list[int | None], searcher.fast_field_values("services", addresses)) if services else [0] * len(chunk)
        )
        passing += [
            hit
            for hit, p, m in zip(chunk, prices, masks, strict=True)
            if p is not None and low <= p <= high and m is not None and m & services == services
        ]
        if len(passing) >= limit and chunk[-1][0] < passing[limit - 1][0] * (1 - 3 * SLACK):
            break
    return passing


def _contenders(
    searcher: tantivy.Searcher, plain: tantivy.Query, limit: int, bounds: tuple, estimate: float
) -> Hits | None:
    """The candidates that can be among the filtered search's first ``limit``, or None where finding them would
    take more than two reads or more than `MOST` candidates (the full search is then about as fast). ``estimate``:
    the share of products expected to pass (`share`)."""
    k = max(2 * limit, math.ceil(MARGIN * limit / max(estimate, 1e-9)))
    for _ in range(2):
        if k > MOST:
            return None
        hits = searcher.search(plain, k, count=False).hits
        passing = _passes(searcher, hits, *bounds, limit=limit, step=max(limit, k // (2 * MARGIN)))
        if len(hits) < k and len(passing) < limit:  # every match read: all that pass are the answer
            return passing
        if len(passing) >= limit:
            lower = passing[limit - 1][0] * (1 - 3 * SLACK)
            # products outside the candidates score at most hits[-1] (unfiltered), so at most that plus SLACK filtered
            if len(hits) < k or lower > hits[-1][0] * (1 + SLACK):
                return [hit for hit in passing if hit[0] >= lower]
            k *= 4  # the cut is too near the last candidate: read deeper
        elif passing:  # deep enough for twice the passing products wanted, at the rate seen
            k = max(2 * k, -(-2 * limit * k // len(passing)))
        else:
            return None
    return None


def _rows(searcher: tantivy.Searcher, hits: Hits) -> list[int] | None:
    values = searcher.fast_field_values("row", [address for _, address in hits])
    rows = [value for value in values if isinstance(value, int)]
    return rows if len(rows) == len(values) else None


def pruned_top(
    searcher: tantivy.Searcher,
    plain: tantivy.Query,
    restricted: Callable[[Sequence[int]], tantivy.Query],
    limit: int,
    bounds: tuple[float | None, float | None, int],
    *,
    estimate: float,
    words: int,
    window: int,
) -> Hits | None:
    """The filtered search's first ``limit`` products, best first (score, then row), as ``(score, address)``; or
    None where this cannot prove it is the full search's answer.

    ``plain`` is the query without filters, ``restricted(rows)`` the filtered query limited to those rows,
    ``bounds`` (price_min, price_max, required services' bit mask), ``estimate`` the share of products expected to
    pass them (`share`), ``words`` the query's words, ``window`` how many tied products the full search orders by
    row (`arena.catalog.index.TIE_WINDOW`).
    """
    if words > MOST_WORDS:
        return None
    contenders = _contenders(searcher, plain, limit, bounds, estimate)
    if contenders is None:
        return None
    if not contenders:
        return []
    rows = _rows(searcher, contenders)
    if words > EXACT_WORDS and rows is not None:  # scored again by the filtered query, restricted to these rows
        rescored = searcher.search(restricted(rows), len(contenders), count=False).hits
        if len(rescored) != len(contenders):  # the filters and the fast fields disagree: the full search answers
            return None
        contenders, rows = rescored, _rows(searcher, rescored)
    if rows is None:  # a damaged index: the full search says so
        return None
    ranked = sorted(zip(contenders, rows, strict=True), key=lambda pair: (-pair[0][0], pair[1]))
    if len(ranked) >= limit:
        cut = ranked[limit - 1][0][0]
        if sum(1 for (score, _), _ in ranked if score >= cut) >= max(2 * limit, window):
            return None
    return [hit for hit, _ in ranked[:limit]]
