"""The node keeps in memory the fingerprints of the bundles still on disk only: once the janitor removes a bundle's
folder, the next new bundle's fingerprinting forgets it (a node that sees new submissions for weeks would otherwise
hold a few hundred KiB for every bundle it ever saw: the soak's Python allocations grew by them)."""

from __future__ import annotations

import shutil
from pathlib import Path

from validator.submissions import similarity


def bundle(root: Path, name: str, body: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "agent.py").write_text(f"def agent_main(problem):\n    {body}\n    return {{'answer': []}}\n")
    return folder


def test_a_removed_bundle_is_forgotten_when_the_next_is_fingerprinted(tmp_path: Path) -> None:
    old = bundle(tmp_path, "a" * 64, "x = [i * 2 for i in range(10)]")
    kept = bundle(tmp_path, "b" * 64, "y = {'k': sorted(problem)}")
    first = similarity.cached_fingerprint(old)
    assert first.hashes and similarity.cached_fingerprint(kept).hashes
    assert {old, kept} <= set(similarity._MEMO)
    shutil.rmtree(old)  # the janitor's sweep of superseded bundles
    new = bundle(tmp_path, "c" * 64, "z = ' '.join(str(problem).split())")
    similarity.cached_fingerprint(new)
    assert old not in similarity._MEMO
    assert {kept, new} <= set(similarity._MEMO)
    assert similarity.cached_fingerprint(kept) is similarity._MEMO[kept]  # a bundle on disk is still served from memory
