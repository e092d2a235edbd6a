"""A pack declares the ruleset its problems are scored by; the ruleset is signed with it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from arena.problems.pack import PackError, load_keypair, load_pack, new_pack, write_pack
from tests.unit.test_pack import DIGEST, make_problems


@pytest.fixture(scope="module")
def alice():
    return load_keypair(key_uri="//Alice")


def test_the_ruleset_is_kept_and_signed(tmp_path, alice):
    pack = new_pack(make_problems(), catalog_digest=DIGEST, generator_version="t", embed=False, ruleset="sn15")
    path = write_pack(pack.signed(alice), tmp_path / "p.json")
    loaded = load_pack(path, allow_dev_signer=True, trusted_signers={alice.ss58_address})
    assert loaded.ruleset == "sn15"
    # changing the ruleset (or dropping it, which means shoppingbench) breaks the signature
    for change in ({"ruleset": "shoppingbench"}, None):
        data = json.loads(path.read_text())
        if change is None:
            del data["ruleset"]
        else:
            data.update(change)
        tampered = tmp_path / "t.json"
        tampered.write_text(json.dumps(data))
        with pytest.raises(PackError, match="signature"):
            load_pack(tampered, allow_dev_signer=True, trusted_signers={alice.ss58_address})


def test_a_pack_signed_before_rulesets_existed_verifies_and_is_scored_by_shoppingbench(tmp_path, alice):
    pack = new_pack(make_problems(), catalog_digest=DIGEST, generator_version="t", embed=False)
    data = pack.model_dump(mode="json")
    del data["ruleset"]
    old = type(pack).model_validate(data)
    assert "ruleset" not in old.model_fields_set
    signed = old.signed(alice)
    raw = signed.model_dump(mode="json")
    del raw["ruleset"]  # as the old code wrote it
    (tmp_path / "old.json").write_text(json.dumps(raw))
    loaded = load_pack(tmp_path / "old.json", allow_dev_signer=True, trusted_signers={alice.ss58_address})
    assert loaded.ruleset == "shoppingbench"


def test_an_unknown_ruleset_is_one_clear_line(tmp_path):
    data = new_pack(make_problems(), catalog_digest=DIGEST, generator_version="t", embed=False).model_dump(mode="json")
    data["ruleset"] = "oro"
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(PackError, match="unknown ruleset 'oro'; use one of: shoppingbench, sn15"):
        load_pack(tmp_path / "bad.json", require_signature=False)


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
    )


@pytest.mark.slow  # runs arena as a subprocess
def test_pack_command_sets_the_ruleset_and_show_prints_it(tmp_path):
    src = tmp_path / "in.json"
    write_pack(new_pack(make_problems(), catalog_digest=DIGEST, generator_version="t", embed=False), src)
    out = tmp_path / "out.json"
    done = arena("problems", "pack", str(src), "--out", str(out), "--key-uri", "//Alice", "--ruleset", "sn15")
    assert done.returncode == 0, done.stderr
    shown = arena("problems", "show", str(out), "--json")
    assert json.loads(shown.stdout)["ruleset"] == "sn15"
    bad = arena(
        "problems", "pack", str(src), "--out", str(tmp_path / "x.json"), "--key-uri", "//Alice", "--ruleset", "oro"
    )
    assert bad.returncode != 0 and "unknown ruleset 'oro'" in bad.stderr and "Traceback" not in bad.stderr
    assert not (tmp_path / "x.json").exists()
