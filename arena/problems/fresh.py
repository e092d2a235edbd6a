"""Problems generated fresh for one qualifying round: from the catalog and a block hash nobody knew before the
submission was on chain, by the task families' generators (their ground truth fixed in code, as `arena problems
generate` makes it). No miner holds their answers, and every validator with the pack's catalog makes the same ones
(pure: a function of the catalog, the pack id, the seed hash, the count and the task mix)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.tasks import ProblemBase, family_for

#: the split fresh problems carry: they are in no pack, and the node stores them apart from the pack's
FRESH_SPLIT = "qualifying"
#: how many times the places a generator gave up on are drawn again (with the next seed)
TOP_UPS = 3


@dataclass
class Made:
    """What the generators made: the problems kept, one line per problem given up on, their versions."""

    problems: list[ProblemBase] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)


def generate_counts(
    catalog: Any, counts: Mapping[str, int], *, seed: int, progress: Callable[[int], None] | None = None
) -> Made:
    """``counts[task]`` problems of each task type, each family's share made by its generator (`Family.generate`,
    its tasks in turn); a family without a generator raises NotImplementedError. Deterministic by (catalog, seed,
    counts)."""
    shares: dict[str, tuple[Any, list[str], int]] = {}
    for task, count in counts.items():
        if count < 1:
            continue
        fam = family_for(task)
        _, mine, total = shares.get(fam.name, (fam, [], 0))
        shares[fam.name] = (fam, [*mine, task], total + count)
    made = Made()
    for fam, mine, total in shares.values():
        generated = fam.generate(catalog, total, tasks=mine, seed=seed, progress=progress)
        made.problems += generated.problems
        made.skipped += generated.skipped
        made.versions.append(generated.version)
    return made


def generates(task: str) -> bool:
    """Whether the task type's family has a generator (a task of imported problems only cannot be made fresh)."""
    from arena.tasks.base import Family

    return type(family_for(task)).generate is not Family.generate


def mix_counts(n: int, task_mix: Mapping[str, float]) -> dict[str, int]:
    """`n` places shared by the task mix's weights among the task types that have a generator (largest
    remainders, ties by task name); empty when none has."""
    weights = {task: w for task, w in task_mix.items() if w > 0 and generates(task)}
    total = sum(weights.values())
    if n <= 0 or total <= 0:
        return {}
    exact = {task: n * w / total for task, w in weights.items()}
    quota = {task: int(share) for task, share in exact.items()}
    for task in sorted(exact, key=lambda t: (-(exact[t] - quota[t]), t))[: n - sum(quota.values())]:
        quota[task] += 1
    return {task: quota[task] for task in sorted(quota) if quota[task] > 0}


def fresh_seed(pack_id: str, seed_hash: str) -> int:
    """The generators' seed for a round: from the pack and the block hash (a new pack makes new problems)."""
    return int(hashlib.sha256(f"fresh|{pack_id}|{seed_hash}".encode()).hexdigest()[:15], 16)


def fresh_problems(
    catalog: Any, *, pack_id: str, seed_hash: str, n: int, task_mix: Mapping[str, float]
) -> tuple[list[ProblemBase], list[str]]:
    """`n` problems made fresh for a qualifying round (split `qualifying`), the task mix's share each, and the
    lines of those a generator gave up on; the same on every validator with the pack's catalog. Places a generator
    gave up on are drawn again by the mix with the next seed, up to `TOP_UPS` times."""
    found: dict[str, ProblemBase] = {}
    skipped: list[str] = []
    for top_up in range(TOP_UPS + 1):
        missing = n - len(found)
        if missing <= 0:
            break
        seed = fresh_seed(pack_id, seed_hash if top_up == 0 else f"{seed_hash}#{top_up}")
        made = generate_counts(catalog, mix_counts(missing, task_mix), seed=seed)
        skipped += made.skipped
        for problem in made.problems[:missing]:
            found.setdefault(problem.problem_id, problem.model_copy(update={"split": FRESH_SPLIT}))
    return sorted(found.values(), key=lambda p: p.problem_id), skipped
