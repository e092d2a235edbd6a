"""Old races' trajectories, archived then dropped (off by default: `--retention.trajectory_days` with
`--retention.archive`). Race by race: its runs' trajectories are appended to the archive (JSON Lines, one run a line)
and made durable (fsync) before the store drops them, so a pass cut short between the two leaves the race to the next
pass, which appends it again: a reader keeps the last line of each run id."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta

from validator.upkeep.sweeps import Freed, Grounds


def trajectories(grounds: Grounds) -> Freed:
    """Archive, then drop, the trajectory events of races ended over `trajectory_days` ago (none with a weight set
    still waiting to be sent). The runs, their scores and the race's results stay in the store."""
    freed = Freed("trajectories")
    days, archive = grounds.retention.trajectory_days, grounds.retention.archive
    if days is None or archive is None:
        return freed
    cutoff = datetime.fromtimestamp(grounds.now, UTC) - timedelta(days=days)
    for race_id in grounds.store.races_to_archive(cutoff):
        runs = grounds.store.race_trajectories(race_id)
        lines = [json.dumps(run, sort_keys=True, separators=(",", ":")) + "\n" for run in runs]
        freed.bytes += sum(len(line) for line in lines)
        freed.items.append(race_id)
        if grounds.dry_run:
            continue
        archive.parent.mkdir(parents=True, exist_ok=True)
        with open(archive, "a", encoding="utf-8") as fh:
            fh.writelines(lines)
            fh.flush()
            os.fsync(fh.fileno())
        grounds.store.drop_trajectories(race_id)
    return freed
