"""The `arena` command line, run as a user runs it: real processes, real folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs arena as a subprocess

FIXTURES = Path(__file__).parent.parent / "fixtures"


def arena(*args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="200")
    proc = subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, env=env, timeout=300
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"arena {' '.join(args)} failed: {proc.stderr}")
    return proc


def one_error_line(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "cat"
    proc = arena("catalog", "build", "--seed", "4", "--size", "3k", "--out", str(out), check=True)
    assert "built 3,000 products" in proc.stdout and "digest sha256:" in proc.stdout
    return out


def test_build_prints_the_digest_and_the_same_build_gives_it_again(built, tmp_path):
    again = arena("catalog", "build", "--seed", "4", "--size", "3000", "--out", str(tmp_path / "again"), check=True)
    manifest = json.loads((built / "catalog.json").read_text())
    assert f"digest {manifest['digest']}" in again.stdout


def test_stats(built):
    proc = arena("catalog", "stats", str(built), "--json", check=True)
    info = json.loads(proc.stdout)
    assert info["products"] == 3000 and info["stats"]["top_categories"] >= 15 and info["index_bytes"] > 0
    table = arena("catalog", "stats", str(built), check=True).stdout
    assert "shops_in_3plus_top_categories" in table and "products per top-level category" in table


def test_search_matches_the_tool(built):
    proc = arena("catalog", "search", str(built), "cotton shirt", "--sort", "priceasc", "--json", check=True)
    results = json.loads(proc.stdout)
    prices = [r["price"] for r in results]
    assert prices == sorted(prices)
    via_tool = arena(
        "tools",
        "call",
        str(built),
        "find_product",
        "--args",
        json.dumps({"q": "cotton shirt", "sort": "priceasc"}),
        check=True,
    )
    assert json.loads(via_tool.stdout) == results


def test_tools_schema_prints_seven_openai_schemas():
    schemas = json.loads(arena("tools", "schema", check=True).stdout)
    assert len(schemas) == 7 and all(s["type"] == "function" for s in schemas)
    one = json.loads(arena("tools", "schema", "web_search", check=True).stdout)
    assert one["function"]["name"] == "web_search"


def test_tools_schema_takes_the_tools_of_a_tasks_family():
    from arena.tasks import tools_for

    shop = json.loads(arena("tools", "schema", "--task", "shop", check=True).stdout)
    assert shop == tools_for("shop").schemas()
    one_error_line(arena("tools", "schema", "--task", "cars"), "--task", "unknown task type 'cars'")


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["catalog", "build", "--size", "0", "--out", "{tmp}/x"], ["size must be"]),
        (["catalog", "build", "--size", "lots", "--out", "{tmp}/x"], ["not a number of products"]),
        (["catalog", "build", "--size", "9M", "--out", "{tmp}/x"], ["size must be"]),
        (["catalog", "build", "--seed", "-5", "--out", "{tmp}/x"], ["seed must be"]),
        (["catalog", "stats", "{tmp}/nothing"], ["is not a catalog"]),
        (["catalog", "search", "{built}", "lamp", "--page", "7"], ["--page must be from 1 to 5"]),
        (["catalog", "search", "{built}", "lamp", "--price", "abc"], ["not a range"]),
        (["catalog", "search", "{built}", "lamp", "--sort", "newest"], ["sort"]),
        (["catalog", "search", "{built}", "lamp", "--service", "teleport"], ["unknown service 'teleport'"]),
        (["catalog", "search", "{built}", ""], ["q is empty"]),
        (["tools", "call", "{built}", "find_product", "--args", "{{nope"], ["--args is not valid JSON"]),
        (["tools", "call", "{built}", "buy", "--args", "{{}}"], ["unknown tool 'buy'"]),
        (["tools", "call", "{built}", "view_product_information", "--args", '{{"product_ids": ""}}'], ["empty"]),
        (["catalog", "load", "{tmp}/missing.jsonl", "--out", "{tmp}/y"], ["does not exist"]),
        (
            ["catalog", "load", str(FIXTURES / "documents_sample.jsonl"), "--out", "{tmp}/y", "--strict"],
            ["line 3", "--strict"],
        ),
    ],
)
def test_bad_input_gets_one_clear_line(built, tmp_path, args, fragments):
    filled = [a.format(tmp=tmp_path, built=built) for a in args]
    one_error_line(arena(*filled), *fragments)
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_existing_output_is_not_overwritten_without_force(built, tmp_path):
    one_error_line(arena("catalog", "build", "--size", "100", "--out", str(built)), "already exists", "--force")
    target = tmp_path / "cat"
    arena("catalog", "build", "--size", "100", "--out", str(target), check=True)
    arena("catalog", "build", "--size", "200", "--seed", "2", "--out", str(target), "--force", check=True)
    assert json.loads((target / "catalog.json").read_text())["products"] == 200
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cat"]


def test_load_reports_bad_lines(tmp_path):
    proc = arena("catalog", "load", str(FIXTURES / "documents_sample.jsonl"), "--out", str(tmp_path / "c"), check=True)
    assert "loaded 5 products" in proc.stdout
    assert "7 bad line(s) skipped" in proc.stderr and "line 5: not valid JSON" in proc.stderr
