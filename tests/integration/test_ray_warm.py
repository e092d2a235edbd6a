"""A Ray worker process readied for runs (`validator.dispatch.worker.warm`, what `RayDispatcher.warm` has every runner
do when the node starts) leaves its first run nothing to import: docs/cluster.md ("What a worker does") says the
run path's imports are paid when the node starts, not by a run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.race import build_arena_inputs, write_agent

pytestmark = pytest.mark.slow  # a Ray instance of its own and a run in bubblewrap

ROOT = Path(__file__).resolve().parents[2]

# Run in a fresh interpreter: this test process has imported most of the code base already.
FIRST_RUN = """
import json, sys
from pathlib import Path

import ray

from arena.problems.pack import load_pack
from sandbox.backends import Limits
from sandbox.gateway import Budgets, Upstream
from validator.dispatch import worker

catalog_digest, pack_path, signer, bundle_sha, bundle_path, ray_tmp = sys.argv[1:]
ray.init(num_cpus=1, include_dashboard=False, logging_level="ERROR", log_to_driver=False, _temp_dir=ray_tmp)
problem = load_pack(Path(pack_path), catalog_digest=catalog_digest, trusted_signers={signer}).problems[0]
warmed = worker.warm(catalog_digest, "process", None, Upstream())
assert warmed.refused is None, warmed.refused
before = set(sys.modules)
request = worker.RunRequest(
    "first", bundle_sha, problem, Limits(wall_seconds=60), Budgets(), catalog_digest, "process", None, Upstream()
)
reply = worker.execute(request, Path(bundle_path).read_bytes())
assert reply.refused is None and reply.outcome is not None, reply
print(json.dumps({"imported": sorted(set(sys.modules) - before), "code": reply.outcome.result.error_code,
                  "events": len(reply.outcome.events)}))
ray.shutdown()
"""


def test_a_warmed_worker_process_runs_its_first_run_with_nothing_left_to_import(tmp_path: Path) -> None:
    from arena.catalog import Catalog
    from sandbox.bundle import pack_dir

    os.chmod(tmp_path, 0o711)
    catalog_dir, pack_path, signer = build_arena_inputs(tmp_path / "arena", size=3000, problems=8, per_race=4)
    packed = pack_dir(write_agent(tmp_path / "agent", "offline"))
    bundle = tmp_path / "bundle.tar.gz"
    bundle.write_bytes(packed.data)
    # a Ray of its own, its files in a short folder of its own (unix sockets are limited to 107 bytes); no token
    # auth, which a bare ray.init() turns on and writes to ~/.ray, where every later `ray start` of the user reads it
    ray_tmp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("RAY_")},
        "ARENA_CATALOG": str(catalog_dir),
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path),
        "RAY_AUTH_MODE": "disabled",
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    args = [Catalog.open(catalog_dir).digest, str(pack_path), signer, packed.sha256, str(bundle), ray_tmp]
    try:
        done = subprocess.run(
            [sys.executable, "-c", FIRST_RUN, *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600
        )
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["code"] is None and found["events"] > 0  # the run really ran, and answered
    assert found["imported"] == []  # nothing the warm-up left for the run (staging's copy-check imports above all)
