"""The newcomer's bad inputs as one table: each is one clear `error:` line on stderr, no traceback, exit 2, and
nothing made where it should not be. Real commands in real folders; a read-only folder is a read-only tmpfs mount
(as root, who ignores permissions) or a folder without write permission (anyone else)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[2]


def run(
    exe: str, *args: str | bytes, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    base.update({"COLUMNS": "200", **(env or {})})
    argv = [exe] if "/" in exe else [str(BIN / exe)]
    return subprocess.run(
        [*argv, *args], capture_output=True, text=True, cwd=cwd, env=base, timeout=timeout, errors="replace"
    )


def one_error_line(proc: subprocess.CompletedProcess[str], *fragments: str) -> str:
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (1, 2), (proc.returncode, proc.stdout, proc.stderr)  # 1: `check` found problems
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """An empty folder no one can write in: a read-only tmpfs mount as root, a folder without write permission
    otherwise."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    if os.geteuid() == 0:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(folder)], check=True)
    else:
        folder.chmod(0o555)
    try:
        yield folder
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(folder)], check=True)
        else:
            folder.chmod(0o755)


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small catalog (`cat`), problems made from it (`gen.json`) and an agent (`agent`)."""
    root = tmp_path_factory.mktemp("bad-input")
    built = run("arena", "catalog", "build", "--size", "300", "--seed", "5", "--out", str(root / "cat"), cwd=root)
    assert built.returncode == 0, built.stderr
    made = run(
        "arena", "problems", "generate", "--catalog", "cat", "--n", "12", "--out", "gen.json", cwd=root, timeout=600
    )
    assert made.returncode == 0, made.stderr
    assert run("arena-miner", "init", "agent", cwd=root).returncode == 0
    return root


#: (case, command; `{kit}`, `{tmp}` and `{ro}` (a read-only folder) filled in, what the line must say)
CASES: list[tuple[str, list[str | bytes], tuple[str, ...]]] = [
    (
        "db upgrade into a folder that does not exist",
        ["arena-validator", "db", "upgrade", "--database-url", "sqlite:///{tmp}/nonexistent/dir/x.sqlite"],
        ("{tmp}/nonexistent/dir does not exist", "--database-url"),
    ),
    (
        "db upgrade on a file that is not a database",
        ["arena-validator", "db", "upgrade", "--database-url", "sqlite:///{tmp}/notes.txt"],
        ("{tmp}/notes.txt is not a usable store", "file is not a database"),
    ),
    (
        "dashboard on a file that is not a database",
        ["arena-validator", "dashboard", "--port", "18471", "--database-url", "sqlite:///{tmp}/notes.txt"],
        ("{tmp}/notes.txt is not a usable store",),
    ),
    (
        "catalog build into a read-only folder",
        ["arena", "catalog", "build", "--size", "50", "--out", "{ro}/cat"],
        ("--out: cannot write in {ro}",),
    ),
    (
        "catalog search with a query that is not UTF-8",
        ["arena", "catalog", "search", "{kit}/cat", b"sh\xffirt"],
        ("the query is not UTF-8 text", "byte 0xff"),
    ),
    (
        "tools call with arguments that are not UTF-8",
        ["arena", "tools", "call", "{kit}/cat", "find_product", "--args", b'{"q": "sh\xffirt"}'],
        ("--args is not UTF-8 text",),
    ),
    (
        "tools call with a lone surrogate escape",
        ["arena", "tools", "call", "{kit}/cat", "find_product", "--args", '{"q": "sh\\ud800irt"}'],
        ("--args", "lone surrogate"),
    ),
    (
        "a wallet name with a path separator (localchain)",
        [
            "arena-validator",
            "localchain",
            "register",
            "--localchain.path",
            "{tmp}/chain.sqlite",
            "--wallet.name",
            "../../etc",
            "--create",
        ],
        ("wallet name '../../etc' is not a plain name", "--wallet.path"),
    ),
    (
        "a hotkey name with a path separator (pack)",
        [
            "arena",
            "problems",
            "pack",
            "{kit}/gen.json",
            "--out",
            "{tmp}/p.json",
            "--wallet.name",
            "owner",
            "--wallet.hotkey",
            "a/b",
        ],
        ("hotkey name 'a/b' is not a plain name",),
    ),
    ("arena-miner init on a file", ["arena-miner", "init", "{tmp}/notes.txt"], ("{tmp}/notes.txt is a file",)),
    ("arena-miner init under /proc", ["arena-miner", "init", "/proc/my-agent"], ("cannot write in /proc",)),
    ("arena-miner init in a read-only folder", ["arena-miner", "init", "{ro}/my-agent"], ("cannot write in {ro}",)),
    (
        "arena-miner test --json into a read-only folder",
        [
            "arena-miner",
            "test",
            "{kit}/agent",
            "--problems",
            "{kit}/gen.json",
            "--catalog",
            "{kit}/cat",
            "--unsafe-local",
            "--n",
            "1",
            "--out",
            "{tmp}/results",
            "--json",
            "{ro}/card.json",
        ],
        ("--json: cannot write in {ro}",),
    ),
    (
        "arena-miner check on an agent.py that is not UTF-8",
        ["arena-miner", "check", "{tmp}/latin1-agent"],
        ("agent.py: line 1: byte 0xe9 is not utf-8", "save it as UTF-8"),
    ),
    (
        "problems generate of a billion problems",
        ["arena", "problems", "generate", "--catalog", "{kit}/cat", "--n", "1000000000", "--out", "{tmp}/big.json"],
        ("--n 1,000,000,000 is more than the 100,000 problems",),
    ),
    (
        "arena-miner test of a million built-in problems",
        ["arena-miner", "test", "{kit}/agent", "--n", "1000000", "--unsafe-local"],
        ("--n 1,000,000", "at most 1,000 problems", "--problems"),
    ),
    (
        "problems generate over an existing file",
        ["arena", "problems", "generate", "--catalog", "{kit}/cat", "--n", "2", "--out", "{tmp}/notes.txt"],
        ("--out {tmp}/notes.txt already exists", "--force"),
    ),
    (
        "problems split over another existing file",
        ["arena", "problems", "split", "{kit}/gen.json", "--out", "{tmp}/notes.txt"],
        ("--out {tmp}/notes.txt already exists", "--force"),
    ),
    (
        "problems pack over an existing file",
        ["arena", "problems", "pack", "{kit}/gen.json", "--out", "{tmp}/notes.txt", "--key-uri", "//Alice"],
        ("--out {tmp}/notes.txt already exists", "--force"),
    ),
    (
        "problems pack with a missing wallet checks it before sealing",
        [
            "arena",
            "problems",
            "pack",
            "{kit}/gen.json",
            "--out",
            "{tmp}/p.json",
            "--wallet.name",
            "operator",
            "--wallet.path",
            "{tmp}/wallets",
            "--seal.round",
            "1000",
        ],
        ("wallet 'operator' not found",),
    ),
]


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
@pytest.mark.parametrize(("case", "command", "fragments"), CASES, ids=[case for case, _, _ in CASES])
def test_bad_input_is_one_line(
    kit: Path, tmp_path: Path, read_only: Path, case: str, command: list[str | bytes], fragments: tuple[str, ...]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    (tmp_path / "latin1-agent").mkdir()
    (tmp_path / "latin1-agent" / "agent.py").write_bytes(b"# caf\xe9\ndef agent_main(problem):\n    return None\n")

    def fill(text: str) -> str:
        return text.replace("{kit}", str(kit)).replace("{tmp}", str(tmp_path)).replace("{ro}", str(read_only))

    exe, *args = command
    argv = [fill(a) if isinstance(a, str) else a for a in args]
    before = sorted(p.name for p in tmp_path.iterdir())
    proc = run(str(exe), *argv, cwd=tmp_path)
    print(case)
    one_error_line(proc, *(fill(f) for f in fragments))
    assert proc.stdout.strip() == "", proc.stdout  # failed before any work: nothing printed as done
    assert notes.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no store, folder, wallet or pack left behind
    assert list(read_only.iterdir()) == []
    assert not Path("/proc/my-agent").exists()


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_miner_test_from_a_read_only_working_folder_is_one_line(kit: Path, read_only: Path) -> None:
    proc = run("arena-miner", "test", str(kit / "agent"), "--n", "1", cwd=read_only)
    one_error_line(proc, f"cannot write in {read_only}", "--out")


@pytest.mark.slow  # runs the image builders as a user types them, with no Docker engine to answer
@pytest.mark.parametrize(
    "command", [[sys.executable, "-m", "sandbox.image.build"], ["bash", str(ROOT / "deploy" / "build-node-image")]]
)
def test_image_builders_without_docker_are_one_line(tmp_path: Path, command: list[str]) -> None:
    socket = tmp_path / "no-docker.sock"
    env = {"DOCKER_HOST": f"unix://{socket}", "PYTHONPATH": str(ROOT), "PYTHON": sys.executable}
    proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env={**os.environ, **env}, timeout=300)
    one_error_line(proc, f"no Docker engine answers at unix://{socket}", "DOCKER_HOST")


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_dev_wallets_stay_beside_the_localchain(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home)}
    chain = ["--localchain.path", str(tmp_path / "dev" / "chain.sqlite")]
    (tmp_path / "dev").mkdir()
    assert run("arena-validator", "localchain", "init", *chain, cwd=tmp_path, env=env).returncode == 0
    made = run(
        "arena-validator",
        "localchain",
        "register",
        "--wallet.name",
        "val",
        "--create",
        "--validator-permit",
        *chain,
        cwd=tmp_path,
        env=env,
    )
    assert made.returncode == 0, made.stderr
    assert f"in {tmp_path / 'dev' / 'wallets'}" in made.stdout
    assert (tmp_path / "dev" / "wallets" / "val" / "hotkeys" / "default").is_file()
    assert not (home / ".bittensor").exists()  # the user's real wallets folder untouched
    check = run(
        "arena-validator",
        "config",
        "check",
        "--chain",
        "localchain",
        "--netuid",
        "1",
        "--wallet.name",
        "val",
        *chain,
        cwd=tmp_path,
        env=env,
    )
    assert "ok   wallet   val/default" in check.stdout and "ok   hotkey" in check.stdout, check.stdout
    given = tmp_path / "mine"
    made = run(
        "arena-validator",
        "localchain",
        "register",
        "--wallet.name",
        "m1",
        "--create",
        "--wallet.path",
        str(given),
        *chain,
        cwd=tmp_path,
        env=env,
    )
    assert made.returncode == 0 and (given / "m1" / "hotkeys" / "default").is_file(), made.stderr


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_db_upgrade_makes_missing_folders_only_inside_the_data_dir(tmp_path: Path) -> None:
    data = tmp_path / "node"
    made = run("arena-validator", "db", "upgrade", "--data-dir", str(data / "sub"), cwd=tmp_path)
    assert made.returncode == 0 and (data / "sub" / "validator.sqlite").is_file(), made.stderr
    inside = run(
        "arena-validator",
        "db",
        "upgrade",
        "--data-dir",
        str(data),
        "--database-url",
        f"sqlite:///{data / 'stores' / 'a.sqlite'}",
        cwd=tmp_path,
    )
    assert inside.returncode == 0 and (data / "stores" / "a.sqlite").is_file(), inside.stderr


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_pack_warns_for_a_dev_key_and_says_when_it_is_not_sealed(kit: Path, tmp_path: Path) -> None:
    split = tmp_path / "split.json"
    assert run("arena", "problems", "split", str(kit / "gen.json"), "--out", str(split), cwd=tmp_path).returncode == 0
    again = run("arena", "problems", "split", str(split), "--out", str(split), "--seed", "3", cwd=tmp_path)
    assert again.returncode == 0, again.stderr  # the input itself may be rewritten in place
    clear = run(
        "arena",
        "problems",
        "pack",
        str(split),
        "--out",
        str(tmp_path / "clear.json"),
        "--key-uri",
        "//Alice",
        cwd=tmp_path,
    )
    assert clear.returncode == 0, clear.stderr
    assert "warning: signed by //Alice, a public development key" in clear.stderr
    assert "--pack.allow_dev_signer" in clear.stderr
    assert "not sealed: its" in clear.stdout and "race problems are in clear" in clear.stdout
    sealed = run(
        "arena",
        "problems",
        "pack",
        str(split),
        "--out",
        str(tmp_path / "sealed.json"),
        "--key-uri",
        "//Alice",
        "--problems-per-race",
        "2",
        "--seal.round",
        "1000",
        cwd=tmp_path,
    )
    assert sealed.returncode == 0, sealed.stderr
    assert "not sealed" not in sealed.stdout
    replaced = run(
        "arena",
        "problems",
        "pack",
        str(split),
        "--out",
        str(tmp_path / "clear.json"),
        "--key-uri",
        "//Bob",
        "--force",
        cwd=tmp_path,
    )
    assert replaced.returncode == 0 and "//Bob" in replaced.stderr, replaced.stderr


def test_settings_files_with_secrets_are_git_ignored() -> None:
    proc = subprocess.run(
        ["git", "check-ignore", "--no-index", "deploy/.env", ".env", "deploy/.env.example"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout.split() == ["deploy/.env", ".env"]  # the example is committed, the real files never


@pytest.mark.slow  # runs our CLIs as subprocesses, as a newcomer types them
def test_config_check_prints_a_catalog_line(kit: Path, tmp_path: Path) -> None:
    proc = run("arena-validator", "config", "check", "--catalog", str(kit / "cat"), cwd=tmp_path)
    lines = proc.stdout.splitlines()
    (catalog,) = [line for line in lines if line.split()[1:2] == ["catalog"]]
    assert catalog.startswith("ok") and "300 products" in catalog and "sha256:" in catalog, catalog
    (pack,) = [line for line in lines if line.split()[1:2] == ["pack"]]
    assert pack.startswith("fail") and "--pack" in pack, pack  # the catalog alone: the pack is still required
    broken = run("arena-validator", "config", "check", "--catalog", str(tmp_path / "no-cat"), cwd=tmp_path)
    (catalog,) = [line for line in broken.stdout.splitlines() if line.split()[1:2] == ["catalog"]]
    assert catalog.startswith("fail") and str(tmp_path / "no-cat") in catalog, catalog
