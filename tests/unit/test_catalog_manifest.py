"""A catalog's manifest as `Catalog.open` reads it: a build in parts maps its index's shop numbers to the manifest's
shops (``shop_ords``), a catalog of the previous format (1, no such map) is read as before, and a manifest of another
format or with a damaged map is refused with one line that says to rebuild."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.catalog import Catalog, CatalogError, SearchFilters
from arena.catalog.build import build_catalog, load_catalog
from arena.catalog.manifest import FORMAT_VERSION, MANIFEST

SAMPLE = Path(__file__).parent.parent / "fixtures" / "documents_sample.jsonl"


def _edit(root: Path, **changes: object) -> None:
    manifest = json.loads((root / MANIFEST).read_text())
    manifest.update(changes)
    (root / MANIFEST).write_text(json.dumps(manifest))


def _answers(catalog: Catalog, words: list[str]) -> list[list[tuple[float, int, int]]]:
    found = []
    for word in words:
        hits = catalog.search(word, SearchFilters(), 20, with_shop=True)
        rows = catalog.documents([hit.address for hit in hits])
        found.append(
            [
                (hit.score, hit.shop_ord, catalog.manifest["shops"].index(row["shop_id"]))
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
    assert all(shop == first_seen for hits in answers for _, shop, first_seen in hits)


def test_the_previous_format_is_read_as_before_and_others_refused(tmp_path: Path) -> None:
    load_catalog(SAMPLE, tmp_path / "c")
    words = [p["title"].split()[0] for p in Catalog.open(tmp_path / "c").iter_products()][:8]
    now = _answers(Catalog.open(tmp_path / "c"), words)
    assert "shop_ords" not in Catalog.open(tmp_path / "c").manifest  # one writer: its numbers are the shops' own
    _edit(tmp_path / "c", format=1)
    assert _answers(Catalog.open(tmp_path / "c"), words) == now
    _edit(tmp_path / "c", format=FORMAT_VERSION + 1)
    with pytest.raises(CatalogError, match=f"catalog format {FORMAT_VERSION + 1}, this version reads {FORMAT_VERSION}"):
        Catalog.open(tmp_path / "c")


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
