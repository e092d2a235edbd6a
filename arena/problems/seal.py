"""Sealed race batches: a pack's race pool split into one batch per rotation slot, each sealed with drand timelock
encryption so that nobody, the operator's own validators included, can read it before its slot opens.

Design: each batch is sealed to the drand **quicknet** round whose beacon is published when its slot opens
(`bittensor_core.encrypt_at_round`, the timelock encryption the bittensor SDK ships and subtensor uses for its own
commit-reveal; no cryptography here). Opening a batch needs that round's BLS signature, which exists only once the
beacon has published it; validators read it from the chain (subtensor keeps drand pulses in its Drand pallet) or
from a drand HTTP relay (`arena.beacon`). A wrong signature cannot open a batch (decryption checks it), so a
relay can delay a race but not forge one. Chosen over committing each batch's key as a timelock-encrypted chain
commitment because a hotkey holds one commitment per subnet at a time (one batch per slot would need the operator
online at every slot) while rounds need nobody after the pack is made.

A slot's round comes from the block at which the slot opens, through an anchor (a block and its time) and the
chain's block time; validators open a slot when the chain reaches its block *and* its round's signature is out.

Each batch carries its problems (answers included) and their gold title embeddings (which would also give the
answers away), gzip-compressed canonical JSON, with the sha256 of that plaintext so that an opened batch is checked
before it is raced.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import math
import random
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arena.beacon import QUICKNET_GENESIS, QUICKNET_PERIOD
from arena.tasks import AnyProblem, ProblemBase, all_tasks


class SealError(Exception):
    """A batch that cannot be sealed or opened; the message says which and why in one line."""


class Anchor(BaseModel):
    """A chain block and its wall time: a slot's open block is turned into a time, then a round, from it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    block: int = Field(ge=0)
    unix_time: float = Field(gt=0)
    block_time: float = Field(default=12.0, gt=0)

    def round_for_block(self, block: int) -> int:
        """The first round published at or after the block's estimated time plus a safety margin (60 s, or 2% of
        the time from the anchor if more): a chain running up to 2% slower than ``block_time`` still reaches the
        block before the round is out, so a batch never opens while its slot still takes commitments."""
        ahead = (block - self.block) * self.block_time
        at = self.unix_time + ahead + max(60.0, 0.02 * abs(ahead))
        return max(1, math.ceil((at - QUICKNET_GENESIS) / QUICKNET_PERIOD) + 1)


class SealedBatch(BaseModel):
    """One slot's race problems, sealed to the drand round of the slot's opening."""

    model_config = ConfigDict(extra="forbid")

    slot: int = Field(ge=0)
    open_block: int = Field(ge=0)
    reveal_round: int = Field(ge=1)
    beacon: Literal["quicknet"] = "quicknet"
    n_problems: int = Field(ge=1)
    sha256: str = Field(min_length=64, max_length=64)
    ciphertext: str  # base64

    def describe(self) -> str:
        return f"batch {self.slot} (block {self.open_block}, drand round {self.reveal_round})"


class OpenedBatch(BaseModel):
    slot: int
    problems: list[AnyProblem]
    title_embeddings: dict[str, list[str]] = Field(default_factory=dict)


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def plan_batches(
    problems: Sequence[ProblemBase], *, per_batch: int, task_mix: dict[str, float], seed: str
) -> list[list[ProblemBase]]:
    """The race pool split into batches of ``per_batch`` problems, each with the task mix's shares (largest
    remainders, as a race draws), in a seeded order; a last short batch is dropped (its problems stay unraced
    rather than make a race of another size). Deterministic in (problems, per_batch, task_mix, seed)."""
    if per_batch < 1:
        raise SealError(f"problems per race must be at least 1, got {per_batch}")
    rng = random.Random(seed)
    by_task: dict[str, list[ProblemBase]] = {t: [] for t in all_tasks()}
    for p in sorted(problems, key=lambda p: p.problem_id):
        by_task[p.task].append(p)
    for pool in by_task.values():
        rng.shuffle(pool)
    weights = {t: w for t, w in task_mix.items() if w > 0}
    total = sum(weights.values()) or 1.0
    exact = {t: per_batch * w / total for t, w in weights.items()}
    quota = {t: int(share) for t, share in exact.items()}
    for t in sorted(exact, key=lambda t: (-(exact[t] - quota[t]), t))[: per_batch - sum(quota.values())]:
        quota[t] += 1
    batches: list[list[ProblemBase]] = []
    while True:
        batch: list[ProblemBase] = []
        for t in sorted(quota):
            batch += by_task[t][: quota[t]]
        short = per_batch - len(batch)
        rest = [p for t in sorted(by_task) for p in by_task[t] if p not in batch]
        batch += rest[:short]
        if len(batch) < per_batch:
            return batches
        taken = {p.problem_id for p in batch}
        for t in by_task:
            by_task[t] = [p for p in by_task[t] if p.problem_id not in taken]
        rng.shuffle(batch)
        batches.append(batch)


