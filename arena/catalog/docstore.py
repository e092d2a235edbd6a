"""The products' stored documents (catalog format 3): each product's canonical JSON, the bytes the digest reads, kept
beside the search index rather than in it (layout: `arena.catalog.index`).

A store is a folder of block files, one a writer (``0.lz4``, ``1.lz4``, ...: a generated build's workers each write
one, `arena.catalog.workers`), and ``blocks.npy``, the table of every block by the first row it holds. A block is
`BLOCK` products of consecutive rows, their JSON joined by newlines (canonical JSON never holds one unescaped),
compressed with LZ4 on its own; a product is read by decompressing its block (about 9 us) and cutting it out.
tantivy's own document store did the same work (LZ4 blocks of 16 kB) for about a sixth of a generated build's CPU
more, the documents converted and copied on their way into it: docs/performance.md, "The products' documents out of
the index"."""

from __future__ import annotations

import functools
import mmap
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import lz4.block
import numpy as np

from arena.catalog.manifest import CatalogError

#: products a block: 16 (about 22 kB of JSON, 8 kB compressed) compress 2.84 times (tantivy's 16 kB blocks: 2.66);
#: blocks of 8 read a product in about 12 us instead of 19 for a store 13% larger (docs/performance.md)
BLOCK = 16
TABLE = "blocks.npy"
#: blocks a reader keeps decompressed, the last read (about 22 kB each), as tantivy's store kept its last 100: a page
#: of search results read again, or the next page of the same search, is read from memory
CACHED_BLOCKS = 128
#: a block: its first row, where it is in its file, its compressed length, its file's number, its products
BLOCK_DTYPE = np.dtype([("row", "<i8"), ("offset", "<u8"), ("length", "<u4"), ("file", "<u2"), ("count", "<u2")])


def _blocks_path(folder: Path, number: int) -> Path:
    return folder / f"{number}.lz4"


def _table_path(folder: Path, number: int) -> Path:
    return folder / f"{number}.blocks.npy"


class StoreWriter:
    """One writer's block file in ``folder`` (its file ``number``), products given in runs of consecutive rows, in
    any order of the runs (a generated build's worker takes chunks as they come). `close` writes the file's table,
    which `join_store` reads."""

    def __init__(self, folder: Path, number: int) -> None:
        self._folder, self._number = folder, number
        self._fh = open(_blocks_path(folder, number), "xb")  # noqa: SIM115 - held until `close`
        self._offset = 0
        self._blocks: list[tuple[int, int, int, int, int]] = []
        self._pending: list[bytes] = []  # the next block's first products (`add_product`'s one at a time)
        self._pending_row = 0

    def add(self, row: int, docs: Sequence[bytes]) -> None:
        """The products at rows ``row``, ``row + 1``, ... (their canonical JSON)."""
        if self._pending and row != self._pending_row + len(self._pending):
            self._flush()
        if not self._pending:
            self._pending_row = row
        at = 0
        if not self._pending:  # whole blocks straight from `docs` (a generated chunk: 64 of them)
            while len(docs) - at >= BLOCK:
                self._write(row + at, docs[at : at + BLOCK])
                at += BLOCK
            self._pending_row = row + at
        self._pending.extend(docs[at:])
        while len(self._pending) >= BLOCK:
            self._write(self._pending_row, self._pending[:BLOCK])
            del self._pending[:BLOCK]
            self._pending_row += BLOCK

    def _flush(self) -> None:
        if self._pending:
            self._write(self._pending_row, self._pending)
            self._pending = []

    def _write(self, row: int, docs: Sequence[bytes]) -> None:
        data = lz4.block.compress(b"\n".join(docs), store_size=True)
        self._fh.write(data)
        self._blocks.append((row, self._offset, len(data), self._number, len(docs)))
        self._offset += len(data)

    def close(self) -> None:
        """The last block written, the file and its table made durable."""
        self._flush()
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()
        with open(_table_path(self._folder, self._number), "wb") as fh:
            np.save(fh, np.array(self._blocks, dtype=BLOCK_DTYPE), allow_pickle=False)
            fh.flush()
            os.fsync(fh.fileno())

    def abort(self) -> None:
        self._fh.close()


def _holds(table: np.ndarray, products: int) -> bool:
    """Whether ``table`` is a store's table of ``products`` products: blocks of 1 to `BLOCK` products, by their first
    row, that hold rows 0 .. ``products`` - 1 once each (`StoreReader._index` counts on it)."""
    if table.dtype != BLOCK_DTYPE or table.ndim != 1:
        return False
    ends = table["row"] + table["count"]
    return bool(
        (len(table) == 0 or table["row"][0] == 0)
        and np.array_equal(table["row"][1:], ends[:-1])
        and np.all((table["count"] >= 1) & (table["count"] <= BLOCK))
        and (int(ends[-1]) if len(table) else 0) == products
    )


def move_store(source: Path, number: int, folder: Path, to: int) -> None:
    """A part's block file and table (written by `StoreWriter` into ``source`` as number ``number``) moved into the
    store ``folder`` as number ``to``; its blocks' file numbers with it."""
    table = np.load(_table_path(source, number), allow_pickle=False)
    table["file"] = to
    with open(_table_path(folder, to), "wb") as fh:
        np.save(fh, table, allow_pickle=False)
    _blocks_path(source, number).rename(_blocks_path(folder, to))


