"""Sealed race batches: real drand quicknet timelock encryption through bittensor_core, opened offline with a real
public quicknet signature (round 1000)."""

from __future__ import annotations

import json
import random
import re
import time

import pytest

from arena.beacon import QUICKNET_GENESIS, QUICKNET_ROUND_1000, round_at, time_of_round
from arena.problems.pack import PackError, Rotation, load_keypair, load_pack, new_pack, sealed_pack, write_pack
from arena.problems.seal import Anchor, SealError, eligible_before, open_batch, plan_batches, seal_batch
from arena.tasks.shopping.problem import Problem

#: another real quicknet round's signature would open round 1001 only; any other hex is not a signature at all
WRONG = QUICKNET_ROUND_1000[:-2] + ("00" if not QUICKNET_ROUND_1000.endswith("00") else "11")


def problems(n: int, task: str = "product", split: str = "race") -> list[Problem]:
    extra = {"knowledge_attribute": "1999"} if task == "web" else {}
    rewards = 2 if task == "shop" else 1
    return [
        Problem(
            problem_id=f"{task}-{i:03d}",
            task=task,
            split=split,
            query=f"find item {i}",
            **extra,
            reward=[{"product_id": f"{9000 + i + 100 * r}", "title": [f"Item {i} Deluxe"]} for r in range(rewards)],
        )
        for i in range(n)
    ]


def test_a_batch_opens_with_its_rounds_signature_only():
    batch = seal_batch(
        problems(3), slot=0, open_block=100, reveal_round=1000, title_embeddings={"product-000": ["AAAA"]}
    )
    assert "Deluxe" not in batch.ciphertext and "9000" not in json.dumps(batch.model_dump())
    opened = open_batch(batch, QUICKNET_ROUND_1000)
    assert [p.problem_id for p in opened.problems] == ["product-000", "product-001", "product-002"]
    assert opened.problems[0].gold_ids == ["9000"] and opened.title_embeddings["product-000"] == ["AAAA"]
    with pytest.raises(SealError, match="did not open"):
        open_batch(batch, WRONG)
    later = seal_batch(problems(1), slot=1, open_block=200, reveal_round=1001)
    with pytest.raises(SealError, match=r"batch 1 \(block 200, drand round 1001\) did not open"):
        open_batch(later, QUICKNET_ROUND_1000)  # round 1000's signature cannot open round 1001


def test_a_tampered_batch_is_refused():
    batch = seal_batch(problems(2), slot=0, open_block=0, reveal_round=1000)
    other = seal_batch(problems(2, "shop"), slot=0, open_block=0, reveal_round=1000)
    swapped = batch.model_copy(update={"ciphertext": other.ciphertext})
    with pytest.raises(SealError, match="sha256 is not the sealed one"):
        open_batch(swapped, QUICKNET_ROUND_1000)
    with pytest.raises(SealError, match="not base64"):
        open_batch(batch.model_copy(update={"ciphertext": "%%%"}), QUICKNET_ROUND_1000)


def test_rounds_and_anchor():
    assert round_at(time_of_round(1000)) == 1000 and round_at(time_of_round(1000) + 2.9) == 1000
    assert round_at(QUICKNET_GENESIS) == 1
    anchor = Anchor(block=100, unix_time=time_of_round(5000), block_time=12.0)
    # a 60 s margin past the estimate (20 rounds), or 2% of the time ahead when that is more
    assert anchor.round_for_block(100) == 5020
    assert anchor.round_for_block(101) == 5024  # 12 s later: four rounds on
    assert anchor.round_for_block(100 + 1000) == 5000 + 4000 + 80  # 12,000 s ahead: a 240 s margin
    for block in (137, 500, 20_000):
        # never a round out before the slot's block, even on a chain 2% slower than 12 s
        assert time_of_round(anchor.round_for_block(block)) >= anchor.unix_time + (block - 100) * 12.0 * 1.02


def _chain_times(block_time: float, stalls: dict[int, float]) -> list[float]:
    """When each of 400 blocks was made: every `block_time` seconds, block n + 1 `stalls[n]` seconds late."""
    times, now = [], 1000.0
    for block in range(400):
        times.append(now)
        now += block_time + stalls.get(block, 0.0)
    return times


