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