def join_store(folder: Path, files: int, products: int) -> None:
    """The store's table (``blocks.npy``) from its ``files`` writers' tables; CatalogError where their blocks do not
    hold rows 0 .. ``products`` - 1 once each."""
    tables = [np.load(_table_path(folder, n), allow_pickle=False) for n in range(files)]
    table = np.concatenate(tables) if tables else np.zeros(0, BLOCK_DTYPE)
    if not _holds(table := table[np.argsort(table["row"], kind="stable")], products):
        raise CatalogError(f"the stored products' blocks do not hold rows 0 to {products - 1} once each; build again")
    with open(folder / TABLE, "wb") as fh:
        np.save(fh, table, allow_pickle=False)
        fh.flush()
        os.fsync(fh.fileno())
    for n in range(files):
        _table_path(folder, n).unlink()
    sync_folder(folder)  # its files' names (the parts' moved in), as the files were


def sync_folder(folder: Path) -> None:
    """The names in ``folder`` made durable (what a file's own fsync leaves out)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _damaged(root: Path, what: str) -> CatalogError:
    return CatalogError(f"{root} is damaged: {what}; rebuild the catalog")


def _read_block(
    root: Path, views: dict[int, memoryview], offsets: Any, lengths: Any, numbers: Any, index: int
) -> bytes:
    """Block ``index``'s products' JSON, joined by newlines (the table's columns: `StoreReader`)."""
    offset, length, number = int(offsets[index]), int(lengths[index]), int(numbers[index])
    try:  # read from the mapped file in place, not copied first
        return lz4.block.decompress(views[number][offset : offset + length])
    except (lz4.block.LZ4BlockError, ValueError, MemoryError) as exc:  # a length or size read from damage
        raise _damaged(root, f"a stored products' block is unreadable ({exc})") from None


class StoreReader:
    """A catalog's stored products, by row. Thread-safe: what changes is its cache of the blocks read last, which
    `functools.lru_cache` keeps under its own lock."""

    def __init__(self, folder: Path, products: int) -> None:
        self._root = folder.parent
        try:
            table = np.load(folder / TABLE, allow_pickle=False)
        except (OSError, ValueError, EOFError, MemoryError) as exc:  # an empty file; a size no memory holds
            raise self._damaged(f"its stored products' table is unreadable ({exc})") from None
        if not _holds(table, products):
            raise self._damaged(f"its stored products' table does not hold its {products:,} products")
        self._first, self._offsets, self._lengths, self._numbers = (
            table[name] for name in ("row", "offset", "length", "file")
        )
        self._counts: list[int] = table["count"].tolist()  # read with each product: a list's item, not numpy's
        self._blocks = len(table)
        self._views: dict[int, memoryview] = {}  # each block file mapped, read in place
        for number in np.unique(table["file"]).tolist():
            path = _blocks_path(folder, number)
            try:
                with open(path, "rb") as fh:
                    self._views[number] = memoryview(mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ))
            except (OSError, ValueError) as exc:
                raise self._damaged(f"{path.name} ({exc})") from None
            ends = table["offset"][table["file"] == number] + table["length"][table["file"] == number]
            if int(ends.max()) > len(self._views[number]):
                raise self._damaged(f"{path.name} is shorter than its blocks")
        self.products = products
        # a function of the block alone, not a method: the cache holds no reference back to the reader (a cycle
        # would keep its files mapped until a collection)
        self._cached = functools.lru_cache(maxsize=CACHED_BLOCKS)(
            functools.partial(_read_block, self._root, self._views, self._offsets, self._lengths, self._numbers)
        )

    def _damaged(self, what: str) -> CatalogError:
        return _damaged(self._root, what)

    def _block(self, index: int) -> bytes:
        return _read_block(self._root, self._views, self._offsets, self._lengths, self._numbers, index)

    def _miscounted(self, index: int) -> CatalogError:
        return self._damaged(f"a stored products' block does not hold the {self._counts[index]} its table says")

    def _index(self, row: int) -> tuple[int, int]:
        """The block holding ``row`` and the row's place in it. Every writer fills whole blocks but a run's last
        (a generated chunk's 1,024 products are 64 of them), so the block is nearly always ``row // BLOCK``."""
        index = row // BLOCK
        if index < self._blocks:
            first = int(self._first[index])
            if first <= row < first + BLOCK and (index + 1 == self._blocks or row < int(self._first[index + 1])):
                return index, row - first
        index = int(np.searchsorted(self._first, row, side="right")) - 1
        return index, row - int(self._first[index])

    def get(self, rows: Sequence[int]) -> list[bytes]:
        """The canonical JSON of the products at ``rows`` (each 0 .. products - 1), in that order."""
        out = []
        for row in rows:
            if not 0 <= row < self.products:
                raise IndexError(f"row {row} asked of a catalog of {self.products:,} products")
            index, at = self._index(row)
            data = self._cached(index)
            start = 0
            try:
                for _ in range(at):  # the block's products before it skipped, not each split off
                    start = data.index(b"\n", start) + 1
            except ValueError:
                raise self._miscounted(index) from None
            end = data.find(b"\n", start)
            if (end < 0) != (at + 1 == self._counts[index]):  # its last product ends the block, no other does
                raise self._miscounted(index)
            out.append(data[start:] if end < 0 else data[start:end])
        return out

    def iter_rows(self) -> Iterator[bytes]:
        """Every product's canonical JSON in row order."""
        for index in range(self._blocks):
            docs = self._block(index).split(b"\n")
            if len(docs) != self._counts[index]:
                raise self._miscounted(index)
            yield from docs
