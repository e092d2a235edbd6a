"""Problems and scoring benchmark (prints figures; asserts nothing).

    python bench/scoring.py                      # 100k background catalog, 900 imported problems
    python bench/scoring.py --size 20k --imported 200 --generate 200

Rows:
- problems generated per second (`generate_problems` on a built catalog, every problem checked solvable and rated);
- runs scored per second per ruleset (`score_run` on gold and distractor answers through the catalog, title
  similarity included);
- the import of N ShoppingBench-format records, and import + rebuild of them on a background catalog: wall time and
  peak memory of the whole process tree, measured on a child process; how many are playable, how many left out;
- the blind baseline's success per task on the rebuilt set (top `find_product` hits for the query; for web
  problems also the top hit for the top web result's words): it should stay low;
- the rebuilt catalog's products that contradict their own attributes, per field (0 expected), and the tool-visible
  oracle per task (every problem solved, no distractor passing), as `arena problems selfcheck` checks them.

Imported problems are made in ShoppingBench's test-file format and proportions (250 product, 250 shop, 250 voucher,
150 web of 900) from a generated catalog's products (their titles, attributes, SKU options, services and prices),
with queries rendered from the constraints, 25 gold ids named by two problems (voucher baskets sharing a product with
another problem) and 11 web answers stored as integers, as in the real test files; so the figures need no data from
outside.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
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
from arena.tasks.shopping import render  # noqa: E402
from arena.tasks.shopping.rebuild import rebuild_catalog  # noqa: E402
from arena.tasks.shopping.rebuild.distractors import tags_key  # noqa: E402
from arena.tasks.shopping.rulesets import RULESETS  # noqa: E402
from arena.tasks.shoppingbench.fairness import consistency, oracle  # noqa: E402
from arena.tasks.shoppingbench.generate import constraints_for, generate_problems, voucher_for  # noqa: E402
from arena.tasks.shoppingbench.importer import import_files  # noqa: E402
from arena.tasks.shoppingbench.selfcheck import blind_baseline, selfcheck  # noqa: E402

#: ShoppingBench's released test set: problems per task, gold ids named by two problems, integer web answers
SHARES = {"product": 250, "shop": 250, "voucher": 250, "web": 150}
SHARED_GOLDS = 25
INTEGER_ANSWERS = 11

_WEB_QUESTIONS = [
    # (question, kind of answer) about fictional entities; the answer is put into the gold product's title
    (
        "In which year did the fictional {team} win their first national title? I would like to buy {noun} from that "
        "year.",
        "year",
    ),
    (
        "Which country hosted the fictional {event} in {year}? I would like to buy {noun} made in that country.",
        "country",
    ),
    (
        "Which instrument does the fictional musician {name} play in the {ensemble}? I want to buy one for my nephew.",
        "instrument",
    ),
    (
        "In which month and year did the fictional {ensemble} first perform in {place}? I would like {noun} from that "
        "month.",
        "month",
    ),
    ("What color are the home jerseys of the fictional {team}? I want {noun} in that color.", "color"),
]
_COUNTRIES = ["Japan", "India", "Brazil", "Kenya", "Norway", "Peru", "Egypt", "Canada", "Portugal", "Vietnam"]
_INSTRUMENTS = ["Violin", "Cello", "Flute", "Trumpet", "Harp", "Ukulele", "Clarinet", "Banjo"]
_COLORS = ["maroon", "teal", "orange", "navy", "gold", "purple"]
_MONTHS = ["January", "March", "May", "August", "October", "December"]
_PLACES = ["Port Caldera", "Velmont", "Lake Orvane", "Marisca", "Tanaw Bay", "Northwick", "Harrowgate", "Silverfen"]
_TEAMS = ["Rovers", "Mariners", "Falcons", "Tamaraws", "Comets", "Herons", "Typhoons", "Voyagers"]
_NAMES = ["Ilsa", "Marco", "Teodora", "Rafael", "Amihan", "Lukas", "Kenji", "Priya", "Freya", "Oskar"]
_SURNAMES = ["Marrow", "Quenby", "Verhoeven", "Santillan", "Halvorsen", "Ibarra", "Lindqvist", "Thornbury"]


def _web_record(i: int, gold: dict, rng: gen.Rng, integer: bool) -> dict:
    question, kind = _WEB_QUESTIONS[i % len(_WEB_QUESTIONS)]
    year = 1960 + rng.below(60)
    answer: str | int = {
        "year": year,
        "country": rng.pick(_COUNTRIES),
        "instrument": rng.pick(_INSTRUMENTS),
        "month": f"{rng.pick(_MONTHS)} {year}",
        "color": rng.pick(_COLORS),
    }[kind]
    if kind == "year" and integer:
        answer = int(answer)
    fields = {
        "team": f"{rng.pick(_PLACES)} {rng.pick(_TEAMS)} {i}",
        "event": f"{rng.pick(_PLACES)} Festival {i}",
        "year": 1950 + rng.below(70),
        "name": f"{rng.pick(_NAMES)} {rng.pick(_SURNAMES)} {i}",
        "ensemble": f"{rng.pick(_PLACES)} Quartet {i}",
        "place": rng.pick(_PLACES),
        "noun": "a " + gold["title"].split()[-1].lower(),
    }
    gold = dict(gold, title=f"{gold['title']} {answer}", description=f"{gold['description']} Edition: {answer}.")
    return {"query": question.format(**fields), "Knowledge_Attribute": answer, "reward": gold}


def shoppingbench_files(n: int, folder: Path, seed: int) -> list[Path]:
    """n records in ShoppingBench's four test formats and proportions (250/250/250/150 of 900), built from products
    of a generated catalog, with real-data quirks at the real rates: gold ids named by two problems (a voucher
    basket sharing a product with a product, shop or other voucher problem) and web answers stored as integers."""
    rng = gen.Rng("bench-import", seed)
    products = list(gen.iter_products(seed + 1000, max(2000, n * 4)))
    counts = {t: round(n * k / 900) for t, k in SHARES.items()}
    shared = round(SHARED_GOLDS * n / 900)
    integers = round(INTEGER_ANSWERS * n / 900)
    records: dict[str, list[dict]] = {t: [] for t in SHARES}
    serial = 0

    def picks(k: int) -> list[dict]:
        nonlocal serial
        out = []
        for _ in range(k):  # fresh ids: only the planned sharing below names one gold twice
            serial += 1
            out.append(dict(products[serial % len(products)], product_id=str(7_000_000_000 + serial)))
        return out

    def dump(r: object) -> dict:
        return r.model_dump(mode="json", exclude_defaults=True)  # type: ignore[attr-defined]

    # queries rendered from the constraints, as ShoppingBench's are written (never the title)
    for _ in range(counts["product"]):
        r, spec = constraints_for(picks(1)[0], rng)
        records["product"].append({"query": render.render_product_query(spec, rng), "reward": dump(r)})
    for i in range(counts["shop"]):
        pairs = [constraints_for(p, rng) for p in picks(2 + i % 3)]
        records["shop"].append(
            {"query": render.render_shop_query([sp for _, sp in pairs], rng), "reward": [dump(r) for r, _ in pairs]}
        )
    for i in range(counts["voucher"]):
        items = picks(1 + i % 4)
        pairs = [constraints_for(p, rng, allow_price=False) for p in items]
        v = voucher_for(max(sum(p["price"] for p in items), 100.0), rng.pick(["platform", "shop"]), rng)
        spec = render.VoucherSpec(
            v.voucher_type, v.threshold, v.discount_type, v.face_value, v.discount, v.cap, v.budget
        )
        records["voucher"].append(
            {
                "query": render.render_voucher_query([sp for _, sp in pairs], spec, rng),
                "voucher": v.model_dump(mode="json"),
                "reward": [dump(r) for r, _ in pairs],
            }
        )
    for k in range(min(shared, counts["voucher"])):  # a basket's first product is another problem's gold
        source = [records["product"], records["shop"], records["voucher"]][k % 3]
        other = source[(7 * k + 1) % len(source)]["reward"]
        other = other[-1] if isinstance(other, list) else other
        basket = records["voucher"][-1 - k]["reward"]
        if other is not basket[0]:
            basket[0] = {key: value for key, value in other.items() if key != "price"}
    for i in range(counts["web"]):
        records["web"].append(_web_record(i, picks(1)[0], rng, integer=i % 5 == 0 and i // 5 < integers))
    names = {
        "product": "synthesize_product_test.jsonl",
        "shop": "synthesize_shop_test.jsonl",
        "voucher": "synthesize_voucher_test.jsonl",
        "web": "synthesize_web_simpleqa_test.jsonl",
    }
    paths = []
    for task, rows in records.items():
        path = folder / names[task]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        paths.append(path)
    return paths


def rebuild_in_child(files: list[Path], size: int, out: Path) -> tuple[float, int, dict]:
    """Import ``files`` and rebuild them on a ``size`` background in a child process: (wall s, peak bytes of the
    process tree, what the child reports)."""
    code = (
        "import json, sys; from arena.tasks.shoppingbench.importer import import_files; "
        "from arena.tasks.shopping.rebuild import rebuild_catalog; "
        f"r = import_files({[str(f) for f in files]!r}); "
        f"b = rebuild_catalog(r.problems, {str(out)!r}, background_size={size}, force=True); "
        "print(json.dumps({'records': len(r.problems) + len(r.bad), 'bad': len(r.bad), "
        "'kept': len(b.problems), 'left_out': b.skipped, 'products': b.products, 'web_pages': b.web_pages}))"
    )
    started = time.perf_counter()
    proc = psutil.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    peak = 0
    while proc.poll() is None:
        try:
            peak = max(peak, proc.memory_info().rss + sum(c.memory_info().rss for c in proc.children(recursive=True)))
        except psutil.Error:
            pass
        time.sleep(0.05)
    wall = time.perf_counter() - started
    if proc.returncode:
        raise SystemExit("rebuild failed")
    return wall, peak, json.loads(proc.stdout.read().strip().splitlines()[-1])


def fairness_rows(problems: list, catalog: Catalog, size: int) -> None:
    """The rebuilt catalog's products that contradict themselves, per field, and the tool-visible oracle per task
    (arena/tasks/shoppingbench/fairness.py): both as `arena problems selfcheck` checks them."""
    started = time.perf_counter()
    found = consistency(problems, catalog, tags_key(problems))
    fields = ", ".join(f"{f} {n}" for f, n in found.figures()["by_field"].items())
    print(
        f"consistency: {found.contradicting} of {found.products:,} products contradict their own attributes "
        f"({fields}) [{time.perf_counter() - started:.1f}s]"
    )
    started = time.perf_counter()
    by_task, _ = oracle(problems, catalog)
    rows = ", ".join(
        f"{t} {r.solved}/{r.problems} solved, {r.distractors_passed}/{r.distractors} distractors pass"
        for t, r in by_task.items()
    )
    print(f"tool-visible oracle ({size:,} background): {rows} [{time.perf_counter() - started:.1f}s]")


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
        print(
            f"generate: {len(generated.problems)} problems in {gen_s:.1f}s = "
            f"{len(generated.problems) / gen_s:.1f} problems/s ({len(generated.skipped)} skipped) on {size:,}"
        )

        files = shoppingbench_files(args.imported, work, args.seed)
        started = time.perf_counter()
        imported = import_files(files)
        import_s = time.perf_counter() - started
        print(
            f"import: {len(imported.problems)} of {args.imported} records in {import_s:.2f}s ({len(imported.bad)} bad)"
        )
        wall, peak, child = rebuild_in_child(files, size, work / "rebuilt")
        print(
            f"import+rebuild: {args.imported} problems on a {size:,} background in {wall:.1f}s "
            f"(child process, start-up included), peak {peak / 2**20:.0f} MB (process tree); {child['kept']} "
            f"playable, {len(child['left_out'])} left out as unsatisfiable; {child['products']:,} products, "
            f"{child['web_pages']} web pages for the imported web problems"
        )
        for line in child["left_out"][:5]:
            print(f"  left out: {line}")

        rebuilt = rebuild_catalog(imported.problems, work / "rebuilt2", background_size=0)
        rebuilt_catalog = Catalog.open(work / "rebuilt2")
        runs = sum(1 + len(p.meta["distractors"]) for p in rebuilt.problems)
        for ruleset in RULESETS:
            started = time.perf_counter()
            report = selfcheck(rebuilt.problems, rebuilt_catalog.get, ruleset=ruleset)
            score_s = time.perf_counter() - started
            gold = ", ".join(f"{t} {c.gold_rate:.0%}/{c.distractor_pass_rate:.0%}" for t, c in report.by_task.items())
            print(
                f"score [{ruleset}]: {runs} runs (gold + distractors) in {score_s:.2f}s = {runs / score_s:.0f} "
                f"runs/s; self-check ok={report.ok} (gold pass/distractor pass: {gold})"
            )

        # the same problems and products as the child's catalog: the plan does not depend on the background
        started = time.perf_counter()
        baseline = blind_baseline(rebuilt.problems, Catalog.open(work / "rebuilt"))
        base_s = time.perf_counter() - started
        rows = ", ".join(
            f"{t} {b.query_rate:.1%}" + (f" (top web result: {b.web_rate:.1%})" if b.web_rate is not None else "")
            for t, b in baseline.items()
        )
        print(
            f"blind baseline (top find_product hits for the query; shoppingbench ruleset; {size:,} background): "
            f"{rows} [{base_s:.1f}s]"
        )
        big = Catalog.open(work / "rebuilt")
        fairness_rows(rebuilt.problems, big, size)
        web = [p for p in rebuilt.problems if p.task == "web"]
        first = sum(
            bool(
                re.search(
                    rf"\b{re.escape(str(p.knowledge_attribute))}\b",
                    (big.web_search(p.query, 1) or [{"content": ""}])[0]["content"],
                )
            )
            for p in web
        )
        print(
            f"web: the top web_search result for the query states the answer for {first} of {len(web)} web "
            f"problems ({first / max(1, len(web)):.1%}); the others are near-miss pages"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
