"""Loading a ShoppingBench-format documents file, malformed lines included."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from arena.catalog import Catalog, CatalogError
from arena.catalog.build import load_catalog
from arena.tasks.shopping.tools import default_registry
from arena.tools import ToolContext

SAMPLE = Path(__file__).parent.parent / "fixtures" / "documents_sample.jsonl"
EXPECTED_BAD = {
    3: "price",
    5: "not valid JSON",
    6: "not a JSON object",
    9: 'no "product" object',
    10: "duplicate product_id '5001000001'",
    11: "differs from product_id",
    13: "service",
}


def test_load_counts_and_reports_bad_lines(tmp_path):
    report = load_catalog(SAMPLE, tmp_path / "cat")
    assert report.products == 5
    assert report.bad_lines == len(EXPECTED_BAD)
    by_line = {int(s.split(":")[0].removeprefix("line ")): s for s in report.bad_samples}
    assert set(by_line) == set(EXPECTED_BAD)
    for line, reason in EXPECTED_BAD.items():
        assert reason in by_line[line], by_line[line]
    catalog = Catalog.open(tmp_path / "cat")
    assert catalog.num_products == 5
    assert catalog.manifest["source"]["bad_lines"] == len(EXPECTED_BAD)


def test_loaded_products_are_searchable_and_keep_every_field(tmp_path):
    load_catalog(SAMPLE, tmp_path / "cat")
    catalog = Catalog.open(tmp_path / "cat")
    registry = default_registry()
    hits = registry.call("find_product", {"q": "rattan basket"}, ToolContext(catalog))
    assert hits[0]["product_id"] == "5001000001"
    assert hits[0]["service"] == ["COD", "freeShipping"]
    doc = catalog.get("5001000004")
    assert doc["brand"] == "No Brand" and doc["price"] == 185.5 and doc["attributes"] == {"flavor": ["ube"]}
    # the line's own "contents" is what BM25 sees: attribute values are searchable
    assert [h["product_id"] for h in registry.call("find_product", {"q": "ube"}, ToolContext(catalog))] == [
        "5001000004"
    ]


def test_gzip_gives_the_same_catalog(tmp_path):
    gz = tmp_path / "documents.jsonl.gz"
    with open(SAMPLE, "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    plain = load_catalog(SAMPLE, tmp_path / "a")
    packed = load_catalog(gz, tmp_path / "b")
    assert plain.digest == packed.digest and packed.products == 5


def test_strict_stops_at_the_first_bad_line_and_writes_nothing(tmp_path):
    with pytest.raises(CatalogError, match=r"line 3: price"):
        load_catalog(SAMPLE, tmp_path / "cat", strict=True)
    assert list(tmp_path.iterdir()) == []  # no catalog, no leftover temporary folder


def test_refuses_to_overwrite_without_force(tmp_path):
    load_catalog(SAMPLE, tmp_path / "cat")
    with pytest.raises(CatalogError, match="already exists"):
        load_catalog(SAMPLE, tmp_path / "cat")
    report = load_catalog(SAMPLE, tmp_path / "cat", force=True)
    assert report.products == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cat"]


def test_a_file_of_only_bad_lines_writes_nothing(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"oops": 1}\nnot json\n')
    with pytest.raises(CatalogError, match="no valid product lines"):
        load_catalog(bad, tmp_path / "cat")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


def test_truncated_gzip_is_one_clear_error(tmp_path):
    gz = tmp_path / "documents.jsonl.gz"
    with gzip.open(gz, "wb") as dst:
        dst.write(SAMPLE.read_bytes() * 50)
    data = gz.read_bytes()
    gz.write_bytes(data[: len(data) // 2])
    with pytest.raises(CatalogError, match="unreadable after line"):
        load_catalog(gz, tmp_path / "cat")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["documents.jsonl.gz"]


def test_missing_file(tmp_path):
    with pytest.raises(CatalogError, match="does not exist"):
        load_catalog(tmp_path / "nope.jsonl", tmp_path / "cat")
