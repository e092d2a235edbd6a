"""Calibrate the title-similarity threshold of the strict checks (prints a table; asserts nothing).

Same product: two listings of one product model (brand, series, noun, key attributes) in different shops, as the
generator makes them: titles reworded, reordered, with marketing words. Different product: two listings of different
models in the same leaf category (the hard case), and of different leaves (the easy case).

    python bench/calibrate_titles.py [--size 30000] [--pairs 20000]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.catalog import generator as gen  # noqa: E402
from arena.tasks.shopping.similarity import TITLE_THRESHOLD, default_embedder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", type=int, default=30_000)
    parser.add_argument("--pairs", type=int, default=20_000)
    args = parser.parse_args()
    world = gen.World.build(args.seed, args.size)
    by_model: dict[int, list[dict]] = defaultdict(list)
    by_leaf: dict[str, list[int]] = defaultdict(list)
    for chunk in range((args.size + gen.CHUNK - 1) // gen.CHUNK):
        for product, model_key in gen.generate_chunk(world, chunk):
            by_model[model_key].append(product)
    for key, listings in by_model.items():
        by_leaf[listings[0]["category"]].append(key)
    rng = random.Random(args.seed)
    multi = [k for k, v in by_model.items() if len({p["shop_id"] for p in v}) >= 2]
    same, hard, easy = [], [], []
    keys = list(by_model)
    while len(same) < args.pairs:
        listings = by_model[rng.choice(multi)]
        a, b = rng.sample(listings, 2)
        if a["shop_id"] != b["shop_id"]:
            same.append((a["title"], b["title"]))
    leaves = [leaf for leaf, ks in by_leaf.items() if len(ks) >= 2]
    while len(hard) < args.pairs:
        k1, k2 = rng.sample(by_leaf[rng.choice(leaves)], 2)
        hard.append((rng.choice(by_model[k1])["title"], rng.choice(by_model[k2])["title"]))
    while len(easy) < args.pairs:
        k1, k2 = rng.sample(keys, 2)
        easy.append((rng.choice(by_model[k1])["title"], rng.choice(by_model[k2])["title"]))
    emb = default_embedder()

    def sims(pairs: list[tuple[str, str]]) -> np.ndarray:
        a = emb.embed([p[0] for p in pairs])
        b = emb.embed([p[1] for p in pairs])
        return (a * b).sum(axis=1)

    s_same, s_hard, s_easy = sims(same), sims(hard), sims(easy)
    print(f"{'threshold':>9} {'same pass':>10} {'hard pass':>10} {'easy pass':>10} {'balanced acc':>13}")
    best = (0.0, 0.0)
    for t in np.arange(0.40, 0.91, 0.05):
        sp, hp, ep = (s_same >= t).mean(), (s_hard >= t).mean(), (s_easy >= t).mean()
        bal = (sp + (1 - hp)) / 2
        best = max(best, (bal, t))
        mark = "  <- TITLE_THRESHOLD" if abs(t - TITLE_THRESHOLD) < 1e-9 else ""
        print(f"{t:>9.2f} {sp:>10.1%} {hp:>10.1%} {ep:>10.1%} {bal:>13.1%}{mark}")
    print(
        f"best balanced accuracy {best[0]:.1%} at {best[1]:.2f}; "
        f"medians same {np.median(s_same):.3f} hard {np.median(s_hard):.3f} easy {np.median(s_easy):.3f}"
    )


if __name__ == "__main__":
    main()
