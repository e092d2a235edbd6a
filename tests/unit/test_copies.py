"""Copies by code: every kind of copy a miner makes of the offline template to earn without the work is judged a
copy, and no two honestly different agents (the templates, the demo's and the test suite's agents) are."""

from __future__ import annotations

import importlib
import itertools
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from arena.copies import COPY_THRESHOLD, Fingerprint, fingerprint_files
from tests.support.copy_variants import TEMPLATE, VARIANTS, write_variants
from validator.submissions.similarity import TEMPLATES, compare, fingerprint_path

ROOT = Path(__file__).resolve().parents[2]

#: Honest agents the test suite and the demo carry, by module and constant (each a whole agent.py).
SUITE_AGENTS = {
    "demo.agents": ["HOSTILE_AGENT"],
    "tests.support.mock_family": ["AGENT"],
    "tests.integration.test_task_families": ["BASELINE"],
    "tests.integration.test_compatibility_race": ["POPULAR"],
    "tests.integration.test_sn15_race": ["SPOOFER"],
    "tests.integration.test_verdict": ["ASKS_THE_LLM"],
    "tests.integration.test_sn15": ["SEARCH_ONLY", "SPOOFED"],
    "tests.integration.test_blame": ["SPENDER_AGENT", "NUL_AGENT"],
    "tests.integration.test_submissions": ["AGENT_A", "AGENT_OTHER"],
    "tests.integration.test_llm_model": ["ECHO_MODEL"],
    "tests.e2e.test_miner_sn15": ["TORCH_AGENT"],
}


@pytest.fixture(scope="module")
def template() -> Fingerprint:
    return fingerprint_path(TEMPLATE)


@pytest.mark.parametrize("kind", list(VARIANTS))
def test_every_kind_of_copy_of_the_template_is_a_copy(kind: str, template: Fingerprint, tmp_path: Path) -> None:
    folder = write_variants(tmp_path)[kind]
    for path in folder.rglob("*.py"):  # each variant is still a working agent's source
        compile(path.read_text(), str(path), "exec")
    verdict = compare(template, fingerprint_path(folder), names=("template:offline", kind))
    assert verdict.copy_, verdict
    assert verdict.similarity >= COPY_THRESHOLD and verdict.threshold == COPY_THRESHOLD and not verdict.notes


def honest_agents() -> dict[str, Fingerprint]:
    agents = {name: fingerprint_path(folder) for name, folder in TEMPLATES.items()}
    for module, names in SUITE_AGENTS.items():
        loaded = importlib.import_module(module)
        for name in names:
            agents[f"{module}.{name}"] = fingerprint_files({"agent.py": getattr(loaded, name).encode()})
    return agents


def test_no_two_honestly_different_agents_are_copies() -> None:
    agents = honest_agents()
    compared = [a for a in agents.values() if len(a.hashes) >= 40]
    assert len(agents) >= 15 and len(compared) >= 10
    for (x, a), (y, b) in itertools.combinations(agents.items(), 2):
        assert not compare(a, b, names=(x, y)).copy_, (x, y)


def test_a_fork_that_keeps_the_template_and_adds_its_own_is_similar(template: Fingerprint, tmp_path: Path) -> None:
    """A fork that adds as much code again as the template holds stays similar: it earns only by beating the
    template beyond noise; a fork that keeps a tenth of it is its own agent."""
    fork = write_variants(tmp_path)["identical"]
    (fork / "mine.py").write_text((ROOT / "miner_template" / "llm" / "agent.py").read_text() * 3)
    assert compare(template, fingerprint_path(fork)).copy_
    small = tmp_path / "small"
    small.mkdir()
    (small / "agent.py").write_text((TEMPLATE / "baseline" / "text.py").read_text())
    assert not compare(template, fingerprint_path(small)).copy_


def test_bad_input_is_compared_on_what_can_be_read_and_said(template: Fingerprint, tmp_path: Path) -> None:
    bundle = write_variants(tmp_path)["identical"]
    (bundle / "blob.py").write_bytes(b"\x00\x01\xff" * 1000)  # binary
    (bundle / "latin.py").write_bytes("caf\xe9 = 1\n".encode("latin-1"))  # not UTF-8
    (bundle / "notes.txt").write_text("not Python")  # read as any text is, said nothing about
    verdict = compare(template, fingerprint_path(bundle))
    assert verdict.copy_
    said = " ".join(verdict.notes)
    assert "blob.py: binary; its readable runs read (0 bytes)" in said and "latin.py: not UTF-8" in said
    assert "notes.txt" not in said

    archive = tmp_path / "junk.tar.gz"
    archive.write_bytes(os.urandom(2000))
    junk = compare(template, fingerprint_path(archive), names=("template", "junk"))
    assert not junk.copy_ and junk.similarity == 0 and "not a readable bundle" in junk.notes[0]
    nothing = tmp_path / "empty"
    nothing.mkdir()
    (nothing / "README").write_text("hi")
    (nothing / "weights.bin").write_bytes(bytes(range(128, 256)) * 8)
    assert fingerprint_path(nothing).notes == (
        "weights.bin: binary; its readable runs read (0 bytes)",
        "no text to compare",
    )


def test_a_bundle_archive_compares_as_its_folder(template: Fingerprint, tmp_path: Path) -> None:
    folder = write_variants(tmp_path)["folder_renamed"]
    archive = tmp_path / "bundle.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for path in sorted(folder.rglob("*.py")):
            tar.add(path, arcname=path.relative_to(folder).as_posix())
    assert fingerprint_path(archive) == fingerprint_path(folder)


@pytest.mark.slow  # fresh interpreters
def test_fingerprints_are_the_same_in_every_process() -> None:
    """Pooled validators reach one verdict: the fingerprints do not depend on the process's hash seed."""
    code = (
        "import json; from validator.submissions.similarity import fingerprint_path as f; "
        f"print(json.dumps(f({str(TEMPLATE)!r}).hashes[:50] + f({str(TEMPLATE)!r}).hashes[-50:]))"
    )
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", code],
                env={**os.environ, "PYTHONHASHSEED": seed},
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for seed in ("1", "2")
    ]
    assert runs[0] == runs[1] and len(runs[0]) == 100


@pytest.mark.slow  # our CLI as a miner runs it
def test_submissions_compare_says_whether_a_later_agent_is_a_copy(tmp_path: Path) -> None:
    exe = str(Path(sys.executable).parent / "arena-validator")
    variants = write_variants(tmp_path / "v")
    report = tmp_path / "verdict.json"

    def compare_cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([exe, "submissions", "compare", *args], capture_output=True, text=True, check=False)

    done = compare_cli(str(TEMPLATE), str(variants["functions_reordered"]), "--json", str(report))
    assert done.returncode == 0 and done.stdout.startswith("copy:"), done.stdout + done.stderr
    found = json.loads(report.read_text())
    assert found["copy"] is True and COPY_THRESHOLD <= found["similarity"] < 1
    done = compare_cli(str(TEMPLATE), str(ROOT / "miner_template" / "sn15" / "agent.py"), "--json", str(report))
    assert done.stdout.startswith("not a copy") and json.loads(report.read_text())["copy"] is False
    done = compare_cli(str(TEMPLATE), str(tmp_path / "missing"))
    assert done.returncode == 2 and "no such file or folder" in done.stderr and not done.stdout
