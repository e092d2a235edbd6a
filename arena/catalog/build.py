"""Building catalog folders: from the seeded generator, or by streaming a real ShoppingBench ``documents.jsonl``."""

from __future__ import annotations

import gzip
import io
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from arena.catalog import generator as gen
from arena.catalog.leftovers import clear_dead, hold, tagged
from arena.catalog.manifest import CatalogError
from arena.catalog.models import Product, WebPage
from arena.catalog.stats import StatsCollector
from arena.catalog.workers import handoff_dir, made_products, parts_for
from arena.catalog.writer import CatalogWriter
from arena.gcpause import paused_gc
from arena.log import get_logger

log = get_logger("arena.catalog")

Progress = Callable[[int], None]
"""Called with how much work was just done (products for a build, bytes for a load)."""


# ------------------------------------------------------------------------------------------------ generated build

#: the most generator workers a build starts by default (one per core up to it): each writes a part of the products
#: index, a segment of its own, and a search reads every segment (at 250k, 16 segments against 2: find_product's CPU
#: p50 1.68 / 1.53 ms against 1.39 / 1.31, load 11)
DEFAULT_WORKERS_MOST = 8


@contextmanager
def _handoff(parts: int) -> Iterator[str]:
    """The folder a build's workers leave their chunks in (`arena.catalog.workers`), held while the build lives: a
    killed build's is cleared by the next one (`clear_dead`). None is needed for a build in one part."""
    if parts <= 1:
        yield ""
        return
    handoff_in = handoff_dir(parts) or tempfile.gettempdir()
    clear_dead(handoff_in, "arena-catalog-")  # a killed build's chunks
    with tempfile.TemporaryDirectory(prefix=tagged("arena-catalog-"), dir=handoff_in) as handoff, hold(handoff):
        yield handoff


@dataclass
class BuildReport:
    path: Path
    digest: str
    products: int
    web_pages: int
    seconds: float
    bad_lines: int = 0
    bad_samples: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)


# Python's cyclic garbage collector paused for a generated build (the builder and the generator workers it forks).
# Nothing the build makes is in a cycle, but each collection walks every live object: a worker's cache of product
# models (hundreds of thousands) and the statistics' model table made collecting about as much CPU as generating
# (2.5M, chunks 600-700 of a worker: 81 -> 44 us a product; statistics 6 -> 3 us).
@paused_gc()
def build_catalog(
    seed: object,
    size: object,
    out: str | os.PathLike[str],
    *,
    force: bool = False,
    workers: int | None = None,
    progress: Progress | None = None,
) -> BuildReport:
    """Generate catalog ``(seed, size)`` into ``out`` atomically; returns its digest and statistics."""
    seed, size = gen.validate_seed_size(seed, size)
    if workers is None:
        workers = max(1, min(os.cpu_count() or 1, DEFAULT_WORKERS_MOST))
    digest = gen.Digest()
    stats = StatsCollector()
    parts = parts_for(size, workers)
    with (
        _handoff(parts) as handoff,
        CatalogWriter(out, overwrite=force, parts=parts) as writer,
        made_products(seed, size, writer.part_dirs, handoff) as made,
    ):
        pages = made.pages
        for page, page_json in pages:
            writer.add_web_page(page, page_json)
        for chunk in made.chunks:
            writer.count_rows(chunk.shops)
            digest.update(chunk.canonical)  # the chunk's lines joined by the newline the digest puts after each
            stats.add_columns(
                chunk.categories, chunk.shops, chunk.services, chunk.prices, chunk.sold, chunk.n_skus, chunk.model_keys
            )
            if progress:
                progress(len(chunk.categories))
        digest.update(b"--web--")
        for _, page_json in pages:
            digest.update(page_json)
        result = stats.result()  # while the workers commit their parts
        part_shops = made.finish()
        path = writer.commit(
            {
                "source": {"kind": "generated", "seed": seed, "size": size},
                "digest": digest.hexdigest(),
                "stats": result,
            },
            overwrite=force,
            part_shops=part_shops,
        )
        log.info("catalog.built", path=str(path), seed=seed, size=size, digest=digest.hexdigest(), workers=workers)
        return BuildReport(
            path, digest.hexdigest(), writer.products, writer.web_pages, _manifest_seconds(path), stats=result
        )


def _manifest_seconds(path: Path) -> float:
    return float(json.loads((path / "catalog.json").read_text())["build_seconds"])


# ---------------------------------------------------------------------------------------------------------- loader


class _CountingReader(io.RawIOBase):
    """Counts the bytes read from the underlying (possibly compressed) file, for a progress bar in file bytes."""

    def __init__(self, raw: io.BufferedReader, progress: Progress | None) -> None:
        self._raw = raw
        self._progress = progress

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self._raw.readinto(buffer)
        if n and self._progress:
            self._progress(n)
        return n or 0


