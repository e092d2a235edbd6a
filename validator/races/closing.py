"""Closing: a race whose runs are all final gets its results (each miner's standing, ranked), and whatever waits
for a closed race (a results bundle to publish) is told. A race a validator fault keeps from a result waits for the
fault to clear, at most `fault_wait`, and is then voided: no results, no bundle, no weights (the last vector
stands); a validator's fault never closes a race with a miner's run missing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from arena import blame
from arena.ranking import ranked
from validator.qualifying import Qualifying
from validator.races.base import Problems, Signals
from validator.races.config import ArenaConfig
from validator.races.draw import race_scores
from validator.races.sampling import race_standings
from validator.races.stages import StageTimes
from validator.store.models import Run, utcnow
from validator.store.repository import Store


class Closing:
    """`close_races` and `final`. ``on_closed`` are called with each race (not a qualifying round) closed, once its
    results are stored (the place to publish a race's results); one that fails is logged, the race stays closed."""

    def __init__(
        self,
        *,
        store: Store,
        config: ArenaConfig,
        problems: Problems,
        qualifying: Qualifying,
        stages: StageTimes,
        signals: Signals,
    ) -> None:
        self.store, self.config, self.problems = store, config, problems
        self.qualifying, self.stages, self.signals = qualifying, stages, signals
        self.on_closed: list[Callable[[str], Any]] = []
        #: whether the fault behind a held race's runs (its code) still holds, by the node's own probe of what failed
        #: (its upstream LLM, its sandbox): (still down, what the probe saw); None: every fault is taken as the node's
        self.confirm: Callable[[int], tuple[bool, str]] | None = None
        #: held races whose runs get one more try, the fault not confirmed: each with the runs whose attempt was read
        #: as that last try (`last_try`)
        self._last_tries: dict[str, set[str]] = {}
        #: and the runs given that try, each with its attempt count then: a later attempt's failure, on whatever path
        #: it is recorded (one that never reads `last_try`: a key server not answering, a sandbox fault), is that try's
        self._given: dict[str, dict[str, int]] = {}

    def final(self, run: Run) -> bool:
        """Whether a run is final: finished, the agent's error, or its miner's provider dropped from the race (2012);
        any other validator's error is retried, never final."""
        ended = run.status == "errored" and (run.blame == "agent" or run.error_code == blame.PROVIDER_DROPPED)
        return run.status == "finished" or ended

    def close_races(self) -> list[str]:
        """Close every running race whose runs are all final; store its results. Returns the races closed.

        A race still running costs two aggregate queries per call (how many of its runs are not final, how many of
        them a validator fault holds: `hold`); its runs and scores are read once, in one query, when it closes."""
        started = self.stages.now()
        try:
            closed, raced = [], []
            for race in self.store.races(status="running", kind=None):
                if self.store.unfinal_runs(race.race_id, max_attempts=self.config.max_attempts) and not self.hold(race):
                    continue
                self._close(race)
                closed.append(race.race_id)
                raced += [race.race_id] if race.kind == "race" else []
        finally:
            self.stages.add("close", started)
        for race_id in raced:
            for hook in self.on_closed:
                try:
                    hook(race_id)
                except Exception as exc:  # noqa: BLE001 - the race is closed; what waits for it retries on its own
                    self.signals.error("races.on_closed_failed", race_id=race_id, error=f"{type(exc).__name__}: {exc}")
        return closed

    def hold(self, race: Any) -> bool:
        """A running race with runs a validator fault kept past their retry budget waits for the fault to clear (its
        `held_since` and the reason, one line, stored for health and the API); once the fault outlasts `fault_wait`
        the race is voided, if the node's own probe says the fault still holds (`confirm`). A race whose held runs
        all got their result waits no more. Returns True when the race is to close without its held runs: the probe
        found the node's upstream or sandbox well and those runs failed again after one more try (`_unconfirmed`)."""
        count, code, error = self.store.held_runs(race.race_id, max_attempts=self.config.max_attempts)
        if not count:
            if race.held_since is not None:
                self.store.set_race_held(race.race_id, None, None)
                self.signals.info("races.fault_cleared", race_id=race.race_id)
            return False
        if code is None and race.reason:  # its held runs are being tried again: the line of their last failure
            reason = race.reason
        else:
            what = f"{blame.lookup(code).name} ({code}): {error}" if code is not None else "a validator fault"
            reason = f"{count} run(s) past their retry budget on a validator fault, the latest {what}"[:500]
        now = utcnow()
        if race.held_since is None:
            self.store.set_race_held(race.race_id, now, reason)
            self.signals.warn("races.fault_wait", race_id=race.race_id, reason=reason, wait_s=self.config.fault_wait)
            return False
        waited = (now - race.held_since).total_seconds()
        if waited < self.config.fault_wait:
            if reason != race.reason:
                self.store.set_race_held(race.race_id, race.held_since, reason)
            self._try_again(race.race_id, now)
            return False
        if code is None:
            return False  # its held runs are being tried again: decided once they end
        if self.confirm is not None:
            down, seen = self.confirm(code)
            if not down:
                return self._unconfirmed(race, reason, seen, now)
        self._forget(race.race_id)
        self.void(race, f"voided: a validator fault outlasted the race's {self.config.fault_wait:g}s wait: {reason}")
        return False

    def _unconfirmed(self, race: Any, reason: str, seen: str, now: datetime) -> bool:
        """Past the wait, the node's probe finds what failed well (an agent can make its own runs fail so, e.g. by
        stalling the upstream LLM, and must not void a race with it): each held run gets one more try, its last
        (`last_try`); once every held run has failed its last try, the race closes without them (missing from their
        miner's score, never a zero). A held run whose failure was not read as its last try (it reached its retry
        budget after the race's last chance was given, or its attempt in flight then was recorded before the chance
        was) is put back for it, never closed without; the failure of the attempt it was given is that try's, on
        whatever path it was recorded (one that never reads `last_try`), so no held run is put back for ever."""
        tried = self._last_tries.get(race.race_id)
        if tried is None:
            self._last_tries[race.race_id] = set()
            runs = self.store.runs(race_id=race.race_id)
            self._given[race.race_id] = {r.run_id: r.attempt for r in runs if self._held(r)}
            self._try_again(race.race_id, now + timedelta(days=1))  # every held run, now
            self.signals.warn("races.fault_unconfirmed", race_id=race.race_id, reason=reason, probe=seen)
            return False
        held = [r for r in self.store.runs(race_id=race.race_id) if self._held(r)]
        if any(r.status != "errored" for r in held):
            return False  # some are still being tried
        given = self._given.setdefault(race.race_id, {})
        untried = [r for r in held if r.run_id not in tried and r.attempt <= given.get(r.run_id, r.attempt)]
        for run in untried:
            given[run.run_id] = run.attempt
            self.store.retry_later(run.run_id, delay=timedelta(0))
        if untried:
            self.signals.info("races.last_try", race_id=race.race_id, runs=len(untried))
            return False
        self._forget(race.race_id)
        why = (
            f"closed without {len(held)} run(s) that failed after the fault's wait while the node's probe found {seen}"
        )
        self.store.set_race_held(race.race_id, None, why[:500])
        self.signals.warn("races.closed_without", race_id=race.race_id, runs=len(held), reason=reason, probe=seen)
        return True

    def _forget(self, race_id: str) -> None:
        self._last_tries.pop(race_id, None)
        self._given.pop(race_id, None)

    def last_try(self, run: Run) -> bool:
        """Whether an attempt of ``run`` (as read before the attempt) is its last try after the node's probe found
        what failed well (its race given one more try by `_unconfirmed`): an upstream 5xx it meets while the upstream
        is seen well is then the agent's request's doing, and the run is scored as what it answered
        (`arena.verdict.choked`). Asked as the attempt is recorded; a yes is kept, so the race closes without a run
        only once its failure was read as its last try."""
        tried = self._last_tries.get(run.race_id)
        if tried is None or run.attempt < self.config.max_attempts:
            return False
        tried.add(run.run_id)
        return True

    def _held(self, run: Run) -> bool:
        """A run a validator fault keeps from a result past its retry budget (`Store.held_runs` in Python)."""
        limit = self.config.max_attempts
        return not self.final(run) and (run.attempt > limit or (run.attempt == limit and run.blame == "validator"))

    def _try_again(self, race_id: str, now: Any) -> None:
        """The race's runs past their retry budget, `fault_retry` seconds after each one's last failure, put back
        for one more attempt: the fault may have cleared."""
        for run in self.store.runs(race_id=race_id, status="errored"):
            if self.final(run) or run.attempt < self.config.max_attempts or run.errored_at is None:
                continue
            if (now - run.errored_at).total_seconds() >= self.config.fault_retry:
                self.store.retry_later(run.run_id, delay=timedelta(0))

    def void(self, race: Any, reason: str) -> None:
        """The race counts for nobody: voided with its reason, its runs not yet made ended 2010; no results, no
        bundle, no weights. A qualifying round voided is its submission's `void` qualification (it qualifies again)."""
        self.store.set_race_status(race.race_id, "voided", reason=reason)
        for run in self.store.runs(race_id=race.race_id, status="pending"):
            self.store.transition(
                run.run_id,
                "errored",
                error_code=blame.RACE_VOIDED,
                error="the race was voided before this run was made",
            )
        self.signals.warn("races.voided", race_id=race.race_id, reason=reason)
        if race.kind == "qualifying":
            self.qualifying.decide(race.race_id, {}, voided=True)

    def _close(self, race: Any) -> None:
        """A race's results: each miner's score (its standing over the rotation's window for a race), ranked; a
        qualifying race's decisions."""
        self._forget(race.race_id)
        rows = self.store.race_rows(race.race_id)
        for row in rows:
            row["task"] = getattr(self.problems.problem(row["problem_id"]), "task", "?")
        scores = race_scores(rows)
        uids = {m.hotkey: m.uid for m in self.store.miners()}
        blocks = {}
        for hotkey, s in scores.items():
            sub = self.store.submission(s["submission_id"])
            blocks[hotkey] = sub.commitment_block if sub else 0
        if race.kind == "race":  # the standing over the rotation's window, with how sure it is
            window = self.problems.pack.rotation.window
            for hotkey, standing in race_standings(self.store, race, rows, blocks, window).items():
                scores[hotkey].update(standing)
        order = ranked({h: s["score"] for h, s in scores.items()}, blocks)
        results = [
            {"hotkey": h, "uid": uids.get(h), "commitment_block": blocks[h], **scores[h], "rank": i + 1}
            for i, h in enumerate(order)
        ]
        self.store.save_race_results(race.race_id, results)
        if race.kind == "qualifying":  # the candidate against the leader: keyed by submission (one hotkey may be both)
            self.qualifying.decide(race.race_id, race_scores([{**r, "hotkey": str(r["submission_id"])} for r in rows]))
            return
        best = results[0]["hotkey"] if results else None
        self.signals.info("races.closed", race_id=race.race_id, miners=len(results), best=best)
