"""Agent bundles: deterministic packing, limits, and `arena-miner check`'s one line per problem."""

from __future__ import annotations

import io
import os
import tarfile

import pytest

from sandbox.bundle import MAX_PACKED, BundleError, check_dir, copy_dir, pack_dir, unpack

GOOD = "def agent_main(problem):\n    return {'ok': True}\n"


def write(folder, files):
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def test_packing_is_deterministic_and_round_trips(tmp_path):
    a = write(tmp_path / "a", {"agent.py": GOOD, "lib/util.py": "X = 1\n", "data.json": "{}"})
    first = pack_dir(a)
    os.utime(a / "agent.py", (1, 1))  # mtimes do not matter
    (a / "__pycache__").mkdir()
    (a / "__pycache__" / "junk.pyc").write_bytes(b"\0")  # caches are left out
    assert pack_dir(a).sha256 == first.sha256
    out = unpack(first.data, tmp_path / "out")
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == [
        "agent.py",
        "data.json",
        "lib/util.py",
    ]
    assert (out / "agent.py").stat().st_mode & 0o777 == 0o644


def test_copy_dir_copies_what_is_packed(tmp_path):
    a = write(tmp_path / "a", {"agent.py": GOOD, "lib/util.py": "X = 1\n", "lib/__pycache__/util.pyc": "junk"})
    b = write(tmp_path / "b", {"agent.py": "old\n", "notes.txt": "mine"})  # an existing folder: files replaced or kept
    assert copy_dir(a, b) == b
    assert sorted(str(p.relative_to(b)) for p in b.rglob("*") if p.is_file()) == [
        "agent.py",
        "lib/util.py",
        "notes.txt",
    ]
    assert (b / "agent.py").read_text() == GOOD
    assert pack_dir(copy_dir(a, tmp_path / "c")).sha256 == pack_dir(a).sha256


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"main.py": GOOD}, "agent.py is missing"),
        ({"agent.py": "def agent_main(problem:\n"}, "syntax error"),
        ({"agent.py": "def run(problem):\n    pass\n"}, "no top-level function agent_main"),
        ({"agent.py": "def agent_main():\n    pass\n"}, "exactly one argument"),
        ({"agent.py": "def agent_main(a, b):\n    pass\n"}, "exactly one argument"),
        ({"agent.py": "async def agent_main(p):\n    pass\n"}, "not async"),
        ({"agent.py": GOOD, "helper.py": "x = (\n"}, "helper.py:1: syntax error"),
    ],
)
def test_check_reports_each_problem(tmp_path, files, message):
    problems = check_dir(write(tmp_path / "b", files))
    assert any(message in p for p in problems), problems
    with pytest.raises(BundleError):
        pack_dir(tmp_path / "b")


def test_symlinks_fifos_and_size_limits(tmp_path):
    b = write(tmp_path / "b", {"agent.py": GOOD})
    (b / "link.py").symlink_to("/etc/passwd")
    os.mkfifo(b / "pipe")
    (b / "big.bin").write_bytes(os.urandom(11 * 2**20))
    problems = check_dir(b)
    assert any("link.py: symlinks" in p for p in problems)
    assert any("pipe: only regular files" in p for p in problems)
    assert any("unpacked; the limit" in p for p in problems)


def test_packed_size_limit(tmp_path):
    b = write(tmp_path / "b", {"agent.py": GOOD})
    (b / "noise.bin").write_bytes(os.urandom(MAX_PACKED + 1000))
    with pytest.raises(BundleError, match="packed; the limit"):
        pack_dir(b)


def _tar(members):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return raw.getvalue()


@pytest.mark.parametrize("name", ["../evil.py", "/etc/evil.py", "a/../../evil.py"])
def test_unpack_refuses_escaping_paths(tmp_path, name):
    info = tarfile.TarInfo(name)
    info.size = 1
    with pytest.raises(BundleError, match="absolute paths"):
        unpack(_tar([(info, b"x")]), tmp_path / "out")


@pytest.mark.parametrize("name", ["__pycache__/agent.cpython-312.pyc", ".git/core.txt", "lib/.venv/core.py"])
def test_unpack_refuses_the_folders_packing_skips(tmp_path, name):
    """check_dir and the copy check skip caches and tool folders, and `pack_dir` never packs them: a bundle holding
    one was made by hand to run code (an unchecked .pyc beside its source, a text file exec'd) nothing checks."""
    agent = tarfile.TarInfo("agent.py")
    agent.size = len(b"def agent_main(problem): pass\n")
    hidden = tarfile.TarInfo(name)
    hidden.size = 1
    with pytest.raises(BundleError, match="folders are never packed") as refused:
        unpack(_tar([(agent, b"def agent_main(problem): pass\n"), (hidden, b"x")]), tmp_path / "out")
    assert len(refused.value.problems) == 1 and refused.value.problems[0].startswith(name)


def test_unpack_refuses_links_and_garbage(tmp_path):
    link = tarfile.TarInfo("agent.py")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/shadow"
    with pytest.raises(BundleError, match="only regular files"):
        unpack(_tar([(link, None)]), tmp_path / "a")
    with pytest.raises(BundleError, match="not a readable"):
        unpack(b"not a tarball", tmp_path / "b")
