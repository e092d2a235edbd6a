"""The node's own time per run, split by stage (`bench/race.py` prints it)."""

from __future__ import annotations

import time

#: How many upstream errors of one attempt are kept with the run (the first ones; the count is kept whole).
KEEP_UPSTREAM_ERRORS = 20

#: The node's own stages of a run, in order (`StageTimes`).
STAGES = ("staging", "gateway", "trajectory_write", "strict_scoring", "judge_wait", "judge", "close")


class StageTimes:
    """Where the node's own time goes, summed over the runs it handled: staging (the attempt's start and the agent's
    folder), gateway (opening and closing the run's gateway session, and the sandbox around the agent's own clock),
    trajectory write, strict scoring, judge wait (from the strict score to the judge taking the run), judge, close
    (the close job, every tick of it, ticks that close nothing included). `bench/race.py` prints them per run.

    Beside the wall time, the CPU time of the thread that did the stage, for the stages with no wait inside (not
    the gateway's, which spans the agent's run, nor the judge wait): steadier than wall time on a busy machine."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = dict.fromkeys(STAGES, 0.0)
        self.cpu: dict[str, float | None] = {
            stage: None if stage in {"gateway", "judge_wait"} else 0.0 for stage in STAGES
        }
        self.counts: dict[str, int] = dict.fromkeys(STAGES, 0)

    @staticmethod
    def now() -> tuple[float, float]:
        """A mark: (wall clock, this thread's CPU clock)."""
        return time.perf_counter(), time.thread_time()

    def add(self, stage: str, since: tuple[float, float], *, less: float = 0.0) -> tuple[float, float]:
        """Count the stage from the mark `since` to now (`less` seconds of someone else's time excluded from the
        wall time); returns now's mark, to start the next stage from."""
        until = self.now()
        self.seconds[stage] += max(until[0] - since[0] - less, 0.0)
        cpu = self.cpu[stage]
        if cpu is not None:
            self.cpu[stage] = cpu + max(until[1] - since[1], 0.0)
        self.counts[stage] += 1
        return until
