"""Pooling benchmark: pulling and verifying the results bundles of one race over HTTP (prints figures; asserts
nothing).

    python bench/pooling.py                              # 4 bundles of a 32-miner x 30-problem race
    python bench/pooling.py --miners 8 --problems 6      # a quick look
    python bench/pooling.py --json var/pooling.json

Setup (not timed): a built catalog, a generated pack, and per validator a SQLite store holding the closed race,
every run an LLM agent's gateway log (per step a chat completion logged with the whole conversation so far, and a
search returning a page of ten products; a product view; the answer), scored by the strict checks and judged as the
node stores them. Each validator's bundle is built from its store (`validator.pool.build_bundle`, timed apart),
put on its node's shelf and served by its own HTTP server (`GET /results/<sha256>`, `btauth/1`).

Timed: one validator fetching every bundle (signed request, streamed under the size cap; the next one downloading
while the current one is checked: `validator.pool.fetch.fetch_each`) and verifying it whole (hash, signature, race,
foreign runs, duplicates, and every strict verdict re-derived from its trajectory).
The goal is 4 bundles of 32 x 30 in at most 10 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from fastapi import FastAPI

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sandbox.serving import ThreadedServer  # noqa: E402
from tests.support.results import closed_race, make_world, open_store  # noqa: E402
from validator.chain.bittensor_chain import create_wallet  # noqa: E402
from validator.chain.local import LocalChain  # noqa: E402
from validator.chain.results import ResultsCommitment  # noqa: E402
from validator.pool import Refusal, Release, ResultsShelf, build_bundle, verify_bundle  # noqa: E402
from validator.pool.fetch import fetch_each  # noqa: E402
from validator.pool.serve import ChainView, results_router  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--validators", type=int, default=4)
    parser.add_argument("--miners", type=int, default=32)
    parser.add_argument("--problems", type=int, default=30)
    parser.add_argument("--searches", type=int, default=4, help="search steps per run (each an LLM call + a search)")
    parser.add_argument("--catalog-size", type=int, default=5000)
    parser.add_argument("--json", type=Path, default=None, help="write the figures to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-pooling-") as tmp:
        row = run(Path(tmp), args)
    for key, value in row.items():
        print(f"{key:>28}: {value}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(row, indent=2) + "\n")


def run(root: Path, args: argparse.Namespace) -> dict[str, object]:
    t0 = time.perf_counter()
    world = make_world(root, problems=args.problems, size=args.catalog_size)
    miners = {f"5miner{i:03d}": (i + 1) / (args.miners + 1) for i in range(args.miners)}
    chain = LocalChain.init(root / "chain.sqlite")
    wallets = [create_wallet(f"validator{i}", "hot", root / "wallets") for i in range(args.validators)]
    bundles, build_seconds = [], []
    agents: dict[str, str] = {}
    for i, wallet in enumerate(wallets):
        store = open_store(root / f"store{i}.sqlite")
        agents = closed_race(store, world, "race-1", miners, seed=i, searches=args.searches)
        started = time.perf_counter()
        bundles.append(build_bundle(store, "race-1", wallet, netuid=1, created_block=1))
        build_seconds.append(time.perf_counter() - started)
        store.close()
    setup = time.perf_counter() - t0
    servers = []
    commitments = []
    for i, (wallet, bundle) in enumerate(zip(wallets, bundles, strict=True)):
        shelf = ResultsShelf(root / f"shelf{i}")
        shelf.put(bundle.sha256, bundle.data, Release(race_id="race-1", race_start=0))  # public: no chain read
        app = FastAPI()
        app.include_router(results_router(shelf, hotkey_ss58=wallet.hotkey.ss58_address, view=ChainView(chain)))
        server = ThreadedServer(app).start()
        servers.append(server)
        commitments.append(
            ResultsCommitment(
                hotkey=wallet.hotkey.ss58_address,
                uid=i,
                sha256=bundle.sha256,
                url=server.url,
                block=1,
                validator_permit=True,
                stake=1.0,
                axon=None,
            )
        )
    facts = world.facts("race-1", miners=agents)
    holders = {w.hotkey.ss58_address for w in wallets}
    me = create_wallet("fetcher", "hot", root / "wallets")
    wait_s = verify_s = 0.0
    verified = 0
    try:
        started, cpu = time.perf_counter(), time.process_time()
        fetched = fetch_each(commitments, wallet=me, timeout=60)
        while True:
            a = time.perf_counter()
            item = next(fetched, None)
            b = time.perf_counter()
            wait_s += b - a
            if item is None:
                break
            commitment, raw = item
            if isinstance(raw, Refusal):
                raise SystemExit(raw.reason)
            result = verify_bundle(
                raw, commitment.sha256, validator=commitment.hotkey, race=facts, permit_holders=holders
            )
            verify_s += time.perf_counter() - b
            if isinstance(result, Refusal):
                raise SystemExit(result.reason)
            verified += 1
        total, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        for server in servers:
            server.stop()
    runs = sum(len(b.body.runs) for b in bundles)
    events = sum(len(r.trajectory) for b in bundles for r in b.body.runs)
    size = sum(len(b.data) for b in bundles)
    return {
        "validators": args.validators,
        "miners": args.miners,
        "problems": args.problems,
        "runs": runs,
        "events": events,
        "bundle_mb": round(size / len(bundles) / 1e6, 2),
        "build_s_per_bundle": round(sum(build_seconds) / len(build_seconds), 2),
        "waiting_for_fetch_s": round(wait_s, 2),
        "verify_s": round(verify_s, 2),
        "pull_and_verify_s": round(total, 2),
        "pull_and_verify_cpu_s": round(cpu, 2),  # this process's CPU (all its threads): the figure load cannot inflate
        "load_average": round(os.getloadavg()[0], 1),
        "runs_per_s": round(runs / total),
        "verified": verified,
        "goal_s": 10.0,
        "cores": os.cpu_count(),
        "setup_s": round(setup, 1),
    }


if __name__ == "__main__":
    main()
