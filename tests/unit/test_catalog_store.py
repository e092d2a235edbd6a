"""The catalog's stored products (`arena.catalog.docstore`, catalog format 3): what a writer is given, in runs of
rows in any order and over several files, is read back by row exactly; a store that does not hold every row once,
or is damaged on disk, is refused with one line that says to rebuild."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import orjson
import pytest

from arena.catalog import Catalog, CatalogError
from arena.catalog.build import build_catalog
from arena.catalog.docstore import BLOCK, TABLE, StoreReader, StoreWriter, join_store
from arena.catalog.manifest import MANIFEST, STORE


def _doc(row: int) -> bytes:
    return orjson.dumps({"row": row, "text": f"product {row} " * (row % 7), "nested": {"line": "a\nb"}})


def _write(folder: Path, runs: list[tuple[int, int]], files: int) -> None:
    """``runs`` of (first row, count), dealt over ``files`` writers in the order given."""
    writers = [StoreWriter(folder, n) for n in range(files)]
    for i, (row, count) in enumerate(runs):
        writers[i % files].add(row, [_doc(r) for r in range(row, row + count)])
    for writer in writers:
        writer.close()


def _runs(sizes: list[int]) -> list[tuple[int, int]]:
    runs, row = [], 0
    for size in sizes:
        runs.append((row, size))
        row += size
    return runs


def test_runs_in_any_order_over_several_files_read_back_by_row(tmp_path: Path) -> None:
    sizes = [1, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 5, 1, 1, 1, 64 * BLOCK, 2]
    runs = _runs(sizes)
    random.Random(7).shuffle(runs)
    _write(tmp_path, runs, 3)
    total = sum(sizes)
    join_store(tmp_path, 3, total)
    store = StoreReader(tmp_path, total)
    assert list(store.iter_rows()) == [_doc(r) for r in range(total)]
    rows = random.Random(8).choices(range(total), k=500) + [0, total - 1]
    assert store.get(rows) == [_doc(r) for r in rows]
    with pytest.raises(IndexError):
        store.get([total])


def test_one_product_at_a_time_fills_whole_blocks(tmp_path: Path) -> None:
    """A loaded catalog's writer is given one product at a time: they are kept until a block is full."""
    writer = StoreWriter(tmp_path, 0)
    for row in range(5 * BLOCK + 3):
        writer.add(row, [_doc(row)])
    writer.close()
    join_store(tmp_path, 1, 5 * BLOCK + 3)
    assert len(StoreReader(tmp_path, 5 * BLOCK + 3)._first) == 6  # five full blocks and the rest
    assert StoreReader(tmp_path, 5 * BLOCK + 3).get([5 * BLOCK + 2, 3]) == [_doc(5 * BLOCK + 2), _doc(3)]


@pytest.mark.parametrize(
    "runs, total",
    [([(0, 20), (10, 20)], 30), ([(0, 20), (21, 9)], 30), ([(0, 20)], 21), ([(1, 20)], 21)],
    ids=["a row twice", "a row missing", "fewer rows than products", "no row 0"],
)
def test_a_store_that_does_not_hold_every_row_once_is_refused(
    tmp_path: Path, runs: list[tuple[int, int]], total: int
) -> None:
    _write(tmp_path, runs, 2)
    with pytest.raises(CatalogError, match="do not hold rows 0 to") as refused:
        join_store(tmp_path, 2, total)
    assert "\n" not in str(refused.value) and not (tmp_path / TABLE).exists()


def _damage_table(store: Path, damage: str) -> None:
    """The store's table as a disk or a hand could leave it: still a table of blocks, but not this store's."""
    table = np.load(store / TABLE)
    if damage == "table emptied":
        (store / TABLE).write_bytes(b"")
        return
    if damage == "table of an impossible size":  # its header says 10^15 blocks: no memory holds them
        with open(store / TABLE, "wb") as fh:
            header = {"descr": np.lib.format.dtype_to_descr(table.dtype), "fortran_order": False, "shape": (10**15,)}
            np.lib.format.write_array_header_1_0(fh, header)
        return
    if damage == "table of two dimensions":
        table = table.reshape(1, -1)
    elif damage == "two blocks' rows swapped":
        table["row"][[0, 1]] = table["row"][[1, 0]]
    elif damage == "a block's count changed":
        table["count"][0], table["row"][1:] = BLOCK + 4, table["row"][1:] + 4
        table["count"][-1] -= 4
    elif damage == "a block read from another's place":  # the last block's 8 products where 16 are said
        table[["offset", "length"]][0] = table[["offset", "length"]][-1]
    elif damage == "a block past its file's end":
        table["offset"][-1] += 1 << 20
    np.save(store / TABLE, table)


