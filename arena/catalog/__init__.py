"""The product catalog: ShoppingBench document model, seeded generator, JSONL loader and tantivy search index."""

from arena.catalog.index import Catalog, CatalogError, SearchFilters, SearchHit
from arena.catalog.models import SERVICES, Product, WebPage

__all__ = ["SERVICES", "Catalog", "CatalogError", "Product", "SearchFilters", "SearchHit", "WebPage"]
