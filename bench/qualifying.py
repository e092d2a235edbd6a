"""Qualifying-lookup benchmark (prints figures; asserts nothing).

    python bench/qualifying.py              # 12 problems each way
    python bench/qualifying.py --n 30       # the qualifying round's default size

The attacker (`tests/support/lookup_agent.py`: the offline template with the public split's answers baked in) and the
honest offline template, each through `arena-miner test` (the validator's harness, gateway, verdict and offline
judge, in bubblewrap) on:

- before: `--n` problems of the public split, where qualifying drew its problems until it made them fresh (the set
  drawn as it was: `arena.problems.draw` with seed "qualifying");
- after: `--n` problems made fresh for a round (`arena.problems.fresh`, seeded by a block hash nobody knew).

Rows: each agent's mean final score (what the gate compares) and success rate, the lookup's margin over the
template, and the seconds it takes a node to make the round's fresh problems.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.catalog import Catalog  # noqa: E402
from arena.catalog.build import build_catalog  # noqa: E402
from arena.problems.draw import draw_problems  # noqa: E402
from arena.problems.fresh import fresh_problems  # noqa: E402
from arena.problems.splits import assign_splits  # noqa: E402
from arena.tasks.shoppingbench.generate import generate_problems  # noqa: E402
from tests.support.lookup_agent import write_lookup_agent  # noqa: E402
from tests.support.race import write_agent  # noqa: E402

MIX = {"product": 0.3, "shop": 0.25, "voucher": 0.25, "web": 0.2}


def miner_test(agent: Path, problems: list[Any], catalog: Path, out: Path) -> list[dict[str, Any]]:
    """`arena-miner test` of ``agent`` on ``problems``: its scorecard's rows."""
    out.mkdir(parents=True, exist_ok=True)
    jsonl = out / "problems.jsonl"
    jsonl.write_text("".join(p.model_dump_json() + "\n" for p in problems))
    subprocess.run(
        [sys.executable, "-m", "miner_template.cli", "test", str(agent), "--problems", str(jsonl)]
        + ["--catalog", str(catalog), "--n", str(len(problems)), "--out", str(out), "--json", str(out / "card.json")],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200", "PYTHONPATH": str(ROOT)},
    )
    return list(json.loads((out / "card.json").read_text())["problems"])


def figures(rows: list[dict[str, Any]]) -> tuple[float, float]:
    """(mean final score, success rate) of a scorecard's rows."""
    return (sum(float(r["final"] or 0.0) for r in rows) / len(rows), sum(1 for r in rows if r["success"]) / len(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=12, help="problems each way")
    parser.add_argument("--size", type=int, default=3000, help="catalog size")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-qualifying-"))
    build_catalog(3, args.size, root / "catalog", workers=1)
    catalog = Catalog.open(root / "catalog")
    made = generate_problems(catalog, 2 * args.n + 8, seed=2).problems
    problems = assign_splits(made, {"public": 0.5, "race": 0.5}, seed=2)
    public = [p for p in problems if p.split == "public"]
    drawn = set(draw_problems(public, pack_id="bench", seed_hash="qualifying", n=args.n, task_mix=MIX, split="public"))
    before = [p for p in public if p.problem_id in drawn]
    started = time.perf_counter()
    after, skipped = fresh_problems(
        catalog, pack_id="bench", seed_hash="0x" + secrets.token_hex(32), n=args.n, task_mix=MIX
    )
    made_s = time.perf_counter() - started
    agents = {
        "template": write_agent(root / "template", "offline"),
        "lookup": write_lookup_agent(root / "lookup", public),
    }
    print(f"qualifying  {len(before)} public problems (before), {len(after)} fresh problems (after)")
    for label, chosen in (("before", before), ("after", after)):
        scores = {}
        for name, folder in agents.items():
            final, success = figures(miner_test(folder, chosen, root / "catalog", root / label / name))
            scores[name] = final
            print(f"  {label:<6} {name:<9} mean final {final:.4f}  success {success:.0%}")
        margin = scores["lookup"] / scores["template"] - 1 if scores["template"] else float("inf")
        print(f"  {label:<6} lookup over template: {margin:+.1%}")
    print(f"  making {len(after)} fresh problems took {made_s:.1f}s ({len(skipped)} given up)")


if __name__ == "__main__":
    main()
