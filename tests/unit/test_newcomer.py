"""What a newcomer meets on bad input: no file destroyed or invented, no silent wrong answer, no
traceback; one clear line each, before any work starts. Real commands in real folders."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


def run(exe: str, *args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["COLUMNS"] = "200"
    return subprocess.run([str(BIN / exe), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)


def one_error_line(proc: subprocess.CompletedProcess[str], *fragments: str) -> str:
    assert proc.returncode != 0, proc.stdout
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def tree(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


# --- 1. never destroy or invent files -----------------------------------------------------------------------------


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_demo_refuses_a_folder_that_is_not_a_demo_folder_and_keeps_it(tmp_path: Path) -> None:
    mine = tmp_path / "thesis"
    (mine / "chapters").mkdir(parents=True)
    (mine / "chapters" / "one.md").write_text("two years of work")
    (mine / "pack.json").write_text("{}")
    before = tree(mine)
    proc = run("arena-validator", "demo", "--dir", str(mine), cwd=tmp_path)
    one_error_line(proc, str(mine), "not a demo folder")
    assert tree(mine) == before
    a_file = tmp_path / "notes.txt"
    a_file.write_text("keep me")
    one_error_line(run("arena-validator", "demo", "--dir", str(a_file), cwd=tmp_path), "is a file")
    assert a_file.read_text() == "keep me"


def test_the_demo_replaces_only_an_empty_folder_its_own_or_an_earlier_demos(tmp_path: Path) -> None:
    from demo.run import DEMO_MARKER, demo_folder_problem

    assert demo_folder_problem(tmp_path / "new") is None
    (tmp_path / "empty").mkdir()
    assert demo_folder_problem(tmp_path / "empty") is None
    marked = tmp_path / "marked"
    marked.mkdir()
    (marked / DEMO_MARKER).write_text("")
    (marked / "anything").write_text("")
    assert demo_folder_problem(marked) is None
    earlier = tmp_path / "earlier"  # a demo folder made before the marker existed
    for name in ("agents", "catalog", "validator", "wallets"):
        (earlier / name).mkdir(parents=True)
    for name in ("pack.json", "chain.sqlite", "serve-offline.log"):
        (earlier / name).write_text("")
    assert demo_folder_problem(earlier) is None
    (earlier / "my-notes.txt").write_text("")
    assert "not a demo folder" in (demo_folder_problem(earlier) or "")
    only_validator = tmp_path / "var"  # a node's data folder is no demo folder
    (only_validator / "validator").mkdir(parents=True)
    assert demo_folder_problem(only_validator) is not None


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_localchain_init_overwrite_refuses_a_file_that_is_not_a_localchain(tmp_path: Path) -> None:
    other = tmp_path / "accounts.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE accounts (name TEXT)")
    conn.execute("INSERT INTO accounts VALUES ('alice')")
    conn.commit()
    conn.close()
    text = tmp_path / "notes.sqlite"
    text.write_text("not a database")
    for path in (other, text):
        before = path.read_bytes()
        proc = run("arena-validator", "localchain", "init", "--overwrite", "--localchain.path", str(path), cwd=tmp_path)
        one_error_line(proc, str(path), "not a LocalChain", "refusing to overwrite")
        assert path.read_bytes() == before
        shown = run("arena-validator", "localchain", "show", "--localchain.path", str(path), cwd=tmp_path)
        assert "--overwrite" not in one_error_line(shown, str(path))  # never suggests destroying it
    chain = tmp_path / "chain.sqlite"
    assert run("arena-validator", "localchain", "init", "--localchain.path", str(chain), cwd=tmp_path).returncode == 0
    again = run(
        "arena-validator",
        "localchain",
        "init",
        "--overwrite",
        "--netuid",
        "9",
        "--localchain.path",
        str(chain),
        cwd=tmp_path,
    )
    assert again.returncode == 0 and "netuid 9" in again.stdout  # a LocalChain may be replaced when asked


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
@pytest.mark.parametrize(
    "command",
    [
        ["dashboard", "--port", "18461"],
        ["db", "downgrade"],
        ["db", "current"],
        ["corpus", "export", "--out", "{tmp}/corpus"],
        ["run", "--netuid", "1"],
    ],
)
def test_read_only_commands_never_create_a_store_at_a_mistyped_path(tmp_path: Path, command: list[str]) -> None:
    typo = tmp_path / "valdiator" / "validator.sqlite"
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    proc = run("arena-validator", *args, "--database-url", f"sqlite:///{typo}", cwd=tmp_path, timeout=60)
    one_error_line(proc, str(typo), "does not exist")
    assert not typo.parent.exists()
    assert not (tmp_path / "corpus").exists()
    data_dir = tmp_path / "data-typo"  # the default store inside a mistyped --data-dir
    proc = run("arena-validator", *args, "--data-dir", str(data_dir), cwd=tmp_path, timeout=60)
    one_error_line(proc, "does not exist")
    assert not data_dir.exists()


# --- 2. never silently wrong --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("newcomer") / "cat"
    proc = run("arena", "catalog", "build", "--size", "2000", "--seed", "3", "--out", str(out), cwd=out.parent)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
@pytest.mark.parametrize("part", ["products/meta.json", "web/meta.json"])
def test_a_catalog_missing_a_piece_of_its_index_is_damaged_for_every_command(
    catalog: Path, tmp_path: Path, part: str
) -> None:
    damaged = tmp_path / "cat"
    shutil.copytree(catalog, damaged)
    (damaged / part).unlink()
    before = tree(damaged)
    commands = [
        ["arena", "catalog", "stats", str(damaged)],
        ["arena", "catalog", "search", str(damaged), "shirt"],
        ["arena", "tools", "call", str(damaged), "find_product", "--args", '{"q": "shirt"}'],
        ["arena", "problems", "generate", "--catalog", str(damaged), "--n", "5", "--out", str(tmp_path / "g.json")],
    ]
    for exe, *args in commands:
        one_error_line(run(exe, *args, cwd=tmp_path), str(damaged), "damaged", part)
    assert tree(damaged) == before  # nothing wrote an empty index into it
    assert not (tmp_path / "g.json").exists()


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_a_catalog_whose_index_lost_its_products_is_damaged(catalog: Path, tmp_path: Path) -> None:
    from arena.catalog import Catalog, CatalogError

    damaged = tmp_path / "cat"
    shutil.copytree(catalog, damaged)
    for segment in (damaged / "products").iterdir():  # an empty index where the products were
        segment.unlink()
    import tantivy  # an empty index, as `search` on a catalog missing products/meta.json used to leave behind

    from arena.catalog.index import product_schema

    tantivy.Index(product_schema(), path=str(damaged / "products"), reuse=True)
    with pytest.raises(CatalogError, match="damaged: its index holds 0 products, its catalog.json says 2,000"):
        Catalog.open(damaged)


@pytest.fixture(scope="module")
def split_pack(catalog: Path) -> Path:
    made = catalog.parent / "gen.json"
    proc = run(
        "arena",
        "problems",
        "generate",
        "--catalog",
        str(catalog),
        "--n",
        "40",
        "--seed",
        "1",
        "--out",
        str(made),
        cwd=catalog.parent,
    )
    assert proc.returncode == 0, proc.stderr
    split = catalog.parent / "split.json"
    proc = run("arena", "problems", "split", str(made), "--out", str(split), cwd=catalog.parent)
    assert proc.returncode == 0, proc.stderr
    return split


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_split_fractions_that_do_not_sum_to_one_are_normalized_out_loud(split_pack: Path, tmp_path: Path) -> None:
    proc = run(
        "arena",
        "problems",
        "split",
        str(split_pack),
        "--out",
        str(tmp_path / "s.json"),
        "--public",
        "0.5",
        "--race",
        "0.6",
        "--held-out",
        "0.2",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "sum to 1.3, not 1; normalized to public 0.385, race 0.462, held_out 0.154" in proc.stderr
    for bad in (["--public", "0", "--race", "0", "--held-out", "0"], ["--public", "-0.2"], ["--race", "1.5"]):
        one_error_line(
            run("arena", "problems", "split", str(split_pack), "--out", str(tmp_path / "t.json"), *bad, cwd=tmp_path),
            "split fractions",
        )
    assert not (tmp_path / "t.json").exists()


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_a_task_mix_that_drops_tasks_or_a_cadence_of_zero_is_one_line(split_pack: Path, tmp_path: Path) -> None:
    signed = tmp_path / "p.json"
    pack = ["arena", "problems", "pack", str(split_pack), "--out", str(signed), "--key-uri", "//Alice"]
    one_error_line(
        run(*pack, "--task-mix", "product=1", cwd=tmp_path),
        "--task-mix leaves out shop, voucher, web",
        "never be drawn",
    )
    one_error_line(run(*pack, "--cadence-blocks", "0", cwd=tmp_path), "--cadence-blocks must be at least 1")
    one_error_line(run(*pack, "--problems-per-race", "0", cwd=tmp_path), "--problems-per-race must be at least 1")
    one_error_line(run(*pack, "--task-mix", "product=-1,shop=1,voucher=1,web=1", cwd=tmp_path), "must be >= 0")
    assert not signed.exists()
    proc = run(*pack, "--task-mix", "product=0.5,shop=0.9,voucher=0,web=0.2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (
        "each race draws product 31%, shop 56%, voucher 0%, web 13% (weights summed to 1.6, normalized)" in proc.stdout
    )


# --- 3. no tracebacks ---------------------------------------------------------------------------------------------


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_a_one_product_catalog_builds_for_any_seed(tmp_path: Path) -> None:
    for seed in ("1", "2"):  # seeds whose single product leaves the web corpus no fact to tell
        out = tmp_path / f"one-{seed}"
        proc = run("arena", "catalog", "build", "--size", "1", "--seed", seed, "--out", str(out), cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert "built 1 products" in proc.stdout
        stats = run("arena", "catalog", "stats", str(out), "--json", cwd=tmp_path)
        assert stats.returncode == 0 and '"products": 1' in stats.stdout


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_dashboard_port_out_of_range_is_one_line_before_anything(tmp_path: Path) -> None:
    for port in ("99999", "0", "-5"):
        proc = run("arena-validator", "dashboard", "--port", port, cwd=tmp_path)
        one_error_line(proc, "--port must be from 1 to 65535", port)
        assert "in use" not in proc.stderr
    assert not (tmp_path / "var").exists()


@pytest.fixture(scope="module")
def miner_kit(catalog: Path) -> tuple[Path, Path, str]:
    """A problem file on the module's catalog and the id of its first problem."""
    import json

    made = catalog.parent / "miner-problems.json"
    proc = run(
        "arena",
        "problems",
        "generate",
        "--catalog",
        str(catalog),
        "--n",
        "8",
        "--seed",
        "2",
        "--out",
        str(made),
        cwd=catalog.parent,
    )
    assert proc.returncode == 0, proc.stderr
    return catalog, made, json.loads(made.read_text())["problems"][0]["problem_id"]


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_miner_test_checks_its_outputs_before_any_work(miner_kit: tuple[Path, Path, str], tmp_path: Path) -> None:
    catalog, problems, _ = miner_kit
    assert run("arena-miner", "init", "agent", "--template", "offline", cwd=tmp_path).returncode == 0
    base = ["test", "agent", "--problems", str(problems), "--catalog", str(catalog), "--unsafe-local", "--n", "1"]
    a_file = tmp_path / "results"
    a_file.write_text("not a folder")
    cases = [
        (["--json", str(tmp_path / "no-such-folder" / "card.json")], "folder", "does not exist"),
        (["--json", str(tmp_path)], "is a folder"),
        (["--out", str(a_file)], "is a file"),
    ]
    for extra, *fragments in cases:
        proc = run("arena-miner", *base, *extra, cwd=tmp_path)
        lines = [line for line in proc.stderr.splitlines() if line.startswith("error")]
        assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert all(f in lines[0] for f in fragments), lines[0]
        assert not (tmp_path / "var").exists()  # no run started: no default output folder made
    assert a_file.read_text() == "not a folder"


