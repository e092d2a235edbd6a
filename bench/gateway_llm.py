"""The gateway's added latency per proxied LLM call (prints figures; asserts nothing).

    python bench/gateway_llm.py [--calls 300] [--keepalive] [--json FILE]

A local OpenAI-compatible upstream (the scripted server, requiring its bearer key and reporting usage) is called, call
by call interleaved, three ways: directly (the baseline), through the gateway's unix socket with the node's key (the
validator pays) and through it with a miner's own key (`MinerRoute`: the miner pays). The added latency of a call is
its time through the gateway less the direct call next to it; rows give p50 and p90 of each, in ms, beside one hop
through the gateway that goes nowhere upstream (``GET /budget``): the floor any proxied call pays. On a machine shared
with other work the p10 is the figure nearest an idle machine's (the calls no other process delayed; the added
latency's p10 is the p10 through the gateway less the direct p10). With ``--keepalive`` the upstream answers HTTP/1.1
and keeps its connections open, as hosted providers do (the scripted server's default, HTTP/1.0, closes each one: the
gateway's pooled client then connects per call).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.catalog import Catalog  # noqa: E402
from arena.catalog.build import build_catalog  # noqa: E402
from arena.spend import Price, Provider  # noqa: E402
from demo.scripted_llm import OpenAIServer  # noqa: E402
from sandbox.gateway import Budgets, Gateway, GatewayServer, MinerRoute, Upstream  # noqa: E402

NODE_KEY, MINER_KEY, MODEL = "node-key-0123456789", "sk-miner-bench-key-0123456789", "bench-model"
BODY = {"model": MODEL, "messages": [{"role": "user", "content": "find a cotton shirt under 500 pesos, size M"}]}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def timed(client: httpx.Client, url: str, headers: dict[str, str]) -> float:
    t0 = time.perf_counter()
    reply = client.post(url, json=BODY, headers=headers)
    elapsed = (time.perf_counter() - t0) * 1000
    if reply.status_code != 200:
        raise SystemExit(f"call failed: {reply.status_code} {reply.text[:200]}")
    return elapsed


def serve_upstream(keepalive: bool) -> None:
    """The scripted upstream, in its own process: prints its base URL, serves until stdin closes."""
    with OpenAIServer(
        lambda body: "a cotton shirt, size M, 420 pesos", models=(MODEL,), keys=(NODE_KEY, MINER_KEY)
    ) as up:
        if keepalive:
            handler: Any = up._httpd.RequestHandlerClass
            handler.protocol_version = "HTTP/1.1"
            handler.wbufsize = 1 << 16  # the head and body in one write: no Nagle wait on a kept connection
        print(up.base_url, flush=True)
        sys.stdin.read()


def client_loop(calls: int, base_url: str, socket_path: str, tokens: dict[str, str]) -> dict[str, list[float]]:
    """The agent's side: each round a direct call, one through the gateway per payer, and one hop (``GET /budget``)."""
    times: dict[str, list[float]] = {"direct": [], "validator": [], "miner": [], "hop": []}
    sock = httpx.HTTPTransport(uds=socket_path)
    with httpx.Client(timeout=30) as plain, httpx.Client(transport=sock, base_url="http://gw", timeout=30) as gw:
        for i in range(calls + 20):  # the first 20 warm up
            base = timed(plain, f"{base_url}/chat/completions", {"Authorization": f"Bearer {NODE_KEY}"})
            node = timed(gw, "/v1/chat/completions", {"Authorization": f"Bearer {tokens['validator']}"})
            miner = timed(gw, "/v1/chat/completions", {"Authorization": f"Bearer {tokens['miner']}"})
            t0 = time.perf_counter()
            gw.get("/budget", headers={"Authorization": f"Bearer {tokens['validator']}"})
            hop = (time.perf_counter() - t0) * 1000
            if i >= 20:
                for name, value in (("direct", base), ("validator", node), ("miner", miner), ("hop", hop)):
                    times[name].append(value)
    return times


