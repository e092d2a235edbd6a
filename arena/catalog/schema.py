"""The catalog's search indexes' schemas and analyzer (the layout: `arena.catalog.index`)."""

from __future__ import annotations

from pathlib import Path

import tantivy

from arena.catalog.models import SERVICES

ANALYZER = "sb_en"

#: Lucene's English analyzer is what ShoppingBench's pyserini index uses; this is tantivy's nearest equivalent:
#: split on non-alphanumerics, lowercase, drop English stop words, Porter-style stemming.
_analyzer = (
    tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
    .filter(tantivy.Filter.remove_long(40))
    .filter(tantivy.Filter.lowercase())
    .filter(tantivy.Filter.stopword("english"))
    .filter(tantivy.Filter.stemmer("english"))
    .build()
)

#: Bit of each service in the ``services`` fast field.
SERVICE_BITS = {name: 1 << i for i, name in enumerate(SERVICES)}


def analyze(text: str) -> list[str]:
    """The search terms of ``text`` under the catalog's analyzer, in order, without duplicates."""
    seen: dict[str, None] = {}
    for token in _analyzer.analyze(text):
        seen.setdefault(token, None)
    return list(seen)


def product_schema(*, stored: bool = False) -> tantivy.Schema:
    """The schema of a catalog's products index (what the writer builds and `Catalog.open` reads); ``stored``: a
    catalog of format 1 or 2, whose index holds each product's JSON (format 3 keeps it in `STORE`)."""
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("product_id", stored=False, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("contents", stored=False, tokenizer_name=ANALYZER, index_option="freq")
    sb.add_text_field("shop_id", stored=False, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("service", stored=False, tokenizer_name="raw", index_option="basic")
    sb.add_float_field("price", stored=False, indexed=True, fast=True)
    sb.add_integer_field("sold_count", stored=False, indexed=False, fast=True)
    # integer (i64) fields: tantivy-py cannot take Python ints for unsigned fields ("Expected a U64")
    sb.add_integer_field("shop_ord", stored=False, indexed=False, fast=True)
    sb.add_integer_field("services", stored=False, indexed=False, fast=True)
    sb.add_integer_field("row", stored=False, indexed=True, fast=True)
    if stored:
        sb.add_bytes_field("doc", stored=True, indexed=False)  # the product as JSON: stored, never indexed
    return sb.build()


def web_schema() -> tantivy.Schema:
    """The schema of a catalog's web pages index: the page's text searched, the page stored."""
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("url", stored=False, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("text", stored=False, tokenizer_name=ANALYZER, index_option="freq")
    sb.add_bytes_field("doc", stored=True, indexed=False)
    return sb.build()


def open_index(path: Path, schema: tantivy.Schema) -> tantivy.Index:
    """The index at ``path`` (made there, empty, where there is none), the catalog's analyzer registered."""
    index = tantivy.Index(schema, path=str(path), reuse=True)
    index.register_tokenizer(ANALYZER, _analyzer)
    return index