TABLE_DAMAGE = [
    "table emptied",
    "table of an impossible size",
    "table of two dimensions",
    "two blocks' rows swapped",
    "a block's count changed",
    "a block read from another's place",
    "a block past its file's end",
]


@pytest.mark.parametrize(
    "damage", ["store gone", "table gone", "block file gone", "block file cut short", "table of another", *TABLE_DAMAGE]
)
def test_a_damaged_store_is_refused_with_one_line(tmp_path: Path, damage: str) -> None:
    """Never a traceback or another product than the row's: 600 products are one part, 37 blocks of 16 and 8."""
    build_catalog(3, 600, tmp_path / "c", workers=2)
    store = tmp_path / "c" / STORE
    if damage == "store gone":  # a format-3 manifest over a folder without its store
        shutil.rmtree(store)
    elif damage == "table gone":
        (store / TABLE).unlink()
    elif damage == "block file gone":
        (store / "0.lz4").unlink()
    elif damage == "block file cut short":
        data = (store / "0.lz4").read_bytes()
        (store / "0.lz4").write_bytes(data[: len(data) // 2])
    elif damage in TABLE_DAMAGE:
        _damage_table(store, damage)
    else:
        build_catalog(3, 500, tmp_path / "other", workers=2)
        (store / TABLE).write_bytes((tmp_path / "other" / STORE / TABLE).read_bytes())
    for read in (lambda c: list(c.iter_products()), lambda c: [c.product_at(row) for row in range(600)]):
        with pytest.raises(CatalogError) as refused:
            read(Catalog.open(tmp_path / "c"))  # refused as it is opened, or as it is read
        assert "rebuild the catalog" in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.skipif(
    shutil.which("strace") is None and not os.environ.get("CI"),  # CI installs it: scripts/system-packages --tests
    reason="the system calls are seen with strace (scripts/system-packages --tests installs it)",
)
def test_what_a_catalog_holds_is_on_disk_before_it_is_in_place(tmp_path: Path) -> None:
    """A power cut leaves the catalog whole or the one before: the names of what a build in parts moved into the
    products index and the store, and of what the catalog folder holds, are fsynced before the folder is renamed
    into place, and that rename before the catalog it replaces is removed (the build seen by strace)."""
    trace, out = tmp_path / "trace", tmp_path / "c"
    build = f"from arena.catalog.build import build_catalog; build_catalog(3, 3 * 1024, {str(out)!r}, workers=2)"
    command = ["strace", "-f", "-qq", "-y", "-e", "trace=fsync,rename,renameat,renameat2", "-o", str(trace)]
    subprocess.run([*command, sys.executable, "-c", build], check=True, capture_output=True)
    calls = []  # (call, the paths it names), in order
    for line in trace.read_text().splitlines():
        if found := re.match(r"\d+ +(fsync|rename\w*)\((.*)", line):
            named = re.findall(r'"([^"]+)"|<(/[^>]+)>', found[2])
            calls.append(
                (re.sub("at2?$", "", found[1]), [a or b for a, b in named if (a or b).startswith(str(tmp_path))])
            )
    in_place = next(i for i, (call, paths) in enumerate(calls) if call == "rename" and paths[1:] == [str(out)])
    folder = Path(calls[in_place][1][0])
    for sub in ("products", STORE):  # the parts' segments and block files moved in
        moved = [
            i for i, (call, paths) in enumerate(calls) if call == "rename" and Path(paths[-1]).parent == folder / sub
        ]
        assert moved and ("fsync", [str(folder / sub)]) in calls[max(moved) : in_place], sub
    named = calls.index(("rename", [str(folder / f"{MANIFEST}.part"), str(folder / MANIFEST)]))
    assert ("fsync", [str(folder)]) in calls[named:in_place]
    assert ("fsync", [str(tmp_path)]) in calls[in_place:]


@pytest.mark.parametrize("swapped", [STORE, "products"])
def test_a_store_or_index_of_another_catalog_of_as_many_products_is_refused(tmp_path: Path, swapped: str) -> None:
    """The index finds a product's row, the store holds the row's JSON: another catalog's store (or index) of the
    same size beside it would answer every search with other products. Its first and last products are looked up
    in the index as the catalog opens."""
    build_catalog(3, 600, tmp_path / "c", workers=2)
    build_catalog(4, 600, tmp_path / "other", workers=2)
    shutil.rmtree(tmp_path / "c" / swapped)
    shutil.copytree(tmp_path / "other" / swapped, tmp_path / "c" / swapped)
    with pytest.raises(CatalogError, match="rebuild the catalog") as refused:
        Catalog.open(tmp_path / "c")
    assert "\n" not in str(refused.value)