def seal_batch(
    problems: Sequence[ProblemBase],
    *,
    slot: int,
    open_block: int,
    reveal_round: int,
    title_embeddings: dict[str, list[str]] | None = None,
) -> SealedBatch:
    """Seal one batch to ``reveal_round`` (quicknet)."""
    import bittensor_core

    if not problems:
        raise SealError(f"batch {slot} has no problems")
    embeddings = {p.problem_id: (title_embeddings or {}).get(p.problem_id, []) for p in problems}
    plaintext = gzip.compress(
        _canonical(
            {"slot": slot, "problems": [p.model_dump(mode="json") for p in problems], "title_embeddings": embeddings}
        ),
        mtime=0,
    )
    try:
        ciphertext, _ = bittensor_core.encrypt_at_round(plaintext, reveal_round)
    except (ValueError, TypeError) as exc:
        raise SealError(f"cannot seal batch {slot} to drand round {reveal_round}: {exc}") from None
    return SealedBatch(
        slot=slot,
        open_block=open_block,
        reveal_round=reveal_round,
        n_problems=len(problems),
        sha256=hashlib.sha256(plaintext).hexdigest(),
        ciphertext=base64.b64encode(bytes(ciphertext)).decode(),
    )


def eligible_before(open_block: int, published: float, timestamp_of: Callable[[int], float]) -> int:
    """The block before which commitments race a sealed slot opening at ``open_block`` whose round was out at
    ``published`` (unix seconds); ``timestamp_of(block)`` is when the chain made a block (``Timestamp.Now``).

    A commitment in block b counts only if b is before the slot's block *and* block b + 1 was made no later than the
    round was out: the commitment was then sent before anyone could open the batch, whatever the chain's pace (a
    block's extrinsics are sent before it is made; on LocalChain, before the next block). The round is chosen to come
    after the slot's block (`Anchor.round_for_block`), so on a chain keeping its pace this is the slot's block; on a
    chain that stalled before the slot, the round came first and the slot's commitments end at the first block made
    after it. Deterministic from the chain's history: every validator finds the same block."""
    if open_block <= 0 or timestamp_of(open_block) <= published:
        return open_block
    after, step = open_block, 1  # `after` was made after the round was out; look back for one made before
    before = open_block - 1
    while before > 0 and timestamp_of(before) > published:
        after, step = before, step * 2
        before = max(0, after - step)
    if before == 0 and timestamp_of(0) > published:
        return 0
    while after - before > 1:
        middle = (before + after) // 2
        if timestamp_of(middle) > published:
            after = middle
        else:
            before = middle
    return after - 1


def open_batch(batch: SealedBatch, signature_hex: str) -> OpenedBatch:
    """Open a sealed batch with its round's signature; `SealError` (one line) for a wrong signature, a corrupt
    ciphertext or content that is not the batch that was sealed."""
    import bittensor_core

    try:
        ciphertext = base64.b64decode(batch.ciphertext, validate=True)
    except ValueError:
        raise SealError(f"{batch.describe()} is corrupt: its ciphertext is not base64; get the pack again") from None
    try:
        plaintext = bytes(bittensor_core.decrypt_with_signature(ciphertext, signature_hex.removeprefix("0x")))
    except (ValueError, TypeError) as exc:
        why = str(exc).replace("Error decrypting ciphertext: ", "")
        raise SealError(
            f"{batch.describe()} did not open ({why}): the signature is not that round's, or the ciphertext is corrupt"
        ) from None
    if hashlib.sha256(plaintext).hexdigest() != batch.sha256:
        raise SealError(
            f"{batch.describe()} opened to content whose sha256 is not the sealed one; the pack was "
            "altered, get it again"
        )
    try:
        data = json.loads(gzip.decompress(plaintext))
        opened = OpenedBatch.model_validate(data)
    except (OSError, ValueError, ValidationError) as exc:
        raise SealError(f"{batch.describe()} opened to something that is not a batch ({type(exc).__name__})") from None
    if opened.slot != batch.slot or len(opened.problems) != batch.n_problems:
        raise SealError(
            f"{batch.describe()} holds slot {opened.slot} with {len(opened.problems)} problems, not "
            f"slot {batch.slot} with {batch.n_problems}; the pack was altered"
        )
    return opened
