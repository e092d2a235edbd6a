"""`arena-validator` as an operator uses it: settings shown masked, bad settings listed, the LocalChain commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs arena-validator as a subprocess

EXE = str(Path(sys.executable).parent / "arena-validator")


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    full.update(env or {})
    return subprocess.run([EXE, *args], capture_output=True, text=True, cwd=cwd, env=full, timeout=120)


def test_config_show_merges_flags_env_and_dotenv_and_masks_secrets(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("ARENA_NETUID=15\nARENA_GATEWAY_API_KEY=sk-live-123\nARENA_CONCURRENCY=3\n")
    done = cli(
        "config",
        "show",
        "--json",
        "--concurrency",
        "8",
        cwd=tmp_path,
        env={"ARENA_DATABASE_URL": "postgresql://val:s3cret@db:5432/arena", "ARENA_WALLET_NAME": "owner"},
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["netuid"] == 15 and shown["wallet_name"] == "owner" and shown["concurrency"] == 8
    assert shown["database_url"] == "postgresql+psycopg://val:****@db:5432/arena"
    assert shown["gateway_api_key"] == "****"
    assert "s3cret" not in done.stdout and "sk-live-123" not in done.stdout
    # where each value came from: a flag beats the .env, the environment beats the .env, the rest their defaults
    came = shown["from"]
    assert set(came) == set(shown) - {"from"}
    assert came["concurrency"] == "flag" and came["netuid"] == ".env" and came["gateway_api_key"] == ".env"
    assert came["wallet_name"] == "env" and came["database_url"] == "env"
    assert came["sandbox_backend"] == "default" and set(came.values()) == {"flag", "env", ".env", "default"}


def test_bad_settings_are_all_listed_and_exit_2(tmp_path: Path) -> None:
    done = cli(
        "config",
        "show",
        "--netuid",
        "-4",
        "--sandbox.backend",
        "vm",
        "--subtensor.chain_endpoint",
        "http://x",
        cwd=tmp_path,
        env={"ARENA_WEIGHT_POLICY": "random"},
    )
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 4, done.stderr
    for name in ("--netuid", "--sandbox.backend", "--subtensor.chain_endpoint", "--weights.policy"):
        assert any(name in line for line in errors), name
    assert "Traceback" not in done.stderr


def test_localchain_init_register_show(tmp_path: Path) -> None:
    chain = ["--localchain.path", str(tmp_path / "chain.sqlite")]
    wallets = ["--wallet.path", str(tmp_path / "wallets")]
    missing = cli("localchain", "show", *chain, cwd=tmp_path)
    assert missing.returncode == 2 and "localchain init" in missing.stderr and "Traceback" not in missing.stderr
    assert cli("localchain", "init", "--netuid", "7", "--block-time", "0.5", *chain, cwd=tmp_path).returncode == 0
    again = cli("localchain", "init", *chain, cwd=tmp_path)
    assert again.returncode == 2 and "--overwrite" in again.stderr
    no_wallet = cli("localchain", "register", "--wallet.name", "val", *chain, *wallets, cwd=tmp_path)
    assert no_wallet.returncode == 2 and "not found" in no_wallet.stderr
    val = cli(
        "localchain",
        "register",
        "--wallet.name",
        "val",
        "--create",
        "--validator-permit",
        *chain,
        *wallets,
        cwd=tmp_path,
    )
    assert val.returncode == 0, val.stderr
    assert "uid 0 (validator)" in val.stdout
    miner = cli("localchain", "register", "--wallet.name", "m1", "--create", *chain, *wallets, cwd=tmp_path)
    assert "uid 1 (miner)" in miner.stdout
    shown = cli("localchain", "show", "--json", *chain, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    state = json.loads(shown.stdout)
    assert state["info"]["netuid"] == 7
    assert [(n["uid"], n["validator_permit"]) for n in state["neurons"]] == [(0, True), (1, False)]
    hotkey = (tmp_path / "wallets" / "m1" / "hotkeys" / "default").read_text()
    assert json.loads(hotkey)["ss58Address"] == state["neurons"][1]["hotkey"]


def test_config_check_names_each_missing_prerequisite(tmp_path: Path) -> None:
    chain = ["--chain", "localchain", "--localchain.path", str(tmp_path / "chain.sqlite")]
    wallets = ["--wallet.path", str(tmp_path / "wallets")]
    db = ["--database-url", f"sqlite:///{tmp_path / 'node.sqlite'}"]
    assert cli("localchain", "init", *chain[2:], cwd=tmp_path).returncode == 0
    cli("localchain", "register", "--wallet.name", "m1", "--create", *chain[2:], *wallets, cwd=tmp_path)
    cli(
        "localchain",
        "register",
        "--wallet.name",
        "val",
        "--create",
        "--validator-permit",
        *chain[2:],
        *wallets,
        cwd=tmp_path,
    )

    first = cli("config", "check", "--wallet.name", "m1", *chain, *wallets, *db, cwd=tmp_path)
    assert first.returncode == 1
    lines = {line.split()[1]: line for line in first.stdout.splitlines() if line.strip()}
    assert lines["store"].startswith("fail") and "db upgrade" in lines["store"]
    assert lines["wallet"].startswith("ok")
    assert lines["hotkey"].startswith("fail") and "no validator permit" in lines["hotkey"]

    assert cli("db", "upgrade", *db, cwd=tmp_path).returncode == 0
    ghost = cli("config", "check", "--wallet.name", "ghost", *chain, *wallets, *db, cwd=tmp_path)
    assert ghost.returncode == 1 and "fail wallet" in ghost.stdout and "btcli wallet new-hotkey" in ghost.stdout
    good = cli("config", "check", "--wallet.name", "val", *chain, *wallets, *db, cwd=tmp_path)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "uid 1, validator permit" in good.stdout and "fail" not in good.stdout


def test_run_names_the_missing_dependency_in_one_line(tmp_path: Path) -> None:
    chain = ["--chain", "localchain", "--localchain.path", str(tmp_path / "chain.sqlite")]
    wallets = ["--wallet.path", str(tmp_path / "wallets")]
    db = ["--database-url", f"sqlite:///{tmp_path / 'node.sqlite'}"]
    behind = cli("run", *chain, *wallets, *db, cwd=tmp_path)
    assert behind.returncode == 2 and "db upgrade" in behind.stderr
    assert cli("db", "upgrade", *db, cwd=tmp_path).returncode == 0
    assert cli("localchain", "init", *chain[2:], cwd=tmp_path).returncode == 0
    cli("localchain", "register", "--wallet.name", "m1", "--create", *chain[2:], *wallets, cwd=tmp_path)
    cli(
        "localchain",
        "register",
        "--wallet.name",
        "val",
        "--create",
        "--validator-permit",
        *chain[2:],
        *wallets,
        cwd=tmp_path,
    )
    for wallet, expected in (("m1", "no validator permit"), ("val", "--catalog and --pack")):
        done = cli("run", "--wallet.name", wallet, *chain, *wallets, *db, cwd=tmp_path)
        errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
        assert done.returncode == 2 and len(errors) == 1 and expected in errors[0], done.stderr
        assert "Traceback" not in done.stderr
