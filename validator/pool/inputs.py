"""What pooled standings are computed from, read from the chain one way for the node (`validator.races.pooling`) and
for `arena-validator audit` (`validator.audit`), so both find the same standings and weights byte for byte:

- the block the pool is pinned at (`pin_block`): the race's cut-off block once it has passed; before it (a node with
  `--pool.early`, or an audit, once every permit holder committed) the block of the last commitment of that set;
- the permit holders and their stakes as of that block (`holders_at`): a stake or permit changed after it changes
  nothing, whenever a validator pools;
- each miner's agent commitment block as of the race's start (`commitment_blocks`): exact ties go to the earliest;
- with sharding (the rotation's `shard_r` >= 2), the units each validator was given (`assignment`), so a validator
  that leaves out more than one of a miner's units is bounded by the pooling rule (`arena.pooling.pool(assigned=)`)
  even when it leaves out whole problems. The split is the one the race was opened with
  (`validator.races.sharding`): the race's units (every pooled miner on every problem and sample) dealt by the race's
  seed among the permit holders whose results commitment, as of the race's start, was made since the slot before
  (none: every permit holder then), each unit to r of them; a validator outside that split is expected to hold the
  shard it would hold as one more; make-up units (sample index k and up) are expected of every validator, but only
  those published by validators holding more than half the pooled stake: a unit only a minority published may be
  made up, and expecting it of everyone would drop every honest validator's runs of that miner (two made-up runs
  of a rival and the rival is judged by the one who made them up).
- the window (`RaceRuns`, `window_starts`): with the rotation's `window` W > 1, the verified runs of the W - 1 race
  slots before this one are pooled with this race's, of the miners racing now only (whichever submission ran them:
  the lone node's rule, `validator.races.sampling`), problem ids made distinct per race (``<start block>:<problem
  id>``), each race's shards rebuilt from its own runs. A validator is one voter over the window: one that left out more
  than one of a miner's units anywhere in it has none of that miner's runs counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.pooling import PooledRun, Standing, Unit, pool, seed_of, shard
from validator.chain.commitment import parse_commitment
from validator.chain.port import ChainPort, Neuron
from validator.chain.results import results_commitments

NEVER = 2**62  # the commitment block of a miner whose raced agent is not the one committed at the race's start


@dataclass(frozen=True)
class RaceRuns:
    """One race's verified runs (validator -> its pooled runs) with what its shards are rebuilt from."""

    race_id: str
    start: int
    seed_hash: str
    problem_ids: Sequence[str]
    runs: Mapping[str, Sequence[PooledRun]]


def window_starts(start: int, rotation: Any) -> list[int]:
    """The start blocks of the W - 1 race slots before the race starting at `start`, latest first."""
    cadence = int(rotation.cadence_blocks)
    return [start - j * cadence for j in range(1, int(rotation.window)) if start - j * cadence >= 0]


def pin_block(cutoff: int, now: int, committed_blocks: Iterable[int]) -> int:
    """The block stakes and permits are read at: the cut-off once passed, else the last commitment of the set."""
    blocks = list(committed_blocks)
    return int(cutoff) if now > cutoff or not blocks else min(int(cutoff), max(blocks))


def holders_at(chain: ChainPort, block: int | None) -> dict[str, Neuron]:
    """The validator-permit holders (hotkey -> neuron, with its stake) as of `block` (else now)."""
    return {n.hotkey: n for n in chain.metagraph(block).neurons if n.validator_permit}


def registered_at(chain: ChainPort, block: int | None) -> dict[str, int]:
    """Every registered hotkey's registration block as of `block` (else now): no miner is dated before it."""
    return {n.hotkey: int(n.block_at_registration) for n in chain.metagraph(block).neurons}


def commitment_blocks(chain: ChainPort, start: int, runs: Mapping[str, Sequence[PooledRun]]) -> dict[str, int]:
    """Each pooled miner's agent commitment block as of the race's start (ties go to the earliest), from the
    miners' `sa1` commitments on chain; a miner whose raced agent is not the one committed then: after every other."""
    agents = {}
    for hotkey, commitment in chain.commitments(start).items():
        parsed = parse_commitment(commitment.value)
        if parsed is not None:
            agents[hotkey] = (parsed[0], commitment.block)
    blocks: dict[str, int] = {}
    for pooled in runs.values():
        for run in pooled:
            sha, block = agents.get(run.miner, ("", NEVER))
            blocks[run.miner] = min(blocks.get(run.miner, NEVER), block if sha == run.submission else NEVER)
    return blocks


def split_validators(chain: ChainPort, start: int, cadence: int) -> list[str]:
    """The validators a sharded race starting at `start` was split among (see the module's docstring)."""
    since = start - cadence
    found = {c.hotkey for c in results_commitments(chain, block=start) if c.validator_permit and c.block >= since}
    return sorted(found) if found else sorted(holders_at(chain, start))


