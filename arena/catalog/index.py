"""The catalog on disk: a tantivy index of products, its products' JSON by row, a tantivy index of web pages, and a
manifest.

Layout of a catalog folder::

    DIR/catalog.json   manifest: format, source (seed and size, or the loaded file), content digest, counts, stats,
                       shops (first seen, first numbered) and, for an index written in parts, shop_ords
    DIR/products/      tantivy: BM25 over ``contents`` (title, SKU values, attribute values, as ShoppingBench),
                       fast fields price / sold_count / shop_ord / row, filter terms shop_id / service (format 1
                       and 2: and the product's JSON stored)
    DIR/store/         the products' JSON by row, in LZ4 blocks (`arena.catalog.docstore`; format 3)
    DIR/web/           tantivy: BM25 over page title and content, stored page

A catalog is built into a temporary sibling folder and renamed into place only when complete
(`arena.catalog.writer.CatalogWriter`), so
an interrupted or failed build never leaves a half-written catalog behind.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import tantivy

from arena.catalog.docstore import StoreReader
from arena.catalog.manifest import MANIFEST, STORE, CatalogError, read_manifest, shop_table
from arena.catalog.pruned import Points, price_points, pruned_top, share
from arena.catalog.schema import SERVICE_BITS, analyze, open_index, product_schema, web_schema

#: How far a search looks past its limit to order products that tie at the cut (by the order they were added).
TIE_WINDOW = 1024

# --------------------------------------------------------------------------------------------------------- search


@dataclass(frozen=True)
class SearchFilters:
    """ShoppingBench's filters: shop, inclusive price range (``None`` = open), services (all required)."""

    shop_id: str | None = None
    price_min: float | None = None
    price_max: float | None = None
    services: tuple[str, ...] = ()

    def __post_init__(self) -> None:  # NaN bounds: the full and the pruned search would read them differently
        if any(bound is not None and bound != bound for bound in (self.price_min, self.price_max)):
            raise ValueError(f"a price bound is NaN ({self}); give a number, or None for no bound")


def _prunable(filters: SearchFilters) -> bool:
    """Whether `arena.catalog.pruned` may answer: a price or service filter and no shop (a shop's few products are
    found fast by the full search, the shop's term leading)."""
    return filters.shop_id is None and (
        filters.price_min is not None or filters.price_max is not None or bool(filters.services)
    )


def _fast_numbers(searcher: tantivy.Searcher, name: str, addresses: list[tantivy.DocAddress]) -> list[int | float]:
    """One numeric fast field of these products. The writer gives every product each of its fast fields, so a value
    missing means a damaged index."""
    values = searcher.fast_field_values(name, addresses)
    numbers = [value for value in values if value is not None]
    if len(numbers) != len(values):
        raise CatalogError(
            f"the catalog's index is damaged: {len(values) - len(numbers)} product(s) without their "
            f"{name}; rebuild the catalog"
        )
    return numbers


@dataclass(frozen=True)
class SearchHit:
    """One retrieved product: relevance score, its place in the index, and the fast fields used for sorting."""

    score: float
    address: tantivy.DocAddress
    price: float
    sold_count: int
    shop_ord: int = 0