def test_a_slot_takes_commitments_up_to_its_block_while_the_chain_keeps_its_pace():
    times = _chain_times(12.0, {})
    published = times[100] + 60.0  # the round sealed to block 100's slot, 60 s of margin past it
    assert eligible_before(100, published, times.__getitem__) == 100
    # a chain a little slow (the margin is not used up) still keeps the slot's block
    slow = _chain_times(12.5, {})
    assert eligible_before(100, slow[0] + 100 * 12.0 + 60.0, slow.__getitem__) == 100


def test_a_chain_that_stalls_before_the_slot_cuts_it_at_the_first_block_made_after_the_round():
    """The round is out at 'published' while the chain is stuck at block 90; block 91 is made after it. A commitment
    in block 90 may have been sent after the round was out (the next block came after it): only blocks before 90
    race; without the cut, blocks 90..99, sent by someone who could already read the batch, would race it."""
    times = _chain_times(12.0, {90: 600.0})
    published = times[0] + 100 * 12.0 + 60.0
    assert times[90] < published < times[91]
    assert eligible_before(100, published, times.__getitem__) == 90
    asked: list[int] = []

    def timestamp_of(block: int) -> float:
        asked.append(block)
        return times[block]

    # found by looking back from the slot, never by reading the whole chain
    assert eligible_before(100, published, timestamp_of) == 90 and len(asked) < 20


def test_the_cut_is_the_same_block_however_the_chain_stalled():
    rng = random.Random(7)
    for _ in range(300):
        stalls = {rng.randrange(0, 300): rng.uniform(1, 900) for _ in range(rng.randrange(0, 4))}
        times = _chain_times(rng.choice([0.25, 2.0, 12.0]), stalls)
        open_block = rng.randrange(0, 399)
        published = rng.uniform(times[0] - 10, times[open_block] + 30)
        expected = min(
            [open_block] + [b for b in range(open_block) if times[b + 1] > published]
        )  # the first block whose next block came after the round
        assert eligible_before(open_block, published, times.__getitem__) == expected, (stalls, open_block, published)


def test_batches_follow_the_mix_and_are_deterministic():
    pool = problems(9) + problems(6, "shop") + problems(5, "web")
    mix = {"product": 0.5, "shop": 0.25, "web": 0.25}
    batches = plan_batches(pool, per_batch=4, task_mix=mix, seed="s")
    assert batches == plan_batches(list(reversed(pool)), per_batch=4, task_mix=mix, seed="s")
    assert len(batches) == 5 and all(len(b) == 4 for b in batches)
    assert [sorted(p.task for p in b) for b in batches[:2]] == [["product", "product", "shop", "web"]] * 2
    ids = [p.problem_id for b in batches for p in b]
    assert len(ids) == len(set(ids))  # a problem is in one batch at most: raced once
    assert plan_batches(pool, per_batch=4, task_mix=mix, seed="t") != batches


def test_a_sealed_pack_keeps_no_race_problem_in_clear_and_its_signature_covers_the_batches(tmp_path):
    public = [p.model_copy(update={"problem_id": f"pub-{i}"}) for i, p in enumerate(problems(2, "product", "public"))]
    held = [p.model_copy(update={"problem_id": f"held-{i}", "split": "held_out"}) for i, p in enumerate(problems(2))]
    pack = new_pack(
        public + held + problems(7),
        catalog_digest=None,
        generator_version="t",
        embed=True,
        rotation=Rotation(cadence_blocks=50, problems_per_race=3, start_block=1000, task_mix={"product": 1.0}),
    )
    sealed, unraced = sealed_pack(pack, fixed_round=1000)
    assert len(sealed.sealed) == 2 and len(unraced) == 1  # 7 race problems: two races of 3, one left over
    assert [b.open_block for b in sealed.sealed] == [1000, 1050]
    assert {p.split for p in sealed.problems} == {"public", "held_out"}
    race_ids = {p.problem_id for p in pack.problems if p.split == "race"}
    assert not race_ids & set(sealed.title_embeddings) and not race_ids & {p.problem_id for p in sealed.problems}
    assert "Deluxe" not in json.dumps([b.model_dump() for b in sealed.sealed])
    alice = load_keypair(key_uri="//Alice")
    path = write_pack(sealed.signed(alice), tmp_path / "sealed.json")
    loaded = load_pack(path, trusted_signers={alice.ss58_address}, allow_dev_signer=True)
    opened = open_batch(loaded.sealed[1], QUICKNET_ROUND_1000)
    assert len(opened.problems) == 3 and all(p.split == "race" for p in opened.problems)
    assert set(opened.title_embeddings) == {p.problem_id for p in opened.problems}
    data = json.loads(path.read_text())
    data["sealed"][0]["reveal_round"] = 999  # an operator's batch re-pointed by someone else
    (tmp_path / "t.json").write_text(json.dumps(data))
    with pytest.raises(PackError, match="signature"):
        load_pack(tmp_path / "t.json", trusted_signers={alice.ss58_address}, allow_dev_signer=True)
    with pytest.raises(PackError, match="already sealed"):
        sealed_pack(sealed, fixed_round=1000)


