"""A pack's qualifying round (`rotation.qualify_share`, `qualify_problems`): set by `arena problems pack`, signed with
the pack, and absent from what a pack signed before it existed signs (so such a pack verifies unchanged)."""

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


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
    )


def test_a_pack_signed_before_the_qualifying_round_existed_verifies_with_the_round_off(tmp_path, alice):
    pack = new_pack(make_problems(), catalog_digest=DIGEST, generator_version="t", embed=False)
    signed = pack.signed(alice)
    raw = signed.model_dump(mode="json")
    for key in ("qualify_share", "qualify_problems"):
        del raw["rotation"][key]  # as the code before the qualifying round wrote it
    (tmp_path / "old.json").write_text(json.dumps(raw))
    loaded = load_pack(tmp_path / "old.json", allow_dev_signer=True, trusted_signers={alice.ss58_address})
    assert loaded.rotation.qualify_share == 0.0


def test_the_qualifying_share_is_signed(tmp_path, alice):
    pack = new_pack(make_problems(), catalog_digest=DIGEST, generator_version="t", embed=False)
    rotation = pack.rotation.model_copy(update={"qualify_share": 0.95, "qualify_problems": 2})
    path = write_pack(pack.model_copy(update={"rotation": rotation}).signed(alice), tmp_path / "p.json")
    data = json.loads(path.read_text())
    data["rotation"]["qualify_share"] = 0.5  # an operator's share lowered after signing
    (tmp_path / "t.json").write_text(json.dumps(data))
    with pytest.raises(PackError, match="signature"):
        load_pack(tmp_path / "t.json", allow_dev_signer=True, trusted_signers={alice.ss58_address})


@pytest.mark.slow  # runs arena as a subprocess
def test_pack_command_sets_the_qualifying_round_and_refuses_one_without_public_problems(tmp_path):
    problems = make_problems()
    src = tmp_path / "in.json"
    write_pack(new_pack(problems, catalog_digest=DIGEST, generator_version="t", embed=False), src)
    out = tmp_path / "out.json"
    done = arena(
        "problems",
        "pack",
        str(src),
        "--out",
        str(out),
        "--key-uri",
        "//Alice",
        "--qualify.share",
        "0.95",
        "--qualify.problems",
        "2",
    )
    assert done.returncode == 0, done.stderr
    rotation = json.loads(arena("problems", "show", str(out), "--json").stdout)["rotation"]
    assert rotation["qualify_share"] == 0.95 and rotation["qualify_problems"] == 2
    shown = " ".join(arena("problems", "show", str(out)).stdout.split())
    assert "2 problems made fresh for each round; a submission races once it scores at least 0.95" in shown
    bad = arena(
        "problems",
        "pack",
        str(src),
        "--out",
        str(tmp_path / "x.json"),
        "--key-uri",
        "//Alice",
        "--qualify.share",
        "1.5",
    )
    assert bad.returncode != 0 and "qualify_share" in bad.stderr and "Traceback" not in bad.stderr
    no_public = tmp_path / "race-only.json"
    write_pack(
        new_pack(
            [p.model_copy(update={"split": "race"}) for p in problems],
            catalog_digest=DIGEST,
            generator_version="t",
            embed=False,
        ),
        no_public,
    )
    bad = arena(
        "problems",
        "pack",
        str(no_public),
        "--out",
        str(tmp_path / "y.json"),
        "--key-uri",
        "//Alice",
        "--qualify.share",
        "0.95",
    )
    assert bad.returncode != 0 and "needs public problems" in bad.stderr and "Traceback" not in bad.stderr
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "y.json").exists()