def measure(calls: int, work: Path, keepalive: bool = False, one_process: bool = False) -> dict[str, Any]:
    """The upstream, the gateway and the agent's client each in its own process (as on a node: the agent in its
    sandbox, the provider elsewhere), so no two of them share an interpreter lock; `one_process` runs the upstream
    and the client as threads of the gateway's process instead."""
    build_catalog(1, 300, work / "cat")
    catalog = Catalog.open(work / "cat")
    budgets = Budgets(llm_calls=10 * calls, tokens=10**9, cost=0, requests_per_second=10**6, burst=10**6)
    me = [sys.executable, str(Path(__file__).resolve())] + (["--keepalive"] if keepalive else [])
    with subprocess.Popen([*me, "--role", "upstream"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as up:
        assert up.stdout is not None and up.stdin is not None
        base_url = up.stdout.readline().strip()
        upstream = Upstream(base_url=base_url, api_key=NODE_KEY, models=[MODEL], usd_per_1k_prompt=0.1)
        gateway = Gateway(catalog, upstream=upstream)
        route = MinerRoute(
            "local", Provider(base_url=base_url, models={MODEL: Price(prompt=0.1)}), SecretStr(MINER_KEY)
        )
        with GatewayServer(gateway, work / "gw" / "gateway.sock") as server:
            tokens = {
                "validator": gateway.open_run("validator-pays", budgets).token,
                "miner": gateway.open_run("miner-pays", budgets, route=route).token,
            }
            if one_process:
                times = client_loop(calls, base_url, str(server.socket_path), tokens)
            else:
                spec = json.dumps({"calls": calls, "base_url": base_url, "socket": str(server.socket_path), **tokens})
                done = subprocess.run([*me, "--role", "client"], input=spec, capture_output=True, text=True, check=True)
                times = json.loads(done.stdout)
        up.stdin.close()
    rows = {"direct_ms": row(times["direct"]), "gateway_hop_ms": row(times["hop"])}
    for payer in ("validator", "miner"):
        added = [v - d for v, d in zip(times[payer], times["direct"], strict=True)]
        rows[f"via_gateway_ms_{payer}_pays"] = row(times[payer])
        # paired differences: p50 and p90; p10 as the lower deciles' difference (a difference of two noisy calls has
        # a lower decile that is noise, not the idle figure)
        rows[f"added_ms_{payer}_pays"] = {**row(added), "p10": pct(times[payer], 0.1) - pct(times["direct"], 0.1)}
    return {"calls": calls, "keepalive": keepalive, "processes": 1 if one_process else 3, **rows}


def row(values: list[float]) -> dict[str, float]:
    return {"p10": pct(values, 0.1), "p50": statistics.median(values), "p90": pct(values, 0.9)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=300, help="measured calls of each kind (after 20 to warm up)")
    parser.add_argument("--keepalive", action="store_true", help="the upstream keeps connections open (HTTP/1.1)")
    parser.add_argument("--one-process", action="store_true", help="upstream and client as threads of the gateway's")
    parser.add_argument("--role", choices=("upstream", "client"), help=argparse.SUPPRESS)  # a child process's part
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    if args.role == "upstream":
        serve_upstream(args.keepalive)
        return
    if args.role == "client":
        spec = json.loads(sys.stdin.read())
        tokens = {"validator": spec["validator"], "miner": spec["miner"]}
        print(json.dumps(client_loop(spec["calls"], spec["base_url"], spec["socket"], tokens)))
        return
    work = Path(tempfile.mkdtemp(prefix="bench-gw-llm-"))
    figures = measure(args.calls, work, args.keepalive, args.one_process)
    upstream = "keep-alive" if args.keepalive else "a connection per call"
    where = "one process" if args.one_process else "3 processes"
    print(f"{'':30} {'p10 ms':>7} {'p50 ms':>7} {'p90 ms':>7}   ({args.calls} calls each, {upstream}, {where})")
    for name, values in figures.items():
        if isinstance(values, dict):
            print(f"{name:30} {values['p10']:7.2f} {values['p50']:7.2f} {values['p90']:7.2f}")
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
