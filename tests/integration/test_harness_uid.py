"""Under gVisor the agent's process takes a uid of its own before any of its code runs (`spawn.fork_agent`;
docs/validator.md, "gVisor"). A harness that cannot give it one ends its run as its own fault (2001, no agent code
ran), never as the agent's outcome. The harness is the real one, staged as the process sandbox stages it, given the
environment the Docker backend gives it under gVisor, but started as uid 65534 with CAP_KILL alone instead of root with
CAP_SETUID and CAP_SETGID too (``setpriv``), so the agent's process may not leave that uid."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from arena import blame
from sandbox.backends import harness_input, result_from_report
from sandbox.backends.docker import GVISOR_HARNESS
from sandbox.env import sandbox_python, staged_runtime


def test_an_agents_process_that_cannot_take_its_uid_is_the_harness_fault_not_the_agents(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text("def agent_main(problem):\n    return {'ran': 1}\n")
    harness, sdk = staged_runtime()
    payload = {
        "problem": {"problem_id": "p", "query": "lamp"},
        "token": "t",
        "timeout": 30,
        "socket": str(tmp_path / "gateway.sock"),
        "agent_dir": str(tmp_path),
        "sdk_dir": str(sdk),
        "max_output": 65536,
        "model": None,
        "killed": [],
    }
    setpriv = shutil.which("setpriv")
    assert setpriv, "setpriv (util-linux) is needed: apt-get install -y util-linux"
    as_nobody = [
        "--reuid",
        "65534",
        "--regid",
        "65534",
        "--clear-groups",
        "--inh-caps=-all,+kill",
        "--ambient-caps=+kill",
    ]
    done = subprocess.run(
        [setpriv, *as_nobody, sandbox_python(), "-I", "-S", str(harness / "start.py"), "0"],  # "0": any free port
        input=harness_input(payload),
        capture_output=True,
        env={"PATH": "/usr/bin:/bin", **GVISOR_HARNESS["environment"]},
        check=False,
    )
    result = result_from_report(
        done.stdout.decode(),
        done.stderr.decode(),
        done.returncode,
        0.0,
        timed_out=False,
        oom=False,
        limit=65536,
        backend="process-bare",
    )
    assert (result.status, result.error_code) == ("harness_fault", blame.SANDBOX_FAILED), (result.error, done.stderr)
    assert result.error == "the agent's process ended before it ran as its own uid; no agent code ran"