def test_a_pack_too_small_for_one_race_cannot_be_sealed():
    pack = new_pack(
        problems(2), catalog_digest=None, generator_version="t", embed=False, rotation=Rotation(problems_per_race=3)
    )
    with pytest.raises(PackError, match="fewer than one race of 3"):
        sealed_pack(pack, anchor=Anchor(block=0, unix_time=time_of_round(10)))


@pytest.mark.slow  # runs arena as a subprocess
def test_pack_command_seals_and_show_lists_the_batches(tmp_path):
    from tests.unit.test_cli import arena, one_error_line

    src = write_pack(
        new_pack(
            problems(6) + problems(2, "web", "public"),
            catalog_digest=None,
            generator_version="t",
            embed=False,
            rotation=Rotation(problems_per_race=2, cadence_blocks=10, task_mix={"product": 1.0}),
        ),
        tmp_path / "in.json",
    )
    out = tmp_path / "sealed.json"
    done = arena(
        "problems", "pack", str(src), "--out", str(out), "--key-uri", "//Alice", "--seal.round", "1000", check=True
    )
    assert "sealed 6 race problems in 3 batches (slots at blocks 0..20, drand rounds 1000..1000)" in done.stdout
    shown = json.loads(arena("problems", "show", str(out), "--json", check=True).stdout)
    assert [b["open_block"] for b in shown["sealed_batches"]] == [0, 10, 20] and shown["problems"] == 2
    base = ("problems", "pack", str(src), "--key-uri", "//Alice", "--out")
    # slot 0 at or before the chain's current block, or a round already out: the batch would be readable at once
    one_error_line(arena(*base, str(tmp_path / "a.json"), "--seal.anchor_block", "100"), "slot 0 would open at block 0")
    one_error_line(
        arena(
            *base,
            str(tmp_path / "a.json"),
            "--start-block",
            "200",
            "--seal.anchor_block",
            "100",
            "--seal.anchor_time",
            str(time_of_round(2000)),
        ),
        "already published",
    )
    now = round_at(time.time())
    later = arena(*base, str(tmp_path / "b.json"), "--start-block", "200", "--seal.anchor_block", "100", check=True)
    first, last = map(int, re.search(r"drand rounds (\d+)\.\.(\d+)", later.stdout).groups())  # type: ignore[union-attr]
    assert "slots at blocks 200..220" in later.stdout and first > now + 400 and last - first == 80
    one_error_line(arena(*base, str(tmp_path / "x.json"), "--seal.round", "0"), "not a drand round")
    one_error_line(
        arena(*base, str(tmp_path / "x.json"), "--seal.round", "5", "--seal.anchor_block", "1"), "either --seal.round"
    )
    assert not (tmp_path / "x.json").exists()


@pytest.mark.slow  # runs arena as a subprocess
def test_a_sealed_pack_is_not_repacked(tmp_path):
    from tests.unit.test_cli import arena, one_error_line

    pack = new_pack(
        problems(4),
        catalog_digest=None,
        generator_version="t",
        embed=False,
        rotation=Rotation(problems_per_race=2, task_mix={"product": 1.0}),
    )
    path = write_pack(sealed_pack(pack, fixed_round=1000)[0], tmp_path / "sealed.json")
    one_error_line(
        arena("problems", "pack", str(path), "--out", str(tmp_path / "again.json"), "--key-uri", "//Alice"),
        "already sealed",
    )
