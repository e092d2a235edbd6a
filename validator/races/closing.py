"""Closing: a race whose runs are all final gets its results (each miner's standing, ranked), and whatever waits
for a closed race (a results bundle to publish) is told."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.ranking import ranked
from validator.qualifying import Qualifying
from validator.races.base import Problems, Signals
from validator.races.config import ArenaConfig
from validator.races.draw import race_scores
from validator.races.sampling import race_standings
from validator.races.stages import StageTimes
from validator.store.models import Run
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

    def final(self, run: Run) -> bool:
        """Whether a run is final: finished, the agent's error, or the validator's after its last attempt."""
        if run.status == "finished":
            return True
        return run.status == "errored" and (run.blame == "agent" or run.attempt >= self.config.max_attempts)

    def close_races(self) -> list[str]:
        """Close every running race whose runs are all final; store its results. Returns the races closed.

        A race still running costs one aggregate query per call (how many of its runs are not final); its runs and
        scores are read once, in one query, when it closes."""
        started = self.stages.now()
        try:
            closed, raced = [], []
            for race in self.store.races(status="running", kind=None):
                if not self.store.unfinal_runs(race.race_id, max_attempts=self.config.max_attempts):
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

    def _close(self, race: Any) -> None:
        """A race's results: each miner's score (its standing over the rotation's window for a race), ranked; a
        qualifying race's decisions."""
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
        if race.kind == "qualifying":
            self.qualifying.decide(race.race_id, scores)
            return
        best = results[0]["hotkey"] if results else None
        self.signals.info("races.closed", race_id=race.race_id, miners=len(results), best=best)
