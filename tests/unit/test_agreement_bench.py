"""`bench/agreement.py --json`: one row per setting with the keys the issue's readers rely on; today's lone validator
first; with pooling on, two honest validators' standings and weight vectors are byte-identical in every race."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEYS = {"policy", "problems", "attempts", "window", "validators", "r", "forged", "same_winner", "tv", "best_wins"}


@pytest.mark.slow  # the bench runs in its own process
def test_the_bench_writes_one_row_per_setting_and_pooled_validators_agree_byte_for_byte(tmp_path: Path) -> None:
    out = tmp_path / "rows.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "agreement.py"), "--races", "2", "--json", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text())
    assert all(KEYS | {"runs_per_validator"} <= set(row) for row in rows)
    first = rows[0]
    assert (first["policy"], first["problems"], first["attempts"], first["window"], first["validators"]) == (
        "top_heavy",
        8,
        1,
        1,
        1,
    )
    assert first["runs_per_validator"] == 128 and first["forged"] == 0
    pooled = [row for row in rows if row["validators"] > 1]
    assert pooled and all(row["identical"] == 1.0 and row["same_winner"] == 1.0 and row["tv"] == 0 for row in pooled)
    assert {row["runs_per_validator"] for row in pooled} == {128}  # every pooled setting at today's cost
    bad = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "agreement.py"), "--races", "0"], capture_output=True, text=True
    )
    assert bad.returncode != 0 and "--races must be at least 1" in bad.stderr
