"""A pack's rotation pins the code similarity threshold of the fork rule (`rotation.copy_similarity`, winning over
each validator's --copies.similarity, so pooled validators reach the same copy verdicts): signed only when set (a
pack signed before it verifies unchanged), set by `arena problems pack --copy-similarity`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from arena.copies import pinned_threshold
from arena.problems.pack import PackError, load_keypair, load_pack, new_pack, write_pack
from tests.unit.test_pack import DIGEST, make_problems


def test_the_threshold_is_signed_only_when_set_and_wins_over_the_setting(tmp_path):
    alice = load_keypair(key_uri="//Alice")
    pack = new_pack(make_problems(), catalog_digest=DIGEST, generator_version="t", embed=False)
    assert b"copy_similarity" not in pack.signed(alice).payload_bytes()
    assert pinned_threshold(pack, 0.8) == 0.8  # unset: the operator's
    rotation = pack.rotation.model_copy(update={"copy_similarity": 0.9})
    path = write_pack(pack.model_copy(update={"rotation": rotation}).signed(alice), tmp_path / "p.json")
    trusted = {alice.ss58_address}
    loaded = load_pack(path, allow_dev_signer=True, trusted_signers=trusted)
    assert loaded.rotation.copy_similarity == 0.9 and pinned_threshold(loaded, 0.7) == 0.9
    data = json.loads(path.read_text())
    data["rotation"]["copy_similarity"] = 0.99  # changed after signing
    (tmp_path / "t.json").write_text(json.dumps(data))
    with pytest.raises(PackError, match="signature"):
        load_pack(tmp_path / "t.json", allow_dev_signer=True, trusted_signers=trusted)


@pytest.mark.slow  # runs arena as a subprocess
def test_pack_command_sets_the_threshold_and_refuses_one_out_of_range(tmp_path):
    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        env = {"COLUMNS": "200", "PATH": "/usr/bin:/bin"}
        return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, env=env)

    src = write_pack(
        new_pack(make_problems(), catalog_digest=DIGEST, generator_version="t", embed=False), tmp_path / "i"
    )
    out = tmp_path / "out.json"
    done = arena("problems", "pack", str(src), "--out", str(out), "--key-uri", "//Alice", "--copy-similarity", "0.9")
    assert done.returncode == 0, done.stderr
    assert json.loads(arena("problems", "show", str(out), "--json").stdout)["rotation"]["copy_similarity"] == 0.9
    assert "copy_similarity 0.9" in " ".join(arena("problems", "show", str(out)).stdout.split())
    bad = arena(
        "problems",
        "pack",
        str(src),
        "--out",
        str(tmp_path / "b.json"),
        "--key-uri",
        "//Alice",
        "--copy-similarity",
        "2",
    )
    assert bad.returncode == 2 and not (tmp_path / "b.json").exists()
    assert bad.stderr.strip().count("\n") == 0 and "bad rotation: copy_similarity:" in bad.stderr
