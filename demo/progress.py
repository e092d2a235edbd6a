"""What the demo's two validators are doing, a line per race stage on stdout while they race (step 5): the
submissions synced and checked, the qualifying rounds, the race opening at its slot, its runs dispatched, scored and
judged (x/N over both validators), the race closing, the pooling and the weights. Read from the nodes' stores and the
chain; the nodes' own log lines go to the demo's log file (or stderr as JSON lines with --log.json), so the terminal
shows these lines only."""

from __future__ import annotations

import time
from typing import Any

from arena.cliutil import out

#: the fewest seconds between two lines of one stage that moves on (a stage's first and last lines are said at once)
EVERY = 5.0
#: run statuses past each step of a run (`validator.store.moves`: pending, starting, running, scoring, judged, ...)
PAST = {
    "dispatched": {"starting", "running", "scoring", "judged", "finished", "errored"},
    "scored": {"judged", "finished", "errored"},
    "judged": {"finished", "errored"},
}
ENDED = {"closed", "cancelled", "voided"}


class RaceProgress:
    """Prints a line when a stage starts, moves on (at most every `every` seconds) or completes; `update` is cheap to
    call often (it reads the stores at most once a second)."""

    def __init__(
        self, stores: list[Any], names: tuple[str, ...], *, chain: Any = None, slot_block: int = 0, every: float = EVERY
    ) -> None:
        self.stores, self.names, self.chain, self.slot_block = stores, names, chain, slot_block
        self.every = every  # the fewest seconds between two lines of a stage that moves on
        self.started = self.read_at = time.monotonic()
        self.shown: dict[str, Any] = {}  # what each stage's line last said
        self.shown_at: dict[str, float] = {}
        self.say("start", 0, "syncing: both validators read the miners' commitments, fetch and check their bundles")

    def say(self, key: str, value: Any, text: str, *, final: bool = True) -> None:
        """Print `text` unless stage `key` last said `value`; a line that is not `final` waits `every` seconds after
        the stage's last one."""
        now = time.monotonic()
        if self.shown.get(key) == value or (key in self.shown and not final and now - self.shown_at[key] < self.every):
            return
        self.shown[key], self.shown_at[key] = value, now
        out.print(f"{now - self.started:5.0f} s  {text}", highlight=False, soft_wrap=True)

    def update(self, *, now: bool = False) -> None:
        """Read the stores (at most once a second, unless `now`) and print what changed."""
        if not now and time.monotonic() - self.read_at < 1.0:
            return
        self.read_at = time.monotonic()
        first = self.stores[0]
        statuses = [s.status for s in first.all_submissions()]
        if statuses:
            counted = ", ".join(f"{statuses.count(s)} {s}" for s in sorted(set(statuses)))
            self.say("submissions", counted, f"submissions: {counted}")
        qualifying = [s.races(kind="qualifying") for s in self.stores]
        self._runs("qualifying", "qualifying rounds: ", qualifying)
        races = [s.races() for s in self.stores]
        if not any(races) and self.chain is not None and self.slot_block:
            block = self.chain.block()
            if block < self.slot_block:
                self.say("slot", block, f"opening: the slot opens at block {self.slot_block} (block {block} now)")
            else:
                self.say(
                    "slot",
                    self.slot_block,
                    f"opening: the slot's block {self.slot_block} is out; the race opens once every submission "
                    "committed before it is checked and its qualifying round decided",
                )
        for name, found in zip(self.names, races, strict=True):
            if found:
                self.say(f"open {name}", found[-1].race_id, f"opening: {name} opened race {found[-1].race_id}")
        self._runs("race", "race: ", [found[-1:] for found in races])
        for name, store, found in zip(self.names, self.stores, races, strict=True):
            self._ending(name, store, found[-1] if found else None)

    def _ending(self, name: str, store: Any, race: Any) -> None:
        """A validator's race closing, its pooling and its weights."""
        if race is not None and race.status in ENDED:
            why = f" ({race.reason})" if race.status != "closed" and race.reason else ""
            self.say(f"close {name}", race.status, f"closing: {name}: race {race.status}{why}")
            pool = store.race_pool(race.race_id)
            if pool is not None:
                self.say(f"pool {name}", pool.status, f"pooling: {name}: {pool.status}")
        sets = store.weight_sets()
        if sets:
            self.say(f"weights {name}", sets[-1].status, f"weights: {name}: {sets[-1].status}")

    def _runs(self, key: str, prefix: str, races: list[list[Any]]) -> None:
        """One line for the runs of the validators' races: dispatched, scored and judged over both validators."""
        counts: dict[str, int] = {}
        for store, found in zip(self.stores, races, strict=True):
            for race in found:
                for status, n in store.count_runs(race.race_id).items():
                    counts[status] = counts.get(status, 0) + n
        total = sum(counts.values())
        if not total:
            return
        done = {step: sum(n for status, n in counts.items() if status in past) for step, past in PAST.items()}
        errored = f" ({counts['errored']} errored)" if counts.get("errored") else ""
        text = (
            f"{prefix}runs dispatched {done['dispatched']}/{total}, scoring {done['scored']}/{total}, "
            f"judging {done['judged']}/{total}{errored}"
        )
        self.say(key, (total, *done.values()), text, final=done["judged"] == total)
