"""The node races only a pack signed by the signer its operator pinned (--pack.signer), never one signed by a public
development key unless --pack.allow_dev_signer (a local demo or test): `open_pack`, and `arena-validator run`."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.catalog import Catalog
from arena.catalog.build import build_catalog
from arena.problems.pack import load_keypair, new_pack, write_pack
from tests.unit.test_pack import make_problems
from tests.unit.test_validator_cli import cli
from validator.node import NodeError, open_pack
from validator.settings import SettingsError, load_settings

ALICE = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY"


@pytest.fixture(scope="module")
def packs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path, str]:
    """A catalog, a pack signed by an operator's own key, the same pack signed by //Alice; the operator's address."""
    root = tmp_path_factory.mktemp("trust")
    build_catalog(1, 1000, root / "cat")
    digest = Catalog.open(root / "cat").digest
    pack = new_pack(make_problems(), catalog_digest=digest, generator_version="test-1", embed=False)
    operator = load_keypair(key_uri="//ShopArenaTrustOperator")
    own = write_pack(pack.signed(operator), root / "own.json")
    dev = write_pack(pack.signed(load_keypair(key_uri="//Alice")), root / "alice.json")
    return root / "cat", own, dev, operator.ss58_address


def settings(catalog: Path, pack: Path, **more: object) -> object:
    return load_settings({"catalog": catalog, "pack": str(pack), **more}, env_file=None)


def test_the_pinned_operator_pack_is_raced(packs) -> None:
    catalog, own, _, operator = packs
    _, pack = open_pack(settings(catalog, own, pack_signer=operator))  # type: ignore[arg-type]
    assert pack.signer == operator


@pytest.mark.parametrize(
    ("which", "more", "fragments"),
    [
        ("own", {}, ["no signer is pinned", "--pack.signer"]),
        ("own", {"pack_signer": ALICE}, [f"not by the pinned signer {ALICE}"]),
        ("dev", {"pack_signer": ALICE}, ["public development key //Alice", "--pack.allow_dev_signer"]),
        ("dev", {}, ["public development key //Alice"]),
    ],
)
def test_an_untrusted_pack_is_refused_in_one_line(packs, which, more, fragments) -> None:
    catalog, own, dev, _ = packs
    with pytest.raises(NodeError) as excinfo:
        open_pack(settings(catalog, own if which == "own" else dev, **more))  # type: ignore[arg-type]
    message = str(excinfo.value)
    assert "\n" not in message and all(f in message for f in fragments), message


def test_the_dev_key_opt_in_still_needs_the_pin(packs) -> None:
    catalog, _, dev, operator = packs
    _, pack = open_pack(settings(catalog, dev, pack_signer=ALICE, pack_allow_dev_signer=True))  # type: ignore[arg-type]
    assert pack.signer == ALICE
    with pytest.raises(NodeError, match="not by the pinned signer"):
        open_pack(settings(catalog, dev, pack_signer=operator, pack_allow_dev_signer=True))  # type: ignore[arg-type]


def test_a_pinned_signer_that_is_not_an_address_is_a_settings_error(packs) -> None:
    catalog, own, _, _ = packs
    with pytest.raises(SettingsError) as excinfo:
        settings(catalog, own, pack_signer="operator-bob")
    assert excinfo.value.problems == [
        "--pack.signer (or ARENA_PACK_SIGNER): is not an ss58 address; give the arena "
        "operator's hotkey address (5...) (got 'operator-bob')"
    ]


@pytest.mark.slow  # runs arena-validator as a subprocess
def test_run_refuses_an_unpinned_pack_and_says_how_to_pin(packs, tmp_path: Path) -> None:
    catalog, own, dev, operator = packs
    chain = ["--chain", "localchain", "--localchain.path", str(tmp_path / "chain.sqlite")]
    wallets = ["--wallet.path", str(tmp_path / "wallets")]
    db = ["--database-url", f"sqlite:///{tmp_path / 'node.sqlite'}"]
    assert cli("db", "upgrade", *db, cwd=tmp_path).returncode == 0
    assert cli("localchain", "init", *chain[2:], cwd=tmp_path).returncode == 0
    assert (
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
        ).returncode
        == 0
    )
    node = ["--wallet.name", "val", *chain, *wallets, *db, "--catalog", str(catalog), "--api.port", "0"]
    for pack, extra, expected in (
        (own, [], "no signer is pinned"),
        (dev, ["--pack.signer", ALICE], "public development key //Alice"),
    ):
        done = cli("run", *node, "--pack", str(pack), *extra, cwd=tmp_path)
        errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
        assert done.returncode == 2 and len(errors) == 1 and expected in errors[0], done.stderr
    assert "--pack.allow_dev_signer" in cli("run", "--help", cwd=tmp_path, env={"COLUMNS": "200"}).stdout
    # `config check` says the same before the node starts, one line for the pack
    for extra, expected in (([], "fail pack     pack"), (["--pack.signer", operator], "ok   pack     pack-")):
        done = cli("config", "check", *node, "--pack", str(own), *extra, cwd=tmp_path, env={"COLUMNS": "400"})
        lines = [line for line in done.stdout.splitlines() if " pack " in line]
        assert len(lines) == 1 and lines[0].startswith(expected), done.stdout
        assert done.returncode == (0 if extra else 1)
