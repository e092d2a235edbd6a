"""How long the copy check takes: one new submission against N earlier ones (prints figures; asserts nothing).

    python bench/copies.py                 # 500 earlier submissions, 5 repeats
    python bench/copies.py --earlier 50    # quick
    python bench/copies.py --json row.json

The earlier submissions are template-sized bundles (the offline template's modules, the LLM and subnet-15 templates,
each module with one constant changed per version, 8 to 15 modules a bundle), their fingerprints stored as the node
stores them (`<bundle>.fingerprint.json`). The new submission is a copy of the offline template with its functions
reordered (`tests/support/copy_variants.py`). Timed, as the node's sync runs them (`validator.submissions.similarity`):
`new` fingerprinting the new bundle; `check_warm` comparing it with every earlier one and the templates held in
memory (a running node); `check_cold` the same after reading every earlier fingerprint from its file (a node just
started). The goal is check_warm + new <= 2 s on 2 cores.

The fork rule's behaviour part (`arena.copies.behaviour.behaviour_evidence`) is timed on a race of `--miners` agents
(`--problems` problems, `--samples` runs each): honestly different agents (each its own searches, one word of its
query changing from one sample to the next, or fixed for the last eighth; each answers a problem right, the one gold
answer every right agent gives, with its own skill from 0.4 to 0.9, and wrong otherwise, half the time with one of
two popular wrong answers other agents give too, else its own), plus five planted copies: an exact copy of m0, m0
with its queries padded with spaces and in capitals, m1 with a no-op search added at random, m2 made deterministic,
and m3 with a word no product has added to every query (its searches differ, its answers, wrong ones included, are
m3's). `behaviour_s` is the time to compare every pair, `behaviour_copies` how many pairs were found,
`behaviour_planted_found` how many planted copies were (5/5 expected), `behaviour_false_copies` pairs found between
agents that are not copies of one another (0 expected).
"""

from __future__ import annotations

import argparse
import inspect
import json
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.copies import Fingerprint, fingerprint_files  # noqa: E402
from arena.copies.behaviour import behaviour_evidence, behaviour_of  # noqa: E402
from tests.support.copy_variants import TEMPLATE, read_bundle, reordered, write_bundle  # noqa: E402
from validator.submissions import similarity  # noqa: E402


def module_pool(versions: int, rng: random.Random) -> list[Fingerprint]:
    """Every template module in ``versions`` versions (a constant changed in each), fingerprinted once."""
    sources = {**read_bundle(TEMPLATE)}
    for extra in ("llm", "sn15"):
        sources[f"{extra}.py"] = (ROOT / "miner_template" / extra / "agent.py").read_text()
    pool = []
    for name, text in sources.items():
        for _ in range(versions):
            changed = re.sub(
                r"\b\d+\b", lambda m: str(int(m.group()) + rng.randint(1, 9)), text, count=rng.randint(1, 3)
            )
            pool.append(fingerprint_files({name: changed.encode()}))
    return pool


def earlier_bundles(n: int, pool: list[Fingerprint], rng: random.Random) -> list[Fingerprint]:
    out = []
    for _ in range(n):
        parts = rng.sample(pool, rng.randint(8, 15))
        hashes = sorted({h for p in parts for h in p.hashes})
        out.append(Fingerprint(hashes=tuple(hashes), files=len(parts)))
    return out


Agents = list[tuple[str, dict[str, list[tuple[str, ...]]]]]


