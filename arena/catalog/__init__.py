"""The product catalog: ShoppingBench document model, seeded generator, JSONL loader and tantivy search index."""

from arena.catalog import native

native.install()  # the generator compiled with mypyc, where built for exactly these sources (before it is imported)

from arena.catalog.index import Catalog, SearchFilters, SearchHit  # noqa: E402
from arena.catalog.manifest import CatalogError  # noqa: E402
from arena.catalog.models import SERVICES, Product, WebPage  # noqa: E402

__all__ = ["SERVICES", "Catalog", "CatalogError", "Product", "SearchFilters", "SearchHit", "WebPage"]
