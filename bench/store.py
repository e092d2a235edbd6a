"""Store benchmark (prints figures; asserts nothing).

    python bench/store.py                          # 200 runs x 100 events into Postgres and SQLite
    python bench/store.py --runs 500 --events 200 --pg-url postgresql+psycopg://user@host/db

Rows, for each database:
- trajectory events written per second through `Store.record_run` (one run's events and its status change in one
  transaction, batched INSERTs), with realistic event bodies (tool arguments and results, LLM completions);
- events written per second through `Store.add_events` in large batches (the raw batched path);
- reading one run's whole trajectory back (`Store.events`): median and p95 milliseconds.

Postgres is the server at --pg-url, else the throwaway cluster `scripts/postgres` starts; its durability settings
(`fsync`, `synchronous_commit`) are printed with the figures because they change them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.trajectory import TrajectoryEvent  # noqa: E402
from tests.support.postgres import fresh_database  # noqa: E402
from validator.chain.port import Neuron  # noqa: E402
from validator.store.repository import Store, make_engine  # noqa: E402
from validator.store.schema import upgrade  # noqa: E402


def trajectory(run_id: str, n: int) -> list[TrajectoryEvent]:
    t0 = datetime.now(UTC)
    events = []
    for i in range(n):
        if i % 4 == 0:
            events.append(
                TrajectoryEvent(
                    run_id=run_id,
                    seq=i,
                    kind="llm_call",
                    name="chat.completions",
                    arguments={"model": "qwen3-4b", "messages": [{"role": "user", "content": "find a desk lamp " * 8}]},
                    result={
                        "choices": [
                            {
                                "message": {
                                    "role": "assistant",
                                    "content": "Comparing P1 (129.0) and P2 (119.0): P2 is cheaper and has COD. " * 3,
                                }
                            }
                        ],
                        "usage": {"prompt_tokens": 812, "completion_tokens": 96},
                    },
                    started_at=t0 + timedelta(milliseconds=i),
                    duration_ms=850.0,
                    tokens={"prompt": 812, "completion": 96, "total": 908},
                    cost=0.0004,
                )
            )
        else:
            events.append(
                TrajectoryEvent(
                    run_id=run_id,
                    seq=i,
                    kind="tool_call",
                    name="find_product",
                    arguments={"q": "desk lamp led", "page": 1, "price": "100-200", "service": "COD"},
                    result=[
                        {
                            "product_id": f"{1000000 + j}",
                            "title": f"LED Desk Lamp Reading Light model {j}",
                            "price": 100.0 + j,
                            "shop_id": f"S{j % 7}",
                            "sold_count": 13 * j,
                            "service": ["COD"],
                        }
                        for j in range(10)
                    ],
                    started_at=t0 + timedelta(milliseconds=i),
                    duration_ms=4.2,
                )
            )
    return events


def prepare(url: str, runs: int) -> tuple[Store, list[str]]:
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    store = Store.open(url)
    store.upsert_miners([Neuron(uid=0, hotkey="hk", coldkey="ck")])
    sub, _ = store.add_submission(hotkey="hk", sha256="0" * 64, commitment_block=1)
    store.add_pack(
        pack_id="bench",
        name="bench",
        digest="b" * 64,
        problems=[{"problem_id": f"p{i}", "task": "product", "split": "race"} for i in range(runs)],
    )
    store.create_race(race_id="race", pack_id="bench", seed_block=1, seed_hash="0x00", problem_ids=[])
    store.create_runs("race", [(sub, f"p{i}") for i in range(runs)])
    ids = [r.run_id for r in store.runs(race_id="race")]
    for run_id in ids:
        store.transition(run_id, "starting")
        store.transition(run_id, "running")
    return store, ids


def measure(label: str, url: str, runs: int, per_run: int, settings: str = "") -> None:
    store, ids = prepare(url, runs)
    bodies = {run_id: trajectory(run_id, per_run) for run_id in ids}
    half = len(ids) // 2
    started = time.perf_counter()
    for run_id in ids[:half]:
        store.record_run(run_id, "scoring", bodies[run_id])
    elapsed = time.perf_counter() - started
    per_run_rate = half * per_run / elapsed
    # the raw batched path: many runs' events in one call
    flat = [e for run_id in ids[half:] for e in bodies[run_id]]
    started = time.perf_counter()
    store.add_events(flat)
    bulk_rate = len(flat) / (time.perf_counter() - started)
    reads = []
    for run_id in ids[: min(100, len(ids))]:
        started = time.perf_counter()
        got = store.events(run_id)
        reads.append((time.perf_counter() - started) * 1000)
        assert len(got) == per_run
    reads.sort()
    p95 = reads[int(0.95 * (len(reads) - 1))]
    print(
        f"{label:10s} record_run  {per_run_rate:10,.0f} events/s  ({half} runs x {per_run} events, one commit "
        f"per run){settings}"
    )
    print(f"{label:10s} add_events  {bulk_rate:10,.0f} events/s  ({len(flat):,} events in one call)")
    print(f"{label:10s} read run    median {statistics.median(reads):6.1f} ms  p95 {p95:6.1f} ms  ({per_run} events)")
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--events", type=int, default=100, help="events per run")
    parser.add_argument("--pg-url", default=None, help="a Postgres server URL (default: scripts/postgres)")
    args = parser.parse_args()

    if args.pg_url:
        os.environ["ARENA_TEST_DATABASE_URL"] = args.pg_url
    with fresh_database("arena_bench") as url:
        with create_engine(url).connect() as conn:
            fsync = conn.execute(text("SHOW fsync")).scalar()
            sync = conn.execute(text("SHOW synchronous_commit")).scalar()
        measure("postgres", url, args.runs, args.events, f"; fsync={fsync}, synchronous_commit={sync}")
    with tempfile.TemporaryDirectory() as tmp:
        measure("sqlite", f"sqlite:///{tmp}/bench.sqlite", args.runs, args.events, "; WAL, synchronous=NORMAL")


if __name__ == "__main__":
    main()