def assignment(
    chain: ChainPort,
    runs: Mapping[str, Sequence[PooledRun]],
    rotation: Any,
    *,
    start: int,
    seed_hash: str,
    problem_ids: Sequence[str],
    stakes: Mapping[str, float] | None = None,
) -> dict[str, list[Unit]] | None:
    """Each validator's expected units of the race (None without sharding): see the module's docstring. `stakes`
    (validator -> stake; default: alike) decide which make-up units every validator is held to."""
    r, samples = int(rotation.shard_r), int(rotation.samples)
    if r < 2:
        return None
    pooled = [run for rows in runs.values() for run in rows]
    miners = sorted({run.miner for run in pooled})
    units = [(m, p, a) for m in miners for p in problem_ids for a in range(samples)]
    extra = _agreed_make_up(runs, stakes, samples)
    split = split_validators(chain, start, int(rotation.cadence_blocks))
    seed = seed_of(seed_hash)
    dealt = shard(units, split, r, seed)
    for outside in sorted(set(runs) - set(split)):  # extra cover: the shard it would hold as one more validator
        dealt[outside] = shard(units, [*split, outside], r, seed)[outside]
    return {v: sorted(set(mine) | extra) for v, mine in dealt.items()}


def _agreed_make_up(
    runs: Mapping[str, Sequence[PooledRun]], stakes: Mapping[str, float] | None, samples: int
) -> set[Unit]:
    """The make-up units (sample index `samples` and up) published by validators holding more than half the stake
    of those that published any run (all alike when none has stake)."""
    weight = {v: max(0.0, float((stakes or {}).get(v, 0.0))) for v in runs}
    if not any(weight.values()):
        weight = dict.fromkeys(runs, 1.0)
    total = sum(weight.values())
    backing: dict[Unit, float] = {}
    for validator, rows in runs.items():
        for unit in {(run.miner, run.problem_id, run.attempt) for run in rows if run.attempt >= samples}:
            backing[unit] = backing.get(unit, 0.0) + weight[validator]
    return {unit for unit, held in backing.items() if held * 2 > total}


def _windowed(
    chain: ChainPort, races: Sequence[RaceRuns], rotation: Any, stakes: Mapping[str, float]
) -> tuple[dict[str, list[PooledRun]], dict[str, list[Unit]] | None]:
    """The runs (and shards) of the window's races as one race: see the module's docstring."""
    racing = {run.miner for rows in races[0].runs.values() for run in rows}
    runs: dict[str, list[PooledRun]] = {}
    assigned: dict[str, list[Unit]] | None = None
    for race in races:
        shards = assignment(
            chain,
            race.runs,
            rotation,
            start=race.start,
            seed_hash=race.seed_hash,
            problem_ids=race.problem_ids,
            stakes={v: stakes.get(v, 0.0) for v in race.runs},
        )
        for validator, rows in sorted(race.runs.items()):
            runs.setdefault(validator, []).extend(
                r.model_copy(update={"problem_id": f"{race.start}:{r.problem_id}"}) for r in rows if r.miner in racing
            )
        for validator, units in sorted((shards or {}).items()):
            assigned = {} if assigned is None else assigned
            assigned.setdefault(validator, []).extend((m, f"{race.start}:{p}", a) for m, p, a in units if m in racing)
    return runs, assigned


def pooled_standings(
    chain: ChainPort,
    runs: Mapping[str, Sequence[PooledRun]],
    holders: Mapping[str, Any],
    rotation: Any,
    *,
    start: int,
    seed_hash: str,
    problem_ids: Sequence[str],
    earlier: Sequence[RaceRuns] = (),
) -> tuple[list[Standing], dict[str, int]]:
    """The pooled standings of the verified runs (`arena.pooling.pool`) weighed by the holders' stakes as pinned,
    each validator held to its shard (`assignment`), over the window (`earlier`: the verified runs of the race slots
    of `window_starts`), and each miner's commitment block (the weights' tie-break)."""
    ordered = {h: list(rows) for h, rows in sorted(runs.items())}
    blocks = commitment_blocks(chain, start, ordered)
    if earlier:
        current = RaceRuns(race_id="", start=start, seed_hash=seed_hash, problem_ids=problem_ids, runs=ordered)
        every = {v for race in [current, *earlier] for v in race.runs}
        stakes = {h: float(holders[h].stake) if h in holders else 0.0 for h in sorted(every)}
        ordered, assigned = _windowed(chain, [current, *earlier], rotation, stakes)
    else:
        stakes = {h: float(holders[h].stake) if h in holders else 0.0 for h in ordered}
        assigned = assignment(
            chain, ordered, rotation, start=start, seed_hash=seed_hash, problem_ids=problem_ids, stakes=stakes
        )
    standings = pool(ordered, stakes, seed=seed_of(seed_hash), commitment_blocks=blocks, assigned=assigned)
    return standings, blocks


__all__ = [
    "NEVER",
    "RaceRuns",
    "assignment",
    "commitment_blocks",
    "holders_at",
    "pin_block",
    "pooled_standings",
    "registered_at",
    "split_validators",
    "window_starts",
]
