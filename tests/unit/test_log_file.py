"""--log.file: the node's log goes to stderr and to the file; once the janitor rotates the file away (renamed to
<file>.1), the next line goes to a new file of the same name, never into the rotated one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a Python process of its own (logging is configured once per process)

SCRIPT = """
import os, sys
from arena.log import get_logger, log_to_file
log_to_file(sys.argv[1])
log = get_logger("validator")
log.info("before.rotation")
os.replace(sys.argv[1], sys.argv[1] + ".1")
log.info("after.rotation")
"""


def test_a_rotated_log_file_is_reopened(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "node.log"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "before.rotation" in done.stderr and "after.rotation" in done.stderr
    rotated = path.with_name("node.log.1").read_text()
    assert "before.rotation" in rotated and "after.rotation" not in rotated
    assert "after.rotation" in path.read_text() and "before.rotation" not in path.read_text()
