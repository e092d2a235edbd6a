"""`arena problems ...` as an operator runs it: import and rebuild, self-check, split, sign, verify, show."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.unit.test_cli import arena, one_error_line

pytestmark = pytest.mark.slow  # runs arena as a subprocess

SB = Path(__file__).parent.parent / "fixtures" / "shoppingbench"
FILES = [str(p) for p in sorted(SB.glob("*.jsonl"))]
ALICE = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"  # //Alice, a public development key
BOB = "5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty"  # //Bob


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("problems")
    proc = arena(
        "problems",
        "import",
        *FILES,
        "--out",
        str(root / "pack.json"),
        "--rebuild-catalog",
        str(root / "cat"),
        "--background-size",
        "2000",
        check=True,
    )
    assert "imported 8 problems (3 product, 2 shop, 2 voucher, 1 web)" in proc.stdout
    assert "product_test.jsonl:4: not valid JSON" in proc.stderr
    arena("problems", "split", str(root / "pack.json"), "--out", str(root / "split.json"), check=True)
    return root


def test_selfcheck_passes_and_writes_json(work):
    proc = arena(
        "problems",
        "selfcheck",
        str(work / "pack.json"),
        "--catalog",
        str(work / "cat"),
        "--json",
        str(work / "check.json"),
        check=True,
    )
    assert "ok: every gold answer passes" in proc.stdout
    report = json.loads((work / "check.json").read_text())
    assert report["ok"] and report["by_task"]["voucher"]["gold_pass_rate"] == 1.0


def test_selfcheck_fails_against_another_catalog(work, tmp_path):
    arena("catalog", "build", "--size", "500", "--out", str(tmp_path / "other"), check=True)
    one_error_line(
        arena("problems", "selfcheck", str(work / "pack.json"), "--catalog", str(tmp_path / "other")), "catalog"
    )


def test_split_sign_verify_show(work):
    split = work / "split.json"
    signed = work / "signed.json"
    arena(
        "problems",
        "pack",
        str(split),
        "--out",
        str(signed),
        "--key-uri",
        "//Alice",
        "--problems-per-race",
        "4",
        check=True,
    )
    proc = arena(
        "problems",
        "verify",
        str(signed),
        "--catalog",
        str(work / "cat"),
        "--pack.signer",
        ALICE,
        "--pack.allow_dev_signer",
        check=True,
    )
    assert proc.stdout.startswith(f"ok: 8 problems signed by {ALICE}")
    info = json.loads(arena("problems", "show", str(signed), "--json", check=True).stdout)
    assert info["signed"] and info["rotation"]["problems_per_race"] == 4 and info["problems"] == 8
    assert sum(n for tasks in info["splits"].values() for n in tasks.values()) == 8
    one = json.loads(arena("problems", "show", str(signed), "--problem", "sb-web-" + "x", check=False).stdout or "{}")
    assert one == {}
    pid = json.loads(signed.read_text())["problems"][0]["problem_id"]
    shown = json.loads(arena("problems", "show", str(signed), "--problem", pid, check=True).stdout)
    assert shown["problem_id"] == pid and "reward" in shown


def test_public_only_pack_holds_only_the_public_split(work):
    public = work / "public.json"
    arena("problems", "pack", str(work / "split.json"), "--out", str(public), "--public-only", check=True)
    data = json.loads(public.read_text())
    assert data["public_only"] and all(p["split"] == "public" for p in data["problems"])
    assert data["signature"] is None


def test_tampered_pack_is_refused(work, tmp_path):
    data = json.loads((work / "signed.json").read_text())
    data["problems"][0]["query"] += " (edited)"
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    one_error_line(arena("problems", "verify", str(tampered), "--pack.signer", ALICE), "signature")
    one_error_line(
        arena("problems", "verify", str(work / "signed.json"), "--signer", BOB, "--pack.allow_dev_signer"),
        f"not by the pinned signer {BOB}",
    )
    one_error_line(arena("problems", "verify", str(work / "split.json"), "--pack.signer", ALICE), "not signed")


def test_verify_trusts_only_a_pinned_signer_that_is_not_a_development_key(work, monkeypatch):
    signed = str(work / "signed.json")  # signed with //Alice by test_split_sign_verify_show
    monkeypatch.delenv("ARENA_PACK_SIGNER", raising=False)
    for pinned in ([], ["--pack.signer", ALICE]):  # a development key is named first, pinned or not
        one_error_line(
            arena("problems", "verify", signed, *pinned), "public development key //Alice", "--pack.allow_dev_signer"
        )
    one_error_line(
        arena("problems", "verify", signed, "--pack.allow_dev_signer"), "no signer is pinned", "--pack.signer", ALICE
    )
    one_error_line(arena("problems", "verify", signed, "--pack.signer", "5Fnot-an-address"), "not an ss58 address")
    monkeypatch.setenv("ARENA_PACK_SIGNER", ALICE)  # the signer the node's settings name
    assert arena("problems", "verify", signed, "--pack.allow_dev_signer").returncode == 0
    assert "--pack.allow_dev_signer" in arena("problems", "verify", "--help").stdout


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["problems", "import", "{tmp}/none.jsonl", "--out", "{tmp}/p.json"], ["no such file"]),
        (["problems", "generate", "--catalog", "{tmp}/none", "--n", "3", "--out", "{tmp}/p.json"], ["not a catalog"]),
        (["problems", "generate", "--catalog", "{tmp}/none", "--n", "0", "--out", "{tmp}/p.json"], ["--n"]),
        (
            ["problems", "generate", "--catalog", "{tmp}", "--n", "2", "--tasks", "chat", "--out", "{tmp}/p.json"],
            ["unknown task"],
        ),
        (["problems", "show", "{tmp}/missing.json"], ["missing.json"]),
        (["problems", "pack", "{work}/split.json", "--out", "{tmp}/p.json"], ["must be signed"]),
        (
            [
                "problems",
                "pack",
                "{work}/split.json",
                "--out",
                "{tmp}/p.json",
                "--key-uri",
                "//Alice",
                "--task-mix",
                "product=lots",
            ],
            ["--task-mix"],
        ),
        (["problems", "split", "{work}/pack.json", "--out", "{tmp}/p.json", "--public", "-1"], ["non-negative"]),
    ],
)
def test_bad_input_gets_one_clear_line(work, tmp_path, args, fragments):
    filled = [a.format(tmp=tmp_path, work=work) for a in args]
    one_error_line(arena(*filled), *fragments)
    assert not (tmp_path / "p.json").exists()


def test_only_bad_records_write_nothing(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "x"}\n')
    proc = arena("problems", "import", str(bad), "--out", str(tmp_path / "p.json"))
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and lines == [
        'skipped bad.jsonl:1: no "reward" object or list',
        "error: no valid problems in 1 file(s) (1 bad records); nothing was written",
    ]
    assert not (tmp_path / "p.json").exists()


def test_import_of_shared_golds_and_an_oro_suite_selfchecks_with_a_blind_baseline(tmp_path):
    shared = sorted(str(p) for p in (SB.parent / "shoppingbench_shared").glob("synthesize_*.jsonl"))
    suite = str(SB.parent / "oro" / "problem_suite.json")
    proc = arena(
        "problems",
        "import",
        *shared,
        suite,
        "--out",
        str(tmp_path / "pack.json"),
        "--rebuild-catalog",
        str(tmp_path / "cat"),
        "--background-size",
        "1500",
        check=True,
    )
    assert "imported 17 problems (4 product, 3 shop, 5 voucher, 5 web)" in proc.stdout
    unsatisfiable = [line for line in proc.stderr.splitlines() if line.startswith("unsatisfiable ")]
    assert len(unsatisfiable) == 2 and all("7500000001" in line and "left out" in line for line in unsatisfiable)
    assert "problem_suite.json: record 5: difficulty 'extreme'" in proc.stderr
    check = arena(
        "problems",
        "selfcheck",
        str(tmp_path / "pack.json"),
        "--catalog",
        str(tmp_path / "cat"),
        "--json",
        str(tmp_path / "check.json"),
        check=True,
    )
    assert "blind baseline" in check.stdout and "ok: every gold answer passes" in check.stdout
    report = json.loads((tmp_path / "check.json").read_text())
    assert set(report["blind_baseline"]) == {"product", "shop", "voucher", "web"}
    assert report["blind_baseline"]["web"]["web_success_rate"] is not None


def test_import_refuses_an_unknown_ruleset(tmp_path):
    one_error_line(
        arena("problems", "import", *FILES, "--out", str(tmp_path / "p.json"), "--ruleset", "paper"),
        "--ruleset",
        "paper",
    )
    assert not (tmp_path / "p.json").exists()


def test_generate_makes_each_task_type_by_its_familys_generator(work, tmp_path):
    """ShoppingBench's four by default; a family's task type on request (here the session family's), the task types
    in turn."""
    default = arena(
        "problems",
        "generate",
        "--catalog",
        str(work / "cat"),
        "--n",
        "4",
        "--out",
        str(tmp_path / "d.json"),
        check=True,
    )
    assert "generated 4 problems (1 product, 1 shop, 1 voucher, 1 web)" in default.stdout, default.stdout
    mixed = arena(
        "problems",
        "generate",
        "--catalog",
        str(work / "cat"),
        "--n",
        "4",
        "--tasks",
        "product,session",
        "--out",
        str(tmp_path / "m.json"),
        check=True,
    )
    # a session the generator gives up on (its draws depend on the catalog) is one line naming it
    made = re.search(r"generated (\d) problems \(2 product, (\d) session\)", mixed.stdout)
    assert made and int(made[1]) == 2 + int(made[2]) and int(made[2]) >= 1, mixed.stdout + mixed.stderr
    assert mixed.stderr.count("skipped problem") == 2 - int(made[2]), mixed.stderr
    pack = json.loads((tmp_path / "m.json").read_text())
    assert sorted(p["task"] for p in pack["problems"]) == ["product", "product"] + ["session"] * int(made[2])
    assert "+" in pack["generator_version"]  # both families' generators


def test_import_sessions_packs_the_ecomagentbench_tasks_that_pass_every_self_check(tmp_path: Path) -> None:
    records = Path(__file__).parent.parent / "fixtures" / "ecomagentbench" / "benchmark_sample.jsonl"
    pack, cat = tmp_path / "sessions.json", tmp_path / "cat"
    args = ["problems", "import-sessions", str(records), "--out", str(pack), "--rebuild-catalog", str(cat)]
    proc = arena(*args, "--background-size", "2000", check=True)
    assert "benchmark_sample.jsonl:6: not valid JSON" in proc.stderr  # each bad record: one line, and skipped
    assert "(fx_0005): clarification rubric(s) r4 have no clarification slot" in proc.stderr
    assert "4 of 6 records imported" in proc.stdout and "4 pass them all" in proc.stdout
    shown = json.loads(pack.read_text())
    assert [p["task"] for p in shown["problems"]] == ["session"] * 4
    # the catalog is there now: importing again into it is refused unless --force, and nothing is overwritten
    before = pack.read_bytes()
    again = arena(*args[:-1], str(tmp_path / "cat"), "--background-size", "2000")
    assert again.returncode != 0 and pack.read_bytes() == before
