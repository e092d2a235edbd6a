"""Problems and scoring benchmark (prints figures; asserts nothing).

    python bench/scoring.py                      # 100k background catalog, 900 imported problems
    python bench/scoring.py --size 20k --imported 200 --generate 200

Rows:
- problems generated per second (`generate_problems` on a built catalog, every problem checked solvable and rated);
- runs scored per second (`score_run` on gold and distractor answers through the catalog, title similarity included);
- the rebuild of N imported ShoppingBench-format problems on a background catalog: wall time and peak memory of the
  whole process tree, measured on a child process.

Imported problems are made in ShoppingBench's test-file format from a generated catalog's products (their titles,
attributes, SKU options, services and prices), so the figures need no data from outside.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.catalog import Catalog  # noqa: E402
from arena.catalog import generator as gen  # noqa: E402
from arena.catalog.build import build_catalog  # noqa: E402
from arena.cliutil import parse_size  # noqa: E402
from arena.problems.generate import constraints_for, generate_problems, voucher_for  # noqa: E402
from arena.problems.importer import import_files  # noqa: E402
from arena.problems.rebuild import rebuild_catalog  # noqa: E402
from arena.problems.selfcheck import selfcheck  # noqa: E402


def shoppingbench_files(n: int, folder: Path, seed: int) -> list[Path]:
    """n records in ShoppingBench's four test formats, built from products of a small generated catalog."""
    rng = gen.Rng("bench-import", seed)
    products = list(gen.iter_products(seed + 1000, max(2000, n * 4)))
    files = {t: open(folder / f"synthesize_{t}_test.jsonl", "w") for t in ("product", "shop", "voucher", "web")}
    for i in range(n):
        task = ("product", "shop", "voucher", "web")[i % 4]
        picks = [products[(i * 4 + k) % len(products)] for k in range(2 + i % 3)]
        for k, p in enumerate(picks):  # fresh ids so the records never share a gold product
            p = dict(p, product_id=str(7_000_000_000 + i * 10 + k))
            picks[k] = p
        if task == "product":
            reward, _ = constraints_for(picks[0], rng)
            record = {"query": f"query {i}", "reward": reward.model_dump(mode="json", exclude_defaults=True)}
        elif task == "shop":
            record = {"query": f"query {i}", "reward": [constraints_for(p, rng)[0].model_dump(
                mode="json", exclude_defaults=True) for p in picks]}
        elif task == "voucher":
            total = sum(p["price"] for p in picks)
            voucher = voucher_for(max(total, 100.0), rng.pick(["platform", "shop"]), rng)
            record = {"query": f"query {i}", "voucher": voucher.model_dump(mode="json"),
                      "reward": [constraints_for(p, rng, allow_price=False)[0].model_dump(
                          mode="json", exclude_defaults=True) for p in picks]}
        else:
            gold = picks[0]
            record = {"query": f"What is fact {i}? Then find me one.", "Knowledge_Attribute": gold["title"].split()[-1],
                      "reward": gold}
        files[task].write(json.dumps(record) + "\n")
    for fh in files.values():
        fh.close()
    return [folder / f"synthesize_{t}_test.jsonl" for t in files]


def rebuild_in_child(files: list[Path], size: int, out: Path) -> tuple[float, int]:
    code = ("import sys; from arena.problems.importer import import_files; "
            "from arena.problems.rebuild import rebuild_catalog; "
            f"r = import_files({[str(f) for f in files]!r}); "
            f"rebuild_catalog(r.problems, {str(out)!r}, background_size={size}, force=True)")
    started = time.perf_counter()
    proc = psutil.Popen([sys.executable, "-c", code], cwd=ROOT)
    peak = 0
    while proc.poll() is None:
        try:
            peak = max(peak, proc.memory_info().rss + sum(c.memory_info().rss for c in proc.children(recursive=True)))
        except psutil.Error:
            pass
        time.sleep(0.05)
    if proc.returncode:
        raise SystemExit("rebuild failed")
    return time.perf_counter() - started, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="100k", help="background catalog size")
    parser.add_argument("--imported", type=int, default=900, help="imported problems to rebuild")
    parser.add_argument("--generate", type=int, default=400, help="problems to generate")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    size = parse_size(args.size)
    work = Path(tempfile.mkdtemp(prefix="bench-scoring-"))
    try:
        build_catalog(args.seed, size, work / "catalog")
        catalog = Catalog.open(work / "catalog")
        started = time.perf_counter()
        generated = generate_problems(catalog, args.generate, seed=args.seed)
        gen_s = time.perf_counter() - started
        print(f"generate: {len(generated.problems)} problems in {gen_s:.1f}s = "
              f"{len(generated.problems) / gen_s:.1f} problems/s ({len(generated.skipped)} skipped) on {size:,}")

        files = shoppingbench_files(args.imported, work, args.seed)
        wall, peak = rebuild_in_child(files, size, work / "rebuilt")
        print(f"rebuild: {args.imported} imported problems on a {size:,} background in {wall:.1f}s, "
              f"peak {peak / 2**20:.0f} MB (process tree)")

        imported = import_files(files)
        rebuilt = rebuild_catalog(imported.problems, work / "rebuilt2", background_size=0)
        rebuilt_catalog = Catalog.open(work / "rebuilt2")
        runs = sum(1 + len(p.meta["distractors"]) for p in rebuilt.problems)
        started = time.perf_counter()
        report = selfcheck(rebuilt.problems, rebuilt_catalog.get)
        score_s = time.perf_counter() - started
        print(f"score: {runs} runs (gold + distractors) in {score_s:.2f}s = {runs / score_s:.0f} runs/s; "
              f"self-check ok={report.ok}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
