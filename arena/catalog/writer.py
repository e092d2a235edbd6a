"""Writing a catalog folder atomically (see `arena.catalog.index` for the layout), its products index and stored
products by one writer or in parts, one a process (`PartWriter`, `join_parts`: a generated build's workers,
`arena.catalog.workers`)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import orjson
import tantivy

from arena.catalog.docstore import StoreWriter, join_store, move_store, sync_folder
from arena.catalog.leftovers import LOCK, clear_dead, hold, restore_replaced, tagged
from arena.catalog.manifest import FORMAT_VERSION, MANIFEST, STORE, CatalogError
from arena.catalog.models import Product, WebPage
from arena.catalog.schema import SERVICE_BITS, open_index, product_schema, web_schema


class Rows(NamedTuple):
    """Products as the products index takes them (`product_schema`), column by column, the first at `row` (its place
    in the catalog, from 0), the next rows in order: a generated build's chunk, made by its generator workers, or one
    product (`CatalogWriter.add_product`). Column lists pickle and unpickle with fewer objects than a dict a product
    (a generated build's builder read them from its workers before they indexed their own). The shop's number in the
    index is set by the writer (`CatalogWriter.add_rows`, `PartWriter.add_rows`)."""

    row: int
    canonical: bytes
    """The products' canonical JSON (stored, and what the digest reads), joined by newlines (which canonical JSON
    never holds unescaped): one `Digest.update` takes them all."""
    product_ids: list[str]
    contents: list[str]
    shops: list[str]
    services: list[list[str]]
    service_masks: list[int]
    prices: list[float]
    sold: list[int]


def service_mask(services: Iterable[str]) -> int:
    """The products index's ``services`` fast field: a bit per service (`SERVICE_BITS`)."""
    mask = 0
    for service in services:
        mask |= SERVICE_BITS[service]
    return mask


def checked_documents(rows: Rows) -> list[bytes]:
    """The stored documents of ``rows``, one a product: ValueError where a column holds another number of values."""
    docs = rows.canonical.split(b"\n") if rows.canonical else []  # none: an empty chunk adds nothing
    columns = (rows.product_ids, rows.contents, rows.shops, rows.services, rows.service_masks, rows.prices, rows.sold)
    if any(len(column) != len(docs) for column in columns):
        raise ValueError(f"columns of {[len(c) for c in columns]} products given for {len(docs)} stored documents")
    return docs


def add_documents(
    add: Callable[[tantivy.Document], object], schema: tantivy.Schema, rows: Rows, shop_numbers: Sequence[int]
) -> None:
    """Index ``rows`` (their stored documents checked by `checked_documents` and kept apart, in the catalog's
    store), the products' shops numbered ``shop_numbers``, through a writer's ``add``."""
    from_dict, row = tantivy.Document.from_dict, rows.row
    products = zip(
        rows.product_ids,
        rows.contents,
        rows.shops,
        rows.services,
        rows.service_masks,
        rows.prices,
        rows.sold,
        shop_numbers,
        strict=True,
    )
    for product_id, contents, shop_id, services, mask, price, sold_count, shop_ord in products:
        # converted by the schema's field types: a third less time than keyword arguments typed one by one
        document = {
            "product_id": product_id,
            "contents": contents,
            "shop_id": shop_id,
            "service": services,
            "price": price,
            "sold_count": sold_count,
            "services": mask,
            "row": row,
            "shop_ord": shop_ord,
        }
        add(from_dict(document, schema))
        row += 1


#: a part's indexing heap a thread: up to 2.5M products in two parts (or in one part with two threads), each holds
#: its products in memory until the commit, so tantivy flushes no segment early and merges nothing (the memory is
#: taken as the products come)
PART_HEAP_BYTES = 500_000_000


