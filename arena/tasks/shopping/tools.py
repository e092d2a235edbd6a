"""The seven shopping tools, with ShoppingBench's semantics (yjwjy/ShoppingBench ``src/search_engine/server.py`` and
``src/agent/toolkit``; the shop and voucher helpers follow ORO-AI/oro's reference agent, served here by the node).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from arena.catalog.index import SearchFilters, SearchHit
from arena.catalog.models import SERVICES
from arena.tools.registry import ToolContext, ToolError, ToolRegistry

#: ShoppingBench keeps the first 50 filtered hits, then sorts them, then serves pages of 10 (pages 1-5).
KEEP = 50
PAGE_SIZE = 10
MAX_PAGE = 5
#: Upper bounds on one call's work.
MAX_VIEW_IDS = 20
SHOP_SEARCH_DEPTH = 300
SORTS = ("default", "priceasc", "pricedesc", "order")

_NUMBER = r"\s*(\d+(?:\.\d+)?)\s*"
_PRICE_RANGE = re.compile(rf"^(?:{_NUMBER})?-(?:{_NUMBER})?$")
_PRICE_SINGLE = re.compile(rf"^{_NUMBER}$")


def parse_price(price: str | None) -> tuple[float | None, float | None]:
    """ShoppingBench's price filter: ``"lo-hi"``, ``"lo-"`` or ``"-hi"``, inclusive. Raises `ToolError`."""
    if price is None or price.strip() in ("", "default"):
        return None, None
    text = price.strip()
    match = _PRICE_RANGE.match(text)
    if not match:
        if _PRICE_SINGLE.match(text):
            raise ToolError(f"price {price!r} is a single number; give a range like '100-500', '100-' or '-500'")
        raise ToolError(f"price {price!r} is not a range; use 'lo-hi', 'lo-' or '-hi' with numbers, e.g. '100-500'")
    lo = float(match.group(1)) if match.group(1) is not None else None
    hi = float(match.group(2)) if match.group(2) is not None else None
    if lo is None and hi is None:
        raise ToolError(f"price {price!r} has no bounds; use 'lo-hi', 'lo-' or '-hi', e.g. '100-500'")
    if lo is not None and hi is not None and lo > hi:
        raise ToolError(f"price {price!r} has its lower bound above its upper bound")
    return lo, hi


def parse_services(service: str | None) -> tuple[str, ...]:
    """A comma-separated service list (every one required); ``default`` or empty means no filter."""
    if service is None:
        return ()
    wanted: list[str] = []
    by_lower = {s.lower(): s for s in SERVICES}
    for raw in service.split(","):
        name = raw.strip()
        if not name or name.lower() == "default":
            continue
        canonical = by_lower.get(name.lower())
        if canonical is None:
            raise ToolError(f"unknown service {name!r}; use any of {', '.join(SERVICES)} (comma-separated) or default")
        if canonical not in wanted:
            wanted.append(canonical)
    return tuple(wanted)


def parse_ids(product_ids: str, what: str = "product_ids") -> list[str]:
    ids = [p.strip() for p in product_ids.split(",") if p.strip()]
    if not ids:
        raise ToolError(f"{what} is empty; give one or more product ids separated by commas")
    return ids


def _summary(doc: dict[str, Any]) -> dict[str, Any]:
    return {
        "product_id": doc["product_id"],
        "shop_id": doc["shop_id"],
        "title": doc["title"],
        "price": doc["price"],
        "service": doc["service"],
        "sold_count": doc["sold_count"],
    }


def sort_hits(hits: list[SearchHit], sort: str) -> list[SearchHit]:
    """ShoppingBench's sorts, applied to the kept hits only; ties keep relevance order (Python's sort is stable)."""
    if sort == "priceasc":
        return sorted(hits, key=lambda h: h.price)
    if sort == "pricedesc":
        return sorted(hits, key=lambda h: -h.price)
    if sort == "order":
        return sorted(hits, key=lambda h: -h.sold_count)
    return hits


# ------------------------------------------------------------------------------------------------------ the tools


