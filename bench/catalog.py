"""Catalog benchmark: build time, index size and peak memory per size; find_product latency against raw tantivy.

    python bench/catalog.py                       # 100k, 1M and 2.5M products, 1,000 queries each
    python bench/catalog.py --sizes 20k --queries 300
    python bench/catalog.py --sizes 250k --json rows.json   # the rows also written to a file
    python bench/catalog.py --sizes 100k --phases            # and where the build's CPU goes, by phase
    python bench/catalog.py --catalog var/cat25m             # queries only, against a catalog built before

Each build runs as `arena catalog build` in a child process; its peak memory is the sampled RSS of the whole
process tree (the builder and its generator workers). Queries are drawn from the catalog's own products (2-4 title
words, with price ranges, services, shops, sorts and pages mixed in) and run twice: through the `find_product` tool
(validation, filters, keep 50, sort, page, summaries) and straight against tantivy (the same query and filters,
top 50, the page's 10 stored documents), in the same process, interleaved; the tool's CPU time is printed too
(steadier than wall time on a shared machine). Prints figures; asserts nothing.

Raw tantivy intersects the words with the filters, so it scores every product that has a word and passes them; the
tool answers a price or service filter without a shop from the unfiltered search's best candidates
(`arena.catalog.pruned`, docs/operator.md section 1), so its tail is now below raw's: at 2.5M (seed 1, 1,000
queries, `--catalog`, main and the pruned search back to back under load 12-14) tool p95 66.6 and 38.6 ms -> 38.4
and 31.0 (CPU 20.9 and 17.2 -> 11.3), tool/raw p95 1.03-1.10 -> 0.56-0.64.

Where a build's time goes (`--phases`, CPU time, steadier than wall time on a shared machine; the build's own
`CPU s` column counts the builder and its workers). A build runs with Python's garbage collector paused
(`arena.gcpause.paused_gc`; `--phases` too): before that, collections walking a worker's model cache cost
about as much CPU as generating (2.5M, a worker's chunks 600-700, load 4: 81 -> 44 us a product).

A 2.5M build (seed 1, load 8-16): 269-285 CPU-s, 107-114 us a product (415 CPU-s, 166 us, with the collector on,
back to back). The two generator workers about 57 us a product (a listing about 44 us with its model made, a new
model 13-16 us more for about half of a worker's listings, World.build 1.2 s a worker); the builder, by its threads
(from /proc, a 500k build), was about 50: the main thread about 15, tantivy's two indexing threads about 23 and its
store compressors 4, the worker pool's result threads about 8 (reading 1.6 kB a product from the pool's pipe in
64 kB reads, and unpickling it); the index's last commit about 10 CPU-s after the last product. Now a worker makes
each product's index document itself and hands its chunk over through a file, the builder counting statistics by
the chunk: at 250k (load 13-18, two pairs interleaved) the builder's CPU went 13.2 / 14.7 -> 12.5 / 12.3 s, the
pool's threads 7-10 -> 2 us a product, the main thread 17-18 -> 19 (it unpickles the chunk now, about 3.5 us; the
tantivy document about 6 and adding it about 4 are tantivy-py's, the digest 1.4); the whole bench's build 32.0 /
31.1 -> 30.7 / 31.1 CPU-s (load 15-17). 90 s at 2.5M on 2 cores is 72 us a product in all: tantivy's share alone
(indexing, store, adding) is about 37. Drawing the generator's floats in bulk (numpy's MT19937 in random.Random's
state gives the same floats) would not help: a listing's 47 draws are each taken by a branch that decides the next
(rejection loops, draws that depend on the model), so only the call per draw could go, about 3 us of the 44.
tantivy-py's `add_json` (the worker making the JSON, base64 for the stored bytes), measured again: 7.2 us of the
builder's thread a product in a 250k build against 7.5 for `Document.from_dict` and `add_document`, the worker's
JSON 3-5 us more, and its float reading not exact (docs/performance.md); not done. The chunk is handed over
column by column now (`arena.catalog.writer.Rows`: 4.3k instructions a product fewer in all, counted by valgrind;
`--phases` prints the hand-over apart). The products' JSON is no longer in tantivy's store but in the catalog's own
(`arena.catalog.docstore`, catalog format 3: about a tenth of a build's CPU less; docs/performance.md); `add_us`
counts its blocks compressed.

Compiling the unchanged generator with mypyc made the same products in about 28% less CPU (83 against 116 us, the
same 30 chunks back to back, collector on). It is done now where a C compiler is (`arena.catalog.native`, built by
scripts/setup for exactly the sources at hand, pure Python otherwise; docs/operator.md section 1); the first line
printed and each JSON row's `generator` say which one ran.
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil
import tantivy

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.catalog import Catalog, CatalogError, SearchFilters, native  # noqa: E402
from arena.catalog.models import SERVICES  # noqa: E402
from arena.cliutil import parse_size  # noqa: E402
from arena.gcpause import paused_gc  # noqa: E402
from arena.tasks.shopping.tools import (  # noqa: E402
    KEEP,
    PAGE_SIZE,
    default_registry,  # noqa: E402
    parse_price,
    parse_services,
)
from arena.tools import ToolContext  # noqa: E402


def build(size: int, out: Path, seed: int) -> dict[str, float]:
    if out.exists():
        shutil.rmtree(out)
    cmd = [
        sys.executable,
        "-m",
        "arena.cli",
        "catalog",
        "build",
        "--seed",
        str(seed),
        "--size",
        str(size),
        "--out",
        str(out),
    ]
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = psutil.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        try:
            rss = proc.memory_info().rss + sum(c.memory_info().rss for c in proc.children(recursive=True))
            peak = max(peak, rss)
        except psutil.Error:
            pass
        time.sleep(0.1)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the builder and its workers, all waited for
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"build of {size} failed: {proc.stderr.read().decode()[-2000:]}")
    index_bytes = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    # the products index's segments: one per indexing thread where tantivy flushed none early and merged none
    segments = len(json.loads((out / "products" / "meta.json").read_text())["segments"])
    return {"seconds": seconds, "cpu_seconds": cpu, "peak_rss": peak, "index_bytes": index_bytes, "segments": segments}


def phases(size: int, seed: int, sample: int = 40_960) -> dict[str, float]:
    """Where a generated build's CPU goes, in microseconds per product, measured in this process on the first
    `sample` products of catalog (seed, size) (CPU time, steadier than wall time on a shared machine): generating
    a product (`arena.catalog.generator`, with its search text and canonical JSON), the tantivy documents made and
    added to the worker's part of the index (its main thread), indexing them (tantivy's indexing thread and store
    compressor), the chunk's hand-over (what the builder reads of it, pickled by the worker and unpickled by the
    builder), the digest and statistics (the builder); and the web pages (seconds for the whole catalog, the
    builder's). A build's wall time on N cores is about the sum over N."""
    import tempfile

    from arena.catalog import generator as gen
    from arena.catalog.index import SERVICE_BITS
    from arena.catalog.stats import StatsCollector
    from arena.catalog.webcorpus import generate_web_pages
    from arena.catalog.workers import Chunk
    from arena.catalog.writer import PartWriter, Rows

    cpu, thread = time.process_time, time.thread_time
    world = gen.World.build(seed, size)
    numbers = {shop.shop_id: shop.ordinal for shop in world.shops}
    columns = []
    t = cpu()
    for chunk in range(min((size + gen.CHUNK - 1) // gen.CHUNK, (sample + gen.CHUNK - 1) // gen.CHUNK)):
        columns.append((chunk, gen.chunk_columns(world, chunk, SERVICE_BITS)))
    n = sum(len(c[1]) for _, c in columns)
    out = {"generate_us": (cpu() - t) / n * 1e6}
    chunks: list[Chunk] = []
    with tempfile.TemporaryDirectory(prefix="bench-phases-") as tmp:
        part = PartWriter(Path(tmp) / "part")
        t, main = cpu(), thread()
        for chunk, (canonical, ids, contents, shops, services, masks, prices, sold, cats, skus, keys) in columns:
            row = chunk * gen.CHUNK  # as a worker: the documents made and added (this thread), indexed (tantivy's)
            part.add_rows(
                Rows(row, canonical, ids, contents, shops, services, masks, prices, sold), [numbers[s] for s in shops]
            )
            chunks.append(Chunk(row, canonical, shops, services, prices, sold, cats, skus, keys))
        out["add_us"] = (thread() - main) / n * 1e6
        part.commit()
        out["index_us"] = (cpu() - t) / n * 1e6 - out["add_us"]
    t = cpu()
    chunks = [pickle.loads(pickle.dumps(c, protocol=pickle.HIGHEST_PROTOCOL)) for c in chunks]  # as a worker's file
    out["handover_us"] = (cpu() - t) / n * 1e6
    digest, stats = gen.Digest(), StatsCollector()
    t = cpu()
    for c in chunks:  # as build_catalog digests and counts them
        digest.update(c.canonical)
        stats.add_columns(c.categories, c.shops, c.services, c.prices, c.sold, c.n_skus, c.model_keys)
    out["digest_stats_us"] = (cpu() - t) / n * 1e6
    t = cpu()
    pages = sum(1 for _ in generate_web_pages(seed, size))
    out["web_pages_s"], out["web_pages"] = cpu() - t, pages
    per_product = sum(out[k] for k in ("generate_us", "handover_us", "add_us", "index_us", "digest_stats_us"))
    out["cpu_s"] = per_product * size / 1e6 + out["web_pages_s"]
    return out


def make_queries(catalog: Catalog, n: int, seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    pool = []
    for i, product in enumerate(catalog.iter_products()):
        if i >= 20_000:
            break
        if i % 7 == 0:
            pool.append(product)
    queries = []
    for _ in range(n):
        p = rng.choice(pool)
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9-]+", p["title"]) if len(w) > 2]
        k = min(len(words), rng.randint(2, 4))
        q = " ".join(rng.sample(words, k)) if words else p["title"]
        args: dict[str, object] = {
            "q": q,
            "page": rng.choice([1, 1, 1, 2, 3]),
            "sort": rng.choice(["default", "default", "priceasc", "pricedesc", "order"]),
        }
        if rng.random() < 0.5:
            lo = int(p["price"] * rng.uniform(0.3, 0.9))
            hi = int(p["price"] * rng.uniform(1.1, 3.0)) + 1
            args["price"] = rng.choice([f"{lo}-{hi}", f"{lo}-", f"-{hi}"])
        if rng.random() < 0.3:
            args["service"] = ",".join(rng.sample(SERVICES, rng.choice([1, 1, 2])))
        if rng.random() < 0.1:
            args["shop_id"] = p["shop_id"]
        queries.append(args)
    return queries


def raw_query(catalog: Catalog, index: tantivy.Index, schema: tantivy.Schema, args: dict[str, object]) -> int:
    """The same search straight against tantivy: its own (lenient) query parser, filters, top 50, 10 stored docs."""
    lo, hi = parse_price(args.get("price"))  # type: ignore[arg-type]
    filters = SearchFilters(args.get("shop_id"), lo, hi, parse_services(args.get("service")))  # type: ignore[arg-type]
    text, _errors = index.parse_query_lenient(str(args["q"]), ["contents"])
    clauses = [(tantivy.Occur.Must, text)]
    if filters.shop_id:
        clauses.append((tantivy.Occur.Must, tantivy.Query.term_query(schema, "shop_id", filters.shop_id)))
    if lo is not None or hi is not None:
        clauses.append(
            (tantivy.Occur.Must, tantivy.Query.range_query(schema, "price", tantivy.FieldType.Float, lo, hi))
        )
    for s in filters.services:
        clauses.append((tantivy.Occur.Must, tantivy.Query.term_query(schema, "service", s)))
    query = tantivy.Query.boolean_query(clauses) if len(clauses) > 1 else text
    searcher = catalog._searcher
    hits = searcher.search(query, KEEP, count=False).hits
    page = int(args["page"])  # type: ignore[call-overload]
    window = hits[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    catalog.stored([address for _, address in window])  # the page's stored products, as the tool reads them
    return len(window)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def query_bench(path: Path, n: int, seed: int) -> dict[str, float]:
    catalog = Catalog.open(path)
    registry = default_registry()
    ctx = ToolContext(catalog)
    queries = make_queries(catalog, n, seed)
    index, schema = catalog._products, catalog._schema
    for args in queries[:50]:  # warm-up: page cache and tantivy's caches
        registry.call("find_product", args, ctx)
        raw_query(catalog, index, schema, args)
    tool_ms, raw_ms, tool_cpu_ms = [], [], []
    for args in queries:
        c0 = time.thread_time()
        t0 = time.perf_counter()
        registry.call("find_product", args, ctx)
        t1 = time.perf_counter()
        tool_cpu_ms.append((time.thread_time() - c0) * 1000)
        raw_query(catalog, index, schema, args)
        t2 = time.perf_counter()
        tool_ms.append((t1 - t0) * 1000)
        raw_ms.append((t2 - t1) * 1000)
    return {
        "tool_p50": pct(tool_ms, 0.5),
        "tool_p95": pct(tool_ms, 0.95),
        "tool_p99": pct(tool_ms, 0.99),
        "raw_p50": pct(raw_ms, 0.5),
        "raw_p95": pct(raw_ms, 0.95),
        "raw_p99": pct(raw_ms, 0.99),
        "tool_cpu_p50": pct(tool_cpu_ms, 0.5),
        "tool_cpu_p95": pct(tool_cpu_ms, 0.95),
        "tool_cpu_p99": pct(tool_cpu_ms, 0.99),
        "ratio_p50": statistics.median(tool_ms) / statistics.median(raw_ms),
        "ratio_p95": pct(tool_ms, 0.95) / pct(raw_ms, 0.95),
    }


def _query_columns(q: dict[str, float]) -> str:
    return (
        f"{q['tool_p50']:>8.2f} {q['tool_p95']:>6.2f} {q['tool_p99']:>6.2f} | {q['raw_p50']:>7.2f} "
        f"{q['raw_p95']:>6.2f} {q['raw_p99']:>6.2f} | {q['ratio_p50']:>9.2f} {q['ratio_p95']:>5.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100k,1M,2.5M", help="comma-separated catalog sizes")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", type=Path, default=ROOT / "var" / "bench")
    parser.add_argument("--keep", action="store_true", help="keep the built catalogs")
    parser.add_argument(
        "--catalog",
        type=Path,
        metavar="DIR",
        help="measure the queries against this catalog, built before (`arena catalog build`); nothing is built and "
        "--sizes, --keep and --phases are not used",
    )
    parser.add_argument(
        "--phases",
        action="store_true",
        help="also say where each size's build CPU goes (microseconds per product by phase, measured on its first "
        "40,960 products) and the build's CPU seconds, extrapolated",
    )
    parser.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        help="write the rows to FILE as JSON (each: size, build_seconds, p95_ms (find_product), every column, the "
        "products index's segments and whether the generator ran compiled or as pure Python)",
    )
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    header = (
        f"{'size':>9} {'build s':>8} {'CPU s':>7} {'index MB':>9} {'peak MB':>8} | {'tool p50':>8} {'p95':>6} "
        f"{'p99':>6} | {'raw p50':>7} {'p95':>6} {'p99':>6} | {'ratio p50':>9} {'p95':>5}"
    )
    # the build's child process imports the same sources with the same environment: compiled there as here
    generator = "compiled" if native.compiled() else "pure Python"
    print(f"generator: {generator} (docs/operator.md section 1)")
    print(header)
    print("-" * len(header))
    if args.catalog is not None:
        args.sizes, args.keep, args.phases = "", True, False
        try:
            size = Catalog.open(args.catalog).num_products
        except CatalogError as exc:
            raise SystemExit(f"--catalog: {exc}") from exc
        q = query_bench(args.catalog, args.queries, args.seed)
        rows.append({"size": size, "catalog": str(args.catalog), "p95_ms": q["tool_p95"], **q})
        print(f"{size:>9,} {'-':>8} {'-':>7} {'-':>9} {'-':>8} | " + _query_columns(q), flush=True)
    for text in filter(None, args.sizes.split(",")):
        size = parse_size(text)
        out = args.workdir / f"catalog-{size}"
        b = build(size, out, args.seed)
        q = query_bench(out, args.queries, args.seed)
        row = {"size": size, "build_seconds": b["seconds"], "p95_ms": q["tool_p95"], "generator": generator, **b, **q}
        if args.phases:
            with paused_gc():  # as a build runs its generator and builder
                row["phases"] = phases(size, args.seed)
        rows.append(row)
        print(
            f"{size:>9,} {b['seconds']:>8.1f} {b['cpu_seconds']:>7.1f} {b['index_bytes'] / 2**20:>9.0f} "
            f"{b['peak_rss'] / 2**20:>8.0f} | " + _query_columns(q),
            flush=True,
        )
        if args.phases:
            f = row["phases"]
            print(
                f"{'':>9} CPU per product: generate {f['generate_us']:.0f} us, hand-over {f['handover_us']:.1f}, "
                f"tantivy documents made and added {f['add_us']:.1f}, indexed {f['index_us']:.0f}, digest and stats "
                f"{f['digest_stats_us']:.1f}; web pages "
                f"{f['web_pages_s']:.1f} s; the build's CPU {f['cpu_s']:.0f} s ({f['cpu_s'] / 2:.0f} s on 2 cores)",
                flush=True,
            )
        if not args.keep:
            shutil.rmtree(out)
    print("latencies in ms over", args.queries, "queries; ratio = find_product tool / raw tantivy")
    for row in rows:  # CPU time is steadier than wall time on a shared machine
        print(
            f"{row['size']:>9,}: find_product CPU time p50 {row['tool_cpu_p50']:.2f} p95 {row['tool_cpu_p95']:.2f} "
            f"p99 {row['tool_cpu_p99']:.2f} ms"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
        print(f"rows written to {args.json}")


if __name__ == "__main__":
    main()