def _open_lines(path: Path, progress: Progress | None) -> Iterator[str]:
    raw = open(path, "rb")  # noqa: SIM115 - closed below
    try:
        counted = io.BufferedReader(_CountingReader(raw, progress), buffer_size=1 << 20)
        stream: Any = gzip.GzipFile(fileobj=counted) if path.name.endswith(".gz") else counted
        text = io.TextIOWrapper(stream, encoding="utf-8", errors="strict", newline="\n")
        yield from text
    finally:
        raw.close()


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "product"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}: {err['msg']}{more}"


def parse_document_line(line: str) -> tuple[dict[str, Any], str]:
    """One ``documents.jsonl`` line -> (product dict, BM25 contents). Raises ValueError with a one-line reason."""
    try:
        record = orjson.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    if not isinstance(record.get("product"), dict):
        raise ValueError('no "product" object')
    try:
        product = Product.model_validate(record["product"])
    except ValidationError as exc:
        raise ValueError(_first_error(exc)) from None
    record_id = record.get("id")
    if record_id is not None and str(record_id) != product.product_id:
        raise ValueError(f'"id" {record_id!r} differs from product_id {product.product_id!r}')
    contents = record.get("contents")
    if contents is not None and not isinstance(contents, str):
        raise ValueError('"contents" is not a string')
    data = product.model_dump()
    return data, contents if contents else product.contents()


def load_catalog(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    strict: bool = False,
    force: bool = False,
    web: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
    max_samples: int = 20,
) -> BuildReport:
    """Stream a ShoppingBench ``documents.jsonl[.gz]`` into a catalog at ``out``.

    Bad lines (invalid JSON, missing or ill-typed fields, duplicate ids) are counted and reported by line number
    and reason; with ``strict`` the first one stops the load and nothing is written.
    """
    path = Path(source)
    if not path.is_file():
        raise CatalogError(f"{path} does not exist; pass a documents.jsonl or documents.jsonl.gz file")
    digest = gen.Digest()
    stats = StatsCollector()
    bad = 0
    samples: list[str] = []
    with CatalogWriter(out, overwrite=force) as writer:
        lineno = 0
        try:
            for lineno, line in enumerate(_open_lines(path, progress), start=1):  # noqa: B007
                if not line.strip():
                    continue
                try:
                    product, contents = parse_document_line(line)
                    if writer.has_product(product["product_id"]):
                        raise ValueError(f"duplicate product_id {product['product_id']!r}")
                except ValueError as exc:
                    bad += 1
                    message = f"line {lineno}: {exc}"
                    if strict:
                        raise CatalogError(f"{path}: {message} (--strict stops at the first bad line)") from None
                    if len(samples) < max_samples:
                        samples.append(message)
                    continue
                doc_json = gen.canonical_json(product)
                writer.add_product(product, contents=contents, doc_json=doc_json)
                digest.update(doc_json)
                stats.add(product)
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise CatalogError(f"{path}: unreadable after line {lineno} ({exc}); nothing was written") from None
        if writer.products == 0:
            raise CatalogError(f"{path}: no valid product lines ({bad} bad); nothing was written")
        digest.update(b"--web--")
        if web is not None:
            for page in _read_web_pages(Path(web)):
                writer.add_web_page(page)
                digest.update(gen.canonical_json(page))
        result = stats.result()
        out_path = writer.commit(
            {
                "source": {"kind": "loaded", "file": str(path.resolve()), "bad_lines": bad, "bad_samples": samples},
                "digest": digest.hexdigest(),
                "stats": result,
            },
            overwrite=force,
        )
        log.info(
            "catalog.loaded",
            path=str(out_path),
            source=str(path),
            products=writer.products,
            bad_lines=bad,
            digest=digest.hexdigest(),
        )
        return BuildReport(
            out_path,
            digest.hexdigest(),
            writer.products,
            writer.web_pages,
            _manifest_seconds(out_path),
            bad,
            samples,
            result,
        )


def _read_web_pages(path: Path) -> Iterator[dict[str, Any]]:
    if not path.is_file():
        raise CatalogError(f"{path} does not exist; --web takes a JSONL file of {{url, title, content}} pages")
    for lineno, line in enumerate(_open_lines(path, None), start=1):
        if not line.strip():
            continue
        try:
            page = WebPage.model_validate_json(line)
        except ValidationError as exc:
            raise CatalogError(f"{path}: line {lineno}: {_first_error(exc)}; nothing was written") from None
        yield page.model_dump()