class PartWriter:
    """A part of a products index and of the stored products, written by one process (a generated build's worker):
    products in any order of their rows, each product's shop given a number by the part's maker
    (`CatalogWriter.commit`'s ``part_shops``). The parts are joined into one index by `join_parts` and into one store
    by `join_part_stores` once each is committed."""

    def __init__(self, folder: Path, *, threads: int = 1) -> None:
        folder.mkdir()
        _part_store(folder).mkdir()
        self._schema = product_schema()
        heap = PART_HEAP_BYTES * threads  # tantivy shares it among the indexing threads
        self._writer = open_index(folder, self._schema).writer(heap_size=heap, num_threads=threads)
        self._store = StoreWriter(_part_store(folder), 0)

    def add_rows(self, rows: Rows, shop_numbers: Sequence[int]) -> None:
        docs = checked_documents(rows)
        add_documents(self._writer.add_document, self._schema, rows, shop_numbers)
        self._store.add(rows.row, docs)

    def commit(self) -> None:
        self._store.close()
        self._writer.commit()
        self._writer.wait_merging_threads()

    def rollback(self) -> None:
        """The part's products dropped and its indexing threads ended: they wrote segment files on into the folder
        of a build stopped meanwhile, after its clean-up had removed it (nothing once committed)."""
        self._store.abort()
        try:
            self._writer.rollback()
        except Exception:  # noqa: BLE001 - committed already: nothing runs
            pass


def _part_store(part: Path) -> Path:
    """Where a part's stored products are written: beside its index (tantivy's folder holds its own files only)."""
    return part.with_name(part.name + ".store")


def join_part_stores(parts: Sequence[Path], folder: Path, products: int) -> None:
    """One store in the empty ``folder`` from the committed parts' (`PartWriter`), holding rows 0 .. ``products``
    - 1 once each (CatalogError otherwise)."""
    for number, part in enumerate(parts):
        move_store(_part_store(part), 0, folder, number)
    join_store(folder, len(parts), products)


def join_parts(parts: Sequence[Path], folder: Path) -> int:
    """One products index in the empty ``folder`` from the committed indexes in ``parts``; returns its products.

    A tantivy index is a list of segments (its ``meta.json``), each self-contained (its terms, postings, fast fields
    and stored documents in files named by the segment's id); a search reads its statistics (documents, lengths,
    document frequencies) over all of them. So the parts' segments are moved into one folder and listed in one
    ``meta.json``: the index one writer with as many indexing threads would have made, its scores the same (a
    search orders equal scores by row, never by segment: `arena.catalog.index.Catalog.search`)."""
    metas = [json.loads((part / "meta.json").read_text()) for part in parts]
    first = metas[0]
    if any(meta["schema"] != first["schema"] or meta["index_settings"] != first["index_settings"] for meta in metas):
        raise CatalogError("the parts of the products index were written with different schemas; build again")
    files = []
    for part, meta in zip(parts, metas, strict=True):
        for segment in meta["segments"]:
            for path in part.glob(segment["segment_id"].replace("-", "") + ".*"):
                path.rename(folder / path.name)
                files.append(path.name)
    segments = [segment for meta in metas for segment in meta["segments"]]
    joined = {**first, "segments": segments, "opstamp": max(meta["opstamp"] for meta in metas)}
    for name, data in (("meta.json", joined), (".managed.json", [*files, "meta.json"])):
        with open(folder / name, "w") as fh:
            json.dump(data, fh)
            fh.flush()
            os.fsync(fh.fileno())
    sync_folder(folder)  # the segments' names moved in (tantivy synced their bytes)
    return sum(int(segment["max_doc"]) for segment in segments)


