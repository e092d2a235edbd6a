"""The qualifying round (subnet 15's gate before its hidden races), on problems nobody can look up.

A new submission first runs `rotation.qualify_problems` problems **made fresh for its round** from the pack's catalog
by the task families' generators (`arena.problems.fresh`: ground truth fixed in code, as `arena problems generate`
makes it), seeded by the hash of the block after its commitment's: no miner, operator or validator knows them before
the submission is on chain, and every validator with the pack's catalog makes the same ones. The leader (rank 1 of
the newest closed race of the rotation) runs the same problems in the same round. Those runs form one race of kind
"qualifying", dispatched, scored, judged and closed like any race (each agent sees per-race opaque problem ids,
`arena.problems.alias`). When it closes, the submission's score (the mean final score, `race_scores`) is measured
against the leader's on those same problems. The submission passes when

    score >= qualify_share x the leader's score in the same round

and races from then on; before any race has closed (no leader) every qualifying score passes. A round in which the
validator failed every run of the submission, or of the leader, is `void`, never failed: it qualifies again on the
same problems (a validator's fault never shuts a miner out). But a round that closed (no fault the node's own probe
met: not voided) with no score of the leader's, its runs all left out (its own provider failing, its key server not
answering, held runs that failed their last try), measures the submission against no bar, as a round with no leader
does: the leader could otherwise void every newcomer's round by handing the node no key for it, and keep its place.
A decision is final for the submission (a new version qualifies anew). Under the payer policy ``miner``, a miner
that hands no usable key for its LLM calls is refused before its round opens, in one line
(`validator.races.keys.KeyRing.refusal`). Why fresh problems and not the public split (which stays for miners to
practise on) or sealed batches: docs/validator.md, "Qualifying rounds"."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

from arena.problems.fresh import fresh_problems
from validator.chain.port import ChainError
from validator.chain.sealedkey import MinerUnreachable

if TYPE_CHECKING:
    from arena.problems.pack import Pack
    from arena.tasks import ProblemBase
    from validator.store.repository import Store


class ProblemsView(Protocol):
    """Where the node keeps the problems it made (`validator.races.base.Problems`)."""

    def add_fresh(self, problems: list[ProblemBase]) -> None: ...


class ArenaView(Protocol):
    """What the qualifying round reads of its node's arena (`validator.races.Arena`, which holds it); a protocol, so
    that this module needs nothing of the races package that builds it (no import cycle)."""

    @property
    def store(self) -> Store: ...

    @property
    def pack(self) -> Pack: ...

    @property
    def chain(self) -> Any: ...

    @property
    def catalog(self) -> Any: ...

    @property
    def problems(self) -> ProblemsView: ...

    def candidates(self, before_block: int | None = None) -> list[Any]: ...

    def _info(self, event: str, **kw: Any) -> None: ...


class Qualifying:
    """The qualifying round of one node's arena; every method is idempotent (called from the node's jobs)."""

    def __init__(self, arena: ArenaView) -> None:
        self.arena = arena
        self._made: dict[str, list[str]] = {}  # seed hash -> the ids of the problems made for it
        self._waiting: dict[int, float] = {}  # open block -> when the slot first waited for qualifications
        #: submission -> since when its round could not open: its server did not answer the key request (asked again
        #: at every tick)
        self._unreachable: dict[int, float] = {}
        #: who pays for runs' LLM calls (`validator.races.keys.KeyRing`, set by `Arena.use_keys`); None: the node
        self.keys: Any = None

    @property
    def share(self) -> float:
        return float(self.arena.pack.rotation.qualify_share)

    @property
    def enabled(self) -> bool:
        return self.share > 0

    @property
    def pack_id(self) -> str:
        return self.arena.pack.pack_id

    def seed_of(self, submission: Any) -> tuple[int, str] | None:
        """(block, hash) seeding a submission's round: the block after its commitment's, unknown when it was made;
        None until the chain has produced it."""
        block = int(submission.commitment_block) + 1
        try:
            return block, self.arena.chain.block_hash(block)
        except ChainError:
            return None

    def problem_ids(self, seed_hash: str) -> list[str]:
        """The problems made fresh for a round seeded by `seed_hash` (stored, the same on every validator)."""
        if seed_hash not in self._made:
            rotation = self.arena.pack.rotation
            problems, skipped = fresh_problems(
                self.arena.catalog,
                pack_id=self.pack_id,
                seed_hash=seed_hash,
                n=rotation.qualify_problems,
                task_mix=rotation.task_mix,
            )
            self.arena.problems.add_fresh(problems)
            self._made[seed_hash] = [p.problem_id for p in problems]
            self.arena._info("qualifying.problems_made", seed_hash=seed_hash, made=len(problems), skipped=skipped)
        return self._made[seed_hash]

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
            self._open(race.race_id, block)
        started = 0
        known_by_sub = {q.submission_id: q for q in store.qualifications(self.pack_id)}  # one read per tick
        for sub in self.arena.candidates():
            known = known_by_sub.get(sub.id)
            if known is not None and known.status != "void":
                continue
            seed = self.seed_of(sub)
            if seed is None:
                continue  # the block after its commitment is not produced yet
            attempt = 1 if known is None else known.attempt + 1
            race_id = self.race_id(sub.id, attempt)
            try:
                refused = self.keys.refusal(race_id, sub) if self.keys is not None else None
            except MinerUnreachable:  # its server did not answer: nothing decided, asked again at the next tick
                self._unreachable.setdefault(sub.id, time.time())
                continue
            self._unreachable.pop(sub.id, None)
            store.create_race(
                race_id=race_id,
                pack_id=self.pack_id,
                seed_block=seed[0],
                seed_hash=seed[1],
                problem_ids=[] if refused else self.problem_ids(seed[1]),
                kind="qualifying",
            )
            store.start_qualification(submission_id=sub.id, pack_id=self.pack_id, race_id=race_id, share=self.share)
            if refused:
                self._refuse(race_id, sub, refused)
            else:
                self._open(race_id, block)
            started += 1
        return started

    def _refuse(self, race_id: str, sub: Any, line: str) -> None:
        """A miner that must pay for its runs' LLM calls and handed no usable key: refused before its round, one
        line (its round cancelled with no run; a new submission qualifies anew)."""
        reason = f"refused before its round: {line}"[:500]
        self.arena.store.set_race_status(race_id, "cancelled", reason=reason)
        self.arena.store.decide_qualification(
            sub.id, self.pack_id, status="failed", score=None, leader_hotkey=None, leader_score=None, reason=reason
        )
        self.arena._info("qualifying.refused", race_id=race_id, hotkey=sub.hotkey, submission_id=sub.id, reason=reason)

    def _reference(self, candidate: Any) -> int | None:
        """The submission a round measures its candidate against: the leader's (rank 1 of the newest closed race),
        unless there is none yet or it is the candidate itself."""
        leader = self.arena.store.leader()
        if leader is None or leader.submission_id == candidate.id:
            return None
        return int(leader.submission_id)

    def _open(self, race_id: str, block: int) -> None:
        """The round's runs: the candidate's and the leader's on the round's problems (the leader chosen once, kept
        in the race's plan)."""
        store = self.arena.store
        race = store.race(race_id)
        assert race is not None
        sub = store.submission(int(race_id.rsplit("-", 2)[1]))
        if sub is None or not race.problem_ids:
            store.set_race_status(race_id, "cancelled", reason="no qualifying problems or submission")
            return
        plan = dict(race.plan) if race.plan is not None else {"reference": self._reference(sub)}
        if race.plan is None:
            store.set_race_plan(race_id, plan)
        reference = store.submission(plan["reference"]) if plan["reference"] is not None else None
        agents = [sub] if reference is None else [sub, reference]
        made = store.create_runs(race_id, [(s, pid) for s in agents for pid in race.problem_ids])
        store.set_race_status(race_id, "running")
        self.arena._info(
            "qualifying.started",
            race_id=race_id,
            hotkey=sub.hotkey,
            submission_id=sub.id,
            reference=plan["reference"],
            problems=len(race.problem_ids),
            runs=made,
            block=block,
        )

    # --- decide

    def decide(self, race_id: str, scores: dict[str, dict[str, Any]], *, voided: bool = False) -> dict[str, Any]:
        """The qualification of a closed (or ``voided``) qualifying race's submission, from its scores keyed by
        submission id (as text; `validator.races.draw.race_scores` of its runs), stored; returns it as figures."""
        store = self.arena.store
        sub_id = int(race_id.rsplit("-", 2)[1])
        sub = store.submission(sub_id)
        race = store.race(race_id)
        assert sub is not None and race is not None
        mine = scores.get(str(sub_id))
        ref_id = (race.plan or {}).get("reference")
        reference = store.submission(ref_id) if ref_id is not None else None
        ref = scores.get(str(ref_id))
        leader_hotkey = reference.hotkey if reference is not None else None
        leader_score = float(ref["score"]) if ref is not None else None
        score = float(mine["score"]) if mine is not None else None
        status, reason = self._verdict(score, ref_id, leader_score, voided)
        store.decide_qualification(
            sub_id,
            self.pack_id,
            status=status,
            score=score if status != "void" else None,
            leader_hotkey=leader_hotkey,
            leader_score=leader_score,
            reason=reason,
        )
        figures = {
            "submission_id": sub_id,
            "hotkey": sub.hotkey,
            "status": status,
            "score": score,
            "leader_hotkey": leader_hotkey,
            "leader_score": leader_score,
            "reason": reason,
        }
        self.arena._info("qualifying.decided", race_id=race_id, **figures)
        return figures

    def _verdict(
        self, score: float | None, ref_id: int | None, leader_score: float | None, voided: bool
    ) -> tuple[str, str]:
        if score is None:
            return "void", "the validator failed every qualifying run; it qualifies again"
        if ref_id is None:
            return "passed", "no leader yet (no race closed, or it is this submission): every qualifying score passes"
        if leader_score is None and voided:
            return "void", "the validator failed every run of the leader's agent in this round; it qualifies again"
        if leader_score is None:
            return "passed", (
                "the leader's runs were all left out of this round (its own provider or key server failing, or a "
                "fault the node's own probe did not meet): no leader's score to measure against, it passes"
            )
        bar = self.share * leader_score
        status = "passed" if score >= bar else "failed"
        return status, (
            f"{score:.4f} {'>=' if status == 'passed' else '<'} {self.share:g} x {leader_score:.4f} "
            f"(the leader's score on the same fresh problems) = {bar:.4f}"
        )

    # --- gate

    def gate(self, subs: list[Any]) -> list[Any]:
        """The submissions that passed (all of them when the round is off)."""
        if not self.enabled:
            return subs
        passed = self.arena.store.passed(self.pack_id)
        return [s for s in subs if s.id in passed]

    def undecided_before(self, open_block: int, grace: float) -> str | None:
        """Why a race opening at `open_block` waits: candidates committed before it whose qualification is not
        decided yet (every validator must race the same qualified set). Waits at most `grace` seconds; for a submission
        whose round cannot open because its server does not answer the key request (under the payer ``miner``, asked
        again at every tick) at most `grace` seconds in all, not at every slot: one that never answers held every
        race back by `grace`, for ever."""
        if not self.enabled:
            return None
        first = self._waiting.setdefault(open_block, time.time())
        if time.time() - first > grace:
            return None
        known_by_sub = {q.submission_id: q for q in self.arena.store.qualifications(self.pack_id)}
        undecided = []
        for sub in self.arena.candidates(before_block=open_block):
            known = known_by_sub.get(sub.id)
            silent = self._unreachable.get(sub.id)
            if known is None and silent is not None and time.time() - silent > grace:
                continue  # its server has not answered the key request for longer than a slot waits: no more wait
            if known is None or known.status in {"running", "void"}:
                undecided.append(sub.hotkey)
        if not undecided:
            return None
        return (
            f"{len(undecided)} submission(s) committed before block {open_block} still qualifying; the race opens "
            f"once they are decided (at most {grace:g}s)"
        )
