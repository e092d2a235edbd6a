"""A catalog's manifest as `Catalog.open` reads it: a build in parts maps its index's shop numbers to the manifest's
shops (``shop_ords``), catalogs of the previous formats (2: the products' JSON in the index; 1: and no such map) are
read as before, and a manifest of another format or with a damaged map is refused with one line that says to
rebuild."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena.catalog import Catalog, CatalogError, SearchFilters
from arena.catalog.build import build_catalog
from arena.catalog.manifest import FORMAT_VERSION, MANIFEST

#: catalogs written by the version before the products' store (format 2): ``generated`` by ``build_catalog(4, 300,
#: workers=2)``, ``loaded`` by ``load_catalog`` of tests/fixtures/documents_sample.jsonl
FORMAT2 = Path(__file__).parent.parent / "fixtures" / "catalog-format2"


def _edit(root: Path, **changes: object) -> None:
    manifest = json.loads((root / MANIFEST).read_text())
    manifest.update(changes)
    (root / MANIFEST).write_text(json.dumps(manifest))


def _answers(catalog: Catalog, words: list[str]) -> list[list[tuple[float, int, int, str]]]:
    found = []
    for word in words:
        hits = catalog.search(word, SearchFilters(), 20, with_shop=True)
        rows = catalog.documents([hit.address for hit in hits])
        found.append(
            [
                (hit.score, hit.shop_ord, catalog.manifest["shops"].index(row["shop_id"]), row["product_id"])
                for hit, row in zip(hits, rows, strict=True)
            ]
        )
    return found


def test_a_build_in_parts_numbers_shops_as_its_manifest(tmp_path: Path) -> None:
    build_catalog(4, 3500, tmp_path / "c", workers=2)
    catalog = Catalog.open(tmp_path / "c")
    assert catalog.manifest["format"] == FORMAT_VERSION
    assert len(catalog.manifest["shop_ords"]) >= len(catalog.manifest["shops"])  # the world's shops, some unsold
    answers = _answers(catalog, ["shirt", "phone case", "lamp", "organic"])
    assert sum(map(len, answers)) > 20
    assert all(shop == first_seen for hits in answers for _, shop, first_seen, _ in hits)


def _copy(name: str, tmp_path: Path) -> Path:
    """A catalog of format 2, as the version before the store wrote it (products' JSON in the index): copied, as
    tantivy writes its lock files into a folder it opens."""
    return Path(shutil.copytree(FORMAT2 / name, tmp_path / name))


def test_a_catalog_of_format_2_answers_as_one_built_now(tmp_path: Path) -> None:
    """`FORMAT2`/generated is ``build_catalog(4, 300, workers=2)`` of format 2 (in parts, its shops mapped by
    ``shop_ords``); today's build of the same products keeps their JSON in its store (format 3). Every answer is
    the same: searches (scores, shops, products), lookups by id and row, every product in order."""
    old = Catalog.open(_copy("generated", tmp_path))
    build_catalog(4, 300, tmp_path / "new", workers=2)
    new = Catalog.open(tmp_path / "new")
    assert (old.manifest["format"], new.manifest["format"]) == (2, FORMAT_VERSION) and old.digest == new.digest
    products = list(new.iter_products())
    assert len(products) == 300 and list(old.iter_products()) == products
    words = sorted({word for p in products[::10] for word in p["title"].split()[:2]})
    assert sum(map(len, _answers(new, words))) > 100 and _answers(old, words) == _answers(new, words)
    for row in (0, 1, 15, 16, 17, 150, 299):
        assert old.product_at(row) == new.product_at(row) == products[row]
        assert old.get(products[row]["product_id"]) == new.get(products[row]["product_id"]) == products[row]
    assert old.product_at(300) is None and new.product_at(300) is None


def test_the_previous_formats_are_read_as_before_and_others_refused(tmp_path: Path) -> None:
    """Format 1 is format 2 without ``shop_ords`` (one writer: the index numbers shops as ``shops`` does)."""
    root = _copy("loaded", tmp_path)
    words = [p["title"].split()[0] for p in Catalog.open(root).iter_products()][:8]
    before = _answers(Catalog.open(root), words)
    assert sum(map(len, before)) >= 5 and "shop_ords" not in Catalog.open(root).manifest
    _edit(root, format=1)
    assert _answers(Catalog.open(root), words) == before
    _edit(root, format=FORMAT_VERSION + 1)
    with pytest.raises(CatalogError, match=f"catalog format {FORMAT_VERSION + 1}, this version reads {FORMAT_VERSION}"):
        Catalog.open(root)


@pytest.mark.parametrize("table", [[10**6], "0,1", [0.5], None])
def test_a_damaged_shop_map_is_refused_with_one_line(tmp_path: Path, table: object) -> None:
    build_catalog(4, 3500, tmp_path / "c", workers=2)
    shops = Catalog.open(tmp_path / "c").manifest["shop_ords"]
    _edit(tmp_path / "c", shop_ords=table if table is not None else [*shops[:-1], -2])
    with pytest.raises(CatalogError) as failed:
        Catalog.open(tmp_path / "c")
    assert "shop_ords" in str(failed.value) and "rebuild" in str(failed.value) and "\n" not in str(failed.value)


@pytest.mark.parametrize("damage", ["cut short", "a shop twice"])
def test_a_shop_map_that_misses_a_shop_is_refused_with_one_line(tmp_path: Path, damage: str) -> None:
    """Every shop of ``shops`` has exactly one number in the map: a map cut short sent a search for a product of a
    lost number into an IndexError, one naming a shop twice answered another shop."""
    build_catalog(4, 3500, tmp_path / "c", workers=2)
    table = Catalog.open(tmp_path / "c").manifest["shop_ords"]
    sold = [number for number, shop in enumerate(table) if shop >= 0]
    if damage == "cut short":
        table = table[: sold[-1]]  # the last number a product has, gone
    else:
        table = [table[sold[1]] if number == sold[0] else shop for number, shop in enumerate(table)]
    _edit(tmp_path / "c", shop_ords=table)
    with pytest.raises(CatalogError) as failed:
        Catalog.open(tmp_path / "c")
    assert "shop_ords" in str(failed.value) and "rebuild" in str(failed.value) and "\n" not in str(failed.value)