def race_behaviour(
    miners: int, problems: int, samples: int
) -> tuple[Agents, dict[str, dict[str, list[float]]], dict[str, str]]:
    """Each miner's runs' tool calls by problem (its own searches and answer, a word of its query drawn per sample;
    the last eighth deterministic, the same word every sample), then the planted copies, and which miner each copies:
    an exact copy of m0, m0's queries padded with a space and in capitals, m1 with a no-op search at random, m2 made
    deterministic (its first sample's draw every time), m3 with a nonsense word added to every query; and every
    agent's runs' strict scores by problem."""
    call = lambda name, **a: {"kind": "tool_call", "name": name, "arguments": a}  # noqa: E731
    rng = random.Random(11)

    skill = {m: 0.4 + 0.5 * rng.random() for m in range(miners)}
    answer: dict[tuple[int, int], str] = {}
    for m in range(miners):
        for p in range(problems):
            if rng.random() < skill[m]:
                answer[m, p] = f"gold-{p}"
            elif rng.random() < 0.5:
                answer[m, p] = f"popular-wrong-{p}-{rng.randrange(2)}"
            else:
                answer[m, p] = f"wrong-{m}-{p}"

    def events(m: int, p: int, s: int) -> list[dict[str, Any]]:
        word = (m * 7 + (s if m < miners - miners // 8 else 0)) % 5
        return [
            call("find_product", q=f"agent {m} problem {p} word {word}"),
            call("find_product", q=f"problem {p} by {m}"),
            *(call("view_product_information", product_ids=[f"p{m}-{p}-{i}"]) for i in range(m % 4)),
            call("recommend_product", product_ids=answer[m, p]),
        ]

    def reworded(evs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**e, "arguments": {k: f"{v} zqxv" if k == "q" else v for k, v in e["arguments"].items()}} for e in evs]

    def padded(evs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {**e, "arguments": {k: f" {v} ".upper() if k == "q" else v for k, v in e["arguments"].items()}} for e in evs
        ]

    def noop(evs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        at = rng.randrange(len(evs) + 1)
        return [*evs[:at], call("find_product", q=f"nothing {rng.random()}"), *evs[at:]]

    plain = {m: {p: [events(m, p, s) for s in range(samples)] for p in range(problems)} for m in range(miners)}
    agents = [(f"m{m}", {f"p{p}": [behaviour_of(r) for r in runs] for p, runs in plain[m].items()}) for m in plain]
    planted = {
        "copy-of-m0": {p: list(runs) for p, runs in plain[0].items()},
        "padded-m0": {p: [padded(r) for r in runs] for p, runs in plain[0].items()},
        "noop-m1": {p: [noop(r) for r in runs] for p, runs in plain[1].items()},
        "fixed-m2": {p: [runs[0]] * samples for p, runs in plain[2].items()},
        "reworded-m3": {p: [reworded(r) for r in runs] for p, runs in plain[3].items()},
    }
    for name, by_problem in planted.items():
        agents.append((name, {f"p{p}": [behaviour_of(r) for r in runs] for p, runs in by_problem.items()}))
    origin = {name: name.rsplit("-", 1)[1] for name in planted}
    success = {
        name: {
            f"p{p}": [float(answer[int(origin.get(name, name)[1:]), p] == f"gold-{p}")] * samples
            for p in range(problems)
        }
        for name, _ in agents
    }
    return agents, success, origin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--earlier", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--miners", type=int, default=64, help="agents in the race the behaviour check compares")
    parser.add_argument("--problems", type=int, default=30)
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rng = random.Random(7)
    t0 = time.perf_counter()
    earlier = earlier_bundles(args.earlier, module_pool(4, rng), rng)
    setup = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        folders = []
        for i, fp in enumerate(earlier):
            folder = Path(tmp) / f"{i:064x}"
            folder.with_name(folder.name + ".fingerprint.json").write_text(fp.model_dump_json())
            folders.append(folder)
        new_folder = write_bundle(reordered(read_bundle(TEMPLATE)), Path(tmp) / "new")
        similarity.template_fingerprints()
        new_s, warm_s, cold_s = [], [], []
        found: list[similarity.Comparison] = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            new = similarity.fingerprint_path(new_folder)
            new_s.append(time.perf_counter() - t)
            held = [*similarity.template_fingerprints().items(), *((str(i), fp) for i, fp in enumerate(earlier))]
            t = time.perf_counter()
            found = similarity.copies_of(new, held)
            warm_s.append(time.perf_counter() - t)
            similarity._MEMO.clear()
            t = time.perf_counter()
            loaded = [(f.name[:8], similarity.cached_fingerprint(f)) for f in folders]
            similarity.copies_of(new, [*similarity.template_fingerprints().items(), *loaded])
            cold_s.append(time.perf_counter() - t)
    agents, success, origin = race_behaviour(args.miners, args.problems, args.samples)
    t = time.perf_counter()
    if "success" in inspect.signature(behaviour_evidence).parameters:
        behaving = behaviour_evidence(agents, success)
    else:  # a commit before the answer evidence: the same race read by calls alone
        behaving = behaviour_evidence(agents)
    behaviour_s = time.perf_counter() - t
    family = lambda name: origin.get(name, name)  # noqa: E731
    true = {(e.a, e.b) for e in behaving if family(e.a) == family(e.b)}
    sizes = [len(fp.hashes) for fp in earlier]
    row = {
        "earlier": args.earlier,
        "earlier_fingerprints_median": int(statistics.median(sizes)),
        "new_fingerprints": len(new.hashes),
        "new_s": round(statistics.median(new_s), 3),
        "check_warm_s": round(statistics.median(warm_s), 3),
        "check_cold_s": round(statistics.median(cold_s), 3),
        "total_warm_s": round(statistics.median(new_s) + statistics.median(warm_s), 3),
        "similar_earlier": len(found),
        "template_similarity": next((c.similarity for c in found if c.earlier == "template:offline"), None),
        "behaviour_race": f"{len(agents)} agents x {args.problems} problems x {args.samples} samples",
        "behaviour_s": round(behaviour_s, 3),
        "behaviour_copies": len(behaving),
        "behaviour_planted_found": f"{len({b for a, b in true if b in origin})}/{len(origin)}",
        "behaviour_false_copies": len(behaving) - len(true),
        "behaviour_by_answers": sum(e.kind == "answers" for e in behaving),
        "setup_s": round(setup, 1),
    }
    for key, value in row.items():
        print(f"{key:30s} {value}")
    if args.json:
        args.json.write_text(json.dumps(row, indent=2) + "\n")


if __name__ == "__main__":
    main()
