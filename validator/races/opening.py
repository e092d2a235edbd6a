"""Opening races: the rotation's slot, its draw (or its sealed batch), and who races it."""

from __future__ import annotations

import time
from typing import Any

from arena.backoff import doubling
from arena.problems.draw import draw_problems
from arena.problems.pack import Pack as ProblemPack
from validator.chain.port import ChainPort
from validator.qualifying import Qualifying
from validator.races.base import Problems, Signals
from validator.races.config import ArenaConfig
from validator.races.draw import race_id_for, race_start_block
from validator.races.sharding import plan_race
from validator.store.repository import Store


class Opening:
    """`open_race` and what it needs: sealed batches, the rotation window, the eligible submissions. Owns what waits
    to open: each sealed slot's backoff and why it waits, the submissions sync's grace, the drand relay."""

    def __init__(
        self,
        *,
        config: ArenaConfig,
        pack: ProblemPack,
        store: Store,
        chain: ChainPort,
        wallet: Any,
        qualifying: Qualifying,
        problems: Problems,
        signals: Signals,
    ) -> None:
        self.store, self.chain, self.wallet, self.pack, self.config = store, chain, wallet, pack, config
        self.qualifying, self.problems, self.signals = qualifying, problems, signals
        self._batch_wait: dict[int, tuple[float, int, str]] = {}  # slot -> (next try, failures, why it waits)
        self.batch_since: dict[int, float] = {}  # slot -> when its batch first waited
        self._sync_wait: dict[int, float] = {}  # slot -> when it first waited for the submissions sync
        self._relay: Any = None
        self._qualify_wait: str | None = None  # why the current race waits for qualifications (logged once)
        self._cut_said: dict[int, int] = {}  # slot -> the early cut-off already said

    @property
    def hotkey(self) -> str:
        return str(self.wallet.hotkey.ss58_address)

    def open_race(self, block: int | None = None) -> str | None:
        """Open the race of the current rotation slot if there is none yet; returns its id (new or not)."""
        rotation = self.pack.rotation
        block = self.chain.block() if block is None else block
        if not rotation.active_at(block):
            return self._inactive(block)
        self.qualifying.start(block)
        if self.pack.sealed:
            return self._open_sealed(block)
        start = race_start_block(block, rotation.cadence_blocks)
        race_id = race_id_for(self.pack.pack_id, start)
        stalled = self.store.races(status="open")
        if stalled:  # a node that stopped while opening a race: finish opening the same draw first
            race = stalled[0]
            return self._finish_opening(race.race_id, race.seed_block, list(race.problem_ids))
        if self.store.race(race_id) is not None:
            return race_id
        if self.store.races(status="running"):
            return None  # one race at a time: the next opens after this one closes
        waiting = self.qualifying.undecided_before(start, self.config.sync_grace)
        if waiting is not None:
            if waiting != self._qualify_wait:
                self.signals.info("races.qualifying_wait", block=start, reason=waiting)
            self._qualify_wait = waiting
            return None
        seed_hash = self.chain.block_hash(start)
        problem_ids = draw_problems(
            self.pack.problems,
            pack_id=self.pack.pack_id,
            seed_hash=seed_hash,
            n=rotation.problems_per_race,
            task_mix=rotation.task_mix,
        )
        self.store.create_race(
            race_id=race_id, pack_id=self.pack.pack_id, seed_block=start, seed_hash=seed_hash, problem_ids=problem_ids
        )
        return self._finish_opening(race_id, start, problem_ids)

    def _finish_opening(self, race_id: str, start: int, problem_ids: list[str], before_block: int | None = None) -> str:
        """The rotation's `samples` pending runs per (eligible submission, problem), then the race runs; or cancelled
        with its reason."""
        eligible = self.eligible(before_block)
        reason = None
        if not problem_ids:
            reason = "the pack's race pool is empty"
        elif not eligible:
            reason = "no accepted submission from a registered miner"
        if reason is not None:
            self.store.set_race_status(race_id, "cancelled", reason=reason)
            self.signals.warn("races.empty", race_id=race_id, reason=reason)
            return race_id
        plan = self._plan(race_id, [s.hotkey for s in eligible])
        if "mine" in plan:  # sharded: this node's units only (`validator.races.sharding`)
            by_hotkey = {s.hotkey: s for s in eligible}
            mine = [(by_hotkey[m], p, int(a)) for m, p, a in plan["mine"] if m in by_hotkey]
            made = self.store.create_runs(race_id, mine)
        else:
            made = self.store.create_runs(
                race_id, [(sub, pid) for sub in eligible for pid in problem_ids], samples=plan["samples"]
            )
        self.store.set_race_status(race_id, "running")
        self.signals.info(
            "races.opened",
            race_id=race_id,
            seed_block=start,
            problems=len(problem_ids),
            miners=len(eligible),
            runs=made,
        )
        return race_id

    def _plan(self, race_id: str, miners: list[str]) -> dict[str, Any]:
        """The race's plan (`validator.races.sharding`): the stored one when a node resumes opening it, else made
        and stored."""
        race = self.store.race(race_id)
        assert race is not None
        if race.plan is not None:
            return dict(race.plan)
        rotation = self.pack.rotation
        earlier = [r for r in self.store.races() if r.seed_block < race.seed_block and r.plan is not None]
        previous = earlier[-1] if earlier else None
        plan = plan_race(
            race,
            me=self.hotkey,
            miners=miners,
            samples=rotation.samples,
            window=rotation.window,
            r=rotation.shard_r,
            validators=self._shard_validators(race.seed_block, previous) if rotation.shard_r >= 2 else [],
            previous=previous,
        )
        self.store.set_race_plan(race_id, plan)
        return plan

    def _shard_validators(self, seed_block: int, previous: Any) -> list[str]:
        """The validators a sharded race is split among: the permit holders whose results commitment (as the chain
        held it at the race's seed block, the same on every validator) was made after the race before opened, so it
        is that race's bundle (or a later one); the first race of a node, with no race before: every permit holder."""
        from validator.chain.results import results_commitments

        if previous is None:
            return sorted(n.hotkey for n in self.chain.metagraph().neurons if n.validator_permit)
        return sorted(
            c.hotkey
            for c in results_commitments(self.chain, block=seed_block)
            if c.validator_permit and c.block >= previous.seed_block
        )

    def _open_sealed(self, block: int) -> str | None:
        """The current slot's sealed batch, raced once: opened with its drand round's signature (the chain's pulses,
        then the relay), its problems stored, one run per submission committed before the slot opened (and before
        its round was out: `_cutoff`). A batch that
        does not open yet waits, says why once per try and is tried again with backoff; never a partial race. A
        validator that comes up late races the current slot only."""
        rotation = self.pack.rotation
        slot = (block - rotation.start_block) // rotation.cadence_blocks
        stalled = self.store.races(status="open")
        if stalled:  # a node that stopped while opening a race: finish opening it first
            race = stalled[0]
            resumed = next((b for b in self.pack.sealed if b.open_block == race.seed_block), None)
            cutoff = race.seed_block if resumed is None else self._cutoff(resumed)
            return self._finish_opening(race.race_id, race.seed_block, list(race.problem_ids), before_block=cutoff)
        self._record_missed_slots(slot)
        if slot >= len(self.pack.sealed):
            return self._sealed_done(block)
        batch = self.pack.sealed[slot]
        race_id = race_id_for(self.pack.pack_id, batch.open_block)
        if self.store.race(race_id) is not None:
            return race_id
        if self.store.races(status="running"):  # one race at a time: the next opens after this one closes
            # if that takes past this slot, the slot is recorded as missed, with why (`_record_missed_slots`)
            self._batch_wait.setdefault(slot, (0.0, 0, "the race of an earlier slot was still running"))
            return None
        now = time.time()
        next_try, failures, _ = self._batch_wait.get(slot, (0.0, 0, ""))
        if now < next_try:
            return None
        opened = self._open_batch(slot, batch, now, failures)
        if opened is None:
            return None
        opened, cutoff = opened
        self._batch_wait.pop(slot, None)
        self.batch_since.pop(slot, None)
        self.problems.add(list(opened.problems), opened.title_embeddings)
        self.store.add_problems(self.pack.pack_id, [p.model_dump(mode="json") for p in opened.problems])
        problem_ids = [p.problem_id for p in opened.problems]
        self.store.create_race(
            race_id=race_id,
            pack_id=self.pack.pack_id,
            seed_block=batch.open_block,
            seed_hash=f"drand:{batch.reveal_round}",
            problem_ids=problem_ids,
        )
        self.signals.info("races.batch_opened", slot=slot, round=batch.reveal_round, problems=len(problem_ids))
        return self._finish_opening(race_id, batch.open_block, problem_ids, before_block=cutoff)

    def _cutoff(self, batch: Any) -> int:
        """The block before which commitments race the batch's slot: its open block, or earlier when its drand round
        was out before the chain made that block (`arena.problems.seal.eligible_before`)."""
        from arena.beacon import published_at
        from arena.problems.seal import eligible_before

        published = published_at(batch.reveal_round, chain=self.chain)
        return eligible_before(batch.open_block, published, self.chain.block_timestamp)

    def _open_batch(self, slot: int, batch: Any, now: float, failures: int) -> Any:
        """The slot's batch opened with its drand round's signature (the chain's pulses, then the relay) once the
        submissions before it (`_cutoff`) are synced and decided, with that cut-off block; None (why stored, said
        once, tried again after a backoff) while it cannot open."""
        from arena.beacon import BeaconError, DrandRelay, round_signature
        from arena.problems.seal import SealError, open_batch

        try:
            if self._relay is None and self.config.beacon_relay:
                self._relay = DrandRelay(self.config.beacon_relay)
            relay = self._relay
            signature = round_signature(batch.reveal_round, chain=self.chain, relay=relay)
            if signature is None:
                raise BeaconError(
                    f"drand round {batch.reveal_round} is not out yet on the chain"
                    + (" or the relay" if relay else " (no --beacon.relay set)")
                )
            cutoff = self._cutoff(batch)
            if cutoff < batch.open_block:
                self._say_cut(slot, batch, cutoff)
            unsynced = self._unsynced_before(cutoff, slot) or self.qualifying.undecided_before(
                cutoff, self.config.sync_grace
            )
            if unsynced:
                raise _Undecided(unsynced)
            return open_batch(batch, signature), cutoff
        except (BeaconError, SealError, _Undecided) as exc:
            # this node's own sync or qualifying rounds still going on is progress, not a fault: tried again at the
            # first retry's delay (doubled, the demo's batch stood 23 s after its last round was decided)
            retry = failures + 1 if not isinstance(exc, _Undecided) else 1
            backoff = doubling(self.config.beacon_retry, retry, cap=60.0)
            said = self._batch_wait.get(slot, (0.0, 0, ""))[2]
            self._batch_wait[slot] = (now + backoff, failures + 1, str(exc))
            self.batch_since.setdefault(slot, now)
            if str(exc) != said:  # said once per reason, not at every retry
                self.signals.warn(
                    "races.batch_waiting",
                    slot=slot,
                    round=batch.reveal_round,
                    reason=str(exc),
                    retry_in=round(backoff, 1),
                )
            return None

    def _say_cut(self, slot: int, batch: Any, cutoff: int) -> None:
        if self._cut_said.get(slot) != cutoff:
            self._cut_said[slot] = cutoff
            self.signals.warn(
                "races.slot_cut_early",
                slot=slot,
                round=batch.reveal_round,
                open_block=batch.open_block,
                before_block=cutoff,
                reason=(
                    f"drand round {batch.reveal_round} was out before the chain made block {batch.open_block} (it "
                    f"stalled): only commitments before block {cutoff} race slot {slot}, anyone could open the batch "
                    "after"
                ),
            )

    def _unsynced_before(self, open_block: int, slot: int) -> str | None:
        """Why the slot must wait for the submissions sync: commitments made before the slot opened that the store
        does not hold yet, or holds still unverified. Every validator must race the same eligible set; a commitment
        that cannot be settled within `sync_grace` seconds of the first wait is left to the next slot."""
        from validator.chain.commitment import parse_commitment

        first = self._sync_wait.setdefault(slot, time.time())
        if time.time() - first > self.config.sync_grace:
            return None
        known = {(s.hotkey, s.commitment_block): s.status for s in self.store.all_submissions()}
        missing = [
            hotkey
            for hotkey, c in self.chain.commitments().items()
            if c.block < open_block
            and parse_commitment(c.value) is not None
            and known.get((hotkey, c.block)) in (None, "pending")
        ]
        if not missing:
            return None
        return (
            f"{len(missing)} commitment(s) made before block {open_block} not synced or verified yet; the slot "
            f"opens once they are (at most {self.config.sync_grace:g}s)"
        )

    def _record_missed_slots(self, slot: int) -> None:
        """A slot this node waited on whose batch never opened before the next slot came: stored once as a cancelled
        race with why, never raced later."""
        for missed in [s for s in self._batch_wait if s < slot]:
            batch = self.pack.sealed[missed]
            race_id = race_id_for(self.pack.pack_id, batch.open_block)
            reason = self._batch_wait.pop(missed)[2]
            self.batch_since.pop(missed, None)
            _, created = self.store.create_race(
                race_id=race_id,
                pack_id=self.pack.pack_id,
                seed_block=batch.open_block,
                seed_hash=f"drand:{batch.reveal_round}",
                problem_ids=[],
            )
            if created:
                self.store.set_race_status(
                    race_id, "cancelled", reason=f"{batch.describe()} did not open before the next slot: {reason}"
                )
                self.signals.warn("races.slot_missed", slot=missed, reason=reason)

    def _sealed_done(self, block: int) -> str | None:
        race_id = f"{self.pack.pack_id[:16]}-sealed-done"
        _, created = self.store.create_race(
            race_id=race_id, pack_id=self.pack.pack_id, seed_block=block, seed_hash="", problem_ids=[]
        )
        if created:
            reason = (
                f"every sealed batch of pack {self.pack.pack_id} has had its slot; load the next pack (--pack) "
                "to race again"
            )
            self.store.set_race_status(race_id, "cancelled", reason=reason)
            self.signals.warn("races.batches_done", pack_id=self.pack.pack_id, batches=len(self.pack.sealed))
        return None

    def batch_waiting(self) -> dict[int, str]:
        """Slots whose batch waits to open, with why (for health and the operator)."""
        return {slot: why for slot, (_, _, why) in self._batch_wait.items()}

    def batches_stuck(self, after: float = 600.0) -> dict[int, tuple[float, str]]:
        """Slots whose batch has waited to open for over `after` seconds: (seconds, why), for `/healthz`."""
        now = time.time()
        return {
            slot: (now - self.batch_since[slot], why)
            for slot, (_, _, why) in self._batch_wait.items()
            if slot in self.batch_since and now - self.batch_since[slot] > after
        }

    def _inactive(self, block: int) -> str | None:
        """Outside the pack's rotation window: nothing opens. The end is stored once, as a cancelled race."""
        rotation = self.pack.rotation
        if block < rotation.start_block:
            self.signals.info("races.not_started", block=block, start_block=rotation.start_block)
            return None
        assert rotation.end_block is not None
        race_id = f"{self.pack.pack_id[:16]}-ended"
        race, created = self.store.create_race(
            race_id=race_id, pack_id=self.pack.pack_id, seed_block=rotation.end_block, seed_hash="", problem_ids=[]
        )
        if created:
            reason = (
                f"the rotation of pack {self.pack.pack_id} ended at block {rotation.end_block}; load the "
                "next pack (--pack) to race again"
            )
            self.store.set_race_status(race_id, "cancelled", reason=reason)
            self.signals.warn("races.rotation_ended", pack_id=self.pack.pack_id, end_block=rotation.end_block)
        return None

    def eligible(self, before_block: int | None = None) -> list[Any]:
        """The candidates (`candidates`) that passed the qualifying round, when the pack has one."""
        return list(self.qualifying.gate(self.candidates(before_block)))

    def candidates(self, before_block: int | None = None) -> list[Any]:
        """Each registered miner's latest accepted submission; with `before_block`, the latest committed before it
        (a sealed slot races only what was on chain before it opened: a later commitment waits for the next)."""
        registered = {m.hotkey for m in self.store.miners()}
        if before_block is None:
            subs = self.store.latest_submissions()
        else:
            latest: dict[str, Any] = {}
            for s in self.store.all_submissions():
                if s.status == "accepted" and s.commitment_block < before_block:
                    if s.hotkey not in latest or (s.commitment_block, s.id) > (
                        latest[s.hotkey].commitment_block,
                        latest[s.hotkey].id,
                    ):
                        latest[s.hotkey] = s
            subs = list(latest.values())
        return [s for s in subs if s.hotkey in registered and s.hotkey != self.hotkey]


class _Undecided(Exception):
    """A batch waits for this node's own work: commitments before its cut-off not synced, or their qualifying rounds
    not decided (the one line why)."""
