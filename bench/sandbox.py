"""Sandbox benchmark (prints figures; asserts nothing). Run as root (the process sandbox drops to uid 65534).

    python bench/sandbox.py [--runs 20] [--calls 300] [--runtime runsc] [--json FILE]

Rows:
- start to ``agent_main``: from the backend's ``run()`` to the first line of the agent (a timestamp it reports), for
  the bubblewrap process sandbox and for Docker (needs a Docker engine: bash scripts/dockerd start), each with the
  seccomp allowlist (`sandbox.seccomp`) and without it (what the profile costs); with ``--runtime``, Docker under
  that runtime too (runsc: gVisor);
- the syscall probe (tests/support/hostile/syscall_probe.py): how many of its 16 calls reach the kernel, per sandbox;
- tool round trip from inside the sandbox (agent -> 127.0.0.1:8080 forwarder -> gateway socket -> tool), p50/p95,
  and the tool's own share (its time at the gateway, the trajectory's ``duration_ms``);
- gateway calls per second on the socket from the host, one client;
- runs per hour of a no-op agent at concurrency 2, 4 and 8 (``--no-rates`` skips them).

``--json FILE`` writes ``{"start_ms": {"bwrap": {"p50", "p95"}, "bwrap_no_seccomp": ..., "docker": ...,
"docker_no_seccomp": ...}, "round_trip_ms": {"p50", "p95", "tool_p50"}, "probe_reached": {...},
"gateway_calls_per_s": .., "noop_runs_per_hour": {...}, "load": [at the start, at the end]}`` (the 1-minute load
average: on a shared machine the start figures are mostly the load's; compare commits back to back).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.catalog import Catalog  # noqa: E402
from arena.catalog.build import build_catalog  # noqa: E402
from sandbox.backends import Limits  # noqa: E402
from sandbox.backends.process import ProcessSandbox  # noqa: E402
from sandbox.bundle import pack_dir, unpack  # noqa: E402
from sandbox.gateway import Budgets, Gateway, GatewayServer  # noqa: E402
from sandbox.run import run_one  # noqa: E402

PROBE = """
import time
T0 = time.time()
def agent_main(problem):
    from arena_agent import tools
    started = time.time()
    laps = []
    for _ in range({calls}):
        t = time.perf_counter()
        tools.find_product(q="cotton shirt")
        laps.append((time.perf_counter() - t) * 1000)
    return {{"entered": started, "imported": T0, "laps": laps}}
"""
NOOP = "def agent_main(problem):\n    return None\n"
PROBE_AGENT = ROOT / "tests" / "support" / "hostile" / "syscall_probe.py"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def agent(work: Path, name: str, code: str) -> Path:
    src = work / f"src-{name}"
    src.mkdir()
    (src / "agent.py").write_text(textwrap.dedent(code))
    return unpack(pack_dir(src).data, work / f"agent-{name}")


def gateway_rate(gateway: Gateway, socket_path: Path, budgets: Budgets, calls: int) -> float:
    """Tool calls per second on the gateway's socket from one host client (view_product_information)."""
    handle = gateway.open_run("host-client", budgets)
    with httpx.Client(
        transport=httpx.HTTPTransport(uds=str(socket_path)),
        base_url="http://gw",
        headers={"Authorization": f"Bearer {handle.token}"},
    ) as client:
        for _ in range(20):
            client.post("/tools/view_product_information", json={"product_ids": "1"})
        t = time.perf_counter()
        for _ in range(calls):
            client.post("/tools/view_product_information", json={"product_ids": "1"})
        rate = calls / (time.perf_counter() - t)
    gateway.close_run("host-client")
    return rate


async def noop_rate(
    gateway: Gateway, sandbox: Any, noop: Path, gw: Path, problem: dict[str, Any], concurrency: int, total: int
) -> float:
    """Runs per hour of the no-op agent, `total` runs `concurrency` at a time."""
    sem = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with sem:
            await run_one(
                gateway, sandbox, noop, gw, problem, limits=Limits(wall_seconds=30), run_id=f"noop-{concurrency}-{i}"
            )

    t = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(total)))
    return total / (time.perf_counter() - t) * 3600


def _spread(values: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(values), 2), "p95": round(pct(values, 0.95), 2)}


