"""Sealing a pack's race pool: `sealed_pack`, one drand-timelocked batch per rotation slot (`arena.problems.seal`)."""

from __future__ import annotations

from typing import Any

from arena.problems.pack.models import Pack, PackError
from arena.problems.seal import Anchor


def sealed_pack(
    pack: Pack, *, anchor: Anchor | None = None, fixed_round: int | None = None, progress: Any = None
) -> tuple[Pack, list[str]]:
    """``pack`` with its race pool sealed: one batch of ``problems_per_race`` per rotation slot (slot k opens at
    ``start_block + k * cadence_blocks``), each sealed to the quicknet round of its opening block (from ``anchor``),
    or to ``fixed_round`` for every batch (local demos and tests: no future drand pulse exists offline). The race
    problems and their title embeddings leave the clear part of the pack. Unsigned: sign it with `Pack.signed`.
    Returns the sealed pack and the ids of race problems left out of every batch (a short last batch, or past the
    rotation's end), which are no longer in the pack."""
    from arena.problems.seal import plan_batches, seal_batch

    if pack.sealed:
        raise PackError("the pack's race pool is already sealed")
    if (anchor is None) == (fixed_round is None):
        raise PackError("sealing needs the chain's anchor (a block and its time) or a fixed drand round")
    race = [p for p in pack.problems if p.split == "race"]
    rot = pack.rotation
    batches = plan_batches(race, per_batch=rot.problems_per_race, task_mix=rot.task_mix, seed=pack.pack_id)
    if not batches:
        raise PackError(
            f"the race pool holds {len(race)} problems, fewer than one race of "
            f"{rot.problems_per_race}; split more problems into the race pool or race fewer at a time"
        )
    if rot.end_block is not None:
        slots = max(0, -(-(rot.end_block - rot.start_block) // rot.cadence_blocks))
        batches = batches[:slots]
    sealed = []
    if anchor is not None:
        import time

        from arena.beacon import round_at

        if rot.start_block <= anchor.block:
            raise PackError(
                f"slot 0 would open at block {rot.start_block}, not after the chain's current block "
                f"{anchor.block}: its batch would be readable at once; set --start-block after it"
            )
        published = round_at(time.time())
        if anchor.round_for_block(rot.start_block) <= published:
            raise PackError(
                f"slot 0's drand round {anchor.round_for_block(rot.start_block)} is already published "
                f"(round {published} is out now): check --seal.anchor_time and --seal.anchor_block"
            )
    for slot, batch in enumerate(batches):
        block = rot.start_block + slot * rot.cadence_blocks
        if fixed_round is not None:
            round_ = fixed_round
        else:
            assert anchor is not None  # one of the two, checked above
            round_ = anchor.round_for_block(block)
        sealed.append(
            seal_batch(batch, slot=slot, open_block=block, reveal_round=round_, title_embeddings=pack.title_embeddings)
        )
        if progress is not None:
            progress()
    in_batches = {p.problem_id for batch in batches for p in batch}
    unraced = [p.problem_id for p in race if p.problem_id not in in_batches]
    keep = [p for p in pack.problems if p.split != "race"]
    kept_ids = {p.problem_id for p in keep}
    embeddings = {k: v for k, v in pack.title_embeddings.items() if k in kept_ids}
    data = pack.model_dump(mode="json")
    data.update(
        problems=[p.model_dump(mode="json") for p in keep],
        title_embeddings=embeddings,
        sealed=[b.model_dump(mode="json") for b in sealed],
        signer=None,
        signature=None,
    )
    return Pack.model_validate(data), unraced
