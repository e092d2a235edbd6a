"""Sealed races end to end on the node's code: a pack whose race pool is sealed in one batch per slot (real quicknet
timelock encryption), a LocalChain that shows the round's recorded pulse from the slot's block, a validator that
waits for it, opens the batch, races it with the submissions committed before the slot opened, closes it, and races
the next slot's batch (never the same problem twice). Real store, LocalChain, bubblewrap sandbox, gateway."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bittensor.sp_core import Keypair

from arena.beacon import QUICKNET_ROUND_1000
from arena.problems.pack import load_pack, sealed_pack, write_pack
from tests.support.race import build_arena_inputs, drive, make_chain, place_submission, start_node, write_agent
from validator.chain.local import LocalChain
from validator.races import Arena

pytestmark = pytest.mark.slow  # races in bubblewrap behind the gateway

START, CADENCE, PER_RACE = 10, 10, 3


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def sealed_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = tmp_path_factory.mktemp("sealed")
    catalog_dir, pack_path, signer = build_arena_inputs(root, problems=24, per_race=PER_RACE)
    pack = load_pack(pack_path, trusted_signers={signer})
    rotation = pack.rotation.model_copy(
        update={
            "start_block": START,
            "cadence_blocks": CADENCE,
            "task_mix": {"product": 1, "shop": 1, "voucher": 1, "web": 1},
        }
    )
    sealed, _ = sealed_pack(pack.model_copy(update={"rotation": rotation}), fixed_round=1000)
    operator = Keypair.create_from_uri("//ShopArenaTestOperator")
    return catalog_dir, write_pack(sealed.signed(operator), root / "sealed.json"), signer


def node(tmp_path: Path, name: str, chain_path: Path, clock: Clock, inputs, wallet, **config: Any) -> Arena:
    url = f"sqlite:///{tmp_path / f'{name}.sqlite'}"
    chain = LocalChain(chain_path, clock=clock)
    settings = {"beacon_retry": 0.0, "retry_backoff": 0.2, **config}
    return start_node(url, chain, wallet, inputs, tmp_path / name, **settings)


def race_to_close(arena: Arena, race_id: str) -> None:
    drive(arena, lambda: arena.store.race(race_id).status == "closed", "the race")  # type: ignore[union-attr]


def test_a_sealed_batch_opens_at_its_slot_is_raced_once_and_the_next_slot_races_the_next(
    sealed_inputs, tmp_path: Path
) -> None:
    setup = make_chain(tmp_path, ["early", "late"], block_time=2.0)
    clock = Clock(setup.chain.genesis_time + 2.0 * 5)  # block 5: before the rotation starts
    a = node(tmp_path, "a", setup.path, clock, sealed_inputs, setup.validators[0])
    b = node(tmp_path, "b", setup.path, clock, sealed_inputs, setup.validators[0])
    agent = write_agent(tmp_path / "agent", "offline")
    for arena in (a, b):
        # "early" committed before slot 0 opened (block 10); "late" at block 10 itself: it waits for slot 1
        place_submission(
            arena.store,
            tmp_path / ("a" if arena is a else "b"),
            setup.miners["early"].hotkey.ss58_address,
            agent,
            block=4,
        )
        place_submission(
            arena.store,
            tmp_path / ("a" if arena is a else "b"),
            setup.miners["late"].hotkey.ss58_address,
            agent,
            block=START,
        )
    try:
        assert a.open_race() is None and not a.store.races()  # block 5: nothing to open
        # slot 0 reached, but the chain shows round 1000's pulse only from block 11: the race waits, says why
        setup.chain.publish_pulse(1000, QUICKNET_ROUND_1000, reveal_block=START + 1)
        clock.now = setup.chain.genesis_time + 2.0 * START
        assert a.open_race() is None and not a.store.races()
        assert "drand round 1000 is not out yet" in a.batch_waiting()[0]
        clock.now += 2.0  # block 11
        race_id = a.open_race()
        assert race_id is not None and not a.batch_waiting()
        race = a.store.race(race_id)
        assert race.status == "running" and len(race.problem_ids) == PER_RACE  # type: ignore[union-attr]
        opened = a.pack.sealed[0]
        assert race.seed_block == opened.open_block and race.seed_hash == "drand:1000"  # type: ignore[union-attr]
        # only the submission committed before the slot opened races it
        runs = a.store.runs(race_id=race_id)
        assert {r.hotkey for r in runs} == {setup.miners["early"].hotkey.ss58_address} and len(runs) == PER_RACE
        # the problems were not in the pack in clear; now the store holds them, answers included
        assert all(a.store.problem(pid).data["reward"] for pid in race.problem_ids)  # type: ignore[union-attr]
        assert not {p.problem_id for p in a.pack.problems} & set(race.problem_ids)  # type: ignore[union-attr]
        # a second validator opens the same batch: the same problems
        assert b.store.race(b.open_race()).problem_ids == race.problem_ids  # type: ignore[arg-type,union-attr]

        race_to_close(a, race_id)
        race_to_close(b, race_id)
        # both validators score the batch alike and compute byte-identical weight vectors from it
        assert [(r.hotkey, r.rank, r.score) for r in a.store.race_results(race_id)] == [
            (r.hotkey, r.rank, r.score) for r in b.store.race_results(race_id)
        ]
        a.weigh(), b.weigh()
        assert a.store.weight_sets()[-1].vector == b.store.weight_sets()[-1].vector
        assert a.open_race() == race_id  # its slot is raced once, never reopened
        clock.now = setup.chain.genesis_time + 2.0 * (START + CADENCE)  # slot 1
        second = a.open_race()
        assert second is not None and second != race_id
        second_race = a.store.race(second)
        assert not set(second_race.problem_ids) & set(race.problem_ids)  # type: ignore[union-attr]
        assert {r.hotkey for r in a.store.runs(race_id=second)} == {
            setup.miners["early"].hotkey.ss58_address,
            setup.miners["late"].hotkey.ss58_address,
        }
        # slot 2 passes while slot 1's race still runs: it waits, then is recorded as missed, never raced later
        clock.now = setup.chain.genesis_time + 2.0 * (START + 2 * CADENCE)
        assert a.open_race() is None and "still running" in a.batch_waiting()[2]
        clock.now = setup.chain.genesis_time + 2.0 * (START + 3 * CADENCE)
        race_to_close(a, second)
        third = a.open_race()
        skipped = a.store.race(f"{a.pack.pack_id[:16]}-{a.pack.sealed[2].open_block}")
        assert skipped is not None and skipped.status == "cancelled" and not skipped.problem_ids
        assert "did not open before the next slot: the race of an earlier slot was still running" in (
            skipped.reason or ""
        )
        assert third is not None and a.store.race(third).seed_block == a.pack.sealed[3].open_block  # type: ignore
    finally:
        for arena in (a, b):
            arena.stop()
            arena.store.close()


def test_a_slot_waits_for_commitments_made_before_it_and_a_slot_that_never_opened_is_recorded(
    sealed_inputs, tmp_path: Path
) -> None:
    from validator.chain.commitment import encode_commitment
    from validator.store.repository import StoreError

    setup = make_chain(tmp_path, ["early", "unsynced"], block_time=2.0)
    clock = Clock(setup.chain.genesis_time + 2.0 * START)  # slot 0, but round 1000 is not on the chain yet
    a = node(tmp_path, "a", setup.path, clock, sealed_inputs, setup.validators[0], sync_grace=3600.0)
    agent = write_agent(tmp_path / "agent", "offline")
    try:
        place_submission(a.store, tmp_path / "a", setup.miners["early"].hotkey.ss58_address, agent, block=4)
        assert a.open_race() is None and "not out yet" in a.batch_waiting()[0]
        assert a.batches_stuck(after=3600) == {} and 0 in a.batches_stuck(after=-1)
        from validator.scheduler import Node

        assert "batches" not in Node(a).health()
        a._batch_since[0] -= 700  # as if the batch had waited 700 s: /healthz says so
        ok, why = Node(a).health()["batches"]
        assert not ok and "sealed batch 0 has waited" in why and "not out yet" in why
        # a commitment made before slot 1 opens (block 19) that the node has not synced yet
        clock.now = setup.chain.genesis_time + 2.0 * (START + CADENCE - 1)
        chain = LocalChain(setup.path, clock=clock)
        chain.set_commitment(setup.miners["unsynced"], encode_commitment("ab" * 32))
        # slot 1 comes and slot 0's batch never opened: stored once as a cancelled race with why (every batch of
        # this pack is sealed to one round: out at slot 1's block, so that slot takes commitments up to its block)
        chain.publish_pulse(1000, QUICKNET_ROUND_1000, reveal_block=START + CADENCE)
        clock.now = setup.chain.genesis_time + 2.0 * (START + CADENCE + 1)
        assert a.open_race() is None
        missed = a.store.race(f"{a.pack.pack_id[:16]}-{a.pack.sealed[0].open_block}")
        assert missed is not None and missed.status == "cancelled" and "did not open" in (missed.reason or "")
        assert "1 commitment(s) made before block 20 not synced or verified yet" in a.batch_waiting()[1]
        # the sync brings it in (accepted here as the node's sync would): slot 1 opens with both miners
        place_submission(
            a.store,
            tmp_path / "a",
            setup.miners["unsynced"].hotkey.ss58_address,
            agent,
            block=chain.commitments()[setup.miners["unsynced"].hotkey.ss58_address].block,
        )
        race_id = a.open_race()
        assert race_id is not None and {r.hotkey for r in a.store.runs(race_id=race_id)} == {
            setup.miners["early"].hotkey.ss58_address,
            setup.miners["unsynced"].hotkey.ss58_address,
        }
        # a problem id stored with other content is refused, never silently kept
        pid = a.store.race(race_id).problem_ids[0]  # type: ignore[union-attr]
        changed = {**a.store.problem(pid).data, "query": "something else"}  # type: ignore[union-attr]
        with pytest.raises(StoreError, match="already stored with other content"):
            a.store.add_problems(a.pack.pack_id, [changed])
    finally:
        a.stop()
        a.store.close()


def test_a_slot_whose_round_came_out_while_the_chain_stalled_races_only_what_was_committed_before_it(
    sealed_inputs, tmp_path: Path
) -> None:
    """The chain stalls at block 7; slot 0's round (due with block 10) comes out during the stall, so anyone can open
    the batch before the slot's block. A miner who commits after reading it (blocks 8 and 9, still before the slot's
    block) must not race it; neither may the stalled block itself, whose commitments may have been sent after the
    round was out. What was committed before the stall races as usual."""
    setup = make_chain(tmp_path, ["honest", "stuck", "reader"], block_time=2.0)
    clock = Clock(setup.chain.genesis_time + 2.0 * 5)
    a = node(tmp_path, "a", setup.path, clock, sealed_inputs, setup.validators[0])
    chain = LocalChain(setup.path, clock=clock)
    agent = write_agent(tmp_path / "agent", "offline")
    miners = {name: setup.miners[name].hotkey.ss58_address for name in ("honest", "stuck", "reader")}
    for name, block in (("honest", 6), ("stuck", 7), ("reader", 9)):
        place_submission(a.store, tmp_path / "a", miners[name], agent, block=block)
    try:
        chain.publish_pulse(1000, QUICKNET_ROUND_1000, reveal_block=START)  # out when block 10 was due
        clock.now = setup.chain.genesis_time + 2.0 * 7 + 0.5
        assert chain.stall(30.0) == 7
        clock.now = setup.chain.genesis_time + 2.0 * START + 0.5  # the round is out; the chain is still at block 7
        assert chain.block() == 7 and a.open_race() is None and not a.store.races()
        clock.now += 30.0  # blocks 8, 9 and the slot's block 10, each 30 s late
        assert chain.block() == START and chain.block_timestamp(8) > chain.round_time(1000)  # type: ignore[operator]
        race_id = a.open_race()
        assert race_id is not None and a.store.race(race_id).seed_block == START  # type: ignore[union-attr]
        raced = {r.hotkey for r in a.store.runs(race_id=race_id)}
        assert raced == {miners["honest"]}, "a commitment made after the batch could be read races it"
    finally:
        a.stop()
        a.store.close()
