"""Corpus export benchmark (prints figures; asserts nothing).

    python bench/corpus.py                        # 150,000 stored trajectories in Postgres, then export them
    python bench/corpus.py --runs 20000 --pg-url postgresql+psycopg://user@host/db --keep

Fills a fresh Postgres database with `--runs` finished race runs and their gateway events (bulk inserts; events by
COPY through `Store.add_events`), then runs `export_corpus` on it, each export in its own process with its RSS
sampled every 0.1 s by a thread (psutil):

- a window holding the first 10% of the runs, then all of them: wall time, runs per second, peak RSS, and the RSS
  at 10/25/50/75/100% of the extraction (flat memory: the same whatever the store's size);
- the funnel's counts of the full export.

The runs look like the arena's: half the miners run an LLM agent (Axis A: schemas, then four completions each
issuing one tool call: find_product, view_product_information, recommend_product, terminate), a quarter an agent
whose LLM only narrates while its code calls the tools (Axis B, judged well), a quarter a code-only agent (Axis B,
judged 0.1); some lose, some are judged below the threshold, some never terminate or recommend twice, a few errored
without a score; about a third of the chats repeat another run's chat for the same problem (dedup), and a problem
draws about 375 runs (so the cap of 50 bites).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpus_fill import T0, fill, query_of  # noqa: E402
from tests.support.postgres import fresh_database  # noqa: E402
from validator.store.repository import Store  # noqa: E402

# --- one measured export (in its own process) -------------------------------------------------------------------


def test_set(path: Path, problems: int) -> Path:
    """A public test set in ShoppingBench's format: 1 in 50 of the problems' queries verbatim, 1 in 50 nearly."""
    with open(path, "w") as fh:
        for i in range(0, problems, 25):
            query = query_of(i) if i % 50 == 0 else query_of(i) + " please hurry"
            fh.write(json.dumps({"query": query, "reward": {"product_id": "1", "title": ["x"]}}) + "\n")
    return path


def export_once(url: str, out: Path, until: str | None, tests: Path) -> dict[str, Any]:
    import psutil

    from validator.corpus import ExportOptions, export_corpus

    proc = psutil.Process()
    samples: list[tuple[float, int, int]] = []  # (time, rss, runs done)
    state = {"done": 0, "stop": False}

    def sample() -> None:
        while not state["stop"]:
            samples.append((time.perf_counter(), proc.memory_info().rss, state["done"]))
            time.sleep(0.1)

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "extract":
            state["done"], state["total"] = done, total

    baseline = proc.memory_info().rss
    sampler = threading.Thread(target=sample, daemon=True)
    store = Store.open(url)
    options = ExportOptions(until=datetime.fromisoformat(until) if until else None, decontaminate=(tests,))
    started = time.perf_counter()
    sampler.start()
    result = export_corpus(store, out, options, progress=progress)
    wall = time.perf_counter() - started
    state["stop"] = True
    sampler.join()
    store.close()
    total = max(state.get("total", 1), 1)
    at = {}
    for share in (0.10, 0.25, 0.50, 0.75, 1.0):
        hits = [rss for _, rss, done in samples if done >= share * total]
        at[f"{share:.0%}"] = hits[0] if hits else samples[-1][1]
    return {
        "runs": result.funnel["selection"]["extracted"],
        "wall": wall,
        "baseline_rss": baseline,
        "peak_rss": max(rss for _, rss, _ in samples),
        "rss_at": at,
        "train": result.train,
        "eval": result.eval,
        "steps": [(s["name"], s["in"], s["out"], s["dropped"]) for s in result.funnel["steps"]],
        "bytes": sum(f.stat().st_size for f in out.iterdir()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=150_000)
    parser.add_argument("--problems", type=int, default=400, help="race problems (plus 10%% held out)")
    parser.add_argument("--pg-url", default=None, help="a Postgres server URL (default: scripts/postgres)")
    parser.add_argument("--keep", action="store_true", help="keep the database (its URL is printed)")
    parser.add_argument("--export-only", default=None, help=argparse.SUPPRESS)  # url: one measured export
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--until", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--tests", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.export_only:
        print(json.dumps(export_once(args.export_only, Path(args.out), args.until, Path(args.tests))))
        return

    if args.pg_url:
        os.environ["ARENA_TEST_DATABASE_URL"] = args.pg_url
    from sqlalchemy.engine import make_url

    with fresh_database("arena_bench_corpus", keep=args.keep) as url:
        print(f"filling {args.runs:,} runs into {make_url(url).render_as_string(hide_password=True)}", flush=True)
        filled = fill(url, args.runs, args.problems)
        print(
            f"fill        {filled['runs']:,} runs, {filled['events']:,} events, "
            f"{filled['bytes'] / 2**20:,.0f} MiB on disk in {filled['seconds']:.0f} s",
            flush=True,
        )
        tenth = (T0 + timedelta(seconds=filled["runs"] // 10)).isoformat()
        with tempfile.TemporaryDirectory() as tmp:
            tests = test_set(Path(tmp) / "product_test.jsonl", args.problems)
            for label, until in (("10% window", tenth), ("all runs", None)):
                out = Path(tmp) / label.replace(" ", "-").replace("%", "")
                cmd = [sys.executable, __file__, "--export-only", url, "--out", str(out), "--tests", str(tests)]
                if until:
                    cmd += ["--until", until]
                done = subprocess.run(cmd, capture_output=True, text=True)
                if done.returncode != 0:
                    print(done.stderr)
                    raise SystemExit(f"export of {label} failed")
                m = json.loads(done.stdout.strip().splitlines()[-1])
                mib = {k: v / 2**20 for k, v in m["rss_at"].items()}
                print(
                    f"export      {label:10s}  {m['runs']:>8,} runs in {m['wall']:6.1f} s "
                    f"({m['runs'] / m['wall']:,.0f} runs/s)  peak RSS {m['peak_rss'] / 2**20:,.0f} MiB "
                    f"(at start {m['baseline_rss'] / 2**20:,.0f})  RSS at "
                    + ", ".join(f"{k} {v:,.0f}" for k, v in mib.items())
                    + f" MiB  -> {m['train']:,} train + {m['eval']:,} eval, {m['bytes'] / 2**20:,.0f} MiB written",
                    flush=True,
                )
        print("funnel (all runs):")
        for step, n_in, n_out, dropped in m["steps"]:
            why = ", ".join(f"{r} {n:,}" for r, n in dropped.items()) or "-"
            print(f"  {step:14s} {n_in:>9,} -> {n_out:>9,}   {why}")
        if args.keep:
            print(f"kept {url}")


if __name__ == "__main__":
    os.environ.setdefault("ARENA_PROGRESS", "0")
    main()
