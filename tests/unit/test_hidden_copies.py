"""Copies of the offline template that hide its code from a check that reads only ``*.py`` files
(`tests/support/hidden_copies.py`): each must earn no more than the honest template it copies. The code in a text
file or in string literals is read as code; padding past the reading budget is refused at verification
(`sandbox.bundle.check_dir`), and so are the formats Python loads code from that no reading sees into; code decoded
at run time is no code evidence, and is a copy by behaviour (the same calls and answers as the template)."""

from __future__ import annotations

import gzip
import io
import zipfile
from pathlib import Path

import pytest

from arena.copies import COPY_THRESHOLD
from arena.copies.fingerprint import BUNDLE_CAP
from arena.weights import compute_weights
from sandbox.bundle import BundleError, check_dir, pack_dir
from tests.support.copy_variants import read_bundle, write_bundle
from tests.support.hidden_copies import TEMPLATE, write_hidden
from tests.unit.test_fork_rule import POLICY, honest_calls, result
from validator.pool.copies import find_copies
from validator.submissions.similarity import compare, fingerprint_path


@pytest.fixture(scope="module")
def hidden(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_hidden(tmp_path_factory.mktemp("hidden"))


def race_against_the_template(copy: Path) -> tuple[dict[int, float], list]:
    """The honest miner races the template (committed first), the hostile one ``copy`` with the same calls and
    answers and a score a hair above within noise: (weights by uid 1 honest, 2 hostile; the verdicts). The template
    raced is a copy of the repository's beside ``copy`` (a stored bundle's fingerprint is cached beside it)."""
    honest = copy.parent / f"{copy.name}-template"
    if not honest.is_dir():
        write_bundle(read_bundle(TEMPLATE), honest)
    folders = {"honest-sha": honest, "copy-sha": copy}
    runs = [
        {"miner": miner, "submission": sha, "problem_id": p, "behaviour": honest_calls(p)}
        for miner, sha in (("honest", "honest-sha"), ("hostile", "copy-sha"))
        for p in ("p1", "p2", "p3")
    ]
    kept, verdicts = find_copies([result("honest", 0.50, 10), result("hostile", 0.56, 11)], runs, folders.get)
    return compute_weights(kept, {"honest": 1, "hostile": 2}, POLICY), verdicts


def test_code_moved_into_a_text_file_reads_as_the_template_and_earns_nothing(hidden: dict[str, Path]) -> None:
    folder = hidden["code_in_text"]
    assert not list(folder.rglob("*.py"))[1:] and check_dir(folder) == []  # a valid bundle: only agent.py is .py
    figure = compare(fingerprint_path(TEMPLATE), fingerprint_path(folder))
    assert figure.copy_ and figure.similarity >= 0.99 and not figure.notes
    weights, (verdict,) = race_against_the_template(folder)
    assert verdict.copy_ and verdict.kind == "code" and verdict.copy_of == "honest"
    assert weights[1] > 0 and weights.get(2, 0.0) == 0.0


def test_code_kept_in_string_literals_reads_as_the_template_and_earns_nothing(hidden: dict[str, Path]) -> None:
    folder = hidden["code_in_strings"]
    assert [p.name for p in folder.iterdir()] == ["agent.py"] and check_dir(folder) == []
    figure = compare(fingerprint_path(TEMPLATE), fingerprint_path(folder))
    assert figure.copy_ and figure.similarity >= 0.99
    weights, (verdict,) = race_against_the_template(folder)
    assert verdict.copy_ and weights.get(2, 0.0) == 0.0  # by code 0.999, by behaviour 1.0: the higher is named


def test_padding_past_the_reading_budget_is_refused_in_one_line(hidden: dict[str, Path]) -> None:
    problems = check_dir(hidden["behind_padding"])
    assert len(problems) == 1 and f"the limit is {BUNDLE_CAP:,}" in problems[0], problems
    with pytest.raises(BundleError):  # never accepted, so never raced
        pack_dir(hidden["behind_padding"])


def test_binary_padding_costs_no_budget_and_the_template_behind_it_is_read(tmp_path: Path) -> None:
    files = {f"aaa_padding/{n:02d}.bin": "\0" * (BUNDLE_CAP // 4) for n in range(5)}
    folder = write_bundle({**files, **read_bundle(TEMPLATE)}, tmp_path / "zeros")
    assert check_dir(folder) == []
    weights, (verdict,) = race_against_the_template(folder)
    assert verdict.copy_ and verdict.kind == "code" and weights.get(2, 0.0) == 0.0


def test_code_formats_no_reading_sees_into_are_refused_one_line_each(tmp_path: Path) -> None:
    folder = write_bundle(read_bundle(TEMPLATE), tmp_path / "formats")
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("core.py", (TEMPLATE / "agent.py").read_text())
    (folder / "lib.zip").write_bytes(zipped.getvalue())
    (folder / "data.dat").write_bytes(zipped.getvalue())  # a zip by any other name: zipimport loads it
    (folder / "blob.bin").write_bytes(gzip.compress(b"x" * 1000))
    (folder / "cached.pyc").write_bytes(b"\xa7\r\r\n" + bytes(12) + b"\xe3" + bytes(40))
    (folder / "native.so").write_bytes(b"\x7fELF" + bytes(60))
    (folder / "table.npy").write_bytes(b"\x93NUMPY\x01\x00v\x00" + bytes(200))  # honest binary data: allowed
    problems = check_dir(folder)
    assert sorted(p.split(":")[0] for p in problems) == ["blob.bin", "cached.pyc", "data.dat", "lib.zip", "native.so"]
    assert "native.so: a native library;" in " ".join(problems) and "data.dat: an archive;" in " ".join(problems)


def test_code_decoded_at_run_time_is_no_code_evidence_but_a_copy_by_behaviour(hidden: dict[str, Path]) -> None:
    folder = hidden["base64_data"]
    assert check_dir(folder) == []
    assert compare(fingerprint_path(TEMPLATE), fingerprint_path(folder)).similarity < COPY_THRESHOLD
    weights, (verdict,) = race_against_the_template(folder)
    assert verdict.copy_ and verdict.kind == "behaviour" and verdict.problems == ("p1", "p2", "p3")
    assert weights[1] > 0 and weights.get(2, 0.0) == 0.0