def _backends(args: argparse.Namespace) -> dict[str, Any]:
    """The sandboxes measured, by row name: bubblewrap and Docker, each with and without the seccomp profile."""
    out: dict[str, Any] = {"bwrap": ProcessSandbox("bwrap"), "bwrap_no_seccomp": ProcessSandbox("bwrap", seccomp=False)}
    if args.no_docker:
        return out
    from sandbox.backends.docker import DockerSandbox
    from sandbox.image.build import build_image

    build_image(log=lambda m: None)
    out["docker"], out["docker_no_seccomp"] = DockerSandbox(), DockerSandbox(seccomp=False)
    if args.runtime:
        out[f"docker_{args.runtime}"] = DockerSandbox(runtime=args.runtime)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20, help="probe runs per sandbox (Docker: half, at least 5)")
    parser.add_argument("--calls", type=int, default=300, help="gateway calls for the host-client row")
    parser.add_argument("--runtime", default=None, help="also Docker under this OCI runtime (runsc: gVisor)")
    parser.add_argument("--no-docker", action="store_true", help="bubblewrap rows only")
    parser.add_argument("--no-rates", action="store_true", help="skip the no-op runs-per-hour rows")
    parser.add_argument("--json", type=Path, default=None, help="write the figures to this file")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-sbx-"))
    os.chmod(work, 0o711)
    build_catalog(1, 20_000, work / "cat")
    catalog = Catalog.open(work / "cat")
    gateway = Gateway(catalog)
    problem = {"problem_id": "bench", "task": "product", "query": "cotton shirt", "n_products": 1}
    budgets = Budgets(tool_calls=100_000, requests_per_second=100_000, burst=100_000)
    figures: dict[str, Any] = {"start_ms": {}, "probe_reached": {}, "load": [round(os.getloadavg()[0], 2)]}
    backends = _backends(args)
    with GatewayServer(gateway, work / "gw" / "gateway.sock") as server:
        probe = agent(work, "probe", PROBE.format(calls=20))
        cpu: dict[str, float] = {}
        tool_ms: dict[str, list[float]] = {}  # the tool's own time at the gateway (the trajectory's duration_ms)
        syscalls = agent(work, "syscalls", PROBE_AGENT.read_text())

        def probe_runs(backend, runs: int, prefix: str) -> tuple[list[float], list[float]]:  # type: ignore[no-untyped-def]
            """Start-to-agent_main times (ms) and in-sandbox tool round trips (ms) over ``runs`` probe runs; the
            CPU the process sandbox's whole tree spent per run in ``cpu`` (a figure the machine's load moves less)."""
            starts, laps = [], []
            tool_ms[prefix] = []
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            for i in range(runs):
                t0 = time.time()
                outcome = asyncio.run(
                    run_one(gateway, backend, probe, work / "gw", problem, budgets=budgets, run_id=f"{prefix}{i}")
                )
                if outcome.result.status != "ok":
                    raise SystemExit(f"{prefix} failed: {outcome.result.status} {outcome.result.error}")
                starts.append((outcome.result.returned["entered"] - t0) * 1000)
                laps += outcome.result.returned["laps"]
                tool_ms[prefix] += [e.duration_ms for e in outcome.events if e.name == "find_product"]
            now = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[prefix] = (now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime) * 1000 / runs
            return starts, laps

        for name, backend in backends.items():
            runs = args.runs if name.startswith("bwrap") else max(5, args.runs // 2)
            probe_runs(backend, 1, f"warm-{name}")  # the staged runtime, the image's first start
            starts, laps = probe_runs(backend, runs, f"probe-{name}")
            figures["start_ms"][name] = _spread(starts)
            cpu_note = ""
            if name.startswith("bwrap"):  # Docker's CPU is the engine's, not this process's children's
                figures.setdefault("run_cpu_ms", {})[name] = round(cpu[f"probe-{name}"], 1)
                cpu_note = f", {cpu[f'probe-{name}']:.0f} ms of CPU a run (20 tool calls included)"
            print(
                f"{name}: start to agent_main p50 {statistics.median(starts):.0f} ms, "
                f"p95 {pct(starts, 0.95):.0f} ms over {runs} runs{cpu_note}"
            )
            if name == "bwrap":
                own = tool_ms[f"probe-{name}"]
                figures["round_trip_ms"] = {**_spread(laps), "tool_p50": round(statistics.median(own), 2)}
                print(
                    f"tool round trip from inside the sandbox: p50 {statistics.median(laps):.2f} ms, "
                    f"p95 {pct(laps, 0.95):.2f} ms over {len(laps)} find_product calls (the tool itself: p50 "
                    f"{statistics.median(own):.2f} ms)"
                )
            seen = asyncio.run(run_one(gateway, backend, syscalls, work / "gw", problem, run_id=f"sys-{name}"))
            reached = (seen.result.returned or {}).get("reached", ["?"])
            figures["probe_reached"][name] = len(reached)
            print(f"{name}: syscall probe, {len(reached)} of 16 reach the kernel ({', '.join(reached) or 'none'})")
        rate = gateway_rate(gateway, server.socket_path, budgets, args.calls)
        figures["gateway_calls_per_s"] = round(rate)
        print(f"gateway: {rate:.0f} calls/s on the socket (one client, view_product_information)")
        if not args.no_rates:
            noop = agent(work, "noop", NOOP)
            figures["noop_runs_per_hour"] = {}
            for concurrency in (2, 4, 8):
                per_hour = asyncio.run(
                    noop_rate(
                        gateway, backends["bwrap"], noop, work / "gw", problem, concurrency, max(16, concurrency * 4)
                    )
                )
                figures["noop_runs_per_hour"][str(concurrency)] = round(per_hour)
                print(f"no-op agent, concurrency {concurrency}: {per_hour:,.0f} runs/hour")
    figures["load"].append(round(os.getloadavg()[0], 2))
    cores = os.cpu_count()
    print(f"load average (1 min) {figures['load'][0]} at the start, {figures['load'][1]} at the end, {cores} cores")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
        print(f"figures written to {args.json}")


if __name__ == "__main__":
    main()