@dataclass
class Catalog:
    """An open catalog folder. Thread-safe for reads; holds no global state."""

    path: Path
    manifest: dict[str, Any]
    _products: tantivy.Index
    _web: tantivy.Index
    _schema: tantivy.Schema
    _web_schema: tantivy.Schema
    _searcher: tantivy.Searcher = field(init=False)
    _web_searcher: tantivy.Searcher = field(init=False)
    _store: StoreReader | None = None  # the products' JSON (format 3; before it, the index's stored ``doc``)
    _price_points: Points | None = field(default=None, init=False)  # read on the first filtered search
    _shop_ords: list[int] | None = field(default=None, init=False)  # each index number's shop (`shop_table`)

    def __post_init__(self) -> None:
        self._searcher = self._products.searcher()
        self._web_searcher = self._web.searcher()
        self._shop_ords = shop_table(self.path, self.manifest)

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Catalog:
        root = Path(path)
        manifest = read_manifest(root)
        stored = manifest["format"] in (1, 2)
        schema, pages = product_schema(stored=stored), web_schema()
        for part in ("products", "web"):  # tantivy would quietly make a new, empty index where one is missing
            if not (root / part / "meta.json").is_file():
                raise CatalogError(
                    f"{root} is damaged: {part}/meta.json (part of its search index) is missing; rebuild the catalog"
                )
        try:
            products = open_index(root / "products", schema)
            web = open_index(root / "web", pages)
        except ValueError as exc:
            raise CatalogError(f"{root} has a damaged index ({exc}); rebuild the catalog") from exc
        catalog = cls(root, manifest, products, web, schema, pages)
        for part, found in (("products", catalog.num_products), ("web_pages", catalog.num_web_pages)):
            expected = manifest.get(part)
            if isinstance(expected, int) and expected != found:
                raise CatalogError(
                    f"{root} is damaged: its index holds {found:,} {part.replace('_', ' ')}, its "
                    f"{MANIFEST} says {expected:,}; rebuild the catalog"
                )
        if not stored:
            catalog._store = StoreReader(root / STORE, catalog.num_products)
            catalog._check_store()
        return catalog

    def _check_store(self) -> None:
        """CatalogError unless the store's first and last products are found at their rows by their ids: another
        catalog's store (or index) of as many products beside the index would answer with other products."""
        assert self._store is not None
        for row in sorted({0, self.num_products - 1} - {-1}):
            try:
                product_id = str(orjson.loads(self._store.get([row])[0])["product_id"])
            except (ValueError, TypeError, KeyError):  # orjson's JSONDecodeError is a ValueError
                product_id = None
            both = [("product_id", product_id or ""), ("row", row)]  # the id at that row (ids may repeat)
            query = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, tantivy.Query.term_query(self._schema, name, value)) for name, value in both]
            )
            if not self._searcher.search(query, 1, count=False).hits:
                raise CatalogError(
                    f"{self.path} is damaged: its stored products are not its index's (row {row}); rebuild the catalog"
                )

    # --- facts

    @property
    def digest(self) -> str:
        return str(self.manifest["digest"])

    @property
    def num_products(self) -> int:
        return int(self._searcher.num_docs)

    @property
    def num_web_pages(self) -> int:
        return int(self._web_searcher.num_docs)

    def shop_id_of_ord(self, ordinal: int) -> str:
        return str(self.manifest["shops"][ordinal])

    # --- product search

    def product_query(
        self, text: str, filters: SearchFilters = SearchFilters(), *, rows: Sequence[int] | None = None
    ) -> tantivy.Query | None:
        """The tantivy query for ShoppingBench's relevance search with filters, or None if ``text`` has no terms.

        Relevance is BM25 over ``contents``, with the query's terms OR-ed (as a Lucene query of bare words).
        Filters are scored 0, so they remove products without changing the order of the rest: the result equals
        "retrieve by relevance, then drop what fails the filters" without retrieving what is dropped. ``rows``
        keeps only the products added at those rows (0-based), a filter like the others.
        """
        terms = analyze(text)
        if not terms:
            return None
        schema = self._schema
        if len(terms) == 1:
            relevance = tantivy.Query.term_query(schema, "contents", terms[0], index_option="freq")
        else:
            relevance = tantivy.Query.boolean_query(
                [
                    (tantivy.Occur.Should, tantivy.Query.term_query(schema, "contents", t, index_option="freq"))
                    for t in terms
                ]
            )
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
        if filters.shop_id is not None:
            clauses.append((tantivy.Occur.Must, tantivy.Query.term_query(schema, "shop_id", filters.shop_id)))
        if filters.price_min is not None or filters.price_max is not None:
            clauses.append(
                (
                    tantivy.Occur.Must,
                    tantivy.Query.range_query(
                        schema, "price", tantivy.FieldType.Float, filters.price_min, filters.price_max
                    ),
                )
            )
        for service in filters.services:
            clauses.append((tantivy.Occur.Must, tantivy.Query.term_query(schema, "service", service)))
        if rows is not None:
            wanted = [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "row", row)) for row in rows]
            clauses.append((tantivy.Occur.Must, tantivy.Query.boolean_query(wanted)))
        if not clauses:
            return relevance
        filter_query = tantivy.Query.const_score_query(tantivy.Query.boolean_query(clauses), 0.0)
        return tantivy.Query.boolean_query([(tantivy.Occur.Must, relevance), (tantivy.Occur.Must, filter_query)])

    def search(
        self, text: str, filters: SearchFilters = SearchFilters(), limit: int = 50, *, with_shop: bool = False
    ) -> list[SearchHit]:
        """The ``limit`` most relevant products that pass ``filters``, best first, with price and sold count.

        Equal scores are ordered by the order products were added to the catalog, never by where the index happened
        to put them, so every copy of a catalog (same digest) answers identically whatever its segment layout.
        A price or service filter without a shop is answered from the unfiltered search's best candidates where
        that gives this same answer (`arena.catalog.pruned`), by scoring every match otherwise.
        """
        query = self.product_query(text, filters)
        if query is None or limit <= 0:
            return []
        searcher = self._searcher
        hits = self._pruned(text, filters, limit) if _prunable(filters) else None
        if hits is None:
            hits = self._full(query, limit)
        if not hits:
            return []
        addresses = [address for _, address in hits]
        prices = _fast_numbers(searcher, "price", addresses)
        sold = _fast_numbers(searcher, "sold_count", addresses)
        shops = self.shop_ords(addresses) if with_shop else [0] * len(addresses)
        return [
            SearchHit(score, address, price, int(sold_count), int(shop))
            for (score, address), price, sold_count, shop in zip(hits, prices, sold, shops, strict=True)
        ]

    def shop_ords(self, addresses: list[tantivy.DocAddress]) -> list[int]:
        """The shops of the products at ``addresses``, numbered as the manifest's ``shops`` (`shop_id_of_ord`)."""
        numbers = _fast_numbers(self._searcher, "shop_ord", addresses)
        table = self._shop_ords
        return [int(n) for n in numbers] if table is None else [table[int(n)] for n in numbers]

    def _full(self, query: tantivy.Query, limit: int) -> list[tuple[float, tantivy.DocAddress]]:
        """Every product that matches ``query`` scored, the best ``limit`` kept, equal scores by row."""
        searcher = self._searcher
        fetch = 2 * limit
        while True:  # widen until the score at the cut is not shared with a product past it (bounded work)
            hits = searcher.search(query, fetch, count=False).hits
            if len(hits) < fetch or hits[limit - 1][0] != hits[-1][0] or fetch >= TIE_WINDOW:
                break
            fetch = min(fetch * 4, TIE_WINDOW)
        if not hits:
            return []
        rows = searcher.fast_field_values("row", [address for _, address in hits])
        ranked = sorted(zip(hits, rows, strict=True), key=lambda pair: (-pair[0][0], pair[1]))[:limit]
        return [hit for hit, _ in ranked]

    def _pruned(self, text: str, filters: SearchFilters, limit: int) -> list[tuple[float, tantivy.DocAddress]] | None:
        """`_full`'s answer from the unfiltered search's best candidates, or None (`arena.catalog.pruned`)."""
        plain = self.product_query(text)
        if plain is None:
            return []
        searcher = self._searcher
        if self._price_points is None:
            self._price_points = price_points(searcher)
        rates = [searcher.doc_freq("service", s) / max(1, searcher.num_docs) for s in filters.services]
        return pruned_top(
            searcher,
            plain,
            lambda rows: self.product_query(text, filters, rows=rows) or plain,
            limit,
            (filters.price_min, filters.price_max, sum(SERVICE_BITS[s] for s in filters.services)),
            estimate=share(self._price_points, filters.price_min, filters.price_max, rates),
            words=len(analyze(text)),
            window=TIE_WINDOW,
        )

    def documents(self, addresses: Iterable[tantivy.DocAddress]) -> list[dict[str, Any]]:
        """The stored product documents (plain dicts in the ShoppingBench schema) at these index addresses."""
        return [orjson.loads(doc) for doc in self.stored(addresses)]

    def stored(self, addresses: Iterable[tantivy.DocAddress]) -> list[bytes]:
        """The canonical JSON of the products at these index addresses."""
        searcher = self._searcher
        if self._store is None:
            return [searcher.doc(address)["doc"][0] for address in addresses]
        return self._store.get([int(row) for row in _fast_numbers(searcher, "row", list(addresses))])

    def get(self, product_id: str) -> dict[str, Any] | None:
        """The product with this id as a plain dict, or None."""
        hits = self._searcher.search(
            tantivy.Query.term_query(self._schema, "product_id", product_id, index_option="basic"), 1, count=False
        ).hits
        if not hits:
            return None
        return self.documents([hits[0][1]])[0]

    def get_many(self, product_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The known products among ``product_ids``, keyed by id (unknown ids are absent)."""
        found: dict[str, dict[str, Any]] = {}
        for product_id in product_ids:
            if product_id not in found:
                doc = self.get(product_id)
                if doc is not None:
                    found[product_id] = doc
        return found

    def iter_products(self, batch: int = 2000) -> Iterable[dict[str, Any]]:
        """Every product in the order it was added (for problem generation and statistics)."""
        if self._store is not None:
            yield from map(orjson.loads, self._store.iter_rows())
            return
        searcher = self._searcher
        total = int(self.manifest.get("products", searcher.num_docs))
        for start in range(0, total, batch):
            query = tantivy.Query.range_query(
                self._schema, "row", tantivy.FieldType.Integer, start, start + batch, include_upper=False
            )
            hits = searcher.search(query, batch, count=False, order_by_field="row", order=tantivy.Order.Asc).hits
            yield from self.documents(address for _, address in hits)

    def product_at(self, row: int) -> dict[str, Any] | None:
        """The product added ``row``-th (0-based), or None past the end."""
        if self._store is not None:
            return orjson.loads(self._store.get([row])[0]) if 0 <= row < self._store.products else None
        query = tantivy.Query.range_query(self._schema, "row", tantivy.FieldType.Integer, row, row)
        hits = self._searcher.search(query, 1, count=False).hits
        return self.documents([hits[0][1]])[0] if hits else None

    def products_of_shop(self, shop_id: str, limit: int = 100) -> list[dict[str, Any]]:
        """Up to ``limit`` products of one shop, in index order."""
        query = tantivy.Query.term_query(self._schema, "shop_id", shop_id, index_option="basic")
        hits = self._searcher.search(query, limit, count=False, order_by_field="row", order=tantivy.Order.Asc).hits
        return self.documents(address for _, address in hits)

    def web_pages(self) -> Iterable[dict[str, Any]]:
        """Every page of the web corpus."""
        searcher = self._web_searcher
        hits = searcher.search(tantivy.Query.all_query(), max(1, searcher.num_docs), count=False).hits
        return [orjson.loads(searcher.doc(address)["doc"][0]) for _, address in hits]

    # --- web search

    def web_search(self, text: str, limit: int = 10) -> list[dict[str, Any]]:
        """The ``limit`` web pages most relevant to ``text`` (BM25 over title and content), as stored dicts."""
        terms = analyze(text)
        if not terms or limit <= 0:
            return []
        query = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.term_query(self._web_schema, "text", t, index_option="freq"))
                for t in terms
            ]
        )
        searcher = self._web_searcher
        hits = searcher.search(query, limit, count=False).hits
        return [orjson.loads(searcher.doc(address)["doc"][0]) for _, address in hits]
