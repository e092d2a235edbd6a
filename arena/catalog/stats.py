"""A catalog's statistics, gathered while it is built or loaded and stored in its manifest."""

from __future__ import annotations

from collections import Counter
from itertools import chain, compress
from operator import ne
from typing import Any

from arena.catalog.models import SERVICES


class _TopOf(dict[str, str]):
    """A category's top-level category (``"Top > Mid > Leaf"`` -> ``"Top"``), worked out once per category."""

    def __missing__(self, category: str) -> str:
        top = self[category] = category.split(" > ", 1)[0]
        return top


class StatsCollector:
    """Streaming statistics of a catalog, stored in its manifest and shown by ``arena catalog stats``."""

    _RESERVOIR = 50_000

    def __init__(self) -> None:
        self.n = 0
        self.categories: Counter[str] = Counter()
        self.services: Counter[str] = Counter()
        self.shop_products: Counter[str] = Counter()
        self.shop_tops: set[tuple[str, str]] = set()  # (shop, top-level category) pairs
        self._top_of = _TopOf()
        # per product model (a model key): its first shop, how many listings, and the models listed by 2+ shops
        self.model_shop: dict[int, str] = {}
        self.model_listings: Counter[int] = Counter()
        self.model_several: set[int] = set()
        self.sku_total = 0
        self.sku_with = 0
        self.sku_max = 0
        self.prices: list[float] = []
        self.sold: list[int] = []
        self.sold_total = 0

    def add(self, product: dict[str, Any], model_key: int | None = None) -> None:
        self.add_fields(
            product["category"],
            product["shop_id"],
            product["service"],
            float(product["price"]),
            int(product["sold_count"]),
            len(product["sku_options"]),
            model_key,
        )

    def add_fields(
        self, category: str, shop: str, services: Any, price: float, sold: int, n_sku: int, model_key: int | None = None
    ) -> None:
        self.n += 1
        self.categories[category] += 1
        for service in services:
            self.services[service] += 1
        self.shop_products[shop] += 1
        self.shop_tops.add((shop, self._top_of[category]))
        self.sku_total += n_sku
        self.sku_with += n_sku > 0
        if n_sku > self.sku_max:
            self.sku_max = n_sku
        self.sold_total += sold
        if len(self.prices) < self._RESERVOIR:
            self.prices.append(price)
            self.sold.append(sold)
        elif self.n % 7 == 0:  # deterministic thinning keeps the sample spread over the whole catalog
            slot = (self.n * 2654435761) % self._RESERVOIR
            self.prices[slot] = price
            self.sold[slot] = sold
        if model_key is not None:
            self.model_listings[model_key] += 1
            if self.model_shop.setdefault(model_key, shop) != shop:
                self.model_several.add(model_key)

    def add_columns(
        self,
        categories: list[str],
        shops: list[str],
        services: list[list[str]],
        prices: list[float],
        sold: list[int],
        n_skus: list[int],
        model_keys: list[int],
    ) -> None:
        """`add_fields` for many products at once, given column by column (a generated build's chunk): the same
        statistics, counted by C loops (Counter.update, map) instead of a Python call a product."""
        n0, k = self.n, len(categories)
        self.n += k
        self.categories.update(categories)
        self.services.update(chain.from_iterable(services))
        self.shop_products.update(shops)
        self.shop_tops.update(zip(shops, map(self._top_of.__getitem__, categories), strict=True))
        self.sku_total += sum(n_skus)
        self.sku_with += k - n_skus.count(0)
        self.sku_max = max(self.sku_max, max(n_skus, default=0))
        self.sold_total += sum(sold)
        fill = max(0, min(k, self._RESERVOIR - len(self.prices)))  # as add_fields: the first ones kept, then
        self.prices.extend(prices[:fill])  # every 7th product (by its count n) in a slot of its own
        self.sold.extend(sold[:fill])
        for j in range(fill + (-(n0 + fill + 1)) % 7, k, 7):
            slot = ((n0 + j + 1) * 2654435761) % self._RESERVOIR
            self.prices[slot] = prices[j]
            self.sold[slot] = sold[j]
        self.model_listings.update(model_keys)
        firsts = map(self.model_shop.setdefault, model_keys, shops)
        self.model_several.update(compress(model_keys, map(ne, firsts, shops)))

    def result(self) -> dict[str, Any]:
        def pct(values: list[float], q: float) -> float:
            if not values:
                return 0.0
            ordered = sorted(values)
            return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

        tops: Counter[str] = Counter()
        for category, count in self.categories.items():
            tops[category.split(" > ", 1)[0]] += count
        sold_sorted = sorted(self.sold, reverse=True)
        top1 = sum(sold_sorted[: max(1, len(sold_sorted) // 100)])
        sold_sample = sum(sold_sorted) or 1
        multi = [s for s, tops in Counter(shop for shop, _ in self.shop_tops).items() if tops >= 3]
        near_dup = None
        if self.model_shop:
            near_dup = sum(self.model_listings[key] for key in self.model_several)
        return {
            "products": self.n,
            "top_categories": len(tops),
            "leaf_categories": len(self.categories),
            "shops": len(self.shop_products),
            "shops_in_3plus_top_categories": len(multi),
            "largest_shop_products": max(self.shop_products.values(), default=0),
            "near_duplicate_listings": near_dup,
            "service_rates": {s: round(self.services[s] / max(1, self.n), 4) for s in SERVICES},
            "price": {q: round(pct(self.prices, v), 2) for q, v in (("p10", 0.1), ("p50", 0.5), ("p90", 0.9))}
            | {"max": max(self.prices, default=0.0)},
            "sold_count": {
                "total": self.sold_total,
                "zero_share": round(sum(1 for s in self.sold if s == 0) / max(1, len(self.sold)), 4),
                "p50": pct([float(s) for s in self.sold], 0.5),
                "p99": pct([float(s) for s in self.sold], 0.99),
                "top1pct_share": round(top1 / sold_sample, 4),
            },
            "sku_options": {
                "with_options_share": round(self.sku_with / max(1, self.n), 4),
                "mean": round(self.sku_total / max(1, self.n), 3),
                "max": self.sku_max,
            },
            "top_category_products": dict(sorted(tops.items())),
        }