class CatalogWriter:
    """Writes a catalog folder atomically: everything goes to a temporary sibling, renamed into place at the end.

    Use as a context manager; on an exception the temporary folder is removed and ``out`` is left untouched.
    """

    def __init__(
        self, out: str | os.PathLike[str], *, overwrite: bool = False, heap_bytes: int = 1_000_000_000, parts: int = 0
    ):
        """``parts`` > 0: the products index is written in that many parts by other processes, each into its folder
        of `part_dirs` (`PartWriter`), and joined at `commit`; the writer starts no thread (a build forks its
        workers after making it: tantivy watches an index it opens with a thread of its own), it opens the web
        pages' index at the first page (or at `commit`)."""
        self.out = Path(out)
        restore_replaced(self.out)  # a killed build's swap undone first: the checks below see the catalog there
        if self.out.exists() and not overwrite:
            raise CatalogError(f"{self.out} already exists; choose another --out or pass --force to replace it")
        if self.out.exists() and not (self.out / MANIFEST).is_file():
            raise CatalogError(f"{self.out} exists and is not a catalog; refusing to replace it, choose another --out")
        self.out.parent.mkdir(parents=True, exist_ok=True)
        clear_dead(self.out.parent, f".{self.out.name}.")  # a killed build's temporary sibling
        self._tmp = Path(tempfile.mkdtemp(prefix=tagged(f".{self.out.name}."), suffix=".tmp", dir=self.out.parent))
        try:
            self._lock = hold(self._tmp)  # a live build's: `clear_dead` leaves it
            self._old: Path | None = None  # the catalog this one replaces, on its way out (`commit`)
            self._schema, self._web_schema = product_schema(), web_schema()
            for part in ("products", STORE, "web"):
                (self._tmp / part).mkdir()
            self.part_dirs = [self._tmp / "parts" / str(part) for part in range(parts)]
            self._writer: tantivy.IndexWriter | None = None
            self._store: StoreWriter | None = None
            if parts:
                (self._tmp / "parts").mkdir()
            else:
                # Two indexing threads share the heap; up to 2.5M products each holds its half in memory until the
                # commit, so tantivy flushes no segment early and merges nothing (docs/performance.md: a larger heap
                # or one thread measured no cheaper).
                threads = max(1, min(2, os.cpu_count() or 1))
                products = open_index(self._tmp / "products", self._schema)
                self._writer = products.writer(heap_size=heap_bytes, num_threads=threads)
                self._store = StoreWriter(self._tmp / STORE, 0)
            self._web_writer: tantivy.IndexWriter | None = None
        except BaseException:  # a failure or a stop (Ctrl-C, SIGTERM) before the caller holds the writer
            shutil.rmtree(self._tmp, ignore_errors=True)
            raise
        self._shop_ords: dict[str, int] = {}
        self._ids: set[str] = set()
        self.products = 0
        self.web_pages = 0
        self._started = time.monotonic()
        self._done = False

    def __enter__(self) -> CatalogWriter:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if not self._done:
            self.abort()

    def has_product(self, product_id: str) -> bool:
        return product_id in self._ids

    def add_product(self, product: dict[str, Any], contents: str | None = None, doc_json: bytes | None = None) -> None:
        """Index one product given as a plain dict in the ShoppingBench schema (already validated)."""
        if contents is None:
            contents = Product.model_construct(**product).contents()
        services = list(product["service"])
        self.add_rows(
            Rows(
                self.products,
                doc_json if doc_json is not None else orjson.dumps(product),
                [product["product_id"]],
                [contents],
                [product["shop_id"]],
                [services],
                [service_mask(services)],
                [float(product["price"])],
                [int(product["sold_count"])],
            )
        )
        self._ids.add(product["product_id"])  # once indexed: a product refused is not remembered

    def add_rows(self, rows: Rows) -> None:
        """Index products given column by column, the next rows in order: a generated build's chunk (its generator
        workers make it; ids are distinct by construction, so they are not remembered for `has_product`: 2.5M ids
        held 205 MiB) or one product (`add_product`). The shop's ordinal (first seen, first numbered) is set here."""
        if self._writer is None or self._store is None:
            raise ValueError("this catalog's products are written in parts (PartWriter), not added here")
        if rows.row != self.products:
            raise ValueError(f"products from row {rows.row} given where row {self.products} is next")
        docs = checked_documents(rows)
        add_documents(self._writer.add_document, self._schema, rows, self.count_rows(rows.shops))
        self._store.add(rows.row, docs)

    def count_rows(self, shops: Sequence[str]) -> list[int]:
        """The next rows' shops numbered, first seen first, and counted: what `add_rows` does besides indexing
        them, for products indexed in parts (the manifest's ``shops`` and ``shop_ords``)."""
        ords = self._shop_ords
        numbers = []
        for shop_id in shops:
            shop_ord = ords.get(shop_id)
            if shop_ord is None:
                shop_ord = ords[shop_id] = len(ords)
            numbers.append(shop_ord)
        self.products += len(numbers)
        return numbers

    def add_web_page(self, page: WebPage | dict[str, Any], doc_json: bytes | None = None) -> None:
        """Index one web page; `doc_json` is its canonical JSON when the caller has it already."""
        data = page.model_dump() if isinstance(page, WebPage) else page
        stored = doc_json if doc_json is not None else orjson.dumps(data)
        self._pages().add_document(
            tantivy.Document(url=data["url"], text=f"{data['title']}\n{data['content']}", doc=stored)
        )
        self.web_pages += 1

    def commit(
        self, manifest: dict[str, Any], *, overwrite: bool = False, part_shops: Sequence[str] | None = None
    ) -> Path:
        """Finish the indexes, write the manifest and move the catalog into place. Returns the catalog path.
        Products written in parts: ``part_shops`` are the shops as the parts numbered them (each part the same)."""
        shop_numbers = {}
        if self._writer is not None and self._store is not None:
            self._store.close()
            join_store(self._tmp / STORE, 1, self.products)
            self._writer.commit()
            self._writer.wait_merging_threads()
        else:
            shop_numbers = {"shop_ords": self._shop_table(part_shops)}
        pages = self._pages()  # made (empty) where none was added: a catalog has its web index
        pages.commit()
        pages.wait_merging_threads()
        shops = [""] * len(self._shop_ords)
        for shop_id, ordinal in self._shop_ords.items():
            shops[ordinal] = shop_id
        full = {
            "format": FORMAT_VERSION,
            **manifest,
            "products": self.products,
            "web_pages": self.web_pages,
            "build_seconds": round(time.monotonic() - self._started, 2),
            "shops": shops,
            **shop_numbers,
        }
        manifest_tmp = self._tmp / (MANIFEST + ".part")
        with open(manifest_tmp, "w") as fh:
            json.dump(full, fh, ensure_ascii=False, indent=1)
            fh.flush()
            os.fsync(fh.fileno())
        manifest_tmp.rename(self._tmp / MANIFEST)
        (self._tmp / LOCK).unlink()  # not part of the catalog (the folder's fresh time protects it meanwhile)
        sync_folder(self._tmp)  # its names on disk before the catalog is in place: a power cut leaves it whole
        if self.out.exists():
            if not overwrite:
                raise CatalogError(f"{self.out} appeared during the build; not replacing it")
            self._old = self.out.with_name(tagged(f".{self.out.name}.") + "old")  # a killed build's: `clear_dead`
            self.out.rename(self._old)
        self._tmp.rename(self.out)
        self._done = True  # in place: nothing below (or a stop now) undoes it
        self._lock.close()
        sync_folder(self.out.parent)  # the rename, before the catalog it replaced goes
        if self._old is not None:
            shutil.rmtree(self._old, ignore_errors=True)
        return self.out

    def _pages(self) -> tantivy.IndexWriter:
        if self._web_writer is None:
            web = open_index(self._tmp / "web", self._web_schema)
            self._web_writer = web.writer(heap_size=50_000_000, num_threads=1)
        return self._web_writer

    def _shop_table(self, part_shops: Sequence[str] | None) -> list[int]:
        """The parts joined into the products index; each of the parts' shop numbers' shop as `count_rows` numbered
        it (-1: a shop with no product), the manifest's ``shop_ords``."""
        if part_shops is None:
            raise ValueError("products written in parts: give the shops as the parts numbered them (part_shops)")
        joined = join_parts(self.part_dirs, self._tmp / "products")
        if joined != self.products:
            raise CatalogError(
                f"the index's parts hold {joined:,} products where {self.products:,} were made; build again"
            )
        join_part_stores(self.part_dirs, self._tmp / STORE, self.products)
        shutil.rmtree(self._tmp / "parts")
        return [self._shop_ords.get(shop_id, -1) for shop_id in part_shops]

    def abort(self) -> None:
        self._done = True
        if self._store is not None:
            self._store.abort()
        for writer in (self._writer, self._web_writer):  # their threads ended before the folder goes
            try:
                if writer is not None:
                    writer.rollback()
            except Exception:  # noqa: BLE001 - the folder goes anyway
                pass
        if self._old is not None and self._old.exists() and not self.out.exists():
            self._old.rename(self.out)  # stopped between `commit`'s two renames: the catalog that was there stays
        shutil.rmtree(self._tmp, ignore_errors=True)
        self._lock.close()
