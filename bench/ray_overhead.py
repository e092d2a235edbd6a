"""What one run costs the node over local dispatch when it goes to a Ray worker, one run at a time.

    python bench/ray_overhead.py --runs 12 --json ray_overhead.json

The offline template runs the same problems through the local dispatcher, then through `RayDispatcher` on a local Ray
cluster of one worker (a head and a worker, each its own `ray start`, as tests/support/ray_cluster.py starts them),
then locally again. For each run it takes the dispatcher's wall time less the sandbox's own (`elapsed_s`): what the
dispatch path adds to a run (for Ray: the call to the runner and its reply, the worker's gateway run, the result's
transfer). Runs go one at a time, so a race's queueing, judging and scoring are not in the figure (bench/race.py has
those). Prints medians; `--json FILE` writes ``{"local_ms": .., "ray_ms": .., "overhead_ms_per_run": ..,
"transport_ms": .., "runs": ..}`` (overhead: Ray's median less local's).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=12, help="runs per dispatcher")
    parser.add_argument("--json", type=Path, default=None, help="write the figures as JSON to FILE")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    from arena.catalog import Catalog
    from arena.problems.pack import load_pack
    from sandbox.backends import Limits
    from sandbox.backends.process import ProcessSandbox
    from sandbox.bundle import pack_dir, stage
    from sandbox.gateway import Budgets, Gateway, GatewayServer
    from tests.support.race import build_arena_inputs, write_agent
    from tests.support.ray_cluster import LocalRayCluster
    from validator.dispatch import Attempt
    from validator.dispatch.local import LocalDispatcher
    from validator.dispatch.ray import RayDispatcher

    root = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    os.chmod(root, 0o711)
    catalog_dir, pack_path, signer = build_arena_inputs(root / "arena", size=3000, problems=12, per_race=4)
    catalog = Catalog.open(catalog_dir)
    pack = load_pack(pack_path, catalog_digest=catalog.digest, trusted_signers={signer})
    agent = write_agent(root / "agent", "offline")
    sha256 = pack_dir(agent).sha256
    work = root / "work"
    work.mkdir(mode=0o711)
    staged = stage(work, sha256, agent)

    async def timed(dispatcher: Any, label: str) -> tuple[list[float], list[float]]:
        over, transport = [], []
        for i in range(args.runs):
            problem = pack.problems[i % len(pack.problems)]
            attempt = Attempt(
                f"b{i}-{time.time_ns()}", staged, sha256, work / "gw", problem, Limits(wall_seconds=60), Budgets()
            )
            began = time.perf_counter()
            outcome = await dispatcher.run(attempt)
            wall = (time.perf_counter() - began) * 1e3
            over.append(wall - outcome.result.elapsed_s * 1e3)
            facts = getattr(dispatcher, "last_facts", None) or {}
            if "run_ms" in facts:
                transport.append(wall - facts["run_ms"] - facts["setup_ms"])
            print(f"{label:12} run {i + 1}/{args.runs}: {wall:7.1f} ms wall, {over[-1]:5.1f} ms over the sandbox's own")
        return over, transport

    gateway = Gateway(catalog)
    server = GatewayServer(gateway, work / "gw" / "gateway.sock").start()
    local = LocalDispatcher(gateway, ProcessSandbox("bwrap"))
    try:
        local_over, _ = asyncio.run(timed(local, "local"))
        with LocalRayCluster(root / "ray-logs") as cluster:
            cluster.add_worker("w1", catalog_dir, cpus=1, memory_mb=1536)
            ray_dispatcher = RayDispatcher.connect(cluster.address, catalog_digest=catalog.digest, memory_mb=1024)
            ray_dispatcher.warm()
            ray_dispatcher.capacity(1)
            ray_over, transport = asyncio.run(timed(ray_dispatcher, "ray"))
            import ray

            ray.shutdown()
        local_over += asyncio.run(timed(local, "local again"))[0]
    finally:
        server.stop()
    figures = {
        "runs": args.runs,
        "local_ms": round(statistics.median(local_over), 2),
        "ray_ms": round(statistics.median(ray_over), 2),
        "overhead_ms_per_run": round(statistics.median(ray_over) - statistics.median(local_over), 2),
        "transport_ms": round(statistics.median(transport), 2) if transport else None,
    }
    print(
        f"local     {figures['local_ms']:.1f} ms a run over the sandbox's own (median of {2 * args.runs})\n"
        f"ray       {figures['ray_ms']:.1f} ms a run over the sandbox's own (median of {args.runs}); "
        f"{figures['overhead_ms_per_run']:+.1f} ms against local"
        + (f"; the call to the runner and back {figures['transport_ms']:.1f} ms" if transport else "")
    )
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
