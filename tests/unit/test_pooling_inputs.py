"""The pool's inputs as the node and `arena-validator audit` both read them (`validator/pool/inputs.py`): with
sharding, each validator is held to the units the race dealt it, so one that leaves out whole problems it was given
(keeping only those where its favoured miner did well) has none of those miners' runs counted."""

from __future__ import annotations

import random
from pathlib import Path

from arena.pooling import PooledRun, pool, seed_of
from arena.problems.pack import Rotation
from validator.chain.bittensor_chain import create_wallet
from validator.chain.local import LocalChain
from validator.pool.inputs import assignment, holders_at, pooled_standings
from validator.races.sharding import plan_race
from validator.store.models import Race

PROBLEMS = [f"p{i}" for i in range(8)]
MINERS = {"m-best": 0.8, "m-fav": 0.4, "m-low": 0.2}
ROTATION = Rotation(cadence_blocks=100, problems_per_race=len(PROBLEMS), shard_r=2)


def runs_of(validator: str, units: list[tuple[str, str, int]], rng: random.Random) -> list[PooledRun]:
    return [
        PooledRun(
            validator=validator,
            miner=m,
            submission="s" + m,
            problem_id=p,
            attempt=a,
            score=float(ok),
            success=float(ok),
        )
        for m, p, a in units
        for ok in [rng.random() < MINERS[m]]
    ]


def test_a_validator_is_held_to_the_shard_the_race_dealt_it(tmp_path: Path) -> None:
    chain = LocalChain.init(tmp_path / "chain.sqlite", block_time=0.05)
    names = ["v1", "v2", "v3"]
    for name in names:
        chain.register(create_wallet(name, "hot", tmp_path / "wallets"), validator_permit=True, stake=10.0)
    holders = holders_at(chain, None)
    start = chain.block()
    seed_hash = chain.block_hash(start)
    race = Race(race_id="r-1", pack_id="p", seed_block=start, seed_hash=seed_hash, problem_ids=PROBLEMS)
    # what each validator's opening dealt it (the node's plan): the first race, split among every permit holder
    plans = {
        v: plan_race(
            race, me=v, miners=list(MINERS), samples=1, window=1, r=2, validators=sorted(holders), previous=None
        )
        for v in holders
    }
    rng = random.Random(7)
    runs = {v: runs_of(v, [tuple(u) for u in plans[v]["mine"]], rng) for v in sorted(holders)}
    expected = assignment(chain, runs, ROTATION, start=start, seed_hash=seed_hash, problem_ids=PROBLEMS)
    assert expected == {v: [tuple(u) for u in plans[v]["mine"]] for v in holders}

    # the withholder keeps only the problems of its shard where its favoured miner succeeded
    withholder = sorted(holders)[0]
    kept = {p for p, r in ((r.problem_id, r) for r in runs[withholder]) if r.miner == "m-fav" and r.success == 1.0}
    dropped = {r.problem_id for r in runs[withholder]} - kept
    assert len(dropped) >= 2, "the shard should hold at least two problems the favoured miner failed"
    runs[withholder] = [r for r in runs[withholder] if r.problem_id in kept]
    stakes = {v: 10.0 for v in runs}

    standings, _ = pooled_standings(
        chain, runs, holders, ROTATION, start=start, seed_hash=seed_hash, problem_ids=PROBLEMS
    )
    free = pool(runs, stakes, seed=seed_of(seed_hash), commitment_blocks={})  # each validator's own columns
    counted = {s.miner: s.validators for s in standings}
    assert counted["m-fav"] == 2  # the withholder's runs of the miner do not count, by its shard
    assert {s.miner: s.validators for s in free}["m-fav"] == 3  # judged by what it chose to publish, they would


def test_attacker_made_up_make_up_runs_do_not_drop_the_honest_validators_runs(tmp_path: Path) -> None:
    """Attacker: a validator adds two runs of the rival at sample index k (make-up samples, which a race with make-up
    units lets through verification and the audit does not bound), both failures. Were every make-up unit anyone
    published expected of every validator, the honest two would each miss two units and have none of their runs of
    the rival counted: the rival would be judged by the attacker alone. A make-up unit only a minority of the stake
    published is expected of nobody else; the rival stays judged by all three, its score by their median."""
    chain = LocalChain.init(tmp_path / "chain.sqlite", block_time=0.05)
    for name in ("v1", "v2", "v3"):
        chain.register(create_wallet(name, "hot", tmp_path / "wallets"), validator_permit=True, stake=10.0)
    holders = holders_at(chain, None)
    start = chain.block()
    seed_hash = chain.block_hash(start)
    race = Race(race_id="r-1", pack_id="p", seed_block=start, seed_hash=seed_hash, problem_ids=PROBLEMS)
    rng = random.Random(11)
    runs = {
        v: runs_of(v, [tuple(u) for u in plan["mine"]], rng)
        for v in sorted(holders)
        for plan in [
            plan_race(
                race, me=v, miners=list(MINERS), samples=1, window=1, r=2, validators=sorted(holders), previous=None
            )
        ]
    }
    attacker, rival = sorted(holders)[0], "m-best"
    made_up = [
        PooledRun(
            validator=attacker, miner=rival, submission="s" + rival, problem_id=p, attempt=1, score=0.0, success=0.0
        )
        for p in PROBLEMS[:2]
    ]
    forged = {**runs, attacker: runs[attacker] + made_up}
    standings, _ = pooled_standings(
        chain, forged, holders, ROTATION, start=start, seed_hash=seed_hash, problem_ids=PROBLEMS
    )
    judged = {s.miner: s for s in standings}[rival]
    assert judged.validators == 3
    honest_means = [
        sum(r.success for r in rows if r.miner == rival) / sum(r.miner == rival for r in rows)
        for v, rows in runs.items()
        if v != attacker
    ]
    assert judged.score >= min(honest_means)  # one vote of three: no lower than the lowest honest validator's
    # a make-up unit that most of the stake published is expected of every validator
    agreed = {v: rows + [r.model_copy(update={"validator": v}) for r in made_up] for v, rows in runs.items()}
    expected = assignment(chain, agreed, ROTATION, start=start, seed_hash=seed_hash, problem_ids=PROBLEMS)
    assert expected is not None and all((rival, PROBLEMS[0], 1) in units for units in expected.values())