@pytest.mark.slow  # arena-miner test: the gateway and the agent in a subprocess
def test_miner_scorecard_explains_its_columns_and_gives_the_mean_final_score(
    miner_kit: tuple[Path, Path, str], tmp_path: Path
) -> None:
    catalog, problems, _ = miner_kit
    assert run("arena-miner", "init", "agent", "--template", "offline", cwd=tmp_path).returncode == 0
    for judge in ("offline", "none"):
        proc = run(
            "arena-miner",
            "test",
            "agent",
            "--problems",
            str(problems),
            "--catalog",
            str(catalog),
            "--unsafe-local",
            "--n",
            "2",
            "--judge",
            judge,
            "--out",
            str(tmp_path / judge),
            cwd=tmp_path,
        )
        assert proc.returncode == 0, proc.stderr
        assert "gt = it names exactly the gold product(s)" in proc.stdout
        assert "mean rule = the mean rule score" in proc.stdout
        assert "mean final score " in proc.stdout and "what a race ranks miners on" in proc.stdout


@pytest.mark.slow  # arena-miner test: the gateway and the agent in a subprocess
def test_ctrl_c_during_miner_test_says_what_was_kept(miner_kit: tuple[Path, Path, str], tmp_path: Path) -> None:
    import signal
    import time

    catalog, problems, first = miner_kit
    agent = tmp_path / "slow"
    agent.mkdir()
    (agent / "agent.py").write_text(
        "import time\n\n\ndef agent_main(problem: dict) -> dict | None:\n"
        f"    if problem['problem_id'] != {first!r}:\n        time.sleep(600)  # until interrupted\n    return None\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    proc = subprocess.Popen(
        [
            str(BIN / "arena-miner"),
            "test",
            str(agent),
            "--problems",
            str(problems),
            "--catalog",
            str(catalog),
            "--unsafe-local",
            "--n",
            "3",
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=tmp_path,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    report = tmp_path / "out" / "reports" / f"{first}.md"
    try:
        while not report.exists() and proc.poll() is None:  # the first problem done, the second one running
            time.sleep(0.2)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    (line,) = [line for line in stderr.splitlines() if line.startswith("interrupted")]
    assert "1 of 3 problems ran" in line and "are kept" in line and "no scorecard was written" in line
    assert report.exists() and (tmp_path / "out" / "trajectories" / f"{first}.jsonl").exists()
    assert not (tmp_path / "out" / "scorecard.json").exists()


def test_ties_are_described_with_how_they_were_broken() -> None:
    from arena.weights import MinerResult, describe_ties

    uids = {"5Ha": 1, "5Hb": 2, "5Hc": 3, "5Hd": 4}
    results = [
        MinerResult(hotkey="5Hb", score=0.5, commitment_block=7),
        MinerResult(hotkey="5Ha", score=0.5, commitment_block=9),
        MinerResult(hotkey="5Hc", score=0.25, commitment_block=1),
        MinerResult(hotkey="5Hd", score=0.0, commitment_block=1),
    ]
    (line,) = describe_ties(results, uids, name=lambda h: f"miner-{h[-1]}")
    assert line == (
        "tie at score 0.5000: miner-b (uid 2, committed at block 7) > miner-a (uid 1, committed at block "
        "9); broken by the earlier commitment, then the smaller hotkey"
    )
    (none,) = describe_ties(results[2:], uids)
    assert none.startswith("no ties")


# --- 4. the README's commands -------------------------------------------------------------------------------------


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_import_takes_the_background_size_as_the_readme_writes_it(tmp_path: Path) -> None:
    files = sorted(
        str(p)
        for p in (Path(__file__).parents[1] / "fixtures" / "shoppingbench_shared").glob("synthesize_*_test.jsonl")
    )
    proc = run(
        "arena",
        "problems",
        "import",
        *files,
        "--out",
        str(tmp_path / "sb.json"),
        "--rebuild-catalog",
        str(tmp_path / "sb-cat"),
        "--background-size",
        "2k",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "sb-cat" / "catalog.json").is_file()
    bad = run(
        "arena",
        "problems",
        "import",
        *files,
        "--out",
        str(tmp_path / "x.json"),
        "--rebuild-catalog",
        str(tmp_path / "x-cat"),
        "--background-size",
        "lots",
        cwd=tmp_path,
    )
    one_error_line(bad, "--background-size", "'lots'", "100k")
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "x-cat").exists()


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_show_prints_the_signer_a_validator_pins(split_pack: Path, tmp_path: Path) -> None:
    signed = tmp_path / "signed.json"
    assert (
        run(
            "arena", "problems", "pack", str(split_pack), "--out", str(signed), "--key-uri", "//Alice", cwd=tmp_path
        ).returncode
        == 0
    )
    proc = run("arena", "problems", "show", str(signed), "--signer", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"
    one_error_line(run("arena", "problems", "show", str(split_pack), "--signer", cwd=tmp_path), "is not signed")


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_a_missing_wallet_suggests_a_btcli_command_that_exists(tmp_path: Path, split_pack: Path) -> None:
    proc = run(
        "arena",
        "problems",
        "pack",
        str(split_pack),
        "--out",
        str(tmp_path / "p.json"),
        "--wallet.name",
        "owner",
        "--wallet.hotkey",
        "default",
        "--wallet.path",
        str(tmp_path / "wallets"),
        cwd=tmp_path,
    )
    line = one_error_line(proc, "btcli wallet create --wallet owner --wallet-hotkey default")
    suggested = re.search(r"`(btcli [^`]+)`", line).group(1).split()
    helped = subprocess.run([str(BIN / "btcli"), *suggested[1:3], "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "--wallet-hotkey" in helped.stdout


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_out_onto_a_folder_or_into_a_missing_one_is_one_line_before_any_work(
    catalog: Path, split_pack: Path, tmp_path: Path
) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("keep me")
    commands = [
        ["problems", "generate", "--catalog", str(catalog), "--n", "5"],
        ["problems", "split", str(split_pack)],
        ["problems", "pack", str(split_pack), "--key-uri", "//Alice"],
    ]
    for command in commands:
        one_error_line(run("arena", *command, "--out", str(tmp_path), cwd=tmp_path), "is a folder")
        one_error_line(
            run("arena", *command, "--out", str(tmp_path / "nope" / "p.json"), cwd=tmp_path), "folder", "does not exist"
        )
        one_error_line(run("arena", *command, "--out", str(a_file / "p.json"), cwd=tmp_path), "is a file")
    selfcheck = ["problems", "selfcheck", str(split_pack), "--catalog", str(catalog), "--json"]
    one_error_line(run("arena", *selfcheck, str(tmp_path / "nope" / "r.json"), cwd=tmp_path), "--json: folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"] and a_file.read_text() == "keep me"


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_dashboard_says_why_it_cannot_listen(tmp_path: Path) -> None:
    import socket

    assert run("arena-validator", "db", "upgrade", "--data-dir", str(tmp_path / "vd"), cwd=tmp_path).returncode == 0
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        port = str(taken.getsockname()[1])
        line = one_error_line(
            run("arena-validator", "dashboard", "--data-dir", str(tmp_path / "vd"), "--port", port, cwd=tmp_path),
            f"127.0.0.1:{port}",
            "Address already in use",
            "pick another --port",
        )
        assert "Errno" not in line
    finally:
        taken.close()
    line = one_error_line(
        run(
            "arena-validator",
            "dashboard",
            "--data-dir",
            str(tmp_path / "vd"),
            "--port",
            "18463",
            "--api.host",
            "no-such-host.invalid",
            cwd=tmp_path,
        ),
        "no-such-host.invalid",
        "check --api.host",
    )
    assert "in use" not in line and "--port" not in line
