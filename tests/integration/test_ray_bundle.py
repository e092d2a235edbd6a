"""A race's bundle is put in Ray's object store once (`RayDispatcher.bundle_ref`), though the race opening's thread
(staging ahead) and the runs on the event loop ask for it at once: whoever asks while it is being put waits for that
put. A put that fails is not kept: the next to ask tries again."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.race import write_agent

pytestmark = pytest.mark.slow  # a Ray instance of its own

ROOT = Path(__file__).resolve().parents[2]

# In a fresh interpreter: a Ray of the test's own, apart from any other of this process.
ASKERS = """
import hashlib, json, sys, threading
from pathlib import Path

import ray

from sandbox.bundle import BundleError, pack_dir
from validator.dispatch.ray import RayDispatcher

agent, later, ray_tmp = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
ray.init(num_cpus=1, include_dashboard=False, logging_level="ERROR", log_to_driver=False, _temp_dir=ray_tmp)
dispatcher = RayDispatcher(ray, "local", catalog_digest="sha256:0")
sha = pack_dir(agent).sha256
askers = 8
ready, refs = threading.Barrier(askers), [None] * askers

def ask(i):
    ready.wait()
    refs[i] = dispatcher.bundle_ref(sha, agent, None)  # no bytes as committed: each asker would pack it (0.1 s)

threads = [threading.Thread(target=ask, args=(i,)) for i in range(askers)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
whole = hashlib.sha256(ray.get(refs[0])).hexdigest() == sha
# a bundle whose folder is not there yet: the put fails, and is tried again once it is there
try:
    dispatcher.bundle_ref("f" * 64, later, None)
    failed = None
except (BundleError, OSError) as exc:
    failed = type(exc).__name__
later.mkdir()
(later / "agent.py").write_text((agent / "agent.py").read_text())
again = ray.get(dispatcher.bundle_ref("f" * 64, later, None)) == pack_dir(later).data
print(json.dumps({"puts": len({ref.hex() for ref in refs}), "whole": whole, "failed": failed, "again": again}))
ray.shutdown()
"""


def test_a_bundle_asked_for_at_once_is_put_once(tmp_path: Path) -> None:
    agent = write_agent(tmp_path / "agent", "offline")
    # a Ray of its own, its files in a short folder of its own (unix sockets are limited to 107 bytes); no token
    # auth, which a bare ray.init() turns on and writes to ~/.ray, where every later `ray start` of the user reads it
    ray_tmp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("RAY_")},
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path),
        "RAY_AUTH_MODE": "disabled",
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    try:
        done = subprocess.run(
            [sys.executable, "-c", ASKERS, str(agent), str(tmp_path / "later"), ray_tmp],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {"puts": 1, "whole": True, "failed": "BundleError", "again": True}
