"""A pack's rotation says who pays for agents' LLM calls (`rotation.payer`, winning over each validator's
--gateway.payer): signed only when set (a pack signed before it verifies unchanged), and set by `arena problems pack
--payer` (docs/validator.md, "Who pays for inference")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from arena.problems.pack import PackError, load_keypair, load_pack, new_pack, write_pack
from tests.unit.test_pack import DIGEST, make_problems


def test_the_payer_is_signed_only_when_set(tmp_path):
    alice = load_keypair(key_uri="//Alice")
    pack = new_pack(make_problems(), catalog_digest=DIGEST, generator_version="t", embed=False)
    unset = pack.signed(alice)
    assert b"payer" not in unset.payload_bytes()  # what a pack signed before the setting existed signs
    rotation = pack.rotation.model_copy(update={"payer": "miner"})
    path = write_pack(pack.model_copy(update={"rotation": rotation}).signed(alice), tmp_path / "p.json")
    trusted = {alice.ss58_address}
    assert load_pack(path, allow_dev_signer=True, trusted_signers=trusted).rotation.payer == "miner"
    data = json.loads(path.read_text())
    data["rotation"]["payer"] = "validator"  # changed after signing
    (tmp_path / "t.json").write_text(json.dumps(data))
    with pytest.raises(PackError, match="signature"):
        load_pack(tmp_path / "t.json", allow_dev_signer=True, trusted_signers=trusted)


@pytest.mark.slow  # runs arena as a subprocess
def test_pack_command_sets_the_payer_and_refuses_anyone_else(tmp_path):
    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        env = {"COLUMNS": "200", "PATH": "/usr/bin:/bin"}
        return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, env=env)

    src = write_pack(
        new_pack(make_problems(), catalog_digest=DIGEST, generator_version="t", embed=False), tmp_path / "i"
    )
    out = tmp_path / "out.json"
    done = arena("problems", "pack", str(src), "--out", str(out), "--key-uri", "//Alice", "--payer", "either")
    assert done.returncode == 0, done.stderr
    assert json.loads(arena("problems", "show", str(out), "--json").stdout)["rotation"]["payer"] == "either"
    assert "payer either" in " ".join(arena("problems", "show", str(out)).stdout.split())
    bad = arena(
        "problems", "pack", str(src), "--out", str(tmp_path / "b.json"), "--key-uri", "//Alice", "--payer", "me"
    )
    assert bad.returncode == 2 and not (tmp_path / "b.json").exists()
    assert bad.stderr.strip().count("\n") == 0 and "bad rotation: payer:" in bad.stderr
