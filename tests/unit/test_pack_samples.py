"""A pack's samples, window and sharding (`rotation.samples`, `window`, `shard_r`): signed with the pack, absent from
what a pack signed before them signs (so such a pack verifies unchanged, raced as before: one sample, a window of one
race, no sharding), and a sharding that would leave runs unchecked refused in one line."""

from __future__ import annotations

import json

import pytest

from arena.problems.pack import PackError, Rotation, load_keypair, load_pack, new_pack, write_pack
from tests.unit.test_pack import DIGEST, make_problems


@pytest.fixture(scope="module")
def alice():
    return load_keypair(key_uri="//Alice")


def test_a_pack_signed_before_samples_existed_verifies_and_races_as_before(tmp_path, alice):
    signed = new_pack(make_problems(), catalog_digest=DIGEST, generator_version="t", embed=False).signed(alice)
    raw = signed.model_dump(mode="json")
    for key in ("samples", "window", "shard_r"):
        del raw["rotation"][key]  # as the code before them wrote it
    (tmp_path / "old.json").write_text(json.dumps(raw))
    loaded = load_pack(tmp_path / "old.json", allow_dev_signer=True, trusted_signers={alice.ss58_address})
    assert (loaded.rotation.samples, loaded.rotation.window, loaded.rotation.shard_r) == (1, 1, 0)


def test_samples_window_and_sharding_are_signed(tmp_path, alice):
    pack = new_pack(make_problems(), catalog_digest=DIGEST, generator_version="t", embed=False)
    rotation = pack.rotation.model_copy(update={"samples": 4, "window": 3, "shard_r": 2})
    path = write_pack(pack.model_copy(update={"rotation": rotation}).signed(alice), tmp_path / "p.json")
    assert load_pack(path, allow_dev_signer=True, trusted_signers={alice.ss58_address}).rotation.samples == 4
    for key, value in (("samples", 1), ("window", 1), ("shard_r", 0)):
        data = json.loads(path.read_text())
        data["rotation"][key] = value  # an operator's setting changed after signing
        (tmp_path / "t.json").write_text(json.dumps(data))
        with pytest.raises(PackError, match="signature"):
            load_pack(tmp_path / "t.json", allow_dev_signer=True, trusted_signers={alice.ss58_address})


def test_sharding_to_one_validator_is_refused_with_what_to_give_instead():
    with pytest.raises(ValueError, match="shard_r 1 would leave every run unchecked; give 0"):
        Rotation(shard_r=1)
    with pytest.raises(ValueError, match="samples"):
        Rotation(samples=0)


@pytest.mark.slow  # runs arena as a subprocess
def test_pack_command_sets_samples_window_and_sharding_and_refuses_r_1(tmp_path):
    import subprocess
    import sys

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        env = {"COLUMNS": "200", "PATH": "/usr/bin:/bin"}
        return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, env=env)

    src = write_pack(
        new_pack(make_problems(), catalog_digest=DIGEST, generator_version="t", embed=False), tmp_path / "i"
    )
    out = tmp_path / "out.json"
    done = arena(
        "problems",
        "pack",
        str(src),
        "--out",
        str(out),
        "--key-uri",
        "//Alice",
        "--samples",
        "4",
        "--window",
        "3",
        "--shard-r",
        "2",
    )
    assert done.returncode == 0, done.stderr
    rotation = json.loads(arena("problems", "show", str(out), "--json").stdout)["rotation"]
    assert (rotation["samples"], rotation["window"], rotation["shard_r"]) == (4, 3, 2)
    shown = " ".join(arena("problems", "show", str(out)).stdout.split())
    assert "4 per (miner, problem) a race; standings over the last 3 race(s); each run by 2 validators" in shown
    bad = arena(
        "problems", "pack", str(src), "--out", str(tmp_path / "bad.json"), "--key-uri", "//Alice", "--shard-r", "1"
    )
    assert bad.returncode == 2 and not (tmp_path / "bad.json").exists()
    assert (
        bad.stderr.strip().count("\n") == 0 and "bad rotation: shard_r 1 would leave every run unchecked" in bad.stderr
    )
