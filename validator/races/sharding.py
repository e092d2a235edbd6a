"""Which runs of a race this node makes: every (miner, problem, sample), or with the rotation's `shard_r` >= 2 its
shard of them.

- The split: the race's units (miner hotkey, problem id, sample index) go to the validators that published results
  for the race before (permit holders whose results commitment, as of this race's seed block, was made after the
  race before opened; a node's first race: every permit holder), by the race's seed, each unit to r of them
  (`arena.pooling.shard`). A node that is not among
  them (it joined, or published nothing last race) takes the shard it would hold as one more validator: its runs are
  an extra cross-check (the others' split covers every unit without it), and its results make it one of the split
  next race.
- Make-up: a unit of the race before whose validators all published nothing is run in this race by every validator
  of the split. Its problem is public once that race closed, so it is never raced again: the miner gets the unit as
  an extra sample on this race's problems instead (its j-th missing unit, sorted, becomes sample k + j // P of
  problem j mod P, P the race's problems), so its standing over the window rests on as many samples as planned.
- The plan (samples, window, r, the validators, the miners, this node's units and make-up units) is stored with the
  race, so a node that resumes opening it makes the same runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.pooling import Unit, seed_of, shard
from validator.store.models import Race


def units_of(miners: Sequence[str], problem_ids: Sequence[str], samples: int) -> list[Unit]:
    return [(m, p, a) for m in sorted(miners) for p in problem_ids for a in range(samples)]


def missing_units(previous: Race | None, published: Sequence[str]) -> list[Unit]:
    """The units of the sharded race `previous` whose validators all published nothing (none is in `published`)."""
    plan = (previous.plan or {}) if previous is not None else {}
    if previous is None or int(plan.get("shard_r") or 0) < 2:
        return []
    units = units_of(plan.get("miners", []), previous.problem_ids, int(plan.get("samples", 1)))
    split = shard(units, plan.get("validators", []), int(plan["shard_r"]), seed_of(previous.seed_hash))
    held = {unit for v, mine in split.items() if v in set(published) for unit in mine}
    return [u for u in units if u not in held]


def make_up(missing: Sequence[Unit], miners: Sequence[str], problem_ids: Sequence[str], samples: int) -> list[Unit]:
    """The missing units of the race before as extra samples of the same miners on this race's problems."""
    out: list[Unit] = []
    if not problem_ids:
        return out
    racing = set(miners)
    per_miner: dict[str, int] = {}
    for miner, _, _ in sorted(missing):
        if miner not in racing:
            continue
        j = per_miner.get(miner, 0)
        per_miner[miner] = j + 1
        out.append((miner, problem_ids[j % len(problem_ids)], samples + j // len(problem_ids)))
    return out


def plan_race(
    race: Race,
    *,
    me: str,
    miners: Sequence[str],
    samples: int,
    window: int,
    r: int,
    validators: Sequence[str],
    previous: Race | None,
) -> dict[str, Any]:
    """The race's plan; sharded, with this node's units (`plan["mine"]`: [miner, problem id, sample] lists)."""
    units = units_of(miners, race.problem_ids, samples)
    plan: dict[str, Any] = {"samples": samples, "window": window, "shard_r": r, "miners": sorted(miners)}
    if r < 2:  # every unit is this node's: `samples` runs per (miner, problem)
        return {**plan, "validators": [], "make_up": 0}
    split_among = sorted(set(validators))
    seed = seed_of(race.seed_hash)
    mine = shard(units, split_among if me in split_among else [*split_among, me], r, seed).get(me, [])
    extra = make_up(missing_units(previous, split_among), miners, race.problem_ids, samples)
    return {
        **plan,
        "validators": split_among,
        "mine": [list(u) for u in sorted(set(mine) | set(extra))],
        "make_up": len(extra),
    }
