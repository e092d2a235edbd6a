"""The qualifying round (subnet 15's gate before its hidden races).

A submission first runs the pack's public qualifying set: `rotation.qualify_problems` problems of the public split,
the same for every submission and every validator (drawn with the pack id as the seed, by the pack's task mix). Its
runs form one race of kind "qualifying", dispatched, scored, judged and closed like any race. When that race closes,
the submission's score (the mean final score, `race_scores`) is measured against the leader's: rank 1 of the newest
closed race of the rotation, and that submission's own qualifying score on the pack. The submission passes when

    score >= qualify_share x leader's qualifying score

and races from then on; before any race has closed (no leader) every qualifying score passes. A submission whose
every qualifying run the validator failed is `void`, never failed: it qualifies again (a validator's fault never
shuts a miner out). A decision is final for the submission (a new version qualifies anew).

Only the qualifying runs' problems are public; the races stay sealed.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

from arena.problems.draw import draw_problems

if TYPE_CHECKING:
    from arena.problems.pack import Pack
    from validator.store.repository import Store


class ArenaView(Protocol):
    """What the qualifying round reads of its node's arena (`validator.races.Arena`, which holds it); a protocol, so
    that this module needs nothing of the races package that builds it (no import cycle)."""

    @property
    def store(self) -> Store: ...

    @property
    def pack(self) -> Pack: ...

    def candidates(self, before_block: int | None = None) -> list[Any]: ...

    def _info(self, event: str, **kw: Any) -> None: ...


class Qualifying:
    """The qualifying round of one node's arena; every method is idempotent (called from the node's jobs)."""

    def __init__(self, arena: ArenaView) -> None:
        self.arena = arena
        self._set: list[str] | None = None
        self._waiting: dict[int, float] = {}  # open block -> when the slot first waited for qualifications

    @property
    def share(self) -> float:
        return float(self.arena.pack.rotation.qualify_share)

    @property
    def enabled(self) -> bool:
        return self.share > 0

    @property
    def pack_id(self) -> str:
        return self.arena.pack.pack_id

    def problem_ids(self) -> list[str]:
        """The qualifying set: the same public problems for every submission and validator."""
        if self._set is None:
            rotation = self.arena.pack.rotation
            self._set = draw_problems(
                self.arena.pack.problems,
                pack_id=self.pack_id,
                seed_hash="qualifying",
                n=rotation.qualify_problems,
                task_mix=rotation.task_mix,
                split="public",
            )
        return self._set

    def race_id(self, submission_id: int, attempt: int) -> str:
        return f"q{self.pack_id[:15]}-{submission_id}-{attempt}"

    # --- start

    def start(self, block: int) -> int:
        """A qualifying race for each candidate (latest accepted submission of a registered miner) that has none,
        or whose last one was void; finishes opening one a stopped node left open. Returns how many started."""
        if not self.enabled:
            return 0
        store = self.arena.store
        for race in store.races(status="open", kind="qualifying"):
            self._open(race.race_id, race.seed_block)
        problem_ids = self.problem_ids()
        started = 0
        known_by_sub = {q.submission_id: q for q in store.qualifications(self.pack_id)}  # one read per tick
        for sub in self.arena.candidates():
            known = known_by_sub.get(sub.id)
            if known is not None and known.status != "void":
                continue
            attempt = 1 if known is None else known.attempt + 1
            race_id = self.race_id(sub.id, attempt)
            store.create_race(
                race_id=race_id,
                pack_id=self.pack_id,
                seed_block=block,
                seed_hash="qualifying",
                problem_ids=problem_ids,
                kind="qualifying",
            )
            store.start_qualification(submission_id=sub.id, pack_id=self.pack_id, race_id=race_id, share=self.share)
            self._open(race_id, block)
            started += 1
        return started

    def _open(self, race_id: str, block: int) -> None:
        store = self.arena.store
        race = store.race(race_id)
        assert race is not None
        sub_id = int(race_id.rsplit("-", 2)[1])
        sub = store.submission(sub_id)
        if sub is None or not race.problem_ids:
            store.set_race_status(race_id, "cancelled", reason="no qualifying problems or submission")
            return
        made = store.create_runs(race_id, [(sub, pid) for pid in race.problem_ids])
        store.set_race_status(race_id, "running")
        self.arena._info(
            "qualifying.started",
            race_id=race_id,
            hotkey=sub.hotkey,
            submission_id=sub.id,
            problems=len(race.problem_ids),
            runs=made,
            block=block,
        )

    # --- decide

    def decide(self, race_id: str, scores: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """The qualification of a closed qualifying race's submission, stored; returns it as figures."""
        store = self.arena.store
        sub_id = int(race_id.rsplit("-", 2)[1])
        sub = store.submission(sub_id)
        assert sub is not None
        mine = scores.get(sub.hotkey)
        leader_hotkey, leader_score = self.reference()
        if mine is None:
            status, score = "void", None
            reason = "the validator failed every qualifying run; it qualifies again"
        else:
            score = float(mine["score"])
            if leader_score is None:
                status = "passed"
                reason = "no leader with a qualifying score yet: every qualifying score passes"
            else:
                bar = self.share * leader_score
                status = "passed" if score >= bar else "failed"
                reason = (
                    f"{score:.4f} {'>=' if status == 'passed' else '<'} {self.share:g} x {leader_score:.4f} "
                    f"(the leader's qualifying score) = {bar:.4f}"
                )
        store.decide_qualification(
            sub_id,
            self.pack_id,
            status=status,
            score=score,
            leader_hotkey=leader_hotkey,
            leader_score=leader_score,
            reason=reason,
        )
        self.arena._info(
            "qualifying.decided",
            race_id=race_id,
            hotkey=sub.hotkey,
            submission_id=sub_id,
            status=status,
            score=score,
            leader=leader_hotkey,
            leader_score=leader_score,
        )
        return {
            "submission_id": sub_id,
            "hotkey": sub.hotkey,
            "status": status,
            "score": score,
            "leader_hotkey": leader_hotkey,
            "leader_score": leader_score,
            "reason": reason,
        }

    def reference(self) -> tuple[str | None, float | None]:
        """(the leader's hotkey, its qualifying score on this pack): rank 1 of the newest closed race; no score
        when there is no leader yet or it never qualified on this pack."""
        store = self.arena.store
        leader = store.leader()
        if leader is None:
            return None, None
        known = store.qualification(leader.submission_id, self.pack_id)
        if known is None or known.score is None or known.status not in {"passed", "failed"}:
            return leader.hotkey, None
        return leader.hotkey, float(known.score)

    # --- gate

    def gate(self, subs: list[Any]) -> list[Any]:
        """The submissions that passed (all of them when the round is off)."""
        if not self.enabled:
            return subs
        passed = self.arena.store.passed(self.pack_id)
        return [s for s in subs if s.id in passed]

    def undecided_before(self, open_block: int, grace: float) -> str | None:
        """Why a race opening at `open_block` waits: candidates committed before it whose qualification is not
        decided yet (every validator must race the same qualified set). Waits at most `grace` seconds."""
        if not self.enabled:
            return None
        first = self._waiting.setdefault(open_block, time.time())
        if time.time() - first > grace:
            return None
        known_by_sub = {q.submission_id: q for q in self.arena.store.qualifications(self.pack_id)}
        undecided = []
        for sub in self.arena.candidates(before_block=open_block):
            known = known_by_sub.get(sub.id)
            if known is None or known.status in {"running", "void"}:
                undecided.append(sub.hotkey)
        if not undecided:
            return None
        return (
            f"{len(undecided)} submission(s) committed before block {open_block} still qualifying; the race opens "
            f"once they are decided (at most {grace:g}s)"
        )