def find_product(
    ctx: ToolContext,
    q: Annotated[str, Field(description="What to search for, in words (product type, brand, attributes).")],
    page: Annotated[int, Field(description="Result page, 1 to 5; 10 products per page. Other pages are empty.")] = 1,
    shop_id: Annotated[str | None, Field(description="Only products of this shop.")] = None,
    price: Annotated[
        str | None, Field(description="Price range, inclusive: 'lo-hi', 'lo-' or '-hi', e.g. '100-500' or '1000-'.")
    ] = None,
    sort: Annotated[
        Literal["default", "priceasc", "pricedesc", "order"],
        Field(description="Order of the results: default (relevance), priceasc, pricedesc, or order (best selling)."),
    ] = "default",
    service: Annotated[
        str | None,
        Field(description="Required services, comma-separated: official, freeShipping, COD, flashsale (all required)."),
    ] = None,
) -> list[dict[str, Any]]:
    """Search the catalog for products matching a query, with optional shop, price range and service filters.

    The 50 most relevant products that pass the filters are kept, then sorted, then split into pages of 10.
    Returns product_id, shop_id, title, price, service and sold_count for each product on the page.
    """
    if not q.strip():
        raise ToolError("find_product: q is empty; give words to search for")
    lo, hi = parse_price(price)
    filters = SearchFilters(
        shop_id=shop_id.strip() if shop_id and shop_id.strip() else None,
        price_min=lo,
        price_max=hi,
        services=parse_services(service),
    )
    if not 1 <= page <= MAX_PAGE:
        return []
    hits = sort_hits(ctx.catalog.search(q, filters, KEEP), sort)
    window = hits[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    return [_summary(doc) for doc in ctx.catalog.documents(h.address for h in window)]


def view_product_information(
    ctx: ToolContext,
    product_ids: Annotated[str, Field(description="One or more product ids, comma-separated (at most 20).")],
) -> list[dict[str, Any]]:
    """Show the details of products: short description, description, SKU options and attributes.

    Titles, prices and shops are not shown here (use find_product for those). Unknown ids are reported per id.
    """
    ids = parse_ids(product_ids)
    if len(ids) > MAX_VIEW_IDS:
        raise ToolError(f"view_product_information: {len(ids)} ids given; at most {MAX_VIEW_IDS} per call")
    found = ctx.catalog.get_many(ids)
    out: list[dict[str, Any]] = []
    for product_id in ids:
        doc = found.get(product_id)
        if doc is None:
            out.append({"product_id": product_id, "error": "unknown product id"})
            continue
        out.append(
            {
                "product_id": doc["product_id"],
                "short_description": doc["short_description"],
                "description": doc["description"],
                "sku_options": doc["sku_options"],
                "attributes": doc["attributes"],
            }
        )
    return out


def find_products_in_same_shop(
    ctx: ToolContext,
    queries: Annotated[
        list[str], Field(min_length=2, max_length=4, description="2 to 4 product searches that one shop should cover.")
    ],
    price: Annotated[str | None, Field(description="Price range applied to every query, e.g. '100-500'.")] = None,
    service: Annotated[str | None, Field(description="Required services for every product, comma-separated.")] = None,
    max_shops: Annotated[int, Field(ge=1, le=10, description="How many shops to return, 1 to 10.")] = 5,
    per_query: Annotated[int, Field(ge=1, le=5, description="Products shown per query per shop, 1 to 5.")] = 3,
) -> list[dict[str, Any]]:
    """Find shops that sell a relevant match for every one of several queries (best coverage first).

    For each shop: how many queries it covers and its best-matching products per query. Shops covering all queries
    come first, ranked by the relevance of their matches; then shops covering most of them.
    """
    cleaned = [q.strip() for q in queries]
    if any(not q for q in cleaned):
        raise ToolError("find_products_in_same_shop: every query needs words to search for")
    lo, hi = parse_price(price)
    filters = SearchFilters(price_min=lo, price_max=hi, services=parse_services(service))
    # per shop: for each query, its hits in relevance order (bounded: SHOP_SEARCH_DEPTH hits per query)
    by_shop: dict[int, list[list[SearchHit]]] = {}
    best_score = []
    for qi, query in enumerate(cleaned):
        hits = ctx.catalog.search(query, filters, SHOP_SEARCH_DEPTH, with_shop=True)
        best_score.append(hits[0].score if hits else 1.0)
        for hit in hits:
            slots = by_shop.setdefault(hit.shop_ord, [[] for _ in cleaned])
            if len(slots[qi]) < per_query:
                slots[qi].append(hit)
    ranked = []
    for shop_ord, slots in by_shop.items():
        covered = sum(1 for s in slots if s)
        if covered < 2:
            continue
        # relevance of a shop: mean over queries of its best hit's score relative to the query's best hit
        strength = sum(s[0].score / (best_score[qi] or 1.0) for qi, s in enumerate(slots) if s) / len(cleaned)
        ranked.append((-covered, -strength, shop_ord))
    ranked.sort()
    out = []
    for neg_covered, _, shop_ord in ranked[:max_shops]:
        slots = by_shop[shop_ord]
        docs = ctx.catalog.documents(h.address for s in slots for h in s)
        it = iter(docs)
        matches = [{"query": q, "products": [_summary(next(it)) for _ in slots[qi]]} for qi, q in enumerate(cleaned)]
        out.append(
            {
                "shop_id": ctx.catalog.shop_id_of_ord(shop_ord),
                "queries_covered": -neg_covered,
                "queries": len(cleaned),
                "matches": matches,
            }
        )
    return out


class Voucher(BaseModel):
    """A ShoppingBench voucher."""

    model_config = ConfigDict(extra="ignore")

    voucher_type: Annotated[
        Literal["platform", "shop"],
        Field(description="platform: applies to any basket; shop: only when every product is from one shop."),
    ]
    threshold: Annotated[float, Field(ge=0, description="Minimum basket total for the voucher to apply.")]
    discount_type: Annotated[Literal["fixed", "percentage"], Field(description="fixed amount or percentage off.")]
    face_value: Annotated[float | None, Field(ge=0, description="Amount off, for a fixed voucher.")] = None
    discount: Annotated[
        float | None, Field(gt=0, lt=1, description="Fraction off for a percentage voucher: 0.21 means 21%.")
    ] = None
    cap: Annotated[float | None, Field(ge=0, description="Largest amount a percentage voucher takes off.")] = None
    budget: Annotated[float | None, Field(ge=0, description="The shopper's budget, to check the total against.")] = None


def apply_voucher(total: float, single_shop: bool, voucher: Voucher) -> tuple[float, bool, str]:
    """ShoppingBench's voucher rule: (discount, applied, reason). Cited: ``src/agent/rewards/orm.py`` budget check."""
    if voucher.voucher_type == "shop" and not single_shop:
        return 0.0, False, "shop voucher needs every product from the same shop"
    if total < voucher.threshold:  # reached at total >= threshold, as the reference code (the query says "exceeds")
        return 0.0, False, f"total {total:g} is below the threshold {voucher.threshold:g}"
    if voucher.discount_type == "fixed":
        if voucher.face_value is None:
            raise ToolError("calculate_voucher: a fixed voucher needs face_value")
        return min(total, voucher.face_value), True, "applied"
    if voucher.discount is None:
        raise ToolError("calculate_voucher: a percentage voucher needs discount (a fraction, 0.21 for 21%)")
    after = total * (1 - voucher.discount)
    if voucher.cap is not None:
        after = max(after, total - voucher.cap)
    return total - after, True, "applied"


def _money(x: float) -> float:
    return math.floor(x * 100 + 0.5 + 1e-9) / 100


def calculate_voucher(
    ctx: ToolContext,
    product_ids: Annotated[str, Field(description="The basket: product ids, comma-separated.")],
    voucher: Annotated[Voucher, Field(description="The voucher to apply.")],
) -> dict[str, Any]:
    """Total a basket and apply a voucher by ShoppingBench's rules; says whether the result fits the budget.

    A platform voucher applies to any basket, a shop voucher only when all products are from one shop; either
    applies once the total reaches the threshold. Fixed: total minus face value. Percentage: the larger of
    total x (1 - discount) and total - cap.
    """
    ids = parse_ids(product_ids)
    if len(ids) > MAX_VIEW_IDS:
        raise ToolError(f"calculate_voucher: {len(ids)} ids given; at most {MAX_VIEW_IDS} per basket")
    found = ctx.catalog.get_many(ids)
    unknown = [p for p in ids if p not in found]
    if unknown:
        raise ToolError(f"calculate_voucher: unknown product id(s): {', '.join(unknown)}")
    total = sum(float(found[p]["price"]) for p in ids)
    shops = {found[p]["shop_id"] for p in ids}
    discount, applied, reason = apply_voucher(total, len(shops) == 1, voucher)
    after = total - discount
    return {
        "product_ids": ids,
        "prices": [found[p]["price"] for p in ids],
        "total_before": _money(total),
        "discount": _money(discount),
        "total_after": _money(after),
        "voucher_applied": applied,
        "reason": reason,
        "budget": voucher.budget,
        "within_budget": None if voucher.budget is None else _money(after) <= voucher.budget + 1e-9,
    }


def web_search(
    ctx: ToolContext,
    q: Annotated[str, Field(description="What to look up on the web.")],
    max_results: Annotated[int, Field(ge=1, le=20, description="How many pages to return, 1 to 20.")] = 10,
) -> list[dict[str, Any]]:
    """Search the web for world knowledge (people, teams, places, events). Returns url, title and content."""
    if not q.strip():
        raise ToolError("web_search: q is empty; give words to search for")
    return [
        {"url": p["url"], "title": p["title"], "content": p["content"]} for p in ctx.catalog.web_search(q, max_results)
    ]


def recommend_product(
    ctx: ToolContext,
    product_ids: Annotated[
        str, Field(description="The answer: product ids, comma-separated, in the order the user asked for them.")
    ],
) -> str:
    """Recommend products to the user: your answer. Give one id, or one per requested product in the user's order
    (all from one shop when the user asked for one shop). The last recommendation is the one that counts."""
    ids = parse_ids(product_ids)
    ctx.state.recommendations.append(ids)
    return f"Having recommended the products to the user: {','.join(ids)}."


def terminate(
    ctx: ToolContext, status: Annotated[Literal["success", "failure"], Field(description="success or failure.")]
) -> str:
    """End the conversation when the task is done (success) or cannot be done (failure)."""
    ctx.state.terminated = status
    return f"The interaction has been completed with status: {status}"


#: what each tool's result is, declared for the judge and the corpus (`arena.tools.registry.RESULT_KINDS`)
RESULTS: dict[Callable[..., Any], str] = {
    find_product: "products",
    view_product_information: "details",
    find_products_in_same_shop: "shops",
    calculate_voucher: "prices",
    web_search: "pages",
    recommend_product: "answer",
    terminate: "end",
}


def default_registry() -> ToolRegistry:
    """A registry holding the seven shopping tools."""
    registry = ToolRegistry()
    for fn, results in RESULTS.items():
        registry.register(fn, results=results)
    return registry
