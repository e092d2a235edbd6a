"""Qualifying problems nobody can look up (`arena.problems.fresh`) and the opaque per-race ids agents are shown
(`arena.problems.alias`): the same on every validator, new for every round, never the public split's."""

from __future__ import annotations

import pytest

from arena.catalog import Catalog
from arena.catalog.build import build_catalog
from arena.problems.alias import PREFIX, race_key, shown_id
from arena.problems.fresh import fresh_problems, mix_counts
from arena.problems.splits import assign_splits
from arena.tasks import score
from arena.tasks.shoppingbench.generate import generate_problems

MIX = {"product": 0.3, "shop": 0.25, "voucher": 0.25, "web": 0.2}
BLOCK_A = "0x" + "ab" * 32
BLOCK_B = "0x" + "cd" * 32


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    out = tmp_path_factory.mktemp("fresh") / "cat"
    build_catalog(3, 3000, out, workers=1)
    return Catalog.open(out)


def test_shown_ids_are_opaque_new_in_every_race_and_the_same_on_every_validator() -> None:
    ids = ["gen-product-b3b3957c7ec1", "gen-shop-bc246d90d6f8"]
    one, again = race_key("pack-1-10", BLOCK_A), race_key("pack-1-10", BLOCK_A)
    shown = [shown_id(one, pid) for pid in ids]
    assert shown == [shown_id(again, pid) for pid in ids]  # another validator computes the same
    assert all(s.startswith(PREFIX) and len(s) == len(PREFIX) + 20 for s in shown)
    assert not any(pid[-12:] in s for pid, s in zip(ids, shown, strict=True))  # nothing of the stable id shows
    assert len(set(shown)) == len(ids)
    for other in (race_key("pack-1-20", BLOCK_A), race_key("pack-1-10", BLOCK_B)):
        assert not {shown_id(other, pid) for pid in ids} & set(shown)  # another race (or seed): other ids


def test_the_mix_shares_the_places_among_the_tasks_with_a_generator() -> None:
    assert mix_counts(30, MIX) == {"product": 9, "shop": 8, "voucher": 7, "web": 6}
    assert sum(mix_counts(7, MIX).values()) == 7
    assert mix_counts(5, {"product": 1.0, "shop": 0.0}) == {"product": 5}
    assert mix_counts(0, MIX) == {}


def test_fresh_problems_are_the_same_for_every_validator_and_new_for_every_round(catalog: Catalog) -> None:
    made, skipped = fresh_problems(catalog, pack_id="pack-x", seed_hash=BLOCK_A, n=8, task_mix=MIX)
    again, _ = fresh_problems(catalog, pack_id="pack-x", seed_hash=BLOCK_A, n=8, task_mix=MIX)
    assert [p.model_dump() for p in made] == [p.model_dump() for p in again]
    assert len(made) == 8  # places a generator gave up on are drawn again
    assert {p.split for p in made} == {"qualifying"} and {p.task for p in made} == set(MIX)
    for problem in made:  # ground truth fixed by the generator: its gold answer passes its own checks
        assert score(problem, ",".join(problem.gold_ids), catalog.get).success, problem.problem_id
    for other_seed, other_pack in ((BLOCK_B, "pack-x"), (BLOCK_A, "pack-y")):
        other, _ = fresh_problems(catalog, pack_id=other_pack, seed_hash=other_seed, n=8, task_mix=MIX)
        assert not {p.problem_id for p in other} & {p.problem_id for p in made}
        assert not {p.query for p in other} & {p.query for p in made}


def test_no_fresh_problem_is_one_of_the_public_split(catalog: Catalog) -> None:
    pack = assign_splits(generate_problems(catalog, 40, seed=2).problems, {"public": 0.5, "race": 0.5}, seed=2)
    public = [p for p in pack if p.split == "public"]
    made, _ = fresh_problems(catalog, pack_id="pack-x", seed_hash=BLOCK_A, n=12, task_mix=MIX)
    assert public and made
    assert not {p.problem_id for p in made} & {p.problem_id for p in public}
    assert not {p.query for p in made} & {p.query for p in public}
